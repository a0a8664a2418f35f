//! A figure's samples in numbers: their median, minimum, maximum and noise, the stopping rule
//! that decides when there are enough, how many launches make a sample, and the summary of a
//! gathered figure (with its flags) as a run records it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::clocks::{clock_span, rounds_with_clock_drop, ClockReading};
use super::plan::{NoiseTarget, SamplingConfig, MAX_LAUNCHES_PER_SAMPLE};
use crate::confidence::median;
use crate::results::Timing;

/// Median, min and max of per-launch times (samples kept in their order). An empty list gives
/// NaN figures. The noise fields are left empty; [`summarize_side`] fills them.
pub fn summarize(samples_ms: Vec<f64>, before: Option<u32>, after: Option<u32>) -> Timing {
    let mut sorted = samples_ms.clone();
    sorted.sort_by(f64::total_cmp);
    Timing {
        median_ms: if sorted.is_empty() {
            f64::NAN
        } else {
            median(&mut sorted)
        },
        min_ms: sorted.first().copied().unwrap_or(f64::NAN),
        max_ms: sorted.last().copied().unwrap_or(f64::NAN),
        samples_ms,
        sm_clock_mhz_before: before,
        sm_clock_mhz_after: after,
        ..Timing::default()
    }
}

/// What the sampling loop (`rounds`) gathered, before it is summarized per side here.
#[derive(Debug, Clone, PartialEq)]
pub struct Gathered {
    /// Per-launch milliseconds of each side's samples, in the order the sides were given
    /// (ours first, then the compared module, then any reference such as cuBLAS).
    pub sides_ms: Vec<Vec<f64>>,
    pub readings: Vec<ClockReading>,
    pub stop: Stop,
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

/// Summarizes one side's samples of a gathered figure.
pub fn summarize_side(
    samples_ms: Vec<f64>,
    gathered: &Gathered,
    config: &SamplingConfig,
    launches: u32,
) -> Timing {
    let noise = relative_noise(&samples_ms);
    let target = config.noise_target();
    let target_met = target.is_none_or(|t| noise.is_some_and(|n| n <= t));
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
            noise_percent(noise),
            noise_percent(target),
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
        sm_clock_mhz_during: clock_span(&gathered.readings),
        ..summarize(samples_ms, before, after)
    }
}

/// A noise figure as the lab writes percentages (two decimals), or "n/a".
pub fn noise_percent(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_owned(), |x| crate::cell::percent_with(x, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_or_the_mean_of_the_middle_two_and_none_is_nan() {
        let t = summarize(vec![3.0, 1.0, 2.0], Some(1980), None);
        assert_eq!((t.median_ms, t.min_ms, t.max_ms), (2.0, 1.0, 3.0));
        assert_eq!(t.samples_ms, [3.0, 1.0, 2.0], "samples keep their order");
        assert_eq!(t.sm_clock_mhz_before, Some(1980));
        let t = summarize(vec![4.0, 1.0, 2.0, 10.0], None, None);
        assert_eq!((t.median_ms, t.max_ms), (3.0, 10.0));
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
    fn batches_last_at_least_the_minimum_sample_time() {
        assert_eq!(launches_per_sample(0.3, 1.0), 4);
        assert_eq!(launches_per_sample(2.0, 1.0), 1);
        assert_eq!(launches_per_sample(1e-9, 1.0), MAX_LAUNCHES_PER_SAMPLE);
        assert_eq!(launches_per_sample(0.0, 1.0), MAX_LAUNCHES_PER_SAMPLE);
    }
}
