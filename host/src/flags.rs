//! The flags the experiments share and the checks every flag and file gets before any GPU work:
//! register caps, sizes and labels in range, module files ([`crate::kernel_source::module_file`]) and `--out`
//! ([`crate::out_dir`]). Each experiment's own flags (its `Args`) live in its folder and are
//! built from these.

use std::path::{Path, PathBuf};

use clap::Args;
use kernels_gpu::variants::{GemmVariant, MAX_REGS_PER_THREAD, MIN_REG_CAP};

use crate::flag_values::{parse_list_item, shown, whole};
use crate::kernel_source::module_file::ModuleFileError;
pub use crate::results::GemmDims;
use crate::sampling::SamplingArgs;
use crate::table::Format;

/// Largest GEMM dimension accepted: the kernels index with 32-bit ints (M*K < 2^31).
pub const MAX_GEMM_SIZE: u32 = 32_768;
/// Largest copy buffer accepted, MiB.
pub const MAX_COPY_MIB: u64 = 1 << 20;
/// GEMM M = N = K unless `--size` says otherwise.
pub const DEFAULT_GEMM_SIZE: u32 = 4096;
/// Copy buffer (each of source and destination), MiB: 1 GiB, several times any current L2.
pub const DEFAULT_COPY_MIB: u64 = 1024;
/// Seed of the random inputs.
pub const DEFAULT_SEED: u64 = 0x0CC_u64 << 32 | 2010;

/// Flags every experiment takes.
#[derive(Debug, Clone, Args)]
pub struct Common {
    /// CUDA device ordinal.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = whole(0u32..=1023))]
    pub device: u32,
    /// How each figure is timed: to a noise target by default, or a fixed plan.
    #[command(flatten)]
    pub sampling: SamplingArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write results.json, tables.md, one CSV per experiment and the report (report.md,
    /// plots, the occupancy calculator's curves for this GPU) into DIR, each experiment as soon
    /// as it finishes. DIR must be new or empty: a folder holding another run's results.json, or
    /// other files, is refused (see --force). It is checked once every other flag and file has
    /// passed its checks, created when the run starts (the device open), and removed again if
    /// the run leaves it empty.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write into --out even when it holds another run (every file of it the new run does not
    /// write again is removed) or other files (they are left beside the new ones).
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = DEFAULT_SEED, value_parser = whole(0u64..=u64::MAX))]
    pub seed: u64,
    /// The longest any wait for the GPU may take, seconds: a kernel that never completes ends
    /// the run after this long, what finished written (exit code 4).
    #[arg(long, value_name = "SECONDS",
          default_value_t = crate::cuda::deadline::DEFAULT_LAUNCH_TIMEOUT.as_secs(),
          value_parser = whole(1u64..=86_400))]
    pub launch_timeout: u64,
    /// Go on with a run after a kernel's fault, from the state in FILE: the host runs itself so
    /// (a fault loses the GPU's context for the rest of a process).
    #[arg(long, value_name = "FILE", hide = true)]
    pub resume: Option<PathBuf>,
    /// Check every flag and file (--out too, by creating it and removing it again when it was
    /// new), then exit without touching the GPU.
    #[arg(long)]
    pub check_only: bool,
}

/// `--size`, for the experiments that run the GEMM.
#[derive(Debug, Clone, Args)]
pub struct GemmSize {
    /// GEMM size: N (M = N = K) or MxNxK (e.g. 2048x8192x1024), each in 1..=32768. The seed
    /// variants need multiples of 64; the tuned ones take any size.
    #[arg(long, value_name = "N|MxNxK", default_value_t = GemmDims::square(DEFAULT_GEMM_SIZE),
          value_parser = parse_gemm_dims)]
    pub size: GemmDims,
}

/// `--copy-mib`, for the experiments that copy.
#[derive(Debug, Clone, Args)]
pub struct CopySize {
    /// Size of the copy's source (and destination) in MiB: 1..=1048576 (default 1 GiB).
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_COPY_MIB,
          value_parser = whole(1u64..=MAX_COPY_MIB))]
    pub copy_mib: u64,
}

