//! The `host` command line: subcommands, flags, and their validation into
//! [`experiments::Options`](crate::experiments::Options).

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use kernels_gpu::variants::{
    GemmFamily, GemmVariant, MemcpyVariant, BM, GEMM, MAX_REGS_PER_THREAD, MEMCPY, MIN_REG_CAP,
    REGS,
};

use crate::experiments::{
    CappedKernels, Experiment, Kernels, Options, DEFAULT_ITERS, DEFAULT_SAMPLES, DEFAULT_SEED,
};
use crate::tables::Format;
use crate::timing::TimingPlan;

/// Largest GEMM size accepted: the kernels index with 32-bit ints (M*K < 2^31).
pub const MAX_GEMM_SIZE: u32 = 32_768;
/// Largest copy buffer accepted, MiB.
pub const MAX_COPY_MIB: u64 = 1 << 20;

/// Occupancy lab: the seed blog's three experiments (occupancy vs throughput, bandwidth vs
/// occupancy, register pressure) on the GPU at hand, with the Rust-built kernels.
#[derive(Debug, Parser)]
#[command(name = "host", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Experiment 1: occupancy vs throughput (the SGEMM variants).
    Occupancy(OccupancyArgs),
    /// Experiment 2: bandwidth vs occupancy (strided copies held at 2 blocks/SM).
    Bandwidth(BandwidthArgs),
    /// Experiment 3: register pressure (one SGEMM variant under each register cap).
    Regs(RegsArgs),
    /// All three experiments.
    All(AllArgs),
    /// The device: name, compute capability, SMs, clocks, registers and shared memory, L2, and
    /// the spec peaks behind the percentage columns.
    Info(InfoArgs),
    /// Occupancy calculator (no kernel runs).
    Calc(crate::occupancy::cli::CalcArgs),
    /// Report (plots and verdicts) from results folders.
    Report(crate::report::ReportArgs),
}

/// Flags every experiment takes.
#[derive(Debug, Clone, Args)]
pub struct Common {
    /// CUDA device ordinal.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: u32,
    /// Launches per timed sample (the blog: 50).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_ITERS,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub iters: u32,
    /// Timed samples per figure; the median is reported with min and max.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SAMPLES,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub samples: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write results.json, tables.md, one CSV per experiment and the report (report.md,
    /// plots, the occupancy calculator's curves for this GPU) into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
}

/// `--size`, for the experiments that run the GEMM.
#[derive(Debug, Clone, Args)]
pub struct GemmSize {
    /// GEMM M = N = K: a multiple of 64 in 64..=32768.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = parse_gemm_size)]
    pub size: u32,
}

/// `--module` and `--compare` as PTX or cubin files (experiments 1 and 2 on their own).
#[derive(Debug, Clone, Args)]
pub struct ModuleFiles {
    /// Run these kernels instead of the built-in ones: any PTX or cubin exporting the entries.
    #[arg(long, value_name = "FILE")]
    pub module: Option<PathBuf>,
    /// Also run this module's kernels, timed with ours (samples interleaved), and compare.
    #[arg(long, value_name = "FILE")]
    pub compare: Option<PathBuf>,
}

impl ModuleFiles {
    /// Checks the files and puts them into `o`.
    fn apply(&self, o: &mut Options) -> Result<(), CliError> {
        apply_module_files(o, &self.module, &self.compare)
    }
}

#[derive(Debug, Clone, Args)]
pub struct OccupancyArgs {
    #[command(flatten)]
    pub common: Common,
    /// GEMM variants to run, by label (comma-separated); default all.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub variants: Vec<String>,
    #[command(flatten)]
    pub gemm: GemmSize,
    #[command(flatten)]
    pub modules: ModuleFiles,
}

#[derive(Debug, Clone, Args)]
pub struct BandwidthArgs {
    #[command(flatten)]
    pub common: Common,
    /// memcpy variants to run, by label (comma-separated); default all.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub variants: Vec<String>,
    /// Size of the copy's source (and destination) in MiB: 1..=1048576 (default 1 GiB).
    #[arg(long, value_name = "MIB", default_value_t = 1024,
          value_parser = clap::value_parser!(u64).range(1..=MAX_COPY_MIB))]
    pub copy_mib: u64,
    #[command(flatten)]
    pub modules: ModuleFiles,
}

