//! The `ilp` experiment's claims, judged by rules fixed before any data was seen. Rows whose
//! results failed the bit-exact check are never used; "reaching the peak" means reaching
//! [`REACHED`] of the FP32 peak at the measured clock, the fraction of Volkov's table.

use super::row::{Ilp, IlpRow, VOLKOV_FRACTION};
use crate::claim::{all_of, Verdict, NOT_RUN};
use crate::confidence::{self, Interval, NoInterval, Timed};
use crate::table::{percent, percent_with};

/// Fraction of peak that counts as reaching it.
pub const REACHED: f64 = VOLKOV_FRACTION;
/// "Low occupancy" of the ILP claim: 12.5% (8 of 64 warps on sm_90).
pub const LOW_OCCUPANCY: f64 = 0.125;
/// Smallest ILP of the ILP claim.
pub const MIN_ILP: u32 = 4;
const EPS: f64 = 1e-9;

/// A row's fraction of the peak with its bootstrap interval.
fn fraction(r: &IlpRow) -> Result<Interval, NoInterval> {
    confidence::value(Timed::new(r.fraction_of_peak, &r.timing))
}

/// Whether a row reaches the peak: its interval wholly at or above [`REACHED`] (`Some(true)`),
/// wholly below it (`Some(false)`), or neither.
fn reaches(r: &IlpRow) -> Option<bool> {
    fraction(r).ok().and_then(|iv| iv.exceeds(REACHED))
}

fn describe(r: &IlpRow) -> String {
    format!(
        "ILP {} at {} warps/SM ({} occupancy): {:.0} GFLOP/s, {} of peak",
        r.ilp,
        r.warps_per_sm,
        percent_with(r.occupancy, 2),
        r.gflops,
        match fraction(r) {
            Ok(iv) => iv.show(percent),
            Err(e) => format!("{} (no interval: {e})", percent(r.fraction_of_peak)),
        }
    )
}

fn interval_words() -> String {
    format!(
        "on the {} bootstrap interval of the row's fraction of the peak ({} resamples of its \
         samples, fixed seed)",
        percent_with(confidence::LEVEL, 0),
        confidence::RESAMPLES
    )
}

/// The `ilp` experiment's verdicts, in order; NOT JUDGED, saying so, when it did not run.
pub fn verdicts(result: Option<&Ilp>) -> Vec<Verdict> {
    let rows = result.map_or(&[][..], |r| &r.rows[..]);
    let mut v = vec![
        ilp_reaches_peak_at_low_occupancy(rows),
        no_ilp_misses_peak_at_full_occupancy(rows),
    ];
    if result.is_none() {
        for x in &mut v {
            x.holds = None;
            x.evidence = NOT_RUN.into();
        }
    }
    v
}

/// "With ILP >= 4, 90% of FP32 peak is reached at <= 12.5% occupancy."
///
/// Rule: among checked rows with ILP >= 4 and occupancy <= 12.5%, HOLDS when one's interval lies
/// wholly at or above 90% of the peak, DOES NOT HOLD when every one's lies wholly below it, NOT
/// JUDGED otherwise or without such rows.
pub fn ilp_reaches_peak_at_low_occupancy(rows: &[IlpRow]) -> Verdict {
    let low: Vec<&IlpRow> = rows
        .iter()
        .filter(|r| {
            r.is_ffma()
                && r.measured.checked()
                && r.ilp >= MIN_ILP
                && r.occupancy <= LOW_OCCUPANCY + EPS
        })
        .collect();
    let outcomes: Vec<Option<bool>> = low.iter().map(|r| reaches(r)).collect();
    let holds = if outcomes.contains(&Some(true)) {
        Some(true)
    } else if !outcomes.is_empty() && outcomes.iter().all(|o| *o == Some(false)) {
        Some(false)
    } else {
        None
    };
    // The row that decides: one that reaches the peak, else the best by median.
    let shown = low
        .iter()
        .zip(&outcomes)
        .filter(|(_, o)| **o == Some(true))
        .map(|(r, _)| *r)
        .max_by(|a, b| a.fraction_of_peak.total_cmp(&b.fraction_of_peak))
        .or_else(|| {
            low.iter()
                .copied()
                .max_by(|a, b| a.fraction_of_peak.total_cmp(&b.fraction_of_peak))
        });
    Verdict {
        key: "ilp-peak-at-low-occupancy",
        experiment: 0,
        claim: format!(
            "with ILP >= {MIN_ILP}, {} of FP32 peak is reached at <= {} occupancy",
            percent_with(REACHED, 0),
            percent(LOW_OCCUPANCY)
        ),
        rule: format!(
            "a checked row with ILP >= {MIN_ILP} and occupancy <= {} reaches {} of the \
             peak at the measured SM clock, {}: HOLDS when one row's interval lies at or above \
             it, DOES NOT HOLD when every row's lies below it, NOT JUDGED otherwise",
            percent(LOW_OCCUPANCY),
            percent_with(REACHED, 0),
            interval_words()
        ),
        holds,
        evidence: shown.map_or_else(
            || format!("no checked row with ILP >= {MIN_ILP} at <= 12.5% occupancy"),
            |r| format!("best: {} ({} rows considered)", describe(r), low.len()),
        ),
    }
}

