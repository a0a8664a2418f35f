//! The `regs` experiment's marker (`Spec`, whose `Run` and `Report` are in `mod.rs`) and its flags,
//! validated into its plan: its own file so that the folder's parts can name them without
//! importing `mod.rs`.

use super::line::CappedLine;
use super::row::RegsRow;
use crate::experiments::contract::{self, Registered};
use crate::experiments::module_source::plan_folders;
use crate::flags::{check_tiling, parse_cap, parse_label, CliError, GemmDims, GemmSize, Shared};
use crate::kernel_source::sources::{CappedKernels, Needs, Sources};
use crate::results::RunMeta;
use kernels_gpu::variants::REGS;

/// The `regs` experiment.
pub struct Spec;

/// `host regs`.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct Args {
    /// The GEMM line to cap, by label: any line of the variant table's `gemm` (FP32) or
    /// `gemm_bf16` (mma.sync) section; the wgmma and TMA-ring lines are not capped (default: the
    /// table's line for this experiment).
    #[arg(long, value_name = "LABEL")]
    pub variant: Option<String>,
    /// Register caps (comma-separated, each in 16..=255); default the table's. Without --module,
    /// for the table's line each must be one the built-in kernels were built for.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_cap)]
    pub caps: Vec<u32>,
    #[command(flatten)]
    pub gemm: GemmSize,
    /// A folder of per-cap modules (PTX, cubin or fatbin) whose names contain `cap{N}`, e.g.
    /// peer_cap32.cubin; a `NAME.ptxas.txt` beside a cubin gives its spills.
    #[arg(long, value_name = "DIR")]
    pub module: Option<std::path::PathBuf>,
    /// Also run this folder's per-cap modules, timed with ours (samples interleaved), and compare.
    #[arg(long, value_name = "DIR")]
    pub compare: Option<std::path::PathBuf>,
    /// Name of the compared modules in tables, plots and legends (default: the folder's name).
    #[arg(long, value_name = "NAME", requires = "compare", value_parser = parse_label)]
    pub compare_label: Option<String>,
}

/// What the `regs` experiment adds to `host all`.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct AllArgs {
    /// regs: register caps (comma-separated, each in 16..=255).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_cap)]
    pub caps: Vec<u32>,
    /// regs: a folder of per-cap modules.
    #[arg(long, value_name = "DIR")]
    pub module_caps: Option<std::path::PathBuf>,
    /// regs: a folder of per-cap modules to compare against.
    #[arg(long, value_name = "DIR")]
    pub compare_caps: Option<std::path::PathBuf>,
}

/// The `regs` experiment, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The line capped.
    pub line: CappedLine,
    pub caps: Vec<u32>,
    pub size: GemmDims,
    pub sources: Sources<CappedKernels>,
}

impl contract::Plan for Plan {
    type Args = Args;
    type AllArgs = AllArgs;
    type Output = Vec<RegsRow>;
    type Kernels = CappedKernels;
    fn new(a: &Args) -> Result<Plan, CliError> {
        let line = CappedLine::find(a.variant.as_deref())?;
        let folders = [("--module", &a.module), ("--compare", &a.compare)];
        planned(line, (&a.caps, a.gemm.size), folders, &a.compare_label)
    }
    fn in_all(s: &Shared, a: &AllArgs) -> Result<Plan, CliError> {
        let line = CappedLine::find(None)?;
        let folders = [
            ("--module-caps", &a.module_caps),
            ("--compare-caps", &a.compare_caps),
        ];
        planned(
            line,
            (&a.caps, s.run.gemm.size),
            folders,
            &s.run.modules.compare_label,
        )
    }
    fn sources(&self) -> &Sources<CappedKernels> {
        &self.sources
    }
    fn record(&self, meta: &mut RunMeta) {
        meta.set_gemm(self.size);
        meta.regs_variant = (!self.line.is_default()).then(|| self.line.label().to_owned());
    }
}

/// The plan of the caps `caps` asks for (the table's when empty) at `size`, from the per-cap
/// folders `module` and `compare`, for `host regs` and `host all` alike.
fn planned(
    line: CappedLine,
    (caps, size): (&[u32], GemmDims),
    [module, compare]: [(&'static str, &Option<std::path::PathBuf>); 2],
    compare_label: &Option<String>,
) -> Result<Plan, CliError> {
    let caps = select_caps(caps)?;
    // The capped FP32 line must be able to run the size (the BF16 lines take any).
    if let CappedLine::Fp32(v) = line {
        let experiment = format!("experiment {} ({})", Spec::NUMBER, Spec::NAME);
        check_tiling(size, &experiment, &[v], || {
            "; a size the seed family cannot tile runs with the tuned variants alone: \
             `host occupancy --variants` with their labels, or `host regs --variant` with one"
                .to_owned()
        })?;
    }
    // Every per-cap module must export the capped line's entry with its family's parameters.
    let entries = [line.entry()];
    let needs = Needs {
        entries: &entries,
        signature: line.signature(),
    };
    let has = |cap| line.has_builtin(cap);
    let sources = plan_folders(&caps, module, compare, compare_label, needs, has)?;
    Ok(Plan {
        line,
        caps,
        size,
        sources,
    })
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
