//! A claim of the seed blog judged from a run's figures ([`Verdict`]), and the helpers every
//! experiment's rules share. The rules themselves live with their experiment (`claims.rs` in its
//! folder).
//!
//! Nothing here knows the answer in advance: every rule is written over the rows a run produced
//! (which variants exist, their occupancy, accumulators, threads, bytes in flight, spills), never
//! over a list of labels. A claim whose data is missing (experiment not run, no pair to compare,
//! every row failed its check) is NOT JUDGED, with the reason. Rows whose correctness check failed
//! are left out of every rule, and the evidence says which.
//!
//! Comparisons of timed figures are judged on confidence intervals ([`crate::confidence`]), never
//! on two medians alone: a difference counts when the interval of the ratio lies wholly on one
//! side of the threshold, and an interval that straddles it leaves the claim NOT JUDGED, so that
//! noisier data can never make a claim likelier to hold.

use crate::cell::percent_with;
use crate::confidence::{self, Coverage, Interval, NoInterval, Timed};
use crate::results::Timing;

/// Two occupancies closer than this (as a fraction, i.e. 0.1 percentage point) are equal.
pub const OCCUPANCY_EPS: f64 = 1e-3;
/// `few-threads-match-many` and `bandwidth-flat-over-occupancy`: "reaches the bandwidth" means
/// within this fraction of the other figure (at least 1 - this of it).
pub const BANDWIDTH_WITHIN: f64 = 0.10;
/// `bandwidth-flat-over-occupancy`: the occupancy range (highest / lowest) the saturated variants
/// must span.
pub const OCCUPANCY_SPAN: f64 = 10.0;
/// `falls-past-peak`: "far slower" means below this fraction of the fastest variant.
pub const FAR_SLOWER: f64 = 0.5;

/// The edition of the rules a run's claims are judged by, as its `results.json` records it: a
/// rule that changes keeps the verdicts of the runs published before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// The rules of the runs recorded before the edition was stated (their `results.json` has
    /// no `rules`): they re-render with the verdicts they were published with.
    #[default]
    AsPublished,
    /// Every reference a verdict is judged against named before the data (a configuration of
    /// the run, a prediction from one row, a band from a named pair of builds), and a row chosen
    /// among several after the data judged on a Bonferroni-corrected interval
    /// ([`confidence::bonferroni`]).
    FixedInAdvance,
}

impl Rules {
    /// The rules a run recorded now is judged by.
    pub const CURRENT: Rules = Rules::FixedInAdvance;

    /// Whether these are the rules of the runs recorded before the edition was stated (written
    /// without the field, as they were).
    pub fn is_as_published(&self) -> bool {
        *self == Rules::AsPublished
    }

    /// Whether references are fixed in advance and picks corrected.
    pub fn fixed_in_advance(&self) -> bool {
        *self == Rules::FixedInAdvance
    }
}

/// One claim of the blog, judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Short stable key, e.g. `"peak-below-max-occupancy"`.
    pub key: &'static str,
    /// Which experiment (its number in the registry) the claim is about; 0 until the registry
    /// sets it.
    pub experiment: u8,
    /// The claim, in words.
    pub claim: String,
    /// The rule it is judged by.
    pub rule: String,
    /// `Some(true)`: HOLDS; `Some(false)`: DOES NOT HOLD; `None`: NOT JUDGED (see evidence).
    pub holds: Option<bool>,
    /// The numbers the judgement used, or why there is no judgement.
    pub evidence: String,
}

impl Verdict {
    /// "HOLDS", "DOES NOT HOLD" or "NOT JUDGED".
    pub fn outcome(&self) -> &'static str {
        match self.holds {
            Some(true) => "HOLDS",
            Some(false) => "DOES NOT HOLD",
            None => "NOT JUDGED",
        }
    }
}

/// Claims that something does not help (a higher register cap, ...): a ratio whose whole interval
/// lies at or below `1 + EQUIVALENCE` is "no help" (equal within the band, or slower); one whose
/// whole interval lies above it helps; an interval across the band's edge is not judged.
pub const EQUIVALENCE: f64 = 0.02;

/// How every verdict's comparisons are judged, for its rule text.
pub fn interval_rule() -> String {
    format!(
        "Each comparison is judged on the {} percentile-bootstrap interval of the ratio of \
         medians ({} resamples of each figure's samples, fixed seed); a comparison whose interval \
         straddles its threshold, or one of whose figures has fewer than {} samples, is \
         undecided, and leaves the claim NOT JUDGED unless a decided one makes it fail.",
        percent_with(confidence::LEVEL, 0),
        confidence::RESAMPLES,
        confidence::MIN_SAMPLES
    )
}

/// A rule followed by [`interval_rule`].
pub fn with_interval_rule(rule: &str) -> String {
    format!("{rule} {}", interval_rule())
}

