//! The bootstrap's settings (resamples, coverage, the fewest and most samples), the timed figure
//! it resamples and why a figure gets no interval: what both the interval and the bootstrap read,
//! so they sit below both.

use crate::results::Timing;

/// Bootstrap resamples per interval.
pub const RESAMPLES: usize = 2000;
/// Coverage of every interval: the percentiles (1 - LEVEL)/2 and (1 + LEVEL)/2 of the resamples.
pub const LEVEL: f64 = 0.95;
/// The fewest samples a figure needs for an interval (the noise-driven timing's minimum).
pub const MIN_SAMPLES: usize = 5;
/// The most samples one statistic resamples, over all its figures together: two figures at the
/// most samples the lab takes ([`MOST_SAMPLES`](crate::results::MOST_SAMPLES)), a ratio's. The
/// bootstrap's work is [`RESAMPLES`] draws of each of them (at most 4 x 10^8 draws per
/// statistic); a statistic over more gets no interval rather than a long wait.
pub const MOST_RESAMPLED: usize = 2 * crate::results::MOST_SAMPLES as usize;

/// One figure derived from a timing: `value` is the figure as reported (work over `median_ms`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timed<'a> {
    pub value: f64,
    pub median_ms: f64,
    pub samples_ms: &'a [f64],
}

impl<'a> Timed<'a> {
    /// The figure `value` that `timing` produced.
    pub fn new(value: f64, timing: &'a Timing) -> Self {
        Self {
            value,
            median_ms: timing.median_ms,
            samples_ms: &timing.samples_ms,
        }
    }
}

/// Why a statistic has no interval.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NoInterval {
    #[error("{have} samples, fewer than the {MIN_SAMPLES} an interval needs")]
    TooFewSamples { have: usize },
    #[error("{have} samples together, more than the {MOST_RESAMPLED} the bootstrap resamples")]
    TooManySamples { have: usize },
    #[error("a figure or its median time is not a positive number")]
    NotPositive,
    #[error("the statistic is undefined on these figures")]
    Undefined,
}
