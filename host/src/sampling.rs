//! Noise-driven timing, as nvbench measures: each figure takes samples until its noise is below a
//! target, with a minimum number of samples and a time cap, and reports the noise it reached.
//!
//! **Noise** is the relative standard deviation of a figure's samples: the sample standard
//! deviation (divisor `n - 1`) of the per-launch times, divided by their mean. A sample is one
//! CUDA-event-timed batch of back-to-back launches of one kernel, divided by the batch size; the
//! batch is sized so a sample lasts at least
//! [`NoiseTarget::min_sample_ms`], which keeps the events' resolution and the launch gaps small
//! against the figure. This is nvbench's "noise" (its relative standard deviation of the cold
//! samples), taken over batches instead of single launches.
//!
//! **Stopping rule** ([`stopping_rule`], pure and tested on synthetic samples): never before
//! [`NoiseTarget::min_samples`] samples of every side; then stop as soon as every side's noise is
//! at or below [`NoiseTarget::max_noise`]; otherwise stop at [`NoiseTarget::max_samples`] or once
//! the figure has taken [`NoiseTarget::max_time`], whichever comes first. The minimum wins over
//! the time cap: a figure always has at least the minimum number of samples.
//! A figure that stopped at a cap with its noise above the target is flagged.
//!
//! The two compared sides (ours and theirs, `--compare`) are sampled in alternating rounds
//! ([`round_order`]: A B, B A, ...), so that a drift of clocks or temperature over the run, or a
//! cost of coming second, falls on both alike; one decision covers both, so both have the same
//! number of samples. A fixed plan (`--iters/--samples`) stays available as
//! [`SamplingPlan::Fixed`]. This is the one timing path of every experiment ([`time_sides`]).
//!
//! **Clock drops.** The SM clock is read (NVML, through [`Gpu::recent_sm_clock_mhz`])
//! before the first round, after the last, and every [`SamplingConfig::clock_every`] rounds in
//! between. A sample is marked when a reading bracketing it (the last one taken before it
//! started, or the first one after it ended) lies more than [`SamplingConfig::clock_tolerance`]
//! below the reference clock, and the figure's flag names what NVML says held the clocks down.
//! [`Gpu::recent_sm_clock_mhz`] reuses a reading younger than a tenth of a second: the reading
//! after one figure is the reading before the next.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::cuda::{CudaError, Gpu};
use crate::results::Timing;

/// A fixed plan: exactly `samples` samples of `iters` back-to-back launches each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimingPlan {
    /// Launches per timed sample (`--iters`).
    pub iters: u32,
    /// Timed samples (`--samples`).
    pub samples: u32,
}

/// Which of the two modules of a comparison a launch belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The module under test (`--module`, or the built-in kernels).
    Ours,
    /// The module it is compared with (`--compare`).
    Theirs,
}

/// The sides timed in sample round `round`: ours alone, or both, the first round ours first, the
/// next theirs first, and so on (A B, B A, A B, ...).
pub fn round_order(round: u32, compared: bool) -> &'static [Side] {
    match (compared, round % 2) {
        (false, _) => &[Side::Ours],
        (true, 0) => &[Side::Ours, Side::Theirs],
        (true, _) => &[Side::Theirs, Side::Ours],
    }
}

/// Median, min and max of per-launch times (samples kept in their order). An empty list gives
/// NaN figures. The noise fields are left empty; [`summarize_side`] fills them.
pub fn summarize(samples_ms: Vec<f64>, before: Option<u32>, after: Option<u32>) -> Timing {
    let mut sorted = samples_ms.clone();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median_ms = match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    };
    Timing {
        median_ms,
        min_ms: sorted.first().copied().unwrap_or(f64::NAN),
        max_ms: sorted.last().copied().unwrap_or(f64::NAN),
        samples_ms,
        sm_clock_mhz_before: before,
        sm_clock_mhz_after: after,
        ..Timing::default()
    }
}