/// `--module`, `--compare` and `--compare-label` as PTX, cubin or fatbin files.
#[derive(Debug, Clone, Args)]
pub struct ModuleFiles {
    /// Run these kernels instead of the built-in ones: any PTX, cubin or fatbin exporting the
    /// entries. Rows that need sm_90a (gemm_bf16's wgmma lines, mma's wgmma table, inflight's
    /// bulk copies) run the built-in sm_90a module, and inflight's latency chase the built-in one
    /// where the file has none.
    #[arg(long, value_name = "FILE")]
    pub module: Option<PathBuf>,
    /// Also run this module's kernels, timed with ours (samples interleaved), and compare.
    #[arg(long, value_name = "FILE")]
    pub compare: Option<PathBuf>,
    /// Name of the compared module in tables, plots and legends (default: the file's stem).
    #[arg(long, value_name = "NAME", requires = "compare", value_parser = parse_label)]
    pub compare_label: Option<String>,
}

/// The flags of an experiment that runs its table's variants at a size, with or without another
/// module: `--variants`, the size's flags (`S`), and `--module`, `--compare`, `--compare-label`.
#[derive(Debug, Clone, Args)]
#[group(skip)]
pub struct VariantRun<S: Args> {
    /// Variants to run, by label (comma-separated; listed below); default all.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub variants: Vec<String>,
    #[command(flatten)]
    pub size: S,
    #[command(flatten)]
    pub modules: ModuleFiles,
}

/// A GEMM experiment's own subcommand flags: which lines of its table, the size, the modules, and
/// whether cuBLAS is timed beside them. `host all` reads the same flags as [`Shared`].
#[derive(Debug, Clone, Args)]
#[group(skip)]
pub struct GemmRun {
    /// Lines to run, by label (comma-separated; the labels are listed below); default all.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub variants: Vec<String>,
    #[command(flatten)]
    pub gemm: GemmSize,
    #[command(flatten)]
    pub modules: ModuleFiles,
    /// Do not time cuBLAS's GEMM of the same element type beside the lines.
    #[arg(long)]
    pub no_cublas: bool,
    /// After the timing, measure energy from NVML's counter: every line timed that passed its
    /// checks, and cuBLAS, each
    /// alone in 3 alternating windows of 1 s (J per GEMM, GFLOP/J, the SM clock over each
    /// window, and the ratios against cuBLAS per second, per clock and per joule).
    #[arg(long)]
    pub energy: bool,
}

/// The flags of `host all` that several experiments read: a [`GemmRun`] told as it serves every
/// experiment. `--variants` mixes the experiments' labels and refuses an empty item when parsed;
/// `--module`, `--compare` and `--compare-label` are the one-file experiments' [`ModuleFiles`];
/// the label goes with either compared source (`--compare`, `--compare-caps`).
#[derive(Debug, Clone, Args)]
#[command(mut_arg("variants", |a| a.value_parser(parse_list_item).help(
    "Variants to run, by label, of any experiment (comma-separated); an experiment none of \
    whose labels is listed runs all of its variants. An empty list or item is refused")))]
#[command(mut_arg("no_cublas", |a| a.help(
    "The GEMM experiments (occupancy, gemm_bf16, shapes): do not time cuBLAS beside the lines")))]
#[command(mut_arg("energy", |a| a.help(
    "The GEMM experiments: measure the energy of every line timed that passed its checks. Without it `host all` measures \
    the headline sides only (each experiment's fastest verified line of each kind, and cuBLAS: \
    3 windows of 1 s each)")))]
#[command(mut_arg("module", |a| a.help(
    "Module for the experiments that take one file (PTX, cubin or fatbin)")))]
#[command(mut_arg("compare", |a| a.help(
    "Module to compare against in the experiments that take one file")))]