/// The interval of throughput `a` over throughput `b`, each with the timing it came from.
pub fn ratio(a: (f64, &Timing), b: (f64, &Timing)) -> Result<Interval, NoInterval> {
    confidence::ratio(Timed::new(a.0, a.1), Timed::new(b.0, b.1))
}

/// How a claim that picks one row among `k` after the data reads its intervals under `rules`:
/// at [`confidence::LEVEL`] by the rules its runs were published with, Bonferroni-corrected over
/// the `k` rows ([`Coverage::bonferroni`]) where the rules fix choices in advance.
pub fn pick_coverage(rules: Rules, k: usize) -> Coverage {
    Coverage::bonferroni(if rules.fixed_in_advance() { k } else { 1 })
}

/// [`ratio`] at `coverage`.
pub fn ratio_at(
    a: (f64, &Timing),
    b: (f64, &Timing),
    coverage: Coverage,
) -> Result<Interval, NoInterval> {
    confidence::ratio_at(Timed::new(a.0, a.1), Timed::new(b.0, b.1), coverage.level)
}

/// [`interval_or`] for an interval of `coverage`.
pub fn interval_or_at(
    iv: &Result<Interval, NoInterval>,
    point: f64,
    coverage: Coverage,
    fmt: impl Fn(f64) -> String,
) -> String {
    match iv {
        Ok(iv) => iv.show_at(coverage.level, fmt),
        Err(e) => format!("{} (no interval: {e})", fmt(point)),
    }
}

/// A ratio's interval in words, or why there is none.
pub fn ratio_words(r: &Result<Interval, NoInterval>) -> String {
    match r {
        Ok(iv) => iv.to_string(),
        Err(e) => format!("no interval ({e})"),
    }
}

/// An interval in words, each number written by `fmt` ([`Interval::show`]); without one, the
/// figure `point` written so and why there is no interval.
pub fn interval_or(
    iv: &Result<Interval, NoInterval>,
    point: f64,
    fmt: impl Fn(f64) -> String,
) -> String {
    match iv {
        Ok(iv) => iv.show(fmt),
        Err(e) => format!("{} (no interval: {e})", fmt(point)),
    }
}

/// Whether a ratio's interval shows `a` faster than `b` (`Some(true)`), slower
/// (`Some(false)`), or neither (`None`, also when there is no interval).
pub fn faster(r: &Result<Interval, NoInterval>) -> Option<bool> {
    r.as_ref().ok().and_then(|iv| iv.exceeds(1.0))
}

/// Whether a ratio's interval shows that `a` does not help over `b` (`Some(true)`: the whole
/// interval at or below `1 + EQUIVALENCE`), that it helps (`Some(false)`: wholly above), or
/// neither (`None`).
pub fn no_help(r: &Result<Interval, NoInterval>) -> Option<bool> {
    no_help_within(r, EQUIVALENCE)
}

/// [`no_help`] with a band of `band` (a fraction) instead of [`EQUIVALENCE`]: one set from a
/// measured spread.
pub fn no_help_within(r: &Result<Interval, NoInterval>, band: f64) -> Option<bool> {
    r.as_ref()
        .ok()
        .and_then(|iv| iv.exceeds(1.0 + band))
        .map(|helps| !helps)
}

/// HOLDS when `holds`, else DOES NOT HOLD when `fails`, else NOT JUDGED.
pub fn decide(holds: bool, fails: bool) -> Option<bool> {
    if holds {
        Some(true)
    } else {
        fails.then_some(false)
    }
}

/// Several outcomes taken together: DOES NOT HOLD when any does not hold, else NOT JUDGED when
/// any is not judged (or there are none), else HOLDS.
pub fn all_of(outcomes: impl IntoIterator<Item = Option<bool>>) -> Option<bool> {
    let mut any = false;
    let mut unsure = false;
    for o in outcomes {
        any = true;
        match o {
            Some(false) => return Some(false),
            None => unsure = true,
            Some(true) => {}
        }
    }
    (any && !unsure).then_some(true)
}

/// The dual of [`all_of`]: HOLDS when any outcome holds, else NOT JUDGED when any is not judged
/// (or there are none), else DOES NOT HOLD.
pub fn any_of(outcomes: impl IntoIterator<Item = Option<bool>>) -> Option<bool> {
    all_of(outcomes.into_iter().map(|o| o.map(|holds| !holds))).map(|none_holds| !none_holds)
}

/// What a claim's evidence says when its experiment did not run (the registry names the
/// experiment).
pub const NOT_RUN: &str = "the experiment was not run";

/// `evidence`, and the rows left out because their check failed.
pub fn with_exclusions(evidence: String, failed: &[String]) -> String {
    if failed.is_empty() {
        evidence
    } else {
        format!("{evidence}. Excluded (check failed): {}", failed.join(", "))
    }
}

