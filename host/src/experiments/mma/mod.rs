//! The `mma` experiment, tensor-core throughput against occupancy: `mma.sync` m16n8k16 BF16
//! kernels with 1 to 8 independent accumulators per warp over 1 to 64 resident warps per SM
//! (blocks held by dynamic shared memory, one full wave), each point's TFLOP/s against the
//! dense BF16 spec peak at the SM clock measured during the run and against the `mma.sync`
//! ceiling (the run's best verified point), every thread of every launch checked bit for bit
//! against the CPU model of the fragment layout. Volkov's table for tensor cores: for each ILP,
//! the least occupancy reaching 90% and 95% of the ceiling. On a GPU before sm_80 it runs
//! nothing and says why.
//!
//! ```text
//! host mma                                        # every ILP x the default warps/SM
//! host mma --ilp 1,8 --warps-per-sm 4,8,64 --noise 1
//! host mma --compare twin.cubin --compare-label nvcc --out results/mma
//! ```
//!
//! Layout: [`plan`] (sizing and arithmetic), [`mod@reference`] (inputs and the check), [`row`]
//! (typed results, the ceiling and the reach table), [`claims`] (verdict rules), [`plots`],
//! [`table`], and [`run`], the one file that touches the driver. The second table, `wgmma` on
//! sm_90a against warpgroups per SM: [`wgmma`] (rows, check, columns), [`wgmma_claim`] (its
//! verdict) and [`wgmma_run`] (its driver side).

pub mod claims;
pub mod plan;
pub mod plots;
pub mod reference;
#[cfg(test)]
mod render_test;
pub mod row;
pub mod run;
mod spec;
pub mod table;
pub mod wgmma;
pub mod wgmma_claim;
pub mod wgmma_run;

pub use row::{Mma, MmaRow};
pub use spec::{kernel, AllArgs, Args, Plan, Spec, SweepArgs, DEFAULT_WARPS_PER_SM};

use super::contract::{Run, RunContext};
use super::error::ExperimentError;
use super::ilp_sweep::built_ilps;
use super::ilp_sweep_report::SweepReport;
use crate::claim::{Rules, Verdict};
use crate::cuda::Gpu;
use crate::figure::ScatterPlot;
use crate::results::RunMeta;
use crate::table::{Column, TableData};

/// The stem of the wgmma table's CSV.
const WGMMA_STEM: &str = "mma_wgmma";

impl Run for Spec {
    const ABOUT: &'static str =
        "tensor-core (mma.sync BF16) throughput vs warps per SM and independent MMAs";

    fn help() -> String {
        format!(
            "Tensor-core kernels (entries mma_bf16_ilp{{ILP}}, sm_80 or newer) for ILP {}",
            built_ilps::<Spec>()
        )
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Self::Plan) -> Result<Mma, ExperimentError> {
        run::run(gpu, ctx, p)
    }

    fn builtin_ptx() -> &'static [&'static str] {
        use crate::kernel_source::builtin::{HOPPER, MMA_ILP};
        &[MMA_ILP, HOPPER]
    }
}

impl SweepReport for Spec {
    const HEADING: &'static str = "tensor-core parallelism vs occupancy (mma.sync)";
    const MEASURED: &'static str = "Tensor-core throughput vs warps per SM and independent MMAs";
    const EXTRA_CSVS: &'static [&'static str] = &[WGMMA_STEM];

    const COLUMNS: fn() -> Vec<Column<MmaRow>> = table::columns;
    const NOTES: fn(&Mma) -> Vec<String> = table::notes;
    const VERDICTS: fn(Option<&Mma>, Rules) -> Vec<Verdict> = claims::verdicts_under;
    const PLOT: fn(&[MmaRow]) -> ScatterPlot = plots::tflops_by_warps;

    fn extra_table(output: &Mma, meta: &RunMeta) -> Option<(&'static str, TableData)> {
        let t = output.wgmma.as_ref()?;
        // Its compared columns (where its rows have them) named as the first table's.
        let table =
            wgmma::table(t, &meta.sampling_words()).name_compared(meta.compare_name().as_deref());
        Some((WGMMA_STEM, table))
    }
}