/// Default noise target: 0.5% relative standard deviation.
pub const DEFAULT_MAX_NOISE: f64 = 0.005;
/// Default minimum samples per figure.
pub const DEFAULT_MIN_SAMPLES: u32 = 5;
/// Default most samples per figure.
pub const DEFAULT_MAX_SAMPLES: u32 = 100;
/// Default time cap per figure (both sides together).
pub const DEFAULT_MAX_TIME: Duration = Duration::from_millis(1500);
/// Default shortest sample: launches are batched until a sample lasts this long (ms).
pub const DEFAULT_MIN_SAMPLE_MS: f64 = 1.0;
/// Default tolerance of a clock reading below the reference before a sample is marked (2%).
pub const DEFAULT_CLOCK_TOLERANCE: f64 = 0.02;
/// Most launches one sample batches.
pub const MAX_LAUNCHES_PER_SAMPLE: u32 = 10_000;

/// When a noise-driven figure stops.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NoiseTarget {
    /// Largest acceptable relative standard deviation (0.005 = 0.5%).
    pub max_noise: f64,
    /// Samples taken whatever the noise or the time.
    pub min_samples: u32,
    /// Samples after which the figure stops whatever its noise.
    pub max_samples: u32,
    /// Time after which the figure stops whatever its noise (once it has the minimum).
    pub max_time: Duration,
    /// Launches are batched so one sample lasts at least this long (ms).
    pub min_sample_ms: f64,
}

impl Default for NoiseTarget {
    fn default() -> Self {
        Self {
            max_noise: DEFAULT_MAX_NOISE,
            min_samples: DEFAULT_MIN_SAMPLES,
            max_samples: DEFAULT_MAX_SAMPLES,
            max_time: DEFAULT_MAX_TIME,
            min_sample_ms: DEFAULT_MIN_SAMPLE_MS,
        }
    }
}

/// How many samples make a figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SamplingPlan {
    /// Exactly `samples` samples of `iters` launches (`--iters/--samples`).
    Fixed(TimingPlan),
    /// Until the noise target is met or a cap is reached.
    Noise(NoiseTarget),
}

impl Default for SamplingPlan {
    fn default() -> Self {
        SamplingPlan::Noise(NoiseTarget::default())
    }
}

/// The plan plus the clock watch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplingConfig {
    pub plan: SamplingPlan,
    /// Read the SM clock every this many rounds (0: only before the first and after the last).
    pub clock_every: u32,
    /// A reading more than this fraction below `reference_clock_mhz` marks its samples.
    pub clock_tolerance: f64,
    /// The clock the device should hold (e.g. its maximum SM clock); None: the highest reading
    /// of the figure.
    pub reference_clock_mhz: Option<u32>,
}

impl SamplingConfig {
    /// The fixed plan, if this is one.
    pub fn fixed(&self) -> Option<TimingPlan> {
        match self.plan {
            SamplingPlan::Fixed(p) => Some(p),
            SamplingPlan::Noise(_) => None,
        }
    }

    /// The noise target, if figures are sampled to one.
    pub fn noise_target(&self) -> Option<f64> {
        match self.plan {
            SamplingPlan::Noise(t) => Some(t.max_noise),
            SamplingPlan::Fixed(_) => None,
        }
    }
}

impl Default for SamplingConfig {
    fn default() -> Self {
        Self {
            plan: SamplingPlan::default(),
            clock_every: 0,
            clock_tolerance: DEFAULT_CLOCK_TOLERANCE,
            reference_clock_mhz: None,
        }
    }
}

/// The timing flags of every experiment: a noise target by default, a fixed plan when both
/// `--iters` and `--samples` are given.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct SamplingArgs {
    /// Noise target: stop a figure once the relative standard deviation of its samples is at
    /// most this many percent.
    #[arg(long, value_name = "PERCENT", default_value_t = DEFAULT_MAX_NOISE * 100.0,
          value_parser = parse_noise_percent)]
    pub noise: f64,
    /// Fewest samples per figure.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_SAMPLES,
          value_parser = crate::flag_values::whole(2u32..=10_000))]
    pub min_samples: u32,
    /// Most samples per figure.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SAMPLES,
          value_parser = crate::flag_values::whole(2u32..=100_000))]
    pub max_samples: u32,
    /// Time cap per figure, milliseconds (the fewest samples are taken even past it).
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_MAX_TIME.as_millis() as u64,
          value_parser = crate::flag_values::whole(1u64..=3_600_000))]
    pub max_time_ms: u64,
    /// Fixed plan: launches per sample (with --samples; replaces the noise target).
    #[arg(long, value_name = "N", requires = "samples",
          value_parser = crate::flag_values::whole(1u32..=1_000_000))]
    pub iters: Option<u32>,
    /// Fixed plan: samples per figure (with --iters).
    #[arg(long, value_name = "N", requires = "iters",
          value_parser = crate::flag_values::whole(1u32..=1000))]
    pub samples: Option<u32>,
    /// Read the SM clock (NVML) every N sample rounds (0: before and after each figure only).
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = crate::flag_values::whole(0u32..=1_000_000))]
    pub clock_every: u32,
}