#[command(mut_arg("compare_label", |a| a
    .requires(clap::builder::Resettable::Reset)
    .requires("compared")
    .help("Name of the compared modules in tables, plots and legends (default: the stem of \
        --compare, else of --compare-caps); only with one of them")))]
pub struct Shared {
    #[command(flatten)]
    pub run: GemmRun,
}

impl Shared {
    /// `--module`, `--compare` and `--compare-label` as the experiments that take one file
    /// read them.
    pub fn module_files(&self) -> ModuleFiles {
        self.run.modules.clone()
    }
}

/// Something the user gave is wrong and nothing ran (exit code 2): a message for the commands
/// whose checks are not [`CliError`]s (`calc`, `report`).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A flag value that parses but does not make sense, or a file that is not what it should be.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CliError {
    #[error("--variants: unknown {kind} variant `{label}`; valid: {valid}")]
    UnknownVariant {
        kind: &'static str,
        label: String,
        valid: String,
    },
    #[error("--variant: unknown GEMM line `{label}`; valid: {valid}")]
    UnknownLine { label: String, valid: String },
    #[error("--variants: `{0}` is listed twice")]
    DuplicateVariant(String),
    #[error("--caps: cap {0} is listed twice")]
    DuplicateCap(u32),
    #[error(
        "--caps: the built-in kernels have no module for register cap {cap}; built-in caps: \
         {available} (give a folder of per-cap modules with --module for other caps)"
    )]
    NoBuiltinCap { cap: u32, available: String },
    /// A `--module`/`--compare` file or folder that is not what it should be.
    #[error(transparent)]
    ModuleFile(#[from] ModuleFileError),
    #[error("{flag}: {reason}")]
    CapFolder { flag: &'static str, reason: String },
    #[error("{flag}: {path} {reason}")]
    Out {
        flag: &'static str,
        path: PathBuf,
        reason: String,
    },
    #[error("{0}")]
    Flag(String),
    #[error(
        "--size {dims}: {dims} does not tile for the seed variant(s) {variants} of {experiment}: \
         their M, N and K must each be a multiple of {multiple} in {multiple}..={MAX_GEMM_SIZE} \
         (e.g. {suggestion}){hint}"
    )]
    SizeDoesNotTile {
        dims: GemmDims,
        experiment: String,
        variants: String,
        multiple: u32,
        suggestion: GemmDims,
        /// What else the user can do (e.g. the tuned variants' labels).
        hint: String,
    },
}

/// `--size`: `N` (M = N = K) or `MxNxK`, each in 1..=[`MAX_GEMM_SIZE`]. Whether the size tiles
/// for the variants asked for is checked with them ([`check_tiling`]).
pub fn parse_gemm_dims(s: &str) -> Result<GemmDims, String> {
    let parts: Vec<&str> = s.trim().split(['x', 'X']).map(str::trim).collect();
    let valid = format!("N or MxNxK (e.g. 2048x8192x1024), each in 1..={MAX_GEMM_SIZE}");
    let nums: Vec<u32> = parts
        .iter()
        .map(|p| p.parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("`{}` is not a GEMM size; valid: {valid}", shown(s)))?;
    let dims = match nums[..] {
        [n] => GemmDims::square(n),
        [m, n, k] => GemmDims { m, n, k },
        _ => {
            return Err(format!(
                "`{}` has {} numbers; valid: {valid}",
                shown(s),
                nums.len()
            ))
        }
    };
    if let Some(bad) = [dims.m, dims.n, dims.k]
        .into_iter()
        .find(|d| !(1..=MAX_GEMM_SIZE).contains(d))
    {
        return Err(format!("{bad} is out of range; valid: {valid}"));
    }
    Ok(dims)
}

