//! Experiment 1, occupancy vs throughput: every GEMM variant (same 64x64 tile per block, a
//! larger per-thread sub-tile means fewer threads and more registers), theoretical occupancy
//! from the driver, GFLOP/s from CUDA events.

use super::gemm::GemmBuffers;
use super::module_source::load;
use super::{comparison, progress_bar, ExperimentError, Options};
use crate::cuda::Gpu;
use crate::results::GemmRow;

/// Runs experiment 1 with `opts.kernels`, and `opts.compare` timed with it per variant.
pub fn run(gpu: &Gpu, opts: &Options) -> Result<Vec<GemmRow>, ExperimentError> {
    let ours = load(gpu, &opts.kernels)?;
    let theirs = opts.compare.as_ref().map(|k| load(gpu, k)).transpose()?;
    let mut buffers = GemmBuffers::new(gpu, opts.gemm_size, opts.seed)?;
    let bar = progress_bar(opts, opts.gemm_variants.len(), "occupancy");
    let mut rows = Vec::with_capacity(opts.gemm_variants.len());
    for variant in &opts.gemm_variants {
        bar.set_message(variant.label);
        let (kernel, other) = ours.entry_pair(theirs.as_ref(), variant.entry)?;
        let (measured, compared) =
            buffers.measure(gpu, &kernel, other.as_ref(), variant, opts.timing)?;
        let mut flags = measured.flags.clone();
        let compare = comparison(&measured, compared.map(|m| (m, None, None)), &mut flags);
        rows.push(GemmRow {
            variant: variant.label.to_owned(),
            threads: variant.threads(),
            tm: variant.tm,
            tn: variant.tn,
            regs: measured.regs,
            blocks_per_sm: measured.blocks_per_sm,
            occupancy: measured.occupancy,
            limiter: measured.limiter,
            timing: measured.timing,
            gflops: measured.throughput,
            check: measured.check,
            flags,
            compare,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(rows)
}