fn parse_noise_percent(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v > 0.0 && v <= 100.0 {
        Ok(v)
    } else {
        Err(format!("{v} is not a percentage in (0, 100]"))
    }
}

impl SamplingArgs {
    /// The sampling configuration these flags ask for; `reference_clock_mhz` is the clock the
    /// device should hold.
    pub fn config(&self, reference_clock_mhz: Option<u32>) -> Result<SamplingConfig, String> {
        if self.min_samples > self.max_samples {
            return Err(format!(
                "--min-samples {} is above --max-samples {}",
                self.min_samples, self.max_samples
            ));
        }
        let plan = match (self.iters, self.samples) {
            (Some(iters), Some(samples)) => SamplingPlan::Fixed(TimingPlan { iters, samples }),
            _ => SamplingPlan::Noise(NoiseTarget {
                max_noise: self.noise / 100.0,
                min_samples: self.min_samples,
                max_samples: self.max_samples,
                max_time: Duration::from_millis(self.max_time_ms),
                min_sample_ms: DEFAULT_MIN_SAMPLE_MS,
            }),
        };
        Ok(SamplingConfig {
            plan,
            clock_every: self.clock_every,
            clock_tolerance: DEFAULT_CLOCK_TOLERANCE,
            reference_clock_mhz,
        })
    }
}

/// Why a figure stopped sampling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stop {
    /// Take another round.
    Continue,
    /// Every side's noise is at or below the target.
    Converged,
    /// The fixed plan's sample count was reached.
    Planned,
    /// The most samples were taken with the noise still above the target.
    SampleCap,
    /// The time cap was reached with the noise still above the target.
    TimeCap,
}

/// Relative standard deviation of `samples`: sample standard deviation (divisor n - 1) over the
/// mean. None for fewer than two samples or a mean that is not positive.
pub fn relative_noise(samples: &[f64]) -> Option<f64> {
    let n = samples.len();
    if n < 2 {
        return None;
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    if mean.is_nan() || mean <= 0.0 {
        return None;
    }
    let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some(var.sqrt() / mean)
}

/// The stopping rule (see the module documentation) for the samples of every side taken so far
/// and the time the figure has taken.
pub fn stopping_rule(sides: &[&[f64]], elapsed: Duration, target: &NoiseTarget) -> Stop {
    let taken = sides.iter().map(|s| s.len()).min().unwrap_or(0) as u32;
    if taken < target.min_samples.max(2) {
        return Stop::Continue;
    }
    let quiet = sides
        .iter()
        .all(|s| relative_noise(s).is_some_and(|n| n <= target.max_noise));
    if quiet {
        Stop::Converged
    } else if taken >= target.max_samples {
        Stop::SampleCap
    } else if elapsed >= target.max_time {
        Stop::TimeCap
    } else {
        Stop::Continue
    }
}

/// Launches per sample so that one sample lasts at least `min_sample_ms`, from the time of one
/// launch; at least 1, at most [`MAX_LAUNCHES_PER_SAMPLE`].
pub fn launches_per_sample(one_launch_ms: f64, min_sample_ms: f64) -> u32 {
    if one_launch_ms.is_nan() || one_launch_ms <= 0.0 {
        return MAX_LAUNCHES_PER_SAMPLE;
    }
    let n = (min_sample_ms / one_launch_ms).ceil();
    if n.is_nan() || n < 1.0 {
        1
    } else {
        n.min(f64::from(MAX_LAUNCHES_PER_SAMPLE)) as u32
    }
}

/// Whether a clock reading lies more than `tolerance` below `reference`.
pub fn clock_dropped(reading_mhz: u32, reference_mhz: u32, tolerance: f64) -> bool {
    f64::from(reading_mhz) < f64::from(reference_mhz) * (1.0 - tolerance)
}

/// A clock reading taken before round `before_round` (`rounds` for the one after the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockReading {
    pub before_round: u32,
    pub mhz: Option<u32>,
}

