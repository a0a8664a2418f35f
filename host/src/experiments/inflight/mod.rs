//! The `inflight` experiment, bytes in flight: the copy kernels of the memcpy grid (threads per
//! block x loads per thread x width) held at chosen residencies by dynamic shared memory, each copy
//! verified, against the device-to-device copy of the same run; the DRAM latency from a pointer
//! chase; and Little's law ([`model`]) predicting every point from its bytes in flight per SM.
//!
//! Volkov's question, asked of the GPU at hand: how few threads does a copy need, and does the
//! bandwidth follow bytes in flight rather than occupancy?
//!
//! ```text
//! host inflight                                   # the default sweep (see Args)
//! host inflight --threads 32,256 --loads 14 --widths 4 --blocks-per-sm 2
//! host inflight --compare peer/peer.cubin --out results/inflight
//! host inflight --iters 20 --samples 5            # a fixed plan instead of the noise target
//! ```
//!
//! Layout: [`grid`] (the points), [`model`] (Little's law and the byte convention), [`row`] and
//! [`output`] (the results), [`claims`] and [`law_claim`] (verdict rules), [`notes`], [`table`],
//! [`plots`], [`chase`] and [`loaded`] (latency, idle and under load), [`reads`] (the read-only
//! kernels beside the copies), [`sizes`] (the copy-size sweep), [`sustained`] (the persistent
//! copies the loaded-latency law is judged on), [`samples`] and [`sampled_law`] (their sampled
//! launches' stamps and the law on them); on the driver: [`run`] (the sweep, the persistent
//! copies, and the size sweep in [`sizes`]), [`chase_run`], [`reads_run`] and [`sampled_run`].

pub mod chase;
pub mod chase_run;
pub mod claims;
pub mod grid;
pub mod law_claim;
pub mod loaded;
pub mod model;
pub mod notes;
pub mod output;
pub mod plots;
pub mod reads;
pub mod reads_run;
#[cfg(test)]
mod render_test;
pub mod row;
pub mod run;
pub mod sampled_law;
pub mod sampled_run;
pub mod samples;
pub mod sizes;
mod spec;
pub mod sustained;
pub mod table;

use grid::{grid_loads, grid_threads, grid_widths};
use kernels_gpu::variants::{SmemCopyLine, SmemPath, PERSISTENT_COPY, READ, SMEM_COPY};

pub use output::Inflight;
pub use row::InflightRow;
pub use spec::{
    AllArgs, Args, Plan, Spec, SweepArgs, CHASE_L2_MULTIPLE, DEFAULT_CHASE_STEPS, DEFAULT_COPY_MIB,
    DEFAULT_LOADED_STEPS, DEFAULT_LOADS,
};

use super::contract::{Report, Run, RunContext, GBPS};
use super::error::ExperimentError;
use crate::claim::{Rules, Verdict};
use crate::cuda::Gpu;
use crate::figure::{Figure, PlotRun};
use crate::results::RunMeta;
use crate::table::Column;

impl Run for Spec {
    const ABOUT: &'static str =
        "bytes in flight vs occupancy (the memcpy grid against Little's law)";

    fn help() -> String {
        let reads: Vec<String> = READ
            .iter()
            .map(|r| format!("{}x{}x{}", r.threads, r.loads, r.width))
            .collect();
        let shape = |l: &SmemCopyLine| format!("{}x{}Bx{}", l.threads, l.stage_bytes, l.stages);
        let (bulk, smem): (Vec<_>, Vec<_>) =
            SMEM_COPY.iter().partition(|l| l.path == SmemPath::Bulk);
        let smem: Vec<String> = smem.into_iter().map(shape).collect();
        let bulk: Vec<String> = bulk.into_iter().map(shape).collect();
        let persistent: Vec<String> = PERSISTENT_COPY
            .iter()
            .map(|l| format!("{}x{}x{}", l.threads, l.loads, l.width))
            .collect();
        format!(
            "The memcpy grid (entries memcpy_t{{T}}_l{{L}}_w{{W}}): threads {:?}, loads {:?}, \
             widths {:?}. Read-only kernels (read_t{{T}}_l{{L}}_w{{W}}: the copy's loads, \
             every warp's sum checked exactly) run beside the copy rows of their points \
             (threads x loads x width: {}), against the D2D copy's bytes moved per second. \
             Copies whose bytes in flight live in shared memory (cp_async_copy_t{{T}}_b{{B}}_s{{S}}: \
             each warp a ring of S stages of B bytes filled by 16-byte cp.async, sm_80+; leave \
             them out with --no-smem): {}. Hopper's bulk copies (tma_copy_t{{T}}_b{{B}}_s{{S}}, \
             sm_90a, where the device has it): {}. Persistent copies \
             (stream_copy_t{{T}}_l{{L}}_w{{W}}: one wave of SMs x {} block/SM, each thread \
             streaming over the buffer, so its bytes in flight are sustained; always run, \
             whatever the axes asked for: Little's law is judged on them): {}",
            grid_threads(),
            grid_loads(),
            grid_widths(),
            reads.join(", "),
            smem.join(", "),
            bulk.join(", "),
            grid::PERSISTENT_BLOCKS_PER_SM,
            persistent.join(", ")
        )
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Self::Plan) -> Result<Inflight, ExperimentError> {
        run::run(gpu, ctx, p)
    }

    fn builtin_ptx() -> &'static [&'static str] {
        // The sm_90a module holds the bulk-copy lines (loaded only on compute capability 9.0).
        use crate::kernel_source::builtin::{HOPPER, MAIN};
        &[MAIN, HOPPER]
    }
}

impl Report for Spec {
    const SECTION: &'static str = "bytes in flight vs occupancy";

    const MORE_PLOTS: &'static [&'static str] = &plots::MORE_STEMS;

    fn notes(output: &Inflight) -> Vec<String> {
        table::notes(output)
    }

    fn claims(output: Option<&Inflight>) -> Vec<Verdict> {
        claims::verdicts(output)
    }

    fn claims_under(output: Option<&Inflight>, rules: Rules) -> Vec<Verdict> {
        claims::verdicts_under(output, rules)
    }

    fn columns() -> Vec<Column<InflightRow>> {
        let mut c = table::columns();
        c.extend(GBPS.compared_columns());
        c.extend(table::compared_spill_columns());
        c
    }

    fn title(m: &RunMeta) -> String {
        format!(
            "Bytes in flight vs occupancy (memcpy grid, {})",
            m.sampling_words()
        )
    }

    fn figures(runs: &[PlotRun<'_, Inflight>]) -> Vec<(String, Figure)> {
        runs.first()
            .map(|r| plots::figures(r.name, r.output))
            .unwrap_or_default()
    }
}
