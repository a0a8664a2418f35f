//! A claim of the seed blog judged from a run's figures ([`Verdict`]), and the helpers every
//! experiment's rules share. The rules themselves live with their experiment (`claims.rs` in its
//! folder).
//!
//! Nothing here knows the answer in advance: every rule is written over the rows a run produced
//! (which variants exist, their occupancy, accumulators, threads, bytes in flight, spills), never
//! over a list of labels. A claim whose data is missing (experiment not run, no pair to compare,
//! every row failed its check) is NOT JUDGED, with the reason. Rows whose correctness check failed
//! are left out of every rule, and the evidence says which.

use crate::results::{Check, Timing};

/// Two occupancies closer than this (as a fraction, i.e. 0.1 percentage point) are equal.
pub const OCCUPANCY_EPS: f64 = 1e-3;
/// Claims 4 and 5: "reaches the bandwidth" means at least this fraction of the other figure.
pub const BANDWIDTH_WITHIN: f64 = 0.10;
/// Claim 5: the occupancy range (highest / lowest) the saturated variants must span.
pub const OCCUPANCY_SPAN: f64 = 10.0;
/// Claim 3: "far slower" means below this fraction of the fastest variant.
pub const FAR_SLOWER: f64 = 0.5;

/// One claim of the blog, judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Short stable key, e.g. `"peak-below-max-occupancy"`.
    pub key: &'static str,
    /// Which experiment (its number, 1 to 5) the claim is about.
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

/// The throughput implied by the fastest and slowest samples around the median figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub lo: f64,
    pub mid: f64,
    pub hi: f64,
}

pub fn spread(throughput: f64, t: &Timing) -> Spread {
    if t.median_ms > 0.0 && t.min_ms > 0.0 && t.max_ms >= t.min_ms {
        Spread {
            lo: throughput * t.median_ms / t.max_ms,
            mid: throughput,
            hi: throughput * t.median_ms / t.min_ms,
        }
    } else {
        Spread {
            lo: throughput,
            mid: throughput,
            hi: throughput,
        }
    }
}

pub fn pct(fraction: f64) -> String {
    crate::table::percent(fraction)
}

/// Splits rows into those whose check passed and the names of those whose check failed.
pub fn passing<T>(
    rows: &[T],
    check: impl Fn(&T) -> &Check,
    name: impl Fn(&T) -> String,
) -> (Vec<&T>, Vec<String>) {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for r in rows {
        if check(r).passed {
            ok.push(r);
        } else {
            failed.push(name(r));
        }
    }
    (ok, failed)
}

pub fn with_exclusions(evidence: String, failed: &[String]) -> String {
    if failed.is_empty() {
        evidence
    } else {
        format!("{evidence}. Excluded (check failed): {}", failed.join(", "))
    }
}

pub fn verdict(
    key: &'static str,
    experiment: u8,
    claim: &str,
    rule: &str,
    holds: Option<bool>,
    evidence: String,
) -> Verdict {
    Verdict {
        key,
        experiment,
        claim: claim.to_string(),
        rule: rule.to_string(),
        holds,
        evidence,
    }
}