#[derive(Debug, Clone, Args)]
pub struct RegsArgs {
    #[command(flatten)]
    pub common: Common,
    /// Register caps (comma-separated, each in 16..=255); default the table's.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_cap)]
    pub caps: Vec<u32>,
    #[command(flatten)]
    pub gemm: GemmSize,
    /// A folder of per-cap modules (PTX or cubin) whose names contain `cap{N}`, e.g.
    /// peer_cap32.cubin; a `NAME.ptxas.txt` beside a cubin gives its spills.
    #[arg(long, value_name = "DIR")]
    pub module: Option<PathBuf>,
    /// Also run this folder's per-cap modules, timed with ours (samples interleaved), and compare.
    #[arg(long, value_name = "DIR")]
    pub compare: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct AllArgs {
    #[command(flatten)]
    pub common: Common,
    /// GEMM and memcpy variants to run, by label (comma-separated); default all.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub variants: Vec<String>,
    /// Register caps of experiment 3 (comma-separated, each in 16..=255).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_cap)]
    pub caps: Vec<u32>,
    #[command(flatten)]
    pub gemm: GemmSize,
    /// Size of the copy's source (and destination) in MiB: 1..=1048576.
    #[arg(long, value_name = "MIB", default_value_t = 1024,
          value_parser = clap::value_parser!(u64).range(1..=MAX_COPY_MIB))]
    pub copy_mib: u64,
    /// Module for experiments 1 and 2 (PTX or cubin).
    #[arg(long, value_name = "FILE")]
    pub module: Option<PathBuf>,
    /// Module to compare against in experiments 1 and 2.
    #[arg(long, value_name = "FILE")]
    pub compare: Option<PathBuf>,
    /// Folder of per-cap modules for experiment 3.
    #[arg(long, value_name = "DIR")]
    pub module_caps: Option<PathBuf>,
    /// Folder of per-cap modules to compare against in experiment 3.
    #[arg(long, value_name = "DIR")]
    pub compare_caps: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct InfoArgs {
    /// CUDA device ordinal.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// A flag value that parses but does not make sense.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CliError {
    #[error("--variants: unknown {kind} variant `{label}`; valid: {valid}")]
    UnknownVariant {
        kind: &'static str,
        label: String,
        valid: String,
    },
    #[error("--variants: `{0}` is listed twice")]
    DuplicateVariant(String),
    #[error("--caps: cap {0} is listed twice")]
    DuplicateCap(u32),
    #[error("{flag}: {path} does not exist")]
    MissingPath { flag: &'static str, path: PathBuf },
    #[error("{flag}: {path} is a folder; expected a PTX or cubin file")]
    NotAFile { flag: &'static str, path: PathBuf },
    #[error("{flag}: {path} is not a folder; expected a folder of per-cap modules (e.g. peer_cap32.cubin)")]
    NotAFolder { flag: &'static str, path: PathBuf },
}

/// `--size`: M = N = K must tile by the 64x64 block tile.
pub fn parse_gemm_size(s: &str) -> Result<u32, String> {
    let n: u32 = s.trim().parse().map_err(|_| {
        format!("`{s}` is not a whole number; valid: a multiple of {BM} in {BM}..={MAX_GEMM_SIZE}")
    })?;
    if !(BM..=MAX_GEMM_SIZE).contains(&n) || !n.is_multiple_of(BM) {
        return Err(format!(
            "{n} does not tile: M = N = K must be a multiple of {BM} (the block tile) in \
             {BM}..={MAX_GEMM_SIZE}, e.g. {}",
            (n / BM).clamp(1, MAX_GEMM_SIZE / BM) * BM
        ));
    }
    Ok(n)
}

/// `--caps`: one register cap.
pub fn parse_cap(s: &str) -> Result<u32, String> {
    let n: u32 = s.trim().parse().map_err(|_| {
        format!("`{s}` is not a whole number; valid caps: {MIN_REG_CAP}..={MAX_REGS_PER_THREAD}")
    })?;
    if !(MIN_REG_CAP..=MAX_REGS_PER_THREAD).contains(&n) {
        return Err(format!(
            "{n} is outside the register caps ptxas accepts: {MIN_REG_CAP}..={MAX_REGS_PER_THREAD}"
        ));
    }
    Ok(n)
}

fn labels<T>(table: &[T], label: impl Fn(&T) -> &str) -> String {
    table.iter().map(label).collect::<Vec<_>>().join(", ")
}

/// The GEMM variants named in `list` (all when empty), in table order. The host launches the
/// seed family only (grid N/64 x M/64, no dynamic shared memory); tuned lines are built and
/// checked by xtask until the host learns their launch (`GemmVariant::grid`,
/// `dynamic_shared_bytes`).
pub fn select_gemm(list: &[String]) -> Result<Vec<&'static GemmVariant>, CliError> {
    let chosen = select(list, GEMM, |v| v.label, "GEMM")?;
    let seed = |v: &&GemmVariant| v.family == GemmFamily::Seed;
    if let Some(tuned) = chosen.iter().find(|v| !list.is_empty() && !seed(v)) {
        return Err(CliError::UnknownVariant {
            kind: "seed-family GEMM",
            label: tuned.label.to_owned(),
            valid: GEMM
                .iter()
                .filter(seed)
                .map(|v| v.label)
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    Ok(chosen.into_iter().filter(seed).collect())
}

/// The memcpy variants named in `list` (all when empty), in table order.
pub fn select_memcpy(list: &[String]) -> Result<Vec<&'static MemcpyVariant>, CliError> {
    select(list, MEMCPY, |v| v.label, "memcpy")
}

/// Splits a mixed list (`all --variants`) into GEMM and memcpy variants. An empty list selects
/// everything; a list naming only one kind selects all of the other kind.
pub fn select_mixed(
    list: &[String],
) -> Result<(Vec<&'static GemmVariant>, Vec<&'static MemcpyVariant>), CliError> {
    let is_gemm = |l: &String| GEMM.iter().any(|v| v.label == l);
    let is_copy = |l: &String| MEMCPY.iter().any(|v| v.label == l);
    if let Some(bad) = list.iter().find(|l| !is_gemm(l) && !is_copy(l)) {
        return Err(CliError::UnknownVariant {
            kind: "GEMM or memcpy",
            label: bad.clone(),
            valid: format!(
                "GEMM {}; memcpy {}",
                labels(GEMM, |v| v.label),
                labels(MEMCPY, |v| v.label)
            ),
        });
    }
    let gemm: Vec<String> = list.iter().filter(|l| is_gemm(l)).cloned().collect();
    let copy: Vec<String> = list.iter().filter(|l| is_copy(l)).cloned().collect();
    Ok((select_gemm(&gemm)?, select_memcpy(&copy)?))
}

fn select<T>(
    list: &[String],
    table: &'static [T],
    label: impl Fn(&T) -> &str + Copy,
    kind: &'static str,
) -> Result<Vec<&'static T>, CliError> {
    let list: Vec<&str> = list
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    if list.is_empty() {
        return Ok(table.iter().collect());
    }
    for (i, l) in list.iter().enumerate() {
        if !table.iter().any(|v| label(v) == *l) {
            return Err(CliError::UnknownVariant {
                kind,
                label: (*l).to_owned(),
                valid: labels(table, label),
            });
        }
        if list[..i].contains(l) {
            return Err(CliError::DuplicateVariant((*l).to_owned()));
        }
    }
    Ok(table.iter().filter(|v| list.contains(&label(v))).collect())
}

fn select_caps(caps: &[u32]) -> Result<Vec<u32>, CliError> {
    if caps.is_empty() {
        return Ok(REGS.caps.to_vec());
    }
    for (i, c) in caps.iter().enumerate() {
        if caps[..i].contains(c) {
            return Err(CliError::DuplicateCap(*c));
        }
    }
    Ok(caps.to_vec())
}

fn module_file(flag: &'static str, path: &Option<PathBuf>) -> Result<Option<Kernels>, CliError> {
    let Some(path) = path else { return Ok(None) };
    check_exists(flag, path)?;
    if path.is_dir() {
        return Err(CliError::NotAFile {
            flag,
            path: path.clone(),
        });
    }
    Ok(Some(Kernels::File(path.clone())))
}

/// `--module` and `--compare` files (checked) into `o`; no `--module` keeps the built-in kernels.
fn apply_module_files(
    o: &mut Options,
    module: &Option<PathBuf>,
    compare: &Option<PathBuf>,
) -> Result<(), CliError> {
    o.kernels = module_file("--module", module)?.unwrap_or(Kernels::Builtin);
    o.compare = module_file("--compare", compare)?;
    Ok(())
}

fn module_folder(
    flag: &'static str,
    path: &Option<PathBuf>,
) -> Result<Option<CappedKernels>, CliError> {
    let Some(path) = path else { return Ok(None) };
    check_exists(flag, path)?;
    if !path.is_dir() {
        return Err(CliError::NotAFolder {
            flag,
            path: path.clone(),
        });
    }
    Ok(Some(CappedKernels::Folder(path.clone())))
}

fn check_exists(flag: &'static str, path: &Path) -> Result<(), CliError> {
    if path.exists() {
        Ok(())
    } else {
        Err(CliError::MissingPath {
            flag,
            path: path.to_owned(),
        })
    }
}

/// What an experiment subcommand asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub options: Options,
    pub experiments: Vec<Experiment>,
    pub format: Format,
    pub out: Option<PathBuf>,
}

fn base_options(common: &Common, command: &str) -> Options {
    let mut o = Options::new(command);
    o.device = common.device;
    o.timing = TimingPlan {
        iters: common.iters,
        samples: common.samples,
    };
    o.seed = common.seed;
    o
}

fn plan(common: &Common, options: Options, experiments: Vec<Experiment>) -> Plan {
    Plan {
        options,
        experiments,
        format: common.format,
        out: common.out.clone(),
    }
}

impl Command {
    /// Validates an experiment subcommand into a [`Plan`]; `None` for `info`, `calc` and `report`.
    pub fn plan(&self, command_line: &str) -> Result<Option<Plan>, CliError> {
        Ok(Some(match self {
            Command::Occupancy(a) => {
                let mut o = base_options(&a.common, command_line);
                o.gemm_variants = select_gemm(&a.variants)?;
                o.gemm_size = a.gemm.size;
                a.modules.apply(&mut o)?;
                plan(&a.common, o, vec![Experiment::Throughput])
            }
            Command::Bandwidth(a) => {
                let mut o = base_options(&a.common, command_line);
                o.copy_variants = select_memcpy(&a.variants)?;
                o.copy_bytes = a.copy_mib << 20;
                a.modules.apply(&mut o)?;
                plan(&a.common, o, vec![Experiment::Bandwidth])
            }
            Command::Regs(a) => {
                let mut o = base_options(&a.common, command_line);
                o.caps = select_caps(&a.caps)?;
                o.gemm_size = a.gemm.size;
                o.capped = module_folder("--module", &a.module)?.unwrap_or(CappedKernels::Builtin);
                o.compare_capped = module_folder("--compare", &a.compare)?;
                plan(&a.common, o, vec![Experiment::Regs])
            }
            Command::All(a) => {
                let mut o = base_options(&a.common, command_line);
                (o.gemm_variants, o.copy_variants) = select_mixed(&a.variants)?;
                o.caps = select_caps(&a.caps)?;
                o.gemm_size = a.gemm.size;
                o.copy_bytes = a.copy_mib << 20;
                apply_module_files(&mut o, &a.module, &a.compare)?;
                o.capped = module_folder("--module-caps", &a.module_caps)?
                    .unwrap_or(CappedKernels::Builtin);
                o.compare_capped = module_folder("--compare-caps", &a.compare_caps)?;
                plan(&a.common, o, Experiment::ALL.to_vec())
            }
            Command::Info(_) | Command::Calc(_) | Command::Report(_) => return Ok(None),
        }))
    }
}

/// The command line as typed, arguments with spaces quoted.
pub fn command_line(args: impl IntoIterator<Item = String>) -> String {
    args.into_iter()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
