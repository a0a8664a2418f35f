//! The run of the `held` experiment, the one file of its folder that touches the driver: each
//! binary loaded (the capped build where it has a cap) and measured at every residency it reaches.

use super::binary::Binary;
use super::claims::compared_residency;
use super::row::HeldRow;
use super::spec::{Plan, Spec};
use crate::cuda::{Gpu, Kernel, LaunchShape};
use crate::experiments::contract::{Registered, RunContext};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::gemm::{launch_shape, Fp32, GemmBuffers};
use crate::experiments::gemm_figures::{GemmFigures, Schedule};
use crate::experiments::gemm_sides::GemmKind;
use crate::experiments::measured::Measured;
use crate::experiments::module_source::{load, load_capped};
use crate::experiments::progress::progress_bar;
use crate::experiments::residency::hold_at_blocks;
use crate::experiments::whole_wave_buffers::WholeWaveBuffers;
use crate::experiments::whole_waves::{whole_wave_dims, WholeWave};
use crate::kernel_source::builtin;
use crate::kernel_source::sources::{CappedKernels, Kernels};

/// Every binary of the plan, in order, at each of its residencies.
pub fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Vec<HeldRow>, ExperimentError> {
    let main = load(gpu, &Kernels::Builtin)?;
    let mut buffers = GemmBuffers::new(gpu, p.size, ctx.seed)?;
    let mut whole = WholeWaveBuffers::default();
    let bar = progress_bar(ctx, p.binaries.len(), Spec::NAME);
    let mut rows = Vec::new();
    for binary in &p.binaries {
        bar.set_message(binary.label);
        let capped = match binary.cap {
            Some(cap) => {
                let builtin = |c| Ok(builtin::capped(c).map(str::to_owned));
                Some(load_capped(gpu, &CappedKernels::Builtin, cap, builtin)?)
            }
            None => None,
        };
        let module = &capped.as_ref().unwrap_or(&main).module;
        let kernel = module.kernel(binary.line.entry).in_variant(binary.label)?;
        let mut curve = measure_binary(gpu, ctx, &mut buffers, binary, &kernel)?;
        pair_at_whole_waves(gpu, ctx, (p, &mut whole), binary, (&kernel, &mut curve))?;
        rows.extend(curve);
        crate::phase_log::mark(binary.label);
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// The pair the verdict compares for `binary` ([`compared_residency`] below its most blocks/SM),
/// timed again at the size nearest the plan's where both residencies run whole waves, recorded
/// in their rows of `curve`. `whole` keeps the last such size's buffers (binaries of one tile
/// share them). A pair already whole at the plan's size keeps its figures; one with no such size
/// is left untimed (the verdict says so).
fn pair_at_whole_waves(
    gpu: &Gpu,
    ctx: &RunContext,
    (p, whole): (&Plan, &mut WholeWaveBuffers<Fp32>),
    binary: &Binary,
    (kernel, curve): (&Kernel<'_>, &mut [HeldRow]),
) -> Result<(), ExperimentError> {
    let Some(most) = curve.iter().map(|r| r.figures.blocks_per_sm).max() else {
        return Ok(());
    };
    let Some(lower) = compared_residency(most) else {
        return Ok(());
    };
    let tile = (binary.line.bm, binary.line.bn);
    let sms = gpu.info().sm_count;
    let Some(size) = whole_wave_dims(p.size, tile, &[most, lower], sms) else {
        return Ok(());
    };
    for blocks in [most, lower] {
        let Some(row) = curve.iter_mut().find(|r| r.figures.blocks_per_sm == blocks) else {
            continue;
        };
        let figures = whole.figures_at(
            size,
            (p.size, &row.figures),
            |size| GemmBuffers::new(gpu, size, ctx.seed),
            |buffers| Ok(measure_at(gpu, ctx, buffers, (binary, kernel), (most, blocks))?.figures),
        )?;
        row.whole_waves.push(WholeWave { size, figures });
    }
    Ok(())
}

/// Every residency of `kernel` from one block per SM to the most its own launch reaches, each
/// measured in the shape that holds it there.
fn measure_binary(
    gpu: &Gpu,
    ctx: &RunContext,
    buffers: &mut GemmBuffers,
    binary: &Binary,
    kernel: &Kernel<'_>,
) -> Result<Vec<HeldRow>, ExperimentError> {
    let own = launch_shape(binary.line, buffers.dims());
    // The occupancy API counts no block at all for a launch asking more dynamic shared memory
    // than the kernel's opt-in allows (R4's pipeline does), so the opt-in comes first.
    let static_smem = kernel.static_smem_bytes()?;
    kernel.set_max_dynamic_smem(
        gpu.limits()
            .smem_per_block_optin
            .saturating_sub(static_smem),
    )?;
    let most = kernel.max_active_blocks(own.threads, own.dyn_smem)?;
    if most == 0 {
        return Err(ExperimentError::NoResidency {
            entry: binary.line.entry.to_owned(),
            module: format!("binary {}", binary.label),
            threads: own.threads,
            regs: kernel.num_regs()?,
            dyn_smem: own.dyn_smem,
        });
    }
    let mut rows = Vec::new();
    for blocks in 1..=most {
        rows.push(measure_at(
            gpu,
            ctx,
            buffers,
            (binary, kernel),
            (most, blocks),
        )?);
    }
    Ok(rows)
}

/// `binary` held at `blocks` of its `most` blocks/SM, measured in the shape that holds it there
/// over `buffers`' problem.
fn measure_at(
    gpu: &Gpu,
    ctx: &RunContext,
    buffers: &mut GemmBuffers,
    (binary, kernel): (&Binary, &Kernel<'_>),
    (most, blocks): (u32, u32),
) -> Result<HeldRow, ExperimentError> {
    let own = launch_shape(binary.line, buffers.dims());
    let at = format!("{} at {blocks} blocks/SM", binary.label);
    let dyn_smem = if blocks == most {
        own.dyn_smem
    } else {
        // The calculator's answer for the kernel's static shared memory, confirmed (and
        // stepped up where needed) by the driver; fewer blocks than its own launch reaches
        // always take more than the line itself uses.
        let held = hold_at_blocks(kernel, own.threads, blocks, gpu.limits()).in_variant(&at)?;
        held.max(own.dyn_smem)
    };
    let shape = LaunchShape { dyn_smem, ..own };
    let m = buffers
        .measure_by(
            gpu,
            (kernel, None),
            (shape, &Fp32::launch),
            &ctx.timing,
            None,
        )
        .in_variant(&at)?;
    Ok(HeldRow {
        binary: binary.label.to_owned(),
        dyn_smem,
        figures: GemmFigures::of(&m.ours)
            .scheduled(Schedule::one_block_per_tile(&shape, gpu.info().sm_count)),
        measured: Measured::of(&m.ours, None),
        whole_waves: vec![],
    })
}
