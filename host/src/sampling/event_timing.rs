//! Timing on the GPU: each sample one CUDA-event-timed batch of back-to-back launches, the
//! sides in rotating rounds ([`super::rounds`]), every side summarized with its flags.

use std::time::Instant;

use super::plan::{SamplingConfig, SamplingPlan};
use super::rounds::{sample_rounds, Side};
use super::stats::{launches_per_sample, summarize_side};
use crate::cuda::{CudaError, Gpu};
use crate::results::Timing;

/// Times our kernel and, when `compared`, theirs, by `config`: `launch(side)` enqueues exactly
/// one launch of that side's kernel. One warm-up launch per side (also timed, to size the
/// batches of a noise-driven plan: both sides get the same batch size, that of the faster), then
/// rounds of one sample per side in alternating order until the plan says stop.
pub fn time_sides(
    gpu: &Gpu,
    config: &SamplingConfig,
    compared: bool,
    mut launch: impl FnMut(Side) -> Result<(), CudaError>,
) -> Result<(Timing, Option<Timing>), CudaError> {
    let sides = if compared { 2 } else { 1 };
    let side = |i| if i == 0 { Side::Ours } else { Side::Theirs };
    let mut timings = time_rotating(gpu, config, sides, |i| launch(side(i)))?.into_iter();
    let ours = timings.next().expect("one timing per side");
    Ok((ours, timings.next()))
}

/// Times `sides` launchers together by `config`, as [`time_sides`] does two (ours first, then the
/// compared module, then any reference such as cuBLAS): `launch(i)` enqueues one launch of side
/// `i`. One timing per side.
pub fn time_rotating(
    gpu: &Gpu,
    config: &SamplingConfig,
    sides: usize,
    mut launch: impl FnMut(usize) -> Result<(), CudaError>,
) -> Result<Vec<Timing>, CudaError> {
    time_sampled(gpu, config, sides, &mut launch)
}

/// What the timing does with each of its sides: enqueue one launch, and, after each sample,
/// whatever the caller wants done outside the timed interval (the GEMM sides hash their output).
pub trait Sampled {
    /// Enqueues exactly one launch of side `side`.
    fn launch(&mut self, side: usize) -> Result<(), CudaError>;
    /// Enqueued after each timed sample of `side` (after the sample's end event, so outside
    /// what the events time), in sample order. The warm-up launch is not a sample.
    fn after_sample(&mut self, side: usize) -> Result<(), CudaError>;
    /// Enqueued after `side`'s warm-up launch, outside what the events time: a side whose
    /// launches read their own output (a GEMM with beta != 0) starts its samples afresh.
    fn after_warm_up(&mut self, _side: usize) -> Result<(), CudaError> {
        Ok(())
    }
}

/// A launcher with nothing to do after a sample.
impl<L: FnMut(usize) -> Result<(), CudaError>> Sampled for L {
    fn launch(&mut self, side: usize) -> Result<(), CudaError> {
        self(side)
    }
    fn after_sample(&mut self, _: usize) -> Result<(), CudaError> {
        Ok(())
    }
}

/// [`time_rotating`] with `sampled`'s work enqueued after each sample, outside the timed
/// interval.
pub fn time_sampled(
    gpu: &Gpu,
    config: &SamplingConfig,
    sides: usize,
    sampled: &mut impl Sampled,
) -> Result<Vec<Timing>, CudaError> {
    let started = Instant::now();
    let (start, end) = (gpu.event()?, gpu.event()?);
    let elapsed_ms = |what: &str| {
        // Polled with the launch timeout first: `elapsed_ms` itself would wait for ever.
        gpu.wait_for(&end, &format!("waiting for {what}"))?;
        start
            .elapsed_ms(&end)
            .map_err(|source| gpu.failure(source, format!("reading the elapsed time of {what}")))
    };
    let mut fastest = f64::INFINITY;
    for side in 0..sides {
        gpu.record(&start)?;
        sampled.launch(side)?;
        gpu.record(&end)?;
        fastest = fastest.min(f64::from(elapsed_ms("a warm-up launch")?));
        sampled.after_warm_up(side)?;
    }
    let launches = match config.plan {
        SamplingPlan::Fixed(p) => p.iters,
        SamplingPlan::Noise(t) => launches_per_sample(fastest, t.min_sample_ms),
    };
    let gathered = sample_rounds(
        config,
        sides,
        |side| {
            gpu.record(&start)?;
            for _ in 0..launches {
                sampled.launch(side)?;
            }
            gpu.record(&end)?;
            sampled.after_sample(side)?;
            Ok::<_, CudaError>(f64::from(elapsed_ms("a sample")?) / f64::from(launches))
        },
        || gpu.recent_sm_clock_mhz(),
        || started.elapsed(),
    )?;
    gpu.synchronize()?;
    let mut timings: Vec<Timing> = gathered
        .sides_ms
        .iter()
        .map(|ms| summarize_side(ms.clone(), &gathered, config, launches))
        .collect();
    // A dropped clock's flag says what held it down, as NVML reports it right after the figure.
    if timings.iter().any(|t| t.clock_dropped_samples > 0) {
        if let Some(why) = gpu.throttled_by().filter(|w| !w.is_empty()) {
            for t in timings.iter_mut().filter(|t| t.clock_dropped_samples > 0) {
                t.flags.push(format!("clocks held down by: {why}"));
            }
        }
    }
    Ok(timings)
}

/// Times `launch` (which enqueues exactly one launch) alone, by `config`.
pub fn time_launches(
    gpu: &Gpu,
    config: &SamplingConfig,
    mut launch: impl FnMut() -> Result<(), CudaError>,
) -> Result<Timing, CudaError> {
    let (ours, _) = time_sides(gpu, config, false, |_| launch())?;
    Ok(ours)
}
