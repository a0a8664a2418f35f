//! The Bonferroni correction for a claim that picks one row among several after seeing them (the
//! fastest, or any that reaches a bar) and judges it alone: with `k` rows compared, each interval
//! is read at coverage `1 - (1 - LEVEL) / k`, so that the chance any of the `k` misses its true
//! value stays within `1 - LEVEL`, and the pick cannot make the claim likelier to hold.

use super::settings::LEVEL;
use crate::cell::percent_with;

/// The coverage each of `comparisons` intervals is read at: `1 - (1 - LEVEL) / comparisons`
/// ([`LEVEL`] itself for one comparison, or none).
/// With [`RESAMPLES`](super::RESAMPLES) resamples, a coverage above `1 - 2 / RESAMPLES` reads
/// the outermost resamples: the interval is then their range, the widest the bootstrap gives.
pub fn bonferroni(comparisons: usize) -> f64 {
    if comparisons <= 1 {
        LEVEL
    } else {
        1.0 - (1.0 - LEVEL) / comparisons as f64
    }
}

/// The coverage a claim reads its intervals at, and over how many rows it was corrected.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coverage {
    pub level: f64,
    pub comparisons: usize,
}

impl Coverage {
    /// Bonferroni over `comparisons` rows ([`bonferroni`]).
    pub fn bonferroni(comparisons: usize) -> Self {
        Self {
            level: bonferroni(comparisons),
            comparisons: comparisons.max(1),
        }
    }

    /// "the 95% interval", or "the Bonferroni-corrected 99.7% interval (95% over the 16 rows
    /// compared)".
    pub fn words(&self) -> String {
        if self.comparisons <= 1 {
            format!("the {} interval", level_words(self.level))
        } else {
            format!(
                "the Bonferroni-corrected {} interval ({} over the {} rows compared)",
                level_words(self.level),
                level_words(LEVEL),
                self.comparisons
            )
        }
    }
}

/// A coverage in words, with the fewest decimals that keep it below 100% ("95%", "99.7%",
/// "99.95%").
pub(super) fn level_words(level: f64) -> String {
    (0..4)
        .map(|d| percent_with(level, d))
        .find(|w| {
            let x: f64 = w.trim_end_matches('%').parse().unwrap_or(100.0);
            x < 100.0 && (x / 100.0 - level).abs() < 0.5e-3
        })
        .unwrap_or_else(|| percent_with(level, 4))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corrected_level_spreads_the_misses_over_the_rows() {
        assert_eq!(bonferroni(1), LEVEL);
        assert_eq!(bonferroni(0), LEVEL);
        assert!((bonferroni(5) - 0.99).abs() < 1e-12);
        assert!((bonferroni(16) - 0.996875).abs() < 1e-12);
        assert_eq!(level_words(LEVEL), "95%");
        assert_eq!(level_words(bonferroni(5)), "99%");
        assert_eq!(level_words(bonferroni(16)), "99.7%");
        assert_eq!(level_words(bonferroni(100)), "99.95%");
        assert_eq!(Coverage::bonferroni(1).words(), "the 95% interval");
        assert_eq!(
            Coverage::bonferroni(16).words(),
            "the Bonferroni-corrected 99.7% interval (95% over the 16 rows compared)"
        );
    }
}
