//! Running an experiment: its place in the list ([`Registered`]), its validated flags
//! ([`Plan`], which says where its kernels come from) and its run ([`Run`]: the plan in, the
//! output out).

use std::fmt::Debug;

use super::row::Output;
use crate::cuda::Gpu;
use crate::experiments::earlier_fault::Fault;
use crate::experiments::error::ExperimentError;
use crate::flags::{CliError, Shared};
use crate::kernel_source::sources::{DescribeModule, Sources};
use crate::results::RunMeta;
use crate::sampling::SamplingConfig;

/// What every experiment of a run shares: how figures are timed, the seed of the inputs, whether
/// to draw progress bars.
#[derive(Debug, Clone, PartialEq)]
pub struct RunContext {
    /// Every figure's timing ([`crate::sampling::time_sides`]); its reference clock is set once
    /// the device is open.
    pub timing: SamplingConfig,
    pub seed: u64,
    /// Draw a progress bar (on a terminal).
    pub progress: bool,
    /// The longest any wait for the GPU may take before the run ends (`--launch-timeout`).
    pub launch_timeout: std::time::Duration,
    /// The faults met earlier in the run, in processes before this one (`--resume`).
    pub faults: Vec<Fault>,
}

/// An experiment's validated flags: everything its run needs, every file checked, and where
/// its kernels come from ([`Plan::sources`]).
pub trait Plan: Sized + Clone + Debug + PartialEq {
    /// Its own subcommand's flags (besides the common ones).
    type Args: clap::Args + Clone + Debug;
    /// The flags it adds to `host all` (besides the shared ones); often none.
    type AllArgs: clap::Args + Clone + Debug;
    /// What running it gives, as `results.json` stores it.
    type Output: Output;
    /// The kind of module its kernels come from (one module, or one per register cap).
    type Kernels: DescribeModule;
    /// Validates its own subcommand's flags (no GPU).
    fn new(args: &Self::Args) -> Result<Self, CliError>;
    /// Validates its part of `host all` (no GPU).
    fn in_all(shared: &Shared, args: &Self::AllArgs) -> Result<Self, CliError>;
    /// Where its kernels come from: ours, and the compared module's, for the run's record.
    fn sources(&self) -> &Sources<Self::Kernels>;
    /// Writes its sizes into the run's record (e.g. the GEMM size).
    fn record(&self, _meta: &mut RunMeta) {}
    /// Whether a kernel's fault in its line `line` leaves the rest of it to run, in a new process
    /// without the line: only where its lines are independent of one another. No by default: a
    /// fault then fails the experiment as a whole.
    fn goes_on_without(&self, _line: &str) -> bool {
        false
    }
}

/// An experiment's place in the list of experiments (`experiments/mod.rs`), which implements
/// this from its line: its number (1, 2, 3, ...), its name (the subcommand, the key in
/// `results.json`, the stem of its CSV and plots) and its plan (the `Plan` of its folder, as
/// `Spec` is the experiment).
pub trait Registered {
    const NUMBER: u8;
    const NAME: &'static str;
    /// Its validated flags: what [`Run::run`] is given.
    type Plan: Plan;
}

/// What experiment `E` stores.
pub type OutputOf<E> = <<E as Registered>::Plan as Plan>::Output;
/// The rows of experiment `E`.
pub type RowOf<E> = <OutputOf<E> as Output>::Row;
/// The flags of experiment `E`'s own subcommand.
pub type ArgsOf<E> = <<E as Registered>::Plan as Plan>::Args;
/// The flags experiment `E` adds to `host all`.
pub type AllArgsOf<E> = <<E as Registered>::Plan as Plan>::AllArgs;

/// Running an experiment: its plan in, its output out, and the words of its subcommand.
pub trait Run: Registered + 'static {
    /// One line for `host --help`, after "Experiment N: ".
    const ABOUT: &'static str;

    /// Runs it on `gpu`.
    fn run(
        gpu: &Gpu,
        ctx: &RunContext,
        plan: &Self::Plan,
    ) -> Result<OutputOf<Self>, ExperimentError>;

    /// The built-in PTX modules its run loads when its kernels are the built-in ones, in the
    /// order it first needs them. A run assembles them all at once, a ptxas process each where
    /// ptxas is found (else the driver compiles them, one at a time), and loads them in the order
    /// of first need on a thread of its own while earlier experiments run (the modules are
    /// shared, `cuda/module_cache.rs`). A module left out is compiled when loaded.
    fn builtin_ptx() -> &'static [&'static str] {
        &[]
    }

    /// The labels `--variants` accepts (listed in `--help`); empty when it has none.
    fn variant_labels() -> Vec<&'static str> {
        Vec::new()
    }

    /// What its `--help` lists under the flags: by default its variant labels.
    fn help() -> String {
        let labels = Self::variant_labels();
        if labels.is_empty() {
            String::new()
        } else {
            format!("Variants (from the variant table): {}", labels.join(", "))
        }
    }
}
