//! Experiment 5's claims, judged by rules fixed before any data was seen. Rows whose results
//! failed the bit-exact check are never used; "reaching the peak" means reaching
//! [`REACHED`] of the FP32 peak at the measured clock, the fraction of Volkov's table.

use super::row::{Ilp, IlpRow, VOLKOV_FRACTION};
use crate::claim::Verdict;

/// Fraction of peak that counts as reaching it.
pub const REACHED: f64 = VOLKOV_FRACTION;
/// "Low occupancy" of the ILP claim: 12.5% (8 of 64 warps on sm_90).
pub const LOW_OCCUPANCY: f64 = 0.125;
/// Smallest ILP of the ILP claim.
pub const MIN_ILP: u32 = 4;
const EPS: f64 = 1e-9;

fn best<'a>(rows: impl Iterator<Item = &'a IlpRow>) -> Option<&'a IlpRow> {
    rows.filter(|r| r.checked())
        .max_by(|a, b| a.fraction_of_peak.total_cmp(&b.fraction_of_peak))
}

fn describe(r: &IlpRow) -> String {
    format!(
        "ILP {} at {} warps/SM ({:.2}% occupancy): {:.0} GFLOP/s, {:.1}% of peak",
        r.ilp,
        r.warps_per_sm,
        r.occupancy * 100.0,
        r.gflops,
        r.fraction_of_peak * 100.0
    )
}

/// Experiment 5's verdicts, in order; NOT JUDGED, saying so, when it did not run.
pub fn verdicts(result: Option<&Ilp>) -> Vec<Verdict> {
    let rows = result.map_or(&[][..], |r| &r.rows[..]);
    let mut v = vec![
        ilp_reaches_peak_at_low_occupancy(rows),
        no_ilp_misses_peak_at_full_occupancy(rows),
    ];
    if result.is_none() {
        for x in &mut v {
            x.holds = None;
            x.evidence = "experiment 5 was not run".into();
        }
    }
    v
}

/// "With ILP >= 4, 90% of FP32 peak is reached at <= 12.5% occupancy."
///
/// Rule: among checked rows with ILP >= 4 and occupancy <= 12.5%, HOLDS when the best reaches
/// 90% of peak, DOES NOT HOLD when it does not, NOT JUDGED without such rows.
pub fn ilp_reaches_peak_at_low_occupancy(rows: &[IlpRow]) -> Verdict {
    let b = best(
        rows.iter()
            .filter(|r| r.ilp >= MIN_ILP && r.occupancy <= LOW_OCCUPANCY + EPS),
    );
    Verdict {
        key: "ilp-peak-at-low-occupancy",
        experiment: 5,
        claim: format!(
            "with ILP >= {MIN_ILP}, {:.0}% of FP32 peak is reached at <= {:.1}% occupancy",
            REACHED * 100.0,
            LOW_OCCUPANCY * 100.0
        ),
        rule: format!(
            "best checked row with ILP >= {MIN_ILP} and occupancy <= {:.1}% reaches {:.0}% of the \
             peak at the measured SM clock",
            LOW_OCCUPANCY * 100.0,
            REACHED * 100.0
        ),
        holds: b.map(|r| r.fraction_of_peak >= REACHED),
        evidence: b.map_or_else(
            || format!("no checked row with ILP >= {MIN_ILP} at <= 12.5% occupancy"),
            |r| format!("best: {}", describe(r)),
        ),
    }
}

/// "At 100% occupancy without ILP the peak is not reached."
///
/// Rule: the checked rows with ILP 1 at 100% occupancy; HOLDS when the best stays below 90% of
/// peak, DOES NOT HOLD when it reaches it, NOT JUDGED without such a row.
pub fn no_ilp_misses_peak_at_full_occupancy(rows: &[IlpRow]) -> Verdict {
    let b = best(
        rows.iter()
            .filter(|r| r.ilp == 1 && r.occupancy >= 1.0 - EPS),
    );
    Verdict {
        key: "no-ilp-misses-peak-at-full-occupancy",
        experiment: 5,
        claim: "at 100% occupancy without ILP the FP32 peak is not reached".into(),
        rule: format!(
            "best checked row with ILP 1 at 100% occupancy stays below {:.0}% of the peak at the \
             measured SM clock",
            REACHED * 100.0
        ),
        holds: b.map(|r| r.fraction_of_peak < REACHED),
        evidence: b.map_or_else(
            || "no checked row with ILP 1 at 100% occupancy".to_owned(),
            describe,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp::row::tests::{row, saturating};

    #[test]
    fn ilp_at_low_occupancy_is_judged_by_the_best_low_row() {
        // 32 independent FMAs per SM needed: ILP 4 x 8 warps = 32 gets there.
        let rows: Vec<IlpRow> = [(4, 8), (8, 4), (1, 64)]
            .iter()
            .map(|&(i, w)| row(i, w, saturating(i, w, 32)))
            .collect();
        let v = ilp_reaches_peak_at_low_occupancy(&rows);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        // Needing 128: ILP 8 x 8 warps is half.
        let slow: Vec<IlpRow> = [(4, 8), (8, 8)]
            .iter()
            .map(|&(i, w)| row(i, w, saturating(i, w, 128)))
            .collect();
        let v = ilp_reaches_peak_at_low_occupancy(&slow);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        assert!(v.evidence.contains("ILP 8"), "{}", v.evidence);
        // ILP 2 rows or 25% occupancy rows do not count.
        let v = ilp_reaches_peak_at_low_occupancy(&[row(2, 4, 0.99), row(4, 16, 0.99)]);
        assert_eq!(v.holds, None);
    }

    #[test]
    fn full_occupancy_without_ilp() {
        let v = no_ilp_misses_peak_at_full_occupancy(&[row(1, 64, 0.7), row(4, 64, 0.99)]);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        let v = no_ilp_misses_peak_at_full_occupancy(&[row(1, 64, 0.95)]);
        assert_eq!(v.holds, Some(false));
        let v = no_ilp_misses_peak_at_full_occupancy(&[row(1, 32, 0.5)]);
        assert_eq!(v.holds, None);
        let mut wrong = row(1, 64, 0.5);
        wrong.check.passed = false;
        assert_eq!(no_ilp_misses_peak_at_full_occupancy(&[wrong]).holds, None);
    }
}
