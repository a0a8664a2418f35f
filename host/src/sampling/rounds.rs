//! The sampling loop, independent of the GPU: rounds of one sample per side in rotating order,
//! the clock read between them, until the plan says stop.

use std::time::Duration;

use super::clocks::ClockReading;
use super::plan::{SamplingConfig, SamplingPlan};
use super::stats::{stopping_rule, Gathered, Stop};

/// Which of the two modules of a comparison a launch belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The module under test (`--module`, or the built-in kernels).
    Ours,
    /// The module it is compared with (`--compare`).
    Theirs,
}

/// The sides sampled in round `round` of `sides` sides, in order: each round starts one side
/// later than the last (A B C, B C A, C A B, ...), so that a drift of clocks or temperature, or a
/// cost of going first or last, falls on every side alike. With two sides: A B, B A.
pub fn rotation(round: u32, sides: usize) -> impl Iterator<Item = usize> {
    (0..sides).map(move |i| (round as usize + i) % sides)
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

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::convert::Infallible;

    use super::*;
    use crate::sampling::plan::{NoiseTarget, TimingPlan};
    use crate::sampling::stats::{relative_noise, summarize_side};

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
        sample_rounds::<Infallible>(
            config,
            if compared { 2 } else { 1 },
            |side| {
                now.set(now.get() + Duration::from_millis(ms_per_sample));
                let base = if side == 0 { 1.0 } else { 2.0 };
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

    #[test]
    fn sides_rotate_which_goes_first() {
        let rounds: Vec<Vec<usize>> = (0..4).map(|r| rotation(r, 3).collect()).collect();
        assert_eq!(
            rounds,
            [vec![0, 1, 2], vec![1, 2, 0], vec![2, 0, 1], vec![0, 1, 2]]
        );
        // One side alone; two alternate which goes first (A B, B A, ...).
        let order = |round, sides| rotation(round, sides).collect::<Vec<usize>>();
        assert_eq!(order(0, 1), [0]);
        assert_eq!(order(1, 1), [0]);
        assert_eq!(order(0, 2), [0, 1]);
        assert_eq!(order(1, 2), [1, 0]);
        assert_eq!(order(6, 2), [0, 1]);
        let firsts = (0..7).filter(|&r| order(r, 2)[0] == 1);
        assert_eq!(firsts.count(), 3, "7 rounds: theirs goes first in 3");
    }

    /// Where the noise-driven loop stops: quiet data at the minimum; 5% jitter never gets to
    /// 0.5%, so at the sample cap when samples are fast and at the 1 s time cap (25 samples of
    /// 40 ms) when they are not; the minimum wins over the time cap even when each sample alone
    /// exceeds it.
    #[test]
    fn the_loop_stops_at_the_target_or_a_cap() {
        let min8 = NoiseTarget {
            min_samples: 8,
            ..target()
        };
        for (t, amplitude, ms, stop, taken) in [
            (target(), 0.001, 1, Stop::Converged, 5),
            (target(), 0.05, 1, Stop::SampleCap, 50),
            (target(), 0.05, 40, Stop::TimeCap, 25),
            (target(), 0.001, 5_000, Stop::Converged, 5),
            (min8, 0.05, 5_000, Stop::TimeCap, 8),
        ] {
            let config = noise_config(t);
            let g = simulate(&config, false, amplitude, ms);
            assert_eq!(
                (g.sides_ms[0].len(), g.stop),
                (taken, stop),
                "{amplitude} {ms}"
            );
            let s = summarize_side(g.sides_ms[0].clone(), &g, &config, 10);
            assert_eq!(s.target_met(), stop == Stop::Converged);
            if stop == Stop::Converged {
                assert!(relative_noise(&g.sides_ms[0]).unwrap() <= 0.005);
            } else if stop == Stop::TimeCap && ms == 40 {
                assert!(s.noise.unwrap() > 0.005 && s.noise_target == Some(0.005));
                assert_eq!(s.flags.len(), 1);
                assert!(s.flags[0].contains("time cap"), "{:?}", s.flags);
            }
        }
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
        let g = sample_rounds::<Infallible>(
            &noise_config(t),
            1,
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

    /// A fixed plan of `samples` samples of `iters` launches.
    fn fixed(iters: u32, samples: u32) -> SamplingConfig {
        SamplingConfig {
            plan: SamplingPlan::Fixed(TimingPlan { iters, samples }),
            ..SamplingConfig::default()
        }
    }

    #[test]
    fn a_fixed_plan_takes_exactly_its_samples() {
        let config = fixed(50, 7);
        let g = simulate(&config, true, 0.5, 1);
        assert_eq!((g.sides_ms[0].len(), g.sides_ms[1].len()), (7, 7));
        assert_eq!(g.stop, Stop::Planned);
        let s = summarize_side(g.sides_ms[0].clone(), &g, &config, 50);
        assert!(s.target_met() && s.noise_target.is_none() && s.flags.is_empty());
    }

    #[test]
    fn a_clock_drop_is_flagged_on_the_figure() {
        let config = SamplingConfig {
            clock_every: 2,
            reference_clock_mhz: Some(1980),
            ..fixed(1, 4)
        };
        let readings = Cell::new(0u32);
        let g = sample_rounds::<Infallible>(
            &config,
            1,
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
