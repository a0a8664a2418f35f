//! The sweep on the GPU: per shape and family, the problem on the device, the line chosen by the
//! shared rule (`line_choice`), and that line timed again with cuBLAS interleaved, every element
//! of both checked, and the kernel cuBLAS ran read through CUPTI.

use super::list::SweepShape;
use super::row::{Family, Miss, ShapeRow};
use super::spec::Plan;
use crate::cuda::hopper::hopper_module;
use crate::cuda::{Gpu, Kernel, LaunchShape, Module};
use crate::experiments::bf16_gemm::{Bf16, Bf16GemmBuffers};
use crate::experiments::contract::RunContext;
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::gemm::{Fp32, GemmBuffers};
use crate::experiments::gemm_cublas::{CublasOutcome, CublasSide};
use crate::experiments::gemm_figures::{GemmFigures, Schedule};
use crate::experiments::gemm_sides::{GemmKind, GemmSides, Launcher};
use crate::experiments::gemm_sides_reading_c::ReadingC;
use crate::experiments::line_choice::timed::{choose_bf16, choose_fp32, samples_of, Bf16Line};
use crate::experiments::line_choice::Choice;
use crate::experiments::measured::Measured;
use crate::experiments::wgemm_launch::{LineFigures, RingLaunch};
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
    let timing = timing_of(ctx, p);
    let shape = Fp32::launch_shape(v, s.dims);
    let launch = (&kernel, shape, &Fp32::launch as Launcher<'_, f32>);
    let sides = (&mut buffers, &mut cublas);
    let timed = grid_line::<Fp32>(gpu, &timing, (v.label, launch), sides)?;
    crate::phase_log::mark("  fp32 timed");
    let reading_c = reading_c(gpu, s, &timing, launch, (&mut buffers, &cublas))?;
    let cublas = cublas.finish(gpu, &mut buffers, Fp32::peak(gpu))?;
    crate::phase_log::mark("  fp32 cublas finished");
    Ok(row(Family::Fp32, s, choice, timed, (cublas, reading_c)))
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
    let (timed, reading_c) = match line {
        Bf16Line::Mma(v) => {
            let kernel = module.kernel(v.entry).in_variant(v.label)?;
            let shape = Bf16::launch_shape(v, s.dims);
            let launch = (&kernel, shape, &Bf16::launch as Launcher<'_, u16>);
            let sides = (&mut buffers, &mut cublas);
            let timed = grid_line::<Bf16>(gpu, &timing, (v.label, launch), sides)?;
            let reading_c = reading_c(gpu, s, &timing, launch, (&mut buffers, &cublas))?;
            (timed, reading_c)
        }
        Bf16Line::Ring(v) => {
            let hopper = hopper_module(gpu)?;
            let kernel = hopper.kernel(v.entry).in_variant(v.label)?;
            let ring = RingLaunch::encode(gpu, v, &buffers)?;
            let launcher = ring.launcher();
            let launch = (&kernel, ring.shape, &launcher as Launcher<'_, u16>);
            let sides = (&mut buffers, &mut cublas);
            let (figures, _) = grid_line::<Bf16>(gpu, &timing, (v.label, launch), sides)?;
            let reading_c = reading_c(gpu, s, &timing, launch, (&mut buffers, &cublas))?;
            ((figures, ring.schedule), reading_c)
        }
    };
    crate::phase_log::mark("  bf16 timed");
    let cublas = cublas.finish(gpu, &mut buffers, Bf16::peak(gpu))?;
    crate::phase_log::mark("  bf16 cublas finished");
    Ok(row(Family::Bf16, s, choice, timed, (cublas, reading_c)))
}

/// A kernel as the sides launch it: the kernel, its launch shape and its launcher.
type LineLaunch<'l, 'k, E> = (&'l Kernel<'k>, LaunchShape, Launcher<'l, E>);

/// A line of family `K` (`label`, launched as `launch` says) timed beside cuBLAS; its schedule
/// as one block per tile (a persistent line's caller keeps its own).
fn grid_line<K: GemmKind>(
    gpu: &Gpu,
    timing: &SamplingConfig,
    (label, (kernel, shape, launcher)): (&str, LineLaunch<'_, '_, K::Elem>),
    (buffers, cublas): (&mut GemmSides<K>, &mut CublasSide),
) -> Result<(LineFigures, Schedule), ExperimentError> {
    let figures = cublas.measure(
        gpu,
        buffers,
        (label, (kernel, None)),
        (shape, launcher),
        timing,
    )?;
    Ok((
        figures,
        Schedule::one_block_per_tile(&shape, gpu.info().sm_count),
    ))
}

/// Where `s` asks for it, the chosen line and cuBLAS timed again with the epilogue reading C
/// (`gemm_sides_reading_c`).
fn reading_c<K: GemmKind>(
    gpu: &Gpu,
    s: &SweepShape,
    timing: &SamplingConfig,
    launch: LineLaunch<'_, '_, K::Elem>,
    (buffers, cublas): (&mut GemmSides<K>, &CublasSide),
) -> Result<Option<ReadingC>, ExperimentError> {
    if !s.reads_c {
        return Ok(None);
    }
    let r = buffers.time_reading_c(gpu, launch, cublas.usable(), timing)?;
    crate::phase_log::mark("  timed reading C");
    Ok(Some(r))
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
    (cublas, reading_c): (Option<CublasOutcome>, Option<ReadingC>),
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
        reading_c,
    }))
}
