//! The `mma` experiment's second table on the GPU: the only file of it that touches the driver.
//!
//! The kernels are the variant table's `wgmma_bf16` lines from the built-in sm_90a module
//! (`kernel_source::builtin::HOPPER`), loaded only on a compute capability 9.0 device; elsewhere the table says
//! why and runs nothing. Each line is held at each warpgroups-per-SM count by dynamic shared
//! memory ([`hold_at_blocks`], confirmed by the occupancy API), timed over one wave of blocks,
//! and the tiles of one more launch checked element by element against the CPU model. Where
//! the compared build has an sm_90a module with the line's entry, that entry is launched the
//! same way after ours, timed and checked alike.

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::{WgmmaParams, WgmmaVariant, WARPGROUP_THREADS, WGMMA_BF16};

use super::wgmma::{check_tiles, ClockedShare, WgmmaRow, WgmmaTable, MMAS_PER_WARPGROUP};
use crate::cuda::hopper::{hopper_module, HopperError};
use crate::cuda::{prepare, CudaError, Gpu, Kernel, Launch, LaunchShape};
use crate::experiments::contract::RunContext;
use crate::experiments::error::ExperimentError;
use crate::experiments::module_source::Loaded;
use crate::experiments::residency::{hold_at_blocks, residency_of};
use crate::results::{Check, Comparison, Timing};
use crate::sampling::time_launches;

/// Enqueues one launch of a wgmma line over `blocks` blocks of one warpgroup with `dyn_smem`
/// bytes of shared memory (at least the line's operand bytes); `out` holds a 64 x N tile per
/// block.
pub fn launch(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    out: &mut CudaSlice<f32>,
    (blocks, dyn_smem): (u32, u32),
    iters: u32,
) -> Result<(), CudaError> {
    let mut l = Launch::new(gpu);
    let params = WgmmaParams {
        out: l.output(out),
        iters: i32::try_from(iters).unwrap_or(i32::MAX),
    };
    let shape = LaunchShape {
        grid: (blocks, 1),
        threads: WARPGROUP_THREADS,
        dyn_smem,
    };
    // SAFETY: blocks of one warpgroup with at least the line's operand bytes of shared memory
    // (the caller's `dyn_smem`), and `out` holds a 64 x N tile per block (the caller sizes it).
    unsafe { l.launch(kernel, shape, &params) }
}

/// Runs every wgmma line at each of `per_sm` warpgroups per SM, the compared build's entry of
/// the line beside ours where `theirs` (its sm_90a module) has one; on a device that cannot
/// load the sm_90a module, runs nothing and says why.
pub fn run(
    gpu: &Gpu,
    ctx: &RunContext,
    per_sm: &[u32],
    theirs: Option<&Loaded>,
) -> Result<WgmmaTable, ExperimentError> {
    let module = match hopper_module(gpu) {
        Ok(m) => m,
        Err(e @ HopperError::NeedsSm90a(_)) => return Ok(WgmmaTable::not_run(e.to_string())),
        Err(HopperError::Cuda(e)) => return Err(e.into()),
    };
    let mut table = WgmmaTable::default();
    for v in WGMMA_BF16 {
        let kernel = module.kernel(v.entry)?;
        let other = theirs
            .map(|t| t.kernel_if_present(v.entry))
            .transpose()?
            .flatten();
        for &wg in per_sm {
            match point(gpu, ctx, v, (&kernel, other.as_ref()), wg) {
                Ok(row) => table.rows.push(row),
                Err(e) if e.is_unplaceable() => table
                    .gaps
                    .skipped
                    .push(format!("{} at {wg} warpgroups/SM: {e}", v.entry)),
                Err(e) => return Err(e.in_variant(format!("{} at {wg} warpgroups/SM", v.entry))),
            }
        }
    }
    Ok(table)
}