/// Refuses a size that some of the GEMM `variants` an experiment would run cannot tile (the seed
/// family needs multiples of 64), naming them; `hint` says what else to do.
pub fn check_tiling(
    dims: GemmDims,
    experiment: &str,
    variants: &[&GemmVariant],
    hint: impl FnOnce() -> String,
) -> Result<(), CliError> {
    let Some(multiple) = variants.iter().filter_map(|v| v.size_multiple()).max() else {
        return Ok(());
    };
    let stuck: Vec<&str> = variants
        .iter()
        .filter(|v| v.size_multiple().is_some_and(|m| !dims.tiles_by(m)))
        .map(|v| v.label)
        .collect();
    if stuck.is_empty() {
        return Ok(());
    }
    let round = |d: u32| (d / multiple).clamp(1, MAX_GEMM_SIZE / multiple) * multiple;
    let suggestion = GemmDims {
        m: round(dims.m),
        n: round(dims.n),
        k: round(dims.k),
    };
    Err(CliError::SizeDoesNotTile {
        dims,
        experiment: experiment.to_owned(),
        variants: stuck.join(", "),
        multiple,
        suggestion,
        hint: hint(),
    })
}

/// `--caps`: one register cap.
pub fn parse_cap(s: &str) -> Result<u32, String> {
    let n: u32 = s.trim().parse().map_err(|_| {
        format!(
            "`{}` is not a whole number; valid caps: {MIN_REG_CAP}..={MAX_REGS_PER_THREAD}",
            shown(s)
        )
    })?;
    if !(MIN_REG_CAP..=MAX_REGS_PER_THREAD).contains(&n) {
        return Err(format!(
            "{n} is outside the register caps ptxas accepts: {MIN_REG_CAP}..={MAX_REGS_PER_THREAD}"
        ));
    }
    Ok(n)
}

/// `--compare-label`: a short name, printable, no line breaks.
pub fn parse_label(s: &str) -> Result<String, String> {
    let t = s.trim();
    if t.is_empty() || t.len() > 64 || t.chars().any(char::is_control) {
        return Err(format!(
            "`{}` is not a label: 1 to 64 printable characters",
            shown(s)
        ));
    }
    Ok(t.to_owned())
}

/// The label of a compared module: the one given, else the file's (or folder's) stem.
pub fn default_label(given: &Option<String>, path: &Path) -> String {
    given.clone().unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| path.display().to_string())
    })
}

/// The entries of `table` named in `list` (all when the flag was not given), in table order. An
/// empty item (`--variants ""`, `S,,A`) is refused, not read as "all".
pub fn select<T>(
    list: &[String],
    table: &'static [T],
    label: impl Fn(&T) -> &str + Copy,
    kind: &'static str,
) -> Result<Vec<&'static T>, CliError> {
    let list: Vec<&str> = list.iter().map(|s| s.trim()).collect();
    if list.iter().any(|s| s.is_empty()) {
        return Err(CliError::Flag(format!(
            "--variants: {}",
            parse_list_item("").unwrap_err()
        )));
    }
    if list.is_empty() {
        return Ok(table.iter().collect());
    }
    for (i, l) in list.iter().enumerate() {
        if !table.iter().any(|v| label(v) == *l) {
            return Err(CliError::UnknownVariant {
                kind,
                label: shown(l),
                valid: table.iter().map(label).collect::<Vec<_>>().join(", "),
            });
        }
        if list[..i].contains(l) {
            return Err(CliError::DuplicateVariant((*l).to_owned()));
        }
    }
    Ok(table.iter().filter(|v| list.contains(&label(v))).collect())
}

/// `all --variants`: every label must belong to some experiment; `per_experiment` lists each
/// experiment's labels, for the message.
pub fn check_mixed_labels(
    list: &[String],
    known: &[&str],
    per_experiment: &[(&str, Vec<&str>)],
) -> Result<(), CliError> {
    if let Some(bad) = list
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !known.contains(l))
    {
        return Err(CliError::UnknownVariant {
            kind: "experiment",
            label: bad.to_owned(),
            valid: per_experiment
                .iter()
                .filter(|(_, l)| !l.is_empty())
                .map(|(name, l)| format!("{name} {}", l.join(", ")))
                .collect::<Vec<_>>()
                .join("; "),
        });
    }
    Ok(())
}

