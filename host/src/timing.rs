//! Timing of kernel launches with CUDA events: one warm-up launch, then `samples` samples of
//! `iters` back-to-back launches each; per-launch milliseconds, median with min and max.

use crate::cuda::{CudaError, Gpu};
use crate::results::Timing;

/// How many launches make a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimingPlan {
    /// Launches per timed sample (`--iters`, 50 as in the blog).
    pub iters: u32,
    /// Timed samples (`--samples`).
    pub samples: u32,
}

/// Times `launch` (which enqueues exactly one launch) on the GPU's stream.
pub fn time_launches(
    gpu: &Gpu,
    plan: TimingPlan,
    mut launch: impl FnMut() -> Result<(), CudaError>,
) -> Result<Timing, CudaError> {
    launch()?;
    gpu.synchronize()?;
    let clock_before = gpu.current_sm_clock_mhz();
    let (start, end) = (gpu.event()?, gpu.event()?);
    let mut samples_ms = Vec::with_capacity(plan.samples as usize);
    for _ in 0..plan.samples {
        gpu.record(&start)?;
        for _ in 0..plan.iters {
            launch()?;
        }
        gpu.record(&end)?;
        let ms = start.elapsed_ms(&end).map_err(|source| CudaError::Driver {
            what: "reading the elapsed time between two events (a launch may have faulted)".into(),
            source,
        })?;
        samples_ms.push(f64::from(ms) / f64::from(plan.iters));
    }
    gpu.synchronize()?;
    let clock_after = gpu.current_sm_clock_mhz();
    Ok(summarize(samples_ms, clock_before, clock_after))
}

/// Median, min and max of per-launch times. An empty list gives NaN figures.
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn no_samples_gives_nan() {
        assert!(summarize(vec![], None, None).median_ms.is_nan());
    }
}