/// A claim of the blog: its stable key, its words and the rule it is judged by.
pub struct Claim {
    pub key: &'static str,
    pub claim: &'static str,
    pub rule: String,
}

impl Claim {
    pub fn new(key: &'static str, claim: &'static str, rule: String) -> Self {
        Self { key, claim, rule }
    }

    /// A claim whose comparisons are judged on intervals: `rule`, then [`interval_rule`].
    pub fn interval(key: &'static str, claim: &'static str, rule: &str) -> Self {
        Self::new(key, claim, with_interval_rule(rule))
    }

    /// The verdict `judge` reaches: its outcome and evidence, or NOT JUDGED with the reason it
    /// gives instead.
    pub fn judge(&self, judge: impl FnOnce() -> Result<(Option<bool>, String), String>) -> Verdict {
        let (holds, evidence) = judge().unwrap_or_else(|why| (None, why));
        verdict(self.key, self.claim, &self.rule, holds, evidence)
    }
}

/// The comparisons a claim is judged by: each one's outcome and its words.
#[derive(Debug, Default)]
pub struct Comparisons {
    outcomes: Vec<Option<bool>>,
    words: Vec<String>,
}

impl Comparisons {
    pub fn push(&mut self, outcome: Option<bool>, words: String) {
        self.outcomes.push(outcome);
        self.words.push(words);
    }

    /// Every comparison taken together ([`all_of`]).
    pub fn outcome(&self) -> Option<bool> {
        all_of(self.outcomes.iter().copied())
    }

    /// Each comparison's words, joined by `sep`.
    pub fn words(&self, sep: &str) -> String {
        self.words.join(sep)
    }
}

/// A verdict on `claim` by `rule`; the registry sets its experiment's number.
pub fn verdict(
    key: &'static str,
    claim: &str,
    rule: &str,
    holds: Option<bool>,
    evidence: String,
) -> Verdict {
    Verdict {
        key,
        experiment: 0,
        claim: claim.to_string(),
        rule: rule.to_string(),
        holds,
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_combine_failure_first() {
        assert_eq!(all_of([Some(true), Some(true)]), Some(true));
        assert_eq!(all_of([Some(true), None]), None);
        assert_eq!(all_of([None, Some(false)]), Some(false));
        assert_eq!(all_of([]), None);
        assert_eq!(any_of([Some(false), Some(true)]), Some(true));
        assert_eq!(any_of([Some(false), None]), None);
        assert_eq!(any_of([Some(false), Some(false)]), Some(false));
        assert_eq!(any_of([]), None);
    }

    #[test]
    fn a_pick_is_corrected_only_under_the_rules_that_fix_choices() {
        assert_eq!(
            pick_coverage(Rules::AsPublished, 12).level,
            confidence::LEVEL
        );
        assert_eq!(
            pick_coverage(Rules::FixedInAdvance, 1).level,
            confidence::LEVEL
        );
        let c = pick_coverage(Rules::FixedInAdvance, 10);
        assert!((c.level - 0.995).abs() < 1e-12 && c.comparisons == 10);
        assert_eq!(Rules::default(), Rules::AsPublished);
        assert_eq!(Rules::CURRENT, Rules::FixedInAdvance);
        assert_eq!(
            serde_json::to_string(&Rules::FixedInAdvance).unwrap(),
            "\"fixed_in_advance\""
        );
        let t = crate::sampling::summarize(
            (0..20).map(|i| 1.0 + 1e-3 * f64::from(i)).collect(),
            None,
            None,
        );
        let plain = ratio((2.0, &t), (1.0, &t)).unwrap();
        assert_eq!(
            ratio_at((2.0, &t), (1.0, &t), pick_coverage(Rules::AsPublished, 9)),
            Ok(plain)
        );
        let wide = ratio_at((2.0, &t), (1.0, &t), c).unwrap();
        assert!(wide.lo <= plain.lo && wide.hi >= plain.hi);
        assert!(interval_or_at(&Ok(wide), 2.0, c, |x| format!("{x:.2}")).contains("(99.5% CI "));
    }

    #[test]
    fn no_help_needs_the_whole_interval_inside_the_band() {
        let iv = |lo: f64, hi: f64| {
            Ok(Interval {
                point: (lo + hi) / 2.0,
                lo,
                hi,
            })
        };
        assert_eq!(no_help(&iv(0.99, 1.01)), Some(true));
        assert_eq!(no_help(&iv(0.80, 0.85)), Some(true), "slower is no help");
        assert_eq!(no_help(&iv(1.03, 1.04)), Some(false));
        assert_eq!(no_help(&iv(1.01, 1.03)), None, "across the band's edge");
        assert_eq!(no_help(&Err(NoInterval::TooFewSamples { have: 2 })), None);
        assert_eq!(faster(&iv(1.01, 1.03)), Some(true));
        assert_eq!(faster(&iv(0.99, 1.03)), None);
    }
}