/// The labels of `list` that belong to `table` (for `all --variants`, which mixes experiments).
pub fn own_labels(list: &[String], own: &[&str]) -> Vec<String> {
    list.iter()
        .filter(|l| own.contains(&l.trim()))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_gpu::variants::{find_gemm, GEMM};

    #[test]
    fn a_size_is_n_or_m_x_n_x_k() {
        assert_eq!(parse_gemm_dims("4096"), Ok(GemmDims::square(4096)));
        let mnk = |s: &str| parse_gemm_dims(s).map(|d| (d.m, d.n, d.k));
        assert_eq!(mnk(" 2048x8192x1024 "), Ok((2048, 8192, 1024)));
        assert_eq!(mnk("3X5X7"), Ok((3, 5, 7)));
        // Any size >= 1 parses; whether it tiles is the variants' business.
        assert_eq!(parse_gemm_dims("1000"), Ok(GemmDims::square(1000)));
        assert_eq!(parse_gemm_dims("1x1x1"), Ok(GemmDims::square(1)));
    }

    #[test]
    fn malformed_or_out_of_range_sizes_are_refused_with_the_valid_forms() {
        for bad in [
            "",
            "x",
            "64x64",
            "64x64x64x64",
            "1e3",
            "-64",
            "64x0x64",
            "64xx64",
        ] {
            let e = parse_gemm_dims(bad).expect_err(bad);
            assert!(e.contains("N or MxNxK"), "{bad}: {e}");
        }
        let e = parse_gemm_dims("64x32769x64").unwrap_err();
        assert!(e.starts_with("32769 is out of range"), "{e}");
        let e = parse_gemm_dims("0").unwrap_err();
        assert!(e.starts_with("0 is out of range"), "{e}");
    }

    #[test]
    fn sizes_print_as_they_are_given() {
        assert_eq!(GemmDims::square(4096).to_string(), "4096");
        let d = parse_gemm_dims("2048x8192x1024").unwrap();
        assert_eq!(d.to_string(), "2048x8192x1024");
        assert_eq!(d.flops(), 2.0 * 2048.0 * 8192.0 * 1024.0);
    }

    #[test]
    fn the_seed_variants_refuse_a_size_that_does_not_tile_naming_themselves() {
        let all: Vec<&GemmVariant> = GEMM.iter().collect();
        let dims = parse_gemm_dims("2048x8192x1000").unwrap();
        let e = check_tiling(dims, "occupancy", &all, || "; try R".into()).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("S, A1, A, B, C, D, D+")
                && !text.contains("R1")
                && text.contains("multiple of 64")
                && text.contains("e.g. 2048x8192x960")
                && text.ends_with("; try R"),
            "{text}"
        );
        // Tiling sizes pass, and the tuned family takes anything.
        assert!(check_tiling(GemmDims::square(4096), "x", &all, String::new).is_ok());
        let tuned: Vec<&GemmVariant> = GEMM
            .iter()
            .filter(|v| v.size_multiple().is_none())
            .collect();
        assert!(!tuned.is_empty());
        for size in ["1", "1x1x1", "333x250x77", "32768x1x7"] {
            let d = parse_gemm_dims(size).unwrap();
            assert!(check_tiling(d, "x", &tuned, String::new).is_ok(), "{size}");
        }
        // One seed variant among tuned ones is named alone.
        let mixed = [
            find_gemm(GEMM, "C").unwrap(),
            find_gemm(GEMM, "R4").unwrap(),
        ];
        let e = check_tiling(GemmDims::square(100), "x", &mixed, String::new).unwrap_err();
        assert!(matches!(&e, CliError::SizeDoesNotTile { variants, .. } if variants == "C"));
    }
}
