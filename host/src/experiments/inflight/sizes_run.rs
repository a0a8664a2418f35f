//! The copy-size sweep on the GPU ([`super::sizes`]): the sweep's fastest usable point, at its
//! residency, over fresh buffers of each size, timed against the device-to-device copy of the
//! same buffers and checked exactly.

use super::row::{fastest, InflightRow};
use super::sizes::{SizeRow, SizeSweep};
use crate::cuda::Gpu;
use crate::experiments::contract::RunContext;
use crate::experiments::copy::{check_fits, copy_gbps, CopyBuffers};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::module_source::Loaded;

/// Runs the size sweep over `sizes_mib` (0 stands for none) with the fastest of `rows`; sizes
/// that do not fit the device are left out with a note. None when no size was asked for or no
/// row is usable.
pub fn measure_sizes(
    gpu: &Gpu,
    ctx: &RunContext,
    ours: &Loaded,
    rows: &[InflightRow],
    sizes_mib: &[u64],
) -> Result<(Option<SizeSweep>, Vec<String>), ExperimentError> {
    let mut sizes: Vec<u64> = sizes_mib.iter().copied().filter(|&m| m > 0).collect();
    sizes.sort_unstable();
    sizes.dedup();
    // Among the rows our module builds (the bulk copies live in the sm_90a module).
    let best = fastest(rows, |r| ours.module.kernel(&r.entry).is_ok());
    let (Some(best), false) = (best, sizes.is_empty()) else {
        return Ok((None, Vec::new()));
    };
    let Some(point) = best.point.shape.copy_kernel() else {
        return Ok((None, Vec::new()));
    };
    let entry = point.entry();
    let kernel = ours.module.kernel(entry).in_variant(entry)?;
    let mut skipped = Vec::new();
    let mut out = Vec::new();
    for mib in sizes {
        let bytes = mib << 20;
        if let Err(e) = check_fits(gpu, bytes) {
            skipped.push(format!("copy size {mib} MiB: {e}"));
            continue;
        }
        let what = || format!("{entry} over {mib} MiB");
        let seed = ctx.seed.wrapping_add(50).wrapping_add(mib);
        let mut buffers = CopyBuffers::new(gpu, (bytes / 4) as usize, seed)?;
        let d2d_timing = buffers
            .time_reference(gpu, &ctx.timing)
            .in_variant(&what())?;
        let (mine, _, _) = buffers
            .measure(gpu, (&kernel, None), point, best.blocks_per_sm, &ctx.timing)
            .in_variant(&what())?;
        out.push(SizeRow {
            bytes,
            gbps: mine.throughput,
            timing: mine.timing,
            d2d_gbps: copy_gbps(bytes, d2d_timing.median_ms),
            d2d_timing,
            check: mine.check,
        });
    }
    let sweep = SizeSweep {
        entry: entry.to_owned(),
        blocks_per_sm: best.blocks_per_sm,
        l2_bytes: gpu.info().l2_bytes,
        rows: out,
    };
    Ok((Some(sweep), skipped))
}
