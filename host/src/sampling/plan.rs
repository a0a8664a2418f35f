//! How a figure is sampled: a fixed plan of launches and samples, or a noise target with its
//! caps, and the clock watch that goes with either.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A fixed plan: exactly `samples` samples of `iters` back-to-back launches each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimingPlan {
    /// Launches per timed sample (`--iters`).
    pub iters: u32,
    /// Timed samples (`--samples`).
    pub samples: u32,
}

/// Default noise target: 0.5% relative standard deviation.
pub const DEFAULT_MAX_NOISE: f64 = 0.005;
/// Default minimum samples per figure.
pub const DEFAULT_MIN_SAMPLES: u32 = 5;
/// Default most samples per figure.
pub const DEFAULT_MAX_SAMPLES: u32 = 100;
/// The most samples the lab takes of one figure (`--max-samples`' ceiling), a property of the
/// records ([`crate::results::MOST_SAMPLES`]).
pub use crate::results::MOST_SAMPLES;
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

/// Read the SM clock between every round of samples by default: the figure then records the
/// clock it ran at throughout ([`crate::results::ClockSpan`]), not only before and after.
pub const DEFAULT_CLOCK_EVERY: u32 = 1;

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
            clock_every: DEFAULT_CLOCK_EVERY,
            clock_tolerance: DEFAULT_CLOCK_TOLERANCE,
            reference_clock_mhz: None,
        }
    }
}
