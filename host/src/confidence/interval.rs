//! A confidence interval and what it says about a threshold.

use super::settings::LEVEL;

/// A statistic's value and its confidence interval ([`LEVEL`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub point: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    /// Whether the whole interval lies above `threshold`.
    pub fn above(&self, threshold: f64) -> bool {
        self.lo > threshold
    }

    /// Whether the whole interval lies below `threshold`.
    pub fn below(&self, threshold: f64) -> bool {
        self.hi < threshold
    }

    /// `Some(true)` when the interval lies wholly above `threshold`, `Some(false)` when wholly
    /// below it, `None` when it straddles it (nothing is concluded).
    pub fn exceeds(&self, threshold: f64) -> Option<bool> {
        if self.above(threshold) {
            Some(true)
        } else if self.below(threshold) {
            Some(false)
        } else {
            None
        }
    }

    /// The interval in words, each number formatted by `fmt`: "1.037 (95% CI 1.031 to 1.043)".
    pub fn show(&self, fmt: impl Fn(f64) -> String) -> String {
        self.show_at(LEVEL, fmt)
    }

    /// As [`Interval::show`], for an interval of coverage `level`: "1.037 (99.5% CI 1.029 to
    /// 1.045)".
    pub fn show_at(&self, level: f64, fmt: impl Fn(f64) -> String) -> String {
        format!(
            "{} ({} CI {} to {})",
            fmt(self.point),
            super::correction::level_words(level),
            fmt(self.lo),
            fmt(self.hi)
        )
    }
}

/// Three decimals: "1.037 (95% CI 1.031 to 1.043)".
impl std::fmt::Display for Interval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.show(|x| format!("{x:.3}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_is_above_below_or_straddling() {
        let iv = Interval {
            point: 1.03,
            lo: 1.02,
            hi: 1.04,
        };
        assert_eq!(iv.exceeds(1.0), Some(true));
        assert_eq!(iv.exceeds(1.05), Some(false));
        assert_eq!(iv.exceeds(1.03), None);
        assert_eq!(iv.to_string(), "1.030 (95% CI 1.020 to 1.040)");
        assert_eq!(
            iv.show(crate::cell::percent),
            "103.0% (95% CI 102.0% to 104.0%)"
        );
    }
}