/// Per round, whether a reading bracketing it (the last at or before its start, the first at or
/// after its end) dropped below `reference`; rounds without a readable bracket are not marked.
pub fn rounds_with_clock_drop(
    readings: &[ClockReading],
    rounds: u32,
    reference_mhz: u32,
    tolerance: f64,
) -> Vec<bool> {
    let low = |r: &ClockReading| {
        r.mhz
            .is_some_and(|m| clock_dropped(m, reference_mhz, tolerance))
    };
    (0..rounds)
        .map(|round| {
            let before = readings
                .iter()
                .filter(|r| r.before_round <= round && r.mhz.is_some())
                .max_by_key(|r| r.before_round);
            let after = readings
                .iter()
                .filter(|r| r.before_round > round && r.mhz.is_some())
                .min_by_key(|r| r.before_round);
            before.is_some_and(low) || after.is_some_and(low)
        })
        .collect()
}

/// What the sampling loop gathered, before it is summarized per side.
#[derive(Debug, Clone, PartialEq)]
pub struct Gathered {
    /// Per-launch milliseconds of each side's samples, in the order the sides were given
    /// (ours first, then the compared module, then any reference such as cuBLAS).
    pub sides_ms: Vec<Vec<f64>>,
    pub readings: Vec<ClockReading>,
    pub stop: Stop,
}

/// The sides sampled in round `round` of `sides` sides, in order: each round starts one side
/// later than the last (A B C, B C A, C A B, ...), so that a drift of clocks or temperature, or a
/// cost of going first or last, falls on every side alike. With two sides this is
/// [`round_order`]'s A B, B A.
pub fn rotation(round: u32, sides: usize) -> impl Iterator<Item = usize> {
    (0..sides).map(move |i| (round as usize + i) % sides)
}

/// The sampling loop, independent of the GPU: `sample(side)` takes one sample of `side` (its
/// per-launch milliseconds), `clock()` reads the SM clock, `elapsed()` is the figure's time so
/// far. Rounds alternate the order of the sides ([`round_order`]).
pub fn sample_loop<E>(
    config: &SamplingConfig,
    compared: bool,
    mut sample: impl FnMut(Side) -> Result<f64, E>,
    clock: impl FnMut() -> Option<u32>,
    elapsed: impl Fn() -> Duration,
) -> Result<Gathered, E> {
    let sides = if compared { 2 } else { 1 };
    sample_rounds(
        config,
        sides,
        |i| {
            sample(match i {
                0 => Side::Ours,
                _ => Side::Theirs,
            })
        },
        clock,
        elapsed,
    )
}

/// The sampling loop over `sides` sides (`sides` >= 1): `sample(i)` takes one sample of side `i`.
/// Rounds rotate the order of the sides ([`rotation`]); the stopping rule waits for every side.
pub fn sample_rounds<E>(
    config: &SamplingConfig,
    sides: usize,
    mut sample: impl FnMut(usize) -> Result<f64, E>,
    mut clock: impl FnMut() -> Option<u32>,
    elapsed: impl Fn() -> Duration,
) -> Result<Gathered, E> {
    let mut g = Gathered {
        sides_ms: vec![Vec::new(); sides.max(1)],
        readings: vec![ClockReading {
            before_round: 0,
            mhz: clock(),
        }],
        stop: Stop::Continue,
    };
    let mut round = 0u32;
    loop {
        let stop = match config.plan {
            SamplingPlan::Fixed(p) if round >= p.samples => Stop::Planned,
            SamplingPlan::Fixed(_) => Stop::Continue,
            SamplingPlan::Noise(t) => {
                let each: Vec<&[f64]> = g.sides_ms.iter().map(Vec::as_slice).collect();
                stopping_rule(&each, elapsed(), &t)
            }
        };
        if stop != Stop::Continue {
            g.stop = stop;
            break;
        }
        if round > 0 && config.clock_every > 0 && round.is_multiple_of(config.clock_every) {
            g.readings.push(ClockReading {
                before_round: round,
                mhz: clock(),
            });
        }
        for side in rotation(round, g.sides_ms.len()) {
            let ms = sample(side)?;
            g.sides_ms[side].push(ms);
        }
        round += 1;
    }
    g.readings.push(ClockReading {
        before_round: round,
        mhz: clock(),
    });
    Ok(g)
}

