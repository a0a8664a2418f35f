//! Timing of kernel launches with CUDA events: one warm-up launch, then `samples` samples of
//! `iters` back-to-back launches each; per-launch milliseconds, median with min and max. Two
//! compared kernels are timed together, their samples interleaved.

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

/// Times `launch` (which enqueues exactly one launch) on the GPU's stream.
pub fn time_launches(
    gpu: &Gpu,
    plan: TimingPlan,
    mut launch: impl FnMut() -> Result<(), CudaError>,
) -> Result<Timing, CudaError> {
    let (ours, _) = time_sides(gpu, plan, false, |_| launch())?;
    Ok(ours)
}

/// Times our kernel and, when `compared`, theirs: `launch(side)` enqueues exactly one launch of
/// that side's kernel. Each side gets one warm-up launch, then the samples of the two sides are
/// interleaved in alternating order ([`round_order`]), so that a drift of clocks or temperature
/// over the run, or a cost of coming second, falls on both alike.
pub fn time_sides(
    gpu: &Gpu,
    plan: TimingPlan,
    compared: bool,
    mut launch: impl FnMut(Side) -> Result<(), CudaError>,
) -> Result<(Timing, Option<Timing>), CudaError> {
    for &side in round_order(0, compared) {
        launch(side)?;
    }
    gpu.synchronize()?;
    let clock_before = gpu.current_sm_clock_mhz();
    let (start, end) = (gpu.event()?, gpu.event()?);
    let mut ours_ms = Vec::with_capacity(plan.samples as usize);
    let mut theirs_ms = Vec::with_capacity(plan.samples as usize);
    for round in 0..plan.samples {
        for &side in round_order(round, compared) {
            gpu.record(&start)?;
            for _ in 0..plan.iters {
                launch(side)?;
            }
            gpu.record(&end)?;
            let ms = start.elapsed_ms(&end).map_err(|source| CudaError::Driver {
                what: "reading the elapsed time between two events (a launch may have faulted)"
                    .into(),
                source,
            })?;
            let per_launch = f64::from(ms) / f64::from(plan.iters);
            match side {
                Side::Ours => ours_ms.push(per_launch),
                Side::Theirs => theirs_ms.push(per_launch),
            }
        }
    }
    gpu.synchronize()?;
    let clock_after = gpu.current_sm_clock_mhz();
    let theirs = compared.then(|| summarize(theirs_ms, clock_before, clock_after));
    Ok((summarize(ours_ms, clock_before, clock_after), theirs))
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
}
