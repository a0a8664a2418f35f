//! The resampling: each figure's samples drawn again with replacement, the figure recomputed from
//! the resample's median, the statistic taken over the recomputed figures.

use resample::resampled_medians;

use super::interval::Interval;
use super::settings::{NoInterval, Timed, LEVEL, MIN_SAMPLES, MOST_RESAMPLED, RESAMPLES};

/// Fixed, so that the same figures give the same interval on every machine and every render.
const SEED: u64 = 0x0CC0_0BA5_E5EE_D001;

/// The interval of `stat` over `figures`. `stat` receives one value per figure, in order: the
/// reported figures for the point estimate, one resample's figures for each replicate; it returns
/// `None` where the statistic is undefined (such replicates are left out). Figures holding more
/// than [`MOST_RESAMPLED`] samples together get no interval, so the work is at most
/// [`RESAMPLES`] x [`MOST_RESAMPLED`] draws.
pub fn statistic(
    figures: &[Timed<'_>],
    stat: impl Fn(&[f64]) -> Option<f64>,
) -> Result<Interval, NoInterval> {
    statistics(figures, |v| stat(v).map(|x| [x])).map(|[iv]| iv)
}

/// The intervals of `N` statistics over the same resamples of `figures` (one pass, one seed):
/// as [`statistic`], with a replicate left out where any of them is undefined.
pub fn statistics<const N: usize>(
    figures: &[Timed<'_>],
    stat: impl Fn(&[f64]) -> Option<[f64; N]>,
) -> Result<[Interval; N], NoInterval> {
    statistics_at(figures, LEVEL, stat)
}

/// As [`statistics`], at coverage `level` instead of [`LEVEL`] (a corrected interval:
/// [`super::bonferroni`]).
pub fn statistics_at<const N: usize>(
    figures: &[Timed<'_>],
    level: f64,
    stat: impl Fn(&[f64]) -> Option<[f64; N]>,
) -> Result<[Interval; N], NoInterval> {
    let total = figures.iter().map(|f| f.samples_ms.len()).sum::<usize>();
    if total > MOST_RESAMPLED {
        return Err(NoInterval::TooManySamples { have: total });
    }
    for f in figures {
        if f.samples_ms.len() < MIN_SAMPLES {
            return Err(NoInterval::TooFewSamples {
                have: f.samples_ms.len(),
            });
        }
        let positive = |x: f64| x > 0.0 && x.is_finite();
        if !positive(f.value)
            || !positive(f.median_ms)
            || !f.samples_ms.iter().all(|&s| positive(s))
        {
            return Err(NoInterval::NotPositive);
        }
    }
    let finite = |x: &[f64; N]| x.iter().all(|v| v.is_finite());
    let mut values: Vec<f64> = figures.iter().map(|f| f.value).collect();
    let point = stat(&values).filter(finite).ok_or(NoInterval::Undefined)?;
    let samples: Vec<&[f64]> = figures.iter().map(|f| f.samples_ms).collect();
    let medians = resampled_medians(&samples, RESAMPLES, SEED);
    let mut replicates: [Vec<f64>; N] = std::array::from_fn(|_| Vec::with_capacity(RESAMPLES));
    // Row i of the medians is resample i of every figure. Indexed rather than `chunks_exact`,
    // which refuses rows of no figures: a statistic over none still gets its replicates.
    let k = figures.len();
    for i in 0..RESAMPLES {
        let row = &medians[i * k..(i + 1) * k];
        for ((v, f), m) in values.iter_mut().zip(figures).zip(row) {
            // The figure is work over the median time: scale it by the ratio of the medians.
            *v = f.value * f.median_ms / m;
        }
        if let Some(x) = stat(&values).filter(finite) {
            for (r, x) in replicates.iter_mut().zip(x) {
                r.push(x);
            }
        }
    }
    // A statistic undefined on most resamples says nothing reliable.
    if replicates[0].len() < RESAMPLES / 2 {
        return Err(NoInterval::Undefined);
    }
    let mut out = [Interval {
        point: 0.0,
        lo: 0.0,
        hi: 0.0,
    }; N];
    for ((o, r), p) in out.iter_mut().zip(&mut replicates).zip(point) {
        r.sort_by(f64::total_cmp);
        *o = Interval {
            point: p,
            lo: percentile(r, (1.0 - level) / 2.0),
            hi: percentile(r, (1.0 + level) / 2.0),
        };
    }
    Ok(out)
}

/// The interval of `a.value / b.value`: for throughputs, how many times faster `a` is.
pub fn ratio(a: Timed<'_>, b: Timed<'_>) -> Result<Interval, NoInterval> {
    statistic(&[a, b], |v| Some(v[0] / v[1]))
}

/// The interval of one figure.
pub fn value(a: Timed<'_>) -> Result<Interval, NoInterval> {
    statistic(&[a], |v| Some(v[0]))
}

/// [`ratio`] at coverage `level`.
pub fn ratio_at(a: Timed<'_>, b: Timed<'_>, level: f64) -> Result<Interval, NoInterval> {
    statistics_at(&[a, b], level, |v| Some([v[0] / v[1]])).map(|[iv]| iv)
}

/// [`value`] at coverage `level`.
pub fn value_at(a: Timed<'_>, level: f64) -> Result<Interval, NoInterval> {
    statistics_at(&[a], level, |v| Some([v[0]])).map(|[iv]| iv)
}

/// The `q` quantile of sorted values, interpolated linearly between neighbours.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (i, frac) = (pos.floor() as usize, pos.fract());
    match sorted.get(i + 1) {
        Some(next) => sorted[i] + (next - sorted[i]) * frac,
        None => sorted[i],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resample::median;

    /// `n` samples around `ms`, spread evenly over +-`noise` (a fraction), in a scrambled order.
    fn samples(ms: f64, noise: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| {
                let k = (i * 37) % n;
                ms * (1.0 + noise * (2.0 * k as f64 / (n - 1) as f64 - 1.0))
            })
            .collect()
    }

    fn timed(value: f64, samples: &[f64]) -> Timed<'_> {
        let mut sorted = samples.to_vec();
        Timed {
            value,
            median_ms: median(&mut sorted),
            samples_ms: samples,
        }
    }

    #[test]
    fn the_median_matches_the_timings() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        let s = samples(10.0, 0.01, 40);
        let t = crate::sampling::summarize(s.clone(), None, None);
        assert_eq!(median(&mut s.clone()), t.median_ms);
    }

    #[test]
    fn identical_distributions_straddle_one_and_separated_ones_exclude_it() {
        let a = samples(2.0, 0.01, 30);
        let b: Vec<f64> = a.iter().rev().copied().collect();
        let iv = ratio(timed(100.0, &a), timed(100.0, &b)).unwrap();
        assert!(iv.lo < 1.0 && iv.hi > 1.0, "{iv}");
        assert!((iv.point - 1.0).abs() < 1e-12);
        // b's samples take 3% longer: a is 1.03x faster, well outside 1% noise.
        let b = samples(2.06, 0.01, 30);
        let (fa, fb) = (timed(100.0, &a), timed(100.0 * 2.0 / 2.06, &b));
        let iv = ratio(fa, fb).unwrap();
        assert!(iv.lo > 1.0, "{iv}");
        assert!(iv.lo <= iv.point && iv.point <= iv.hi, "{iv}");
        let back = ratio(fb, fa).unwrap();
        assert!(back.hi < 1.0, "{back}");
    }

    #[test]
    fn more_noise_or_fewer_samples_give_a_wider_interval() {
        let width = |noise: f64| {
            let a = samples(2.0, noise, 30);
            let b = samples(2.0, noise, 31);
            let iv = ratio(timed(1.0, &a), timed(1.0, &b)).unwrap();
            iv.hi - iv.lo
        };
        let (quiet, loud) = (width(0.002), width(0.02));
        assert!(loud > 5.0 * quiet, "{quiet} vs {loud}");
        let width = |n: usize| {
            let iv = value(timed(1.0, &samples(2.0, 0.02, n))).unwrap();
            iv.hi - iv.lo
        };
        assert!(width(100) < width(10), "{} vs {}", width(100), width(10));
    }

    #[test]
    fn the_same_figures_give_the_same_interval() {
        let (a, b) = (samples(2.0, 0.01, 20), samples(2.1, 0.01, 20));
        let x = ratio(timed(5.0, &a), timed(4.0, &b)).unwrap();
        assert_eq!(x, ratio(timed(5.0, &a), timed(4.0, &b)).unwrap());
    }

    #[test]
    fn a_single_figure_scales_with_its_value() {
        let a = samples(2.0, 0.01, 25);
        let one = value(timed(1.0, &a)).unwrap();
        let ten = value(timed(10.0, &a)).unwrap();
        assert!((ten.lo - 10.0 * one.lo).abs() < 1e-9 && (ten.hi - 10.0 * one.hi).abs() < 1e-9);
        // Throughput is work over time: the slowest samples give the low end.
        assert!(one.lo < 1.0 && one.hi > 1.0, "{one}");
    }

    #[test]
    fn too_few_samples_give_no_interval() {
        let a = samples(2.0, 0.01, MIN_SAMPLES - 1);
        let b = samples(2.0, 0.01, 30);
        assert_eq!(
            ratio(timed(1.0, &a), timed(1.0, &b)),
            Err(NoInterval::TooFewSamples {
                have: MIN_SAMPLES - 1
            })
        );
        assert!(value(timed(1.0, &samples(2.0, 0.01, MIN_SAMPLES))).is_ok());
    }

    #[test]
    fn the_bootstraps_work_is_bounded() {
        // Two figures at the lab's ceiling are resampled; one sample more is refused at once
        // (before, 2 million samples in one figure took minutes per interval).
        let many = vec![1.0; MOST_RESAMPLED / 2];
        let over = vec![1.0; MOST_RESAMPLED / 2 + 1];
        let start = std::time::Instant::now();
        assert_eq!(
            ratio(timed(1.0, &many), timed(1.0, &over)),
            Err(NoInterval::TooManySamples {
                have: MOST_RESAMPLED + 1
            })
        );
        let huge = vec![1.0; 2_000_000];
        assert_eq!(
            value(timed(1.0, &huge)),
            Err(NoInterval::TooManySamples { have: 2_000_000 })
        );
        eprintln!("refused in {:?}", start.elapsed());
    }

    #[test]
    fn bad_figures_give_no_interval() {
        let a = samples(2.0, 0.01, 10);
        assert_eq!(value(timed(0.0, &a)), Err(NoInterval::NotPositive));
        let mut z = a.clone();
        z[3] = 0.0;
        assert_eq!(value(timed(1.0, &z)), Err(NoInterval::NotPositive));
        assert_eq!(
            statistic(&[timed(1.0, &a)], |_| None),
            Err(NoInterval::Undefined)
        );
    }

    #[test]
    fn a_statistic_over_many_figures() {
        // The spread (max - min) of three figures, two of them equal.
        let a = samples(1.0, 0.005, 20);
        let b = samples(2.0, 0.005, 20);
        let figs = [timed(2.0, &a), timed(2.0, &a), timed(1.0, &b)];
        let spread = |v: &[f64]| {
            let hi = v.iter().copied().fold(f64::MIN, f64::max);
            let lo = v.iter().copied().fold(f64::MAX, f64::min);
            Some(hi - lo)
        };
        let iv = statistic(&figs, spread).unwrap();
        assert!((iv.point - 1.0).abs() < 1e-12);
        assert!(iv.lo > 0.95 && iv.hi < 1.05 && iv.lo < iv.hi, "{iv}");
    }

    #[test]
    fn several_statistics_share_their_resamples() {
        let a = samples(1.0, 0.01, 20);
        let b = samples(2.0, 0.01, 20);
        let figs = [timed(2.0, &a), timed(1.0, &b)];
        let [r, d] = statistics(&figs, |v| Some([v[0] / v[1], v[0] - v[1]])).unwrap();
        assert_eq!(r, ratio(figs[0], figs[1]).unwrap());
        assert_eq!(d, statistic(&figs, |v| Some(v[0] - v[1])).unwrap());
    }

    #[test]
    fn a_higher_level_widens_the_interval_around_the_same_point() {
        let (a, b) = (samples(2.0, 0.01, 30), samples(2.1, 0.01, 30));
        let plain = ratio(timed(5.0, &a), timed(4.0, &b)).unwrap();
        assert_eq!(
            ratio_at(timed(5.0, &a), timed(4.0, &b), LEVEL).unwrap(),
            plain
        );
        let wide = ratio_at(timed(5.0, &a), timed(4.0, &b), 0.995).unwrap();
        assert_eq!(wide.point, plain.point);
        assert!(
            wide.lo < plain.lo && wide.hi > plain.hi,
            "{wide} vs {plain}"
        );
        let one = value_at(timed(1.0, &a), 0.995).unwrap();
        assert!(one.hi - one.lo > value(timed(1.0, &a)).map(|v| v.hi - v.lo).unwrap());
    }

    #[test]
    fn percentiles_interpolate() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&s, 0.0), 1.0);
        assert_eq!(percentile(&s, 1.0), 5.0);
        assert_eq!(percentile(&s, 0.5), 3.0);
        assert!((percentile(&s, 0.125) - 1.5).abs() < 1e-12);
    }
}