/// Summarizes one side's samples of a gathered figure.
pub fn summarize_side(
    samples_ms: Vec<f64>,
    gathered: &Gathered,
    config: &SamplingConfig,
    launches: u32,
) -> Timing {
    let noise = relative_noise(&samples_ms);
    let target = match config.plan {
        SamplingPlan::Noise(t) => Some(t.max_noise),
        SamplingPlan::Fixed(_) => None,
    };
    let target_met = match target {
        Some(t) => noise.is_some_and(|n| n <= t),
        None => true,
    };
    let rounds = samples_ms.len() as u32;
    let reference = config
        .reference_clock_mhz
        .or_else(|| gathered.readings.iter().filter_map(|r| r.mhz).max());
    let dropped = reference
        .map(|r| {
            rounds_with_clock_drop(&gathered.readings, rounds, r, config.clock_tolerance)
                .iter()
                .filter(|&&d| d)
                .count() as u32
        })
        .unwrap_or(0);
    let mut flags = Vec::new();
    if !target_met {
        flags.push(format!(
            "noise {} above the target {} ({} samples, stopped at the {})",
            percent(noise),
            percent(target),
            rounds,
            match gathered.stop {
                Stop::TimeCap => "time cap",
                _ => "sample cap",
            }
        ));
    }
    if dropped > 0 {
        flags.push(format!(
            "{dropped} of {rounds} samples taken while the SM clock was more than {:.0}% below \
             {} MHz",
            config.clock_tolerance * 100.0,
            reference.unwrap_or(0)
        ));
    }
    let before = gathered.readings.first().and_then(|r| r.mhz);
    let after = gathered.readings.last().and_then(|r| r.mhz);
    Timing {
        noise,
        noise_target: target,
        launches_per_sample: Some(launches),
        clock_dropped_samples: dropped,
        flags,
        ..summarize(samples_ms, before, after)
    }
}

fn percent(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_owned(), |x| format!("{:.2}%", x * 100.0))
}

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
    let mut timings = time_rotating(gpu, config, sides, |i| {
        launch(match i {
            0 => Side::Ours,
            _ => Side::Theirs,
        })
    })?
    .into_iter();
    let ours = timings.next().expect("one timing per side");
    Ok((ours, timings.next()))
}

