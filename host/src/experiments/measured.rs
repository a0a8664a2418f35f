//! The part of a row every experiment measures alike: our module's check, the warnings about the
//! row's figures, and the compared module's side. Each row embeds it (`#[serde(flatten)]`, so
//! `results.json` keeps the fields `check`, `flags` and `compare` where they always were), and
//! from it come the table's notes and compared columns, and the failed checks.

use serde::{Deserialize, Serialize};

use super::measurement::Measurement;
use super::spills::Spills;
use crate::results::{Check, Comparison};

/// Our check, the row's flags and the compared module's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub check: Check,
    /// Warnings about the row's figures (ours, and the compared module's, marked so).
    pub flags: Vec<String>,
    pub compare: Option<Comparison>,
}

/// The compared module's figures for a row, with its spill counts where they are known.
pub type Theirs = (Measurement, Option<Spills>);

impl Measured {
    /// The row of `ours` with the row's `flags` (which start with `ours.flags`), compared with
    /// `theirs` when there is one: its calculator/driver disagreement and its timing's flags join
    /// the row's flags (a [`Comparison`] has none of its own).
    pub fn new(ours: &Measurement, mut flags: Vec<String>, theirs: Option<Theirs>) -> Measured {
        let compare = theirs.map(|(theirs, spills)| {
            let of_theirs = theirs.disagreement.iter().chain(&theirs.timing.flags);
            flags.extend(of_theirs.map(|f| format!("compared module: {f}")));
            theirs.as_comparison(ours, spills)
        });
        Measured {
            check: ours.check.clone(),
            flags,
            compare,
        }
    }

    /// [`Measured::new`] with our flags alone.
    pub fn of(ours: &Measurement, theirs: Option<Theirs>) -> Measured {
        Measured::new(ours, ours.flags.clone(), theirs)
    }

    /// Our check and the compared module's (where compared) both passed.
    pub fn checked(&self) -> bool {
        self.check.passed && self.compare.as_ref().is_none_or(|c| c.check.passed)
    }

    /// Adds each failed check of the row named `what`, ours and the compared module's, to `out`.
    pub fn failed(&self, what: &str, out: &mut Vec<String>) {
        push_failed(what, &self.check, out);
        if let Some(c) = &self.compare {
            push_failed(&format!("{what} (compared module)"), &c.check, out);
        }
    }
}

/// Adds `check`, of `what`, to `out` in words when it failed.
pub fn push_failed(what: &str, check: &Check, out: &mut Vec<String>) {
    if !check.passed {
        let Check { error, bound, .. } = check;
        // Every element within its bound, yet failed: a launch's bits differed from the
        // verified launch's (`gemm_hashes`).
        let why = match &check.hashes {
            Some(h) if error <= bound && !h.passed() => {
                "launches whose bits differ from the verified launch's".to_owned()
            }
            _ => format!("error {error:e} > bound {bound:e}"),
        };
        out.push(format!("{what}: {why} ({})", check.what));
    }
}

#[cfg(test)]
impl Measured {
    /// The measured part of a synthetic row: a passing check, no flags, nothing compared.
    pub(crate) fn passing() -> Measured {
        Measured {
            check: Check {
                passed: true,
                error: 1e-7,
                bound: 1e-4,
                what: "t".into(),
                hashes: None,
            },
            flags: vec![],
            compare: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::measurement::tests::measured;

    #[test]
    fn a_comparison_keeps_the_compared_modules_disagreement_and_timing_flags() {
        let ours = measured(100.0, None, 0.0);
        let alone = Measured::of(&ours, None);
        assert!(alone.flags.is_empty() && alone.compare.is_none());
        let mut theirs = measured(50.0, Some("driver says 3"), 0.0);
        theirs.timing.flags.push("noise above the target".into());
        let spills = Spills {
            stores: Some(2),
            loads: Some(1),
            stack_frame: 0,
        };
        let row = Measured::new(&ours, vec!["ours".into()], Some((theirs, Some(spills))));
        assert_eq!(
            row.flags,
            [
                "ours",
                "compared module: driver says 3",
                "compared module: noise above the target"
            ]
        );
        let c = row.compare.expect("compared");
        assert_eq!((c.throughput, c.ratio), (50.0, 2.0));
        assert_eq!((c.spill_stores, c.spill_loads), (Some(2), Some(1)));
    }

    #[test]
    fn a_check_failed_by_its_hashes_says_so_not_that_an_error_passed_its_bound() {
        let mut check = measured(100.0, None, 0.0).check;
        check.passed = false;
        check.hashes = Some(crate::results::LaunchHashes {
            samples: 5,
            samples_differing: vec![2],
            race_launches: 100,
            race_differing: vec![],
            race_failed: vec![],
            bits_required: true,
        });
        let mut out = Vec::new();
        push_failed("R1", &check, &mut out);
        assert_eq!(
            out,
            ["R1: launches whose bits differ from the verified launch's (test)"]
        );
    }

    #[test]
    fn failed_checks_name_the_row_and_the_side() {
        let ours = measured(100.0, None, 0.0);
        let mut theirs = measured(50.0, None, 0.0);
        theirs.check.passed = false;
        let mut row = Measured::of(&ours, Some((theirs, None)));
        assert!(!row.checked());
        let mut out = Vec::new();
        row.failed("cap 32", &mut out);
        assert_eq!(out.len(), 1);
        assert!(
            out[0].starts_with("cap 32 (compared module): error"),
            "{out:?}"
        );
        row.check.passed = false;
        out.clear();
        row.failed("cap 32", &mut out);
        assert_eq!(out.len(), 2);
        assert!(
            out[0].starts_with("cap 32: error 0e0 > bound 1e-5 (test)"),
            "{out:?}"
        );
    }
}
