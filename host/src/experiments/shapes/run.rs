//! The sweep on the GPU: per shape and family, the problem on the device, the line chosen by the
//! shared rule (`line_choice`), and that line timed again with cuBLAS interleaved, every element
//! of both checked, and the kernel cuBLAS ran read through CUPTI.

use super::list::SweepShape;
use super::row::{Family, Miss, ShapeRow};
use super::spec::Plan;
use crate::cuda::hopper::hopper_module;
use crate::cuda::{Gpu, Kernel, Module};
use crate::experiments::bf16_gemm::{Bf16, Bf16GemmBuffers};
use crate::experiments::contract::RunContext;
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::gemm::{Fp32, GemmBuffers};
use crate::experiments::gemm_cublas::CublasSide;
use crate::experiments::gemm_figures::{GemmFigures, Schedule};
use crate::experiments::gemm_sides::{GemmKind, GemmSides};
use crate::experiments::line_choice::timed::{choose_bf16, choose_fp32, samples_of, Bf16Line};
use crate::experiments::line_choice::Choice;
use crate::experiments::measured::Measured;
use crate::experiments::wgemm_launch::{measure_wgemm_line, LineFigures};
use crate::sampling::SamplingConfig;

/// One shape and family: its row, or a miss.
pub enum Outcome {
    Row(Box<ShapeRow>),
    Miss(Miss),
}

/// How each chosen line and cuBLAS are timed: the run's sampling, or `samples` a figure.
fn timing_of(ctx: &RunContext, p: &Plan) -> SamplingConfig {
    match p.samples {
        Some(n) => samples_of(&ctx.timing, n),
        None => ctx.timing,
    }
}

/// FP32 at `s`: the choice among the tuned lines of `module`, then the chosen line beside cuBLAS.
pub fn fp32(
    gpu: &Gpu,
    ctx: &RunContext,
    p: &Plan,
    (s, module): (&SweepShape, &Module),
) -> Result<Outcome, ExperimentError> {
    let mut buffers = GemmBuffers::new(gpu, s.dims, ctx.seed)?;
    crate::phase_log::mark(&format!("shape {:?} buffers", s.dims));
    let (choice, line) = choose_fp32(gpu, module, &mut buffers, &ctx.timing)?;
    crate::phase_log::mark("  fp32 chosen");
    let Some(v) = line else {
        return Ok(miss(Family::Fp32, s, choice));
    };
    let kernel = module.kernel(v.entry).in_variant(v.label)?;
    let mut cublas = CublasSide::open(gpu, p.cublas);
    let timed = grid_line::<Fp32>(
        gpu,
        &timing_of(ctx, p),
        (v, v.label, &kernel),
        (&mut buffers, &mut cublas),
    )?;
    crate::phase_log::mark("  fp32 timed");
    let cublas = cublas.finish(gpu, &mut buffers, Fp32::peak(gpu))?;
    crate::phase_log::mark("  fp32 cublas finished");
    Ok(row(Family::Fp32, s, choice, timed, cublas))
}

/// BF16 at `s`: the choice among the `mma.sync` lines of `module` and the ring lines, then the
/// chosen line beside cuBLAS.
pub fn bf16(
    gpu: &Gpu,
    ctx: &RunContext,
    p: &Plan,
    (s, module): (&SweepShape, &Module),
) -> Result<Outcome, ExperimentError> {
    let mut buffers = Bf16GemmBuffers::new(gpu, s.dims, ctx.seed)?;
    crate::phase_log::mark(&format!("shape {:?} buffers", s.dims));
    let (choice, line) = choose_bf16(gpu, module, &mut buffers, &ctx.timing)?;
    crate::phase_log::mark("  bf16 chosen");
    let Some(line) = line else {
        return Ok(miss(Family::Bf16, s, choice));
    };
    let timing = timing_of(ctx, p);
    let mut cublas = CublasSide::open(gpu, p.cublas);
    let timed = match line {
        Bf16Line::Mma(v) => {
            let kernel = module.kernel(v.entry).in_variant(v.label)?;
            grid_line::<Bf16>(
                gpu,
                &timing,
                (v, v.label, &kernel),
                (&mut buffers, &mut cublas),
            )?
        }
        Bf16Line::Ring(v) => {
            let hopper = hopper_module(gpu)?;
            let kernel = hopper.kernel(v.entry).in_variant(v.label)?;
            let sides = (&mut buffers, &mut cublas);
            measure_wgemm_line(gpu, (v, (&kernel, None)), sides, &timing)?
        }
    };
    crate::phase_log::mark("  bf16 timed");
    let cublas = cublas.finish(gpu, &mut buffers, Bf16::peak(gpu))?;
    crate::phase_log::mark("  bf16 cublas finished");
    Ok(row(Family::Bf16, s, choice, timed, cublas))
}

/// A grid line (one block per tile) of family `K` timed beside cuBLAS.
fn grid_line<K: GemmKind>(
    gpu: &Gpu,
    timing: &SamplingConfig,
    (v, label, kernel): (&K::Variant, &str, &Kernel<'_>),
    (buffers, cublas): (&mut GemmSides<K>, &mut CublasSide),
) -> Result<(LineFigures, Schedule), ExperimentError> {
    let shape = K::launch_shape(v, buffers.dims());
    let figures = cublas.measure(
        gpu,
        buffers,
        (label, (kernel, None)),
        (shape, &K::launch),
        timing,
    )?;
    Ok((
        figures,
        Schedule::one_block_per_tile(&shape, gpu.info().sm_count),
    ))
}

fn miss(family: Family, s: &SweepShape, choice: Choice) -> Outcome {
    Outcome::Miss(Miss {
        family,
        dims: s.dims,
        why: choice.why,
    })
}

fn row(
    family: Family,
    s: &SweepShape,
    choice: Choice,
    ((ours, _, vs_cublas), schedule): (LineFigures, Schedule),
    cublas: Option<crate::experiments::gemm_cublas::CublasOutcome>,
) -> Outcome {
    let line = choice.label.clone().unwrap_or_default();
    Outcome::Row(Box::new(ShapeRow {
        family,
        dims: s.dims,
        choice,
        line,
        figures: GemmFigures::of(&ours).scheduled(schedule),
        cublas,
        vs_cublas,
        measured: Measured::of(&ours, None),
    }))
}
