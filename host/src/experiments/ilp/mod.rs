//! The `ilp` experiment, instruction-level parallelism: FMA kernels with 1 to 16 independent chains
//! per thread over 1 to 64 resident warps per SM (blocks held by dynamic shared memory, one full
//! wave), each point's GFLOP/s against the FP32 peak at the SM clock measured during the run, every
//! thread of every launch checked bit for bit against the CPU. Volkov's table answers: for each
//! ILP, how few warps reach 90% of the peak?
//!
//! ```text
//! host ilp                                        # every ILP x the default warps/SM
//! host ilp --ilp 1,4 --warps-per-sm 4,8,64 --noise 1
//! host ilp --compare peer/peer.cubin --out results/ilp
//! host ilp --ilp 1,2 --controls fadd_ilp1,ffma_imm_ilp1 --control-warps-per-sm 8,64
//! ```
//!
//! Beside the FFMA sweep run its controls (`--controls`, the variant table's `fma_controls`
//! line: FADD, FMUL, FFMA with an immediate or a constant operand) at a few warps per SM
//! (`--control-warps-per-sm`), to tell what caps ILP 1: see [`controls`]. [`dip`] is the
//! scheduler model of the dip below 8 warps per SM.
//!
//! Layout: [`plan`] (points and arithmetic), [`mod@reference`] (the CPU's FMA chains and the
//! check), [`row`] (typed results, Volkov's table), [`claims`] (verdict rules), [`plots`],
//! [`table`], and [`run`], the one file that touches the driver.

pub mod claims;
pub mod controls;
pub mod dip;
pub mod needed_parallelism;
pub mod output;
pub mod peak_reach;
pub mod plan;
pub mod plots;
pub mod reference;
pub mod row;
pub mod run;
mod spec;
pub mod table;

pub use output::Ilp;
pub use row::IlpRow;
use spec::control_entries;
pub use spec::{
    control, kernel, AllArgs, Args, Plan, Spec, SweepArgs, DEFAULT_CONTROL_WARPS_PER_SM,
    DEFAULT_WARPS_PER_SM, NO_CONTROLS,
};

use super::contract::{Run, RunContext};
use super::error::ExperimentError;
use super::ilp_sweep::built_ilps;
use super::ilp_sweep_report::SweepReport;
use crate::claim::{Rules, Verdict};
use crate::cuda::Gpu;
use crate::figure::ScatterPlot;
use crate::table::Column;

impl Run for Spec {
    const ABOUT: &'static str = "FP32 throughput vs warps per SM and ILP (Volkov's table)";

    fn help() -> String {
        format!(
            "FMA kernels (entries fma_ilp{{ILP}}) for ILP {}; controls (--controls): {}",
            built_ilps::<Spec>(),
            control_entries().join(", ")
        )
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Self::Plan) -> Result<Ilp, ExperimentError> {
        run::run(gpu, ctx, p)
    }

    fn builtin_ptx() -> &'static [&'static str] {
        &[crate::kernel_source::builtin::MAIN]
    }
}

impl SweepReport for Spec {
    const HEADING: &'static str = "instruction-level parallelism vs occupancy";
    const MEASURED: &'static str = "FP32 throughput vs warps per SM and ILP";

    const COLUMNS: fn() -> Vec<Column<IlpRow>> = table::columns;
    const NOTES: fn(&Ilp) -> Vec<String> = table::notes;
    const VERDICTS: fn(Option<&Ilp>, Rules) -> Vec<Verdict> = claims::verdicts_under;
    const PLOT: fn(&[IlpRow]) -> ScatterPlot = plots::percent_of_peak;
}
