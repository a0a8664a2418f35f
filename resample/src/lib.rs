//! The bootstrap's inner loop, kept apart from the host so that it can be built optimised in the
//! dev profile too (the workspace's Cargo.toml says why): every draw with replacement from a
//! figure's timing samples and the median of every resample. What the medians mean (figures,
//! statistics, intervals) is the host's `confidence` module; nothing here is generic, so none of
//! this code is instantiated, unoptimised, in the host.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The medians of `resamples` resamples of every figure, drawn from one stream seeded with `seed`:
/// `resamples` rows of `figures.len()` medians, row `r` holding resample `r` of each figure in
/// the order of `figures`. The draws run row by row and, in a row, figure by figure, so a figure's
/// resamples depend on every figure before it: the same figures in the same order give the same
/// medians on every machine.
///
/// # Panics
/// If a figure has no samples (nothing to draw from).
pub fn resampled_medians(figures: &[&[f64]], resamples: usize, seed: u64) -> Vec<f64> {
    assert!(
        figures.iter().all(|s| !s.is_empty()),
        "a figure without samples has no resample"
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let longest = figures.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut resample = Vec::with_capacity(longest);
    let mut medians = Vec::with_capacity(resamples * figures.len());
    for _ in 0..resamples {
        for samples in figures {
            let n = samples.len();
            resample.clear();
            resample.extend((0..n).map(|_| samples[rng.gen_range(0..n)]));
            medians.push(median(&mut resample));
        }
    }
    medians
}

/// The median (the mean of the middle two for an even count): the one median of the lab, of a
/// figure's samples, of their resamples and of the notes' figures. Reorders `xs`, which must not
/// be empty.
pub fn median(xs: &mut [f64]) -> f64 {
    let n = xs.len();
    let (below, mid, _) = xs.select_nth_unstable_by(n / 2, f64::total_cmp);
    let upper = *mid;
    if n % 2 == 1 {
        upper
    } else {
        let lower = below.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lower + upper) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&mut [7.0]), 7.0);
        assert_eq!(median(&mut [2.0, 2.0, 1.0, 9.0]), 2.0);
    }

    #[test]
    fn every_median_is_one_of_a_resample_of_the_samples() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [10.0, 20.0, 30.0, 40.0];
        let m = resampled_medians(&[&a, &b], 300, 7);
        assert_eq!(m.len(), 600);
        for row in m.chunks(2) {
            // An odd count's median is a sample; an even count's the mean of two samples.
            assert!(a.contains(&row[0]), "{row:?}");
            assert!(
                (10.0..=40.0).contains(&row[1]) && (row[1] * 2.0 % 10.0) == 0.0,
                "{row:?}"
            );
        }
        // With replacement, some resamples leave the middle: not every median is the samples'.
        assert!(m.chunks(2).any(|r| r[0] != 3.0) && m.chunks(2).any(|r| r[0] == 3.0));
    }

    #[test]
    fn the_same_seed_and_figures_give_the_same_medians_and_order_matters() {
        let a = [1.0, 5.0, 2.0, 8.0, 3.0, 9.0];
        let b = [4.0, 4.5, 6.0, 1.5, 7.0];
        let ab = resampled_medians(&[&a, &b], 100, 42);
        assert_eq!(ab, resampled_medians(&[&a, &b], 100, 42));
        assert_ne!(ab, resampled_medians(&[&a, &b], 100, 43));
        // b's draws follow a's: alone, b draws the stream's first numbers instead.
        let b_alone = resampled_medians(&[&b], 100, 42);
        let b_after_a: Vec<f64> = ab.chunks(2).map(|r| r[1]).collect();
        assert_ne!(b_alone, b_after_a);
    }

    #[test]
    #[should_panic(expected = "without samples")]
    fn a_figure_without_samples_is_refused() {
        resampled_medians(&[&[1.0], &[]], 10, 1);
    }
}