/// One line at `wg` warpgroups per SM: held, timed, checked; then the compared entry (`other`)
/// at the same launch.
fn point(
    gpu: &Gpu,
    ctx: &RunContext,
    v: &WgmmaVariant,
    (kernel, other): (&Kernel<'_>, Option<&Kernel<'_>>),
    wg: u32,
) -> Result<WgmmaRow, ExperimentError> {
    let info = gpu.info().clone();
    let mut flags = Vec::new();
    let held = hold_at_blocks(kernel, WARPGROUP_THREADS, wg, gpu.limits())?;
    // The operands must fit in what holds the residency; more could change the residency.
    let dyn_smem = if held >= v.operand_bytes() {
        held
    } else if kernel.max_active_blocks(WARPGROUP_THREADS, v.operand_bytes())? == wg {
        v.operand_bytes()
    } else {
        return Err(ExperimentError::NoResidency {
            entry: v.entry.to_owned(),
            module: "built-in sm_90a kernels".to_owned(),
            threads: WARPGROUP_THREADS,
            regs: kernel.num_regs()?,
            dyn_smem: v.operand_bytes(),
        });
    };
    let resident = residency_of(gpu, kernel, WARPGROUP_THREADS, dyn_smem)?;
    if resident.blocks_per_sm != wg {
        flags.push(format!(
            "held at {} warpgroups/SM, not {wg}",
            resident.blocks_per_sm
        ));
    }
    let blocks = wg * info.sm_count;
    let iters = MMAS_PER_WARPGROUP / v.groups;
    let (timing, check, tflops) =
        timed_and_checked(gpu, ctx, v, kernel, (blocks, dyn_smem), iters)?;
    let (share, flag) = ClockedShare::of(&info, &timing, tflops);
    flags.extend(flag);
    let at = (blocks, dyn_smem, resident.blocks_per_sm);
    let compared = other
        .map(|k| compared_point(gpu, ctx, v, k, at, (iters, tflops), &mut flags))
        .transpose()?;
    Ok(WgmmaRow {
        entry: v.entry.to_owned(),
        n: v.n,
        groups: v.groups,
        warpgroups_per_sm: resident.blocks_per_sm,
        occupancy: resident.occupancy,
        regs: resident.regs,
        dyn_smem_bytes: dyn_smem,
        iters,
        tflops,
        share,
        timing,
        check,
        flags,
        compared,
    })
}

/// The compared build's entry of line `v` launched as ours was (`blocks` blocks with `dyn_smem`
/// bytes, ours held at `held` warpgroups/SM), timed, then checked on one more launch; our
/// `tflops` over its own is the ratio. Its residency where it differs from ours, and its
/// timing's flags, join the row's `flags`.
fn compared_point(
    gpu: &Gpu,
    ctx: &RunContext,
    v: &WgmmaVariant,
    kernel: &Kernel<'_>,
    (blocks, dyn_smem, held): (u32, u32, u32),
    (iters, tflops): (u32, f64),
    flags: &mut Vec<String>,
) -> Result<Comparison, ExperimentError> {
    let shape = LaunchShape {
        grid: (blocks, 1),
        threads: WARPGROUP_THREADS,
        dyn_smem,
    };
    prepare(kernel, shape)?;
    let theirs_held = kernel.max_active_blocks(WARPGROUP_THREADS, dyn_smem)?;
    if theirs_held != held {
        flags.push(format!(
            "compared module: held at {theirs_held} warpgroups/SM, not {held}"
        ));
    }
    let (timing, check, theirs) =
        timed_and_checked(gpu, ctx, v, kernel, (blocks, dyn_smem), iters)?;
    flags.extend(timing.flags.iter().map(|f| format!("compared module: {f}")));
    Ok(Comparison {
        regs: kernel.num_regs()?,
        throughput: theirs,
        ratio: tflops / theirs,
        spill_stores: None,
        spill_loads: None,
        timing,
        check,
    })
}

/// `kernel` timed over `blocks` blocks of `dyn_smem` bytes, then one more launch checked tile by
/// tile: its timing, check and TFLOP/s.
fn timed_and_checked(
    gpu: &Gpu,
    ctx: &RunContext,
    v: &WgmmaVariant,
    kernel: &Kernel<'_>,
    (blocks, dyn_smem): (u32, u32),
    iters: u32,
) -> Result<(Timing, Check, f64), ExperimentError> {
    let mut out: CudaSlice<f32> = gpu.zeros(blocks as usize * v.outputs_per_block())?;
    let timing = time_launches(gpu, &ctx.timing, || {
        launch(gpu, kernel, &mut out, (blocks, dyn_smem), iters)
    })?;
    // NaN first, so that an element nobody writes fails the check.
    gpu.fill(&mut out, f32::NAN)?;
    launch(gpu, kernel, &mut out, (blocks, dyn_smem), iters)?;
    let check = check_tiles(v, iters, &gpu.download(&out)?, blocks);
    let flops = f64::from(blocks) * f64::from(iters * v.groups) * v.mma_flops() as f64;
    let tflops = flops / (timing.median_ms * 1e-3) / 1e12;
    Ok((timing, check, tflops))
}