/// "At 100% occupancy without ILP the peak is not reached."
///
/// Rule: the checked rows with ILP 1 at 100% occupancy; HOLDS when every one's interval lies
/// wholly below 90% of the peak, DOES NOT HOLD when one's lies wholly at or above it, NOT JUDGED
/// otherwise or without such a row.
pub fn no_ilp_misses_peak_at_full_occupancy(rows: &[IlpRow]) -> Verdict {
    let full: Vec<&IlpRow> = rows
        .iter()
        .filter(|r| r.measured.checked() && r.ilp == 1 && r.occupancy >= 1.0 - EPS)
        .collect();
    let holds = all_of(full.iter().map(|r| reaches(r).map(|reached| !reached)));
    let best = full
        .iter()
        .copied()
        .max_by(|a, b| a.fraction_of_peak.total_cmp(&b.fraction_of_peak));
    Verdict {
        key: "no-ilp-misses-peak-at-full-occupancy",
        experiment: 0,
        claim: "at 100% occupancy without ILP the FP32 peak is not reached".into(),
        rule: format!(
            "every checked row with ILP 1 at 100% occupancy stays below {} of the peak at the \
             measured SM clock, {}: HOLDS when every row's interval lies below it, DOES NOT HOLD \
             when one's lies at or above it, NOT JUDGED otherwise",
            percent_with(REACHED, 0),
            interval_words()
        ),
        holds,
        evidence: best.map_or_else(
            || "no checked row with ILP 1 at 100% occupancy".to_owned(),
            |r| format!("best: {}", describe(r)),
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
        wrong.measured.check.passed = false;
        assert_eq!(no_ilp_misses_peak_at_full_occupancy(&[wrong]).holds, None);
    }

    #[test]
    fn a_fraction_within_noise_of_the_bar_is_not_judged() {
        // 90.1% of the peak with +-2% noise: the interval straddles 90%.
        let mut r = row(4, 8, 0.901);
        let m = r.timing.median_ms;
        r.timing = crate::sampling::summarize(
            (0..9).map(|i| m * (0.98 + 0.005 * f64::from(i))).collect(),
            None,
            None,
        );
        let v = ilp_reaches_peak_at_low_occupancy(std::slice::from_ref(&r));
        assert_eq!(v.holds, None, "{}", v.evidence);
        assert!(v.evidence.contains("95% CI"), "{}", v.evidence);
        let mut full = r.clone();
        full.ilp = 1;
        full.occupancy = 1.0;
        let v = no_ilp_misses_peak_at_full_occupancy(&[full]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        // Too few samples: no interval, no judgement.
        let mut few = row(4, 8, 0.99);
        few.timing = crate::sampling::summarize(vec![1.0, 1.0], None, None);
        assert_eq!(ilp_reaches_peak_at_low_occupancy(&[few]).holds, None);
    }
}