/// Times `sides` launchers together by `config` (ours first, then the compared module, then any
/// reference such as cuBLAS): `launch(i)` enqueues exactly one launch of side `i`. One warm-up
/// launch per side, also timed to size the samples by the fastest side; then rounds in rotating
/// order ([`rotation`]) until every side's noise meets the target (or a cap). One timing per side.
pub fn time_rotating(
    gpu: &Gpu,
    config: &SamplingConfig,
    sides: usize,
    mut launch: impl FnMut(usize) -> Result<(), CudaError>,
) -> Result<Vec<Timing>, CudaError> {
    let started = Instant::now();
    let (start, end) = (gpu.event()?, gpu.event()?);
    let elapsed_ms = |what: &str| {
        start.elapsed_ms(&end).map_err(|source| CudaError::Driver {
            what: format!("reading the elapsed time of {what} (a launch may have faulted)"),
            source,
        })
    };
    let mut fastest = f64::INFINITY;
    for side in 0..sides {
        gpu.record(&start)?;
        launch(side)?;
        gpu.record(&end)?;
        fastest = fastest.min(f64::from(elapsed_ms("a warm-up launch")?));
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
                launch(side)?;
            }
            gpu.record(&end)?;
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

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::convert::Infallible;

    use super::*;

    /// Deterministic noise in [-1, 1) (a 64-bit LCG).
    fn jitter(state: &mut u64) -> f64 {
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((*state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    fn target() -> NoiseTarget {
        NoiseTarget {
            max_noise: 0.005,
            min_samples: 5,
            max_samples: 50,
            max_time: Duration::from_secs(1),
            min_sample_ms: 1.0,
        }
    }

    /// Runs the loop on synthetic samples `base * (1 + amplitude * jitter)`, each sample taking
    /// `ms_per_sample` of simulated time.
    fn simulate(
        config: &SamplingConfig,
        compared: bool,
        amplitude: f64,
        ms_per_sample: u64,
    ) -> Gathered {
        let now = Cell::new(Duration::ZERO);
        let mut state = 7u64;
        sample_loop::<Infallible>(
            config,
            compared,
            |side| {
                now.set(now.get() + Duration::from_millis(ms_per_sample));
                let base = if side == Side::Ours { 1.0 } else { 2.0 };
                Ok(base * (1.0 + amplitude * jitter(&mut state)))
            },
            || Some(1980),
            || now.get(),
        )
        .unwrap()
    }

    fn noise_config(t: NoiseTarget) -> SamplingConfig {
        SamplingConfig {
            plan: SamplingPlan::Noise(t),
            ..SamplingConfig::default()
        }
    }

    fn parse(args: &[&str]) -> Result<SamplingArgs, clap::Error> {
        crate::flag_values::parse_flags(args)
    }

    #[test]
    fn flags_give_a_noise_target_or_a_fixed_plan() {
        let c = parse(&[]).unwrap().config(Some(1980)).unwrap();
        assert_eq!(c.plan, SamplingPlan::Noise(NoiseTarget::default()));
        assert_eq!(c.reference_clock_mhz, Some(1980));
        let c = parse(&["--noise", "1", "--min-samples", "3"]).unwrap();
        match c.config(None).unwrap().plan {
            SamplingPlan::Noise(t) => assert_eq!((t.max_noise, t.min_samples), (0.01, 3)),
            p => panic!("{p:?}"),
        }
        let c = parse(&["--iters", "50", "--samples", "7"]).unwrap();
        assert_eq!(
            c.config(None).unwrap().plan,
            SamplingPlan::Fixed(TimingPlan {
                iters: 50,
                samples: 7
            })
        );
    }

    #[test]
    fn bad_sampling_flags_are_refused() {
        assert!(
            parse(&["--iters", "50"]).is_err(),
            "--iters needs --samples"
        );
        assert!(parse(&["--noise", "0"]).is_err());
        assert!(parse(&["--noise", "abc"]).is_err());
        assert!(parse(&["--min-samples", "1"]).is_err());
        let c = parse(&["--min-samples", "50", "--max-samples", "10"]).unwrap();
        assert!(c.config(None).unwrap_err().contains("--min-samples 50"));
    }

    #[test]
    fn odd_sample_count_takes_the_middle() {
        let t = summarize(vec![3.0, 1.0, 2.0], Some(1980), None);
        assert_eq!((t.median_ms, t.min_ms, t.max_ms), (2.0, 1.0, 3.0));
        assert_eq!(t.samples_ms, [3.0, 1.0, 2.0], "samples keep their order");
        assert_eq!(t.sm_clock_mhz_before, Some(1980));
    }

    #[test]
    fn even_sample_count_averages_the_middle_two() {
        let t = summarize(vec![4.0, 1.0, 2.0, 10.0], None, None);
        assert_eq!(t.median_ms, 3.0);
        assert_eq!(t.max_ms, 10.0);
    }

    #[test]
    fn three_sides_rotate_which_goes_first() {
        let rounds: Vec<Vec<usize>> = (0..4).map(|r| rotation(r, 3).collect()).collect();
        assert_eq!(
            rounds,
            [vec![0, 1, 2], vec![1, 2, 0], vec![2, 0, 1], vec![0, 1, 2]]
        );
        for r in 0..6 {
            let two: Vec<usize> = rotation(r, 2).collect();
            let named: Vec<usize> = round_order(r, true)
                .iter()
                .map(|s| match s {
                    Side::Ours => 0,
                    Side::Theirs => 1,
                })
                .collect();
            assert_eq!(
                two, named,
                "round {r}: two sides rotate as round_order alternates"
            );
        }
    }

    #[test]
    fn compared_sides_alternate_which_goes_first() {
        assert_eq!(round_order(0, false), [Side::Ours]);
        assert_eq!(round_order(1, false), [Side::Ours]);
        assert_eq!(round_order(0, true), [Side::Ours, Side::Theirs]);
        assert_eq!(round_order(1, true), [Side::Theirs, Side::Ours]);
        assert_eq!(round_order(6, true), [Side::Ours, Side::Theirs]);
        let firsts = (0..7).filter(|&r| round_order(r, true)[0] == Side::Theirs);
        assert_eq!(firsts.count(), 3, "7 rounds: theirs goes first in 3");
    }

    #[test]
    fn no_samples_gives_nan() {
        assert!(summarize(vec![], None, None).median_ms.is_nan());
    }

    #[test]
    fn noise_is_the_relative_sample_standard_deviation() {
        // mean 2, sample variance ((1)^2 + 0 + 1) / 2 = 1.
        let n = relative_noise(&[1.0, 2.0, 3.0]).unwrap();
        assert!((n - 0.5).abs() < 1e-12, "{n}");
        assert_eq!(relative_noise(&[5.0, 5.0, 5.0]), Some(0.0));
        assert_eq!(relative_noise(&[5.0]), None);
        assert_eq!(relative_noise(&[0.0, 0.0]), None);
    }

    #[test]
    fn quiet_data_converges_at_the_minimum() {
        let g = simulate(&noise_config(target()), false, 0.001, 1);
        assert_eq!(g.stop, Stop::Converged);
        assert_eq!(
            g.sides_ms[0].len(),
            5,
            "quiet samples need no more than the minimum"
        );
        assert!(relative_noise(&g.sides_ms[0]).unwrap() <= 0.005);
    }

    #[test]
    fn noisy_data_stops_at_the_time_cap_flagged() {
        // 5% jitter never gets to 0.5%; 40 ms per sample reaches the 1 s cap after 25 samples.
        let config = noise_config(target());
        let g = simulate(&config, false, 0.05, 40);
        assert_eq!(g.stop, Stop::TimeCap);
        assert_eq!(g.sides_ms[0].len(), 25);
        let s = summarize_side(g.sides_ms[0].clone(), &g, &config, 10);
        assert!(!s.target_met());
        assert!(s.noise.unwrap() > 0.005 && s.noise_target == Some(0.005));
        assert_eq!(s.flags.len(), 1);
        assert!(s.flags[0].contains("time cap"), "{:?}", s.flags);
    }

    #[test]
    fn noisy_fast_data_stops_at_the_sample_cap() {
        let g = simulate(&noise_config(target()), false, 0.05, 1);
        assert_eq!(g.stop, Stop::SampleCap);
        assert_eq!(g.sides_ms[0].len(), 50);
    }

    #[test]
    fn the_minimum_wins_over_the_time_cap() {
        // Each sample alone exceeds the time cap, yet the minimum of 5 is taken.
        let g = simulate(&noise_config(target()), false, 0.001, 5_000);
        assert_eq!(g.sides_ms[0].len(), 5);
        let t = NoiseTarget {
            min_samples: 8,
            ..target()
        };
        let g = simulate(&noise_config(t), false, 0.05, 5_000);
        assert_eq!((g.sides_ms[0].len(), g.stop), (8, Stop::TimeCap));
    }

    #[test]
    fn sampling_stops_at_the_first_quiet_enough_sample() {
        // Two outliers, then exact samples: the sample variance is 0.000882 / (n - 1), at most
        // 0.005^2 from n = 37 on (n - 1 >= 35.28), so the rule stops at exactly 37.
        let t = NoiseTarget {
            max_samples: 1000,
            max_time: Duration::from_secs(3600),
            ..target()
        };
        let mut i = 0;
        let g = sample_loop::<Infallible>(
            &noise_config(t),
            false,
            |_| {
                i += 1;
                Ok(match i {
                    2 => 1.021,
                    3 => 0.979,
                    _ => 1.0,
                })
            },
            || None,
            || Duration::ZERO,
        )
        .unwrap();
        assert_eq!((g.sides_ms[0].len(), g.stop), (37, Stop::Converged));
        assert!(relative_noise(&g.sides_ms[0][..36]).unwrap() > 0.005);
    }

    #[test]
    fn both_sides_must_be_quiet_and_have_equal_counts() {
        let quiet = [1.0; 6];
        let noisy = [1.0, 1.1, 0.9, 1.0, 1.1, 0.9];
        let t = target();
        assert_eq!(
            stopping_rule(&[&quiet, &noisy], Duration::ZERO, &t),
            Stop::Continue
        );
        assert_eq!(
            stopping_rule(&[&quiet, &quiet], Duration::ZERO, &t),
            Stop::Converged
        );
        assert_eq!(
            stopping_rule(&[&quiet, &quiet[..4]], Duration::ZERO, &t),
            Stop::Continue,
            "the shorter side decides whether the minimum is met"
        );
        let g = simulate(&noise_config(t), true, 0.05, 1);
        assert_eq!(g.sides_ms[0].len(), g.sides_ms[1].len());
        assert!(
            (g.sides_ms[1][0] / 2.0 - 1.0).abs() < 0.06,
            "sides not mixed up"
        );
    }

    #[test]
    fn a_fixed_plan_takes_exactly_its_samples() {
        let config = SamplingConfig {
            plan: SamplingPlan::Fixed(TimingPlan {
                iters: 50,
                samples: 7,
            }),
            ..SamplingConfig::default()
        };
        let g = simulate(&config, true, 0.5, 1);
        assert_eq!((g.sides_ms[0].len(), g.sides_ms[1].len()), (7, 7));
        assert_eq!(g.stop, Stop::Planned);
        let s = summarize_side(g.sides_ms[0].clone(), &g, &config, 50);
        assert!(s.target_met() && s.noise_target.is_none() && s.flags.is_empty());
    }

    #[test]
    fn batches_last_at_least_the_minimum_sample_time() {
        assert_eq!(launches_per_sample(0.3, 1.0), 4);
        assert_eq!(launches_per_sample(2.0, 1.0), 1);
        assert_eq!(launches_per_sample(1e-9, 1.0), MAX_LAUNCHES_PER_SAMPLE);
        assert_eq!(launches_per_sample(0.0, 1.0), MAX_LAUNCHES_PER_SAMPLE);
    }

    #[test]
    fn samples_bracketed_by_a_low_clock_are_marked() {
        let r = |before_round, mhz| ClockReading { before_round, mhz };
        // Readings before rounds 0, 2, 4 and after the last (round 6).
        let readings = [
            r(0, Some(1980)),
            r(2, Some(1700)),
            r(4, Some(1980)),
            r(6, None),
        ];
        let marked = rounds_with_clock_drop(&readings, 6, 1980, 0.02);
        // Rounds 0-1 end at the low reading, 2-3 start at it; 4-5 are bracketed by 1980 and
        // an unreadable reading, so not marked.
        assert_eq!(marked, [true, true, true, true, false, false]);
        assert!(!clock_dropped(1950, 1980, 0.02));
        assert!(clock_dropped(1930, 1980, 0.02));
    }

    #[test]
    fn a_clock_drop_is_flagged_on_the_figure() {
        let config = SamplingConfig {
            plan: SamplingPlan::Fixed(TimingPlan {
                iters: 1,
                samples: 4,
            }),
            clock_every: 2,
            reference_clock_mhz: Some(1980),
            ..SamplingConfig::default()
        };
        let readings = Cell::new(0u32);
        let g = sample_loop::<Infallible>(
            &config,
            false,
            |_| Ok(1.0),
            || {
                readings.set(readings.get() + 1);
                Some(if readings.get() == 2 { 1500 } else { 1980 })
            },
            || Duration::ZERO,
        )
        .unwrap();
        assert_eq!(g.readings.len(), 3, "before 0, before 2, after 4");
        let s = summarize_side(g.sides_ms[0].clone(), &g, &config, 1);
        assert_eq!(s.clock_dropped_samples, 4);
        assert!(s.flags[0].contains("4 of 4 samples"), "{:?}", s.flags);
        assert_eq!(s.sm_clock_mhz_before, Some(1980));
    }
}
