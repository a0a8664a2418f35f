//! The `ilp` experiment's claims, judged by rules fixed before any data was seen. Rows whose
//! results failed the bit-exact check are never used; "reaching the peak" means reaching
//! [`REACHED`](super::peak_reach::REACHED) of the FP32 peak at the measured clock, the fraction of Volkov's table.

use super::needed_parallelism;
use super::output::Ilp;
use super::peak_reach::{fraction, fraction_at, interval_words, reaches, reaches_at, REACHED};
use super::row::IlpRow;
use crate::claim::{all_of, any_of, Rules, Verdict, NOT_RUN};
use crate::confidence::Coverage;
use crate::experiments::ilp_sweep::{checked_at, SweepPoint, LOW_OCCUPANCY, MIN_ILP};
use crate::table::{percent, percent_with};

pub(crate) fn describe(r: &IlpRow) -> String {
    format!(
        "{} at {} warps/SM ({} occupancy): {:.0} GFLOP/s, {} of peak",
        if r.is_ffma() {
            format!("ILP {}", r.point.ilp)
        } else {
            r.point.entry.clone()
        },
        r.point.warps_per_sm,
        percent_with(r.point.occupancy, 2),
        r.gflops,
        match fraction(r) {
            Ok(iv) => iv.show(percent),
            Err(e) => format!("{} (no interval: {e})", percent(r.fraction_of_peak)),
        }
    )
}

/// The `ilp` experiment's verdicts by the rules its runs were published with
/// ([`verdicts_under`]).
pub fn verdicts(result: Option<&Ilp>) -> Vec<Verdict> {
    verdicts_under(result, Rules::AsPublished)
}

/// The `ilp` experiment's verdicts under the run's edition of the rules, in order; NOT JUDGED,
/// saying so, when it did not run.
pub fn verdicts_under(result: Option<&Ilp>, rules: Rules) -> Vec<Verdict> {
    let rows = result.map_or(&[][..], |r| &r.rows[..]);
    let mut v = vec![
        if rules.fixed_in_advance() {
            ilp_reaches_peak_at_low_occupancy_corrected(rows)
        } else {
            ilp_reaches_peak_at_low_occupancy(rows)
        },
        no_ilp_misses_peak_at_full_occupancy(rows),
        needed_parallelism::latency_times_throughput_under(rows, rules),
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
    low_occupancy_peak(rows, false)
}

/// [`ilp_reaches_peak_at_low_occupancy`] with the pick corrected: one row of the low-occupancy
/// rows reaching the bar is the best of several, so every row is read on its
/// Bonferroni-corrected interval over the rows considered.
pub fn ilp_reaches_peak_at_low_occupancy_corrected(rows: &[IlpRow]) -> Verdict {
    low_occupancy_peak(rows, true)
}

/// The low-occupancy peak verdict, each row read on its 95% interval or, `corrected`, on its
/// Bonferroni-corrected one.
fn low_occupancy_peak(rows: &[IlpRow], corrected: bool) -> Verdict {
    let mut low = checked_at(rows, SweepPoint::ilp_at_low_occupancy);
    low.retain(|r| r.is_ffma());
    let coverage = corrected.then(|| Coverage::bonferroni(low.len()));
    let outcomes: Vec<Option<bool>> = low
        .iter()
        .map(|r| coverage.map_or_else(|| reaches(r), |c| reaches_at(r, c)))
        .collect();
    let holds = any_of(outcomes.iter().copied());
    // The row that decides: one that reaches the peak, else the best by median.
    let best = |reached_only: bool| {
        let rows = low.iter().zip(&outcomes);
        rows.filter(|(_, o)| !reached_only || **o == Some(true))
            .map(|(r, _)| *r)
            .max_by(|a, b| a.fraction_of_peak.total_cmp(&b.fraction_of_peak))
    };
    let shown = best(true).or_else(|| best(false));
    let described = |r: &IlpRow| {
        let Some(coverage) = coverage else {
            return describe(r);
        };
        let iv = match fraction_at(r, coverage) {
            Ok(iv) => iv.show_at(coverage.level, percent),
            Err(e) => format!("{} (no interval: {e})", percent(r.fraction_of_peak)),
        };
        format!(
            "ILP {} at {} warps/SM ({} occupancy): {:.0} GFLOP/s, {iv} of peak",
            r.point.ilp,
            r.point.warps_per_sm,
            percent_with(r.point.occupancy, 2),
            r.gflops
        )
    };
    let read_on = match coverage {
        None => interval_words(),
        Some(c) => format!(
            "on {} of the row's fraction of the peak ({} bootstrap resamples of its samples, \
             fixed seed; the row is picked among them after the data)",
            c.words(),
            crate::confidence::RESAMPLES
        ),
    };
    Verdict {
        key: "ilp-peak-at-low-occupancy",
        experiment: 0,
        claim: format!(
            "with ILP >= {MIN_ILP}, {} of FP32 peak is reached at <= {} occupancy",
            percent_with(REACHED, 0),
            percent(LOW_OCCUPANCY)
        ),
        rule: format!(
            "a checked row with ILP >= {MIN_ILP} and occupancy <= {} reaches {} of the peak at \
             the measured SM clock, {read_on}: HOLDS when one row's interval lies at or above \
             it, DOES NOT HOLD when every row's lies below it, NOT JUDGED otherwise",
            percent(LOW_OCCUPANCY),
            percent_with(REACHED, 0),
        ),
        holds,
        evidence: shown.map_or_else(
            || format!("no checked row with ILP >= {MIN_ILP} at <= 12.5% occupancy"),
            |r| format!("best: {} ({} rows considered)", described(r), low.len()),
        ),
    }
}

/// "At 100% occupancy without ILP the peak is not reached", judged on the controls: the claim
/// is that more warps do not replace ILP, which the three-register FFMA alone cannot separate
/// from its operands.
///
/// Rule: the checked ILP-1 rows at 100% occupancy, the FFMA's and its controls'; HOLDS when every
/// one's interval lies wholly below 90% of its peak, DOES NOT HOLD when one's lies wholly at or
/// above it, NOT JUDGED otherwise, or without the FFMA's row and a control's.
pub fn no_ilp_misses_peak_at_full_occupancy(rows: &[IlpRow]) -> Verdict {
    let full = checked_at(rows, SweepPoint::no_ilp_at_full_occupancy);
    let (ffma, controls): (Vec<&IlpRow>, Vec<&IlpRow>) = full.iter().partition(|r| r.is_ffma());
    let holds = (!ffma.is_empty() && !controls.is_empty())
        .then(|| all_of(full.iter().map(|r| reaches(r).map(|reached| !reached))))
        .flatten();
    let mechanism = super::controls::mechanism(&super::controls::plateaus(rows))
        .map(|m| format!("; what caps ILP 1: {}", super::controls::finding(m)))
        .unwrap_or_default();
    let described = |rows: &[&IlpRow]| rows.iter().map(|r| describe(r)).collect::<Vec<_>>();
    let evidence = match (ffma.is_empty(), controls.is_empty()) {
        (true, _) => "no checked FFMA row with ILP 1 at 100% occupancy".to_owned(),
        (false, true) => format!(
            "{}; no control ran at ILP 1 and 100% occupancy (--controls): the FFMA alone cannot \
             tell the lack of ILP from its three register operands",
            described(&ffma).join("; ")
        ),
        (false, false) => format!("{}{mechanism}", described(&full).join("; ")),
    };
    Verdict {
        key: "no-ilp-misses-peak-at-full-occupancy",
        experiment: 0,
        claim: "at 100% occupancy without ILP the FP32 peak is not reached".into(),
        rule: format!(
            "every checked ILP-1 row at 100% occupancy, the three-register FFMA's and each \
             control's (FADD, FMUL, FFMA with an immediate or a constant: other operands, the \
             same dependent chains), stays below {} of its peak at the measured SM clock, {}: \
             HOLDS when every row's interval lies below it, DOES NOT HOLD when one's lies at or \
             above it (then the FFMA's ceiling is its operands', not the lack of ILP), NOT \
             JUDGED otherwise or without the FFMA's row and at least one control's",
            percent_with(REACHED, 0),
            interval_words()
        ),
        holds,
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp::row::tests::{control, row, saturating};
    use crate::experiments::ilp_sweep::tests::{noisy, two_samples};
    use crate::experiments::verdict_check::says;
    use kernels_gpu::variants::FmaOp;

    /// A row at each (ILP, warps/SM) of `points`, saturating at `needed` independent FMAs.
    fn saturating_rows(points: &[(u32, u32)], needed: u32) -> Vec<IlpRow> {
        (points.iter())
            .map(|&(i, w)| row(i, w, saturating(i, w, needed)))
            .collect()
    }

    #[test]
    fn ilp_at_low_occupancy_is_judged_by_the_best_low_row() {
        // 32 independent FMAs per SM needed: ILP 4 x 8 warps = 32 gets there.
        let rows: Vec<IlpRow> = saturating_rows(&[(4, 8), (8, 4), (1, 64)], 32);
        let v = ilp_reaches_peak_at_low_occupancy(&rows);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        // Needing 128: ILP 8 x 8 warps is half.
        let slow: Vec<IlpRow> = saturating_rows(&[(4, 8), (8, 8)], 128);
        let v = ilp_reaches_peak_at_low_occupancy(&slow);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        says(&v, "ILP 8");
        // ILP 2 rows or 25% occupancy rows do not count.
        let v = ilp_reaches_peak_at_low_occupancy(&[row(2, 4, 0.99), row(4, 16, 0.99)]);
        assert_eq!(v.holds, None);
    }

    #[test]
    fn full_occupancy_without_ilp_is_judged_with_the_controls() {
        let with = |ffma: f64, fadd: f64, imm: f64| {
            let mut rows = vec![row(4, 64, 0.99)];
            for w in [16, 64] {
                rows.push(row(1, w, ffma));
                rows.push(control(FmaOp::Fadd, 1, w, fadd));
                rows.push(control(FmaOp::FfmaImm, 1, w, imm));
            }
            no_ilp_misses_peak_at_full_occupancy(&rows)
        };
        let v = with(0.5, 0.5, 0.5);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        says(&v, "fadd_ilp1 at 64 warps/SM");
        says(&v, "the issue of dependent");
        // A one-register-read FFMA at the peak: the FFMA's ceiling is its operands'.
        let v = with(0.5, 0.5, 0.97);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        says(&v, "register operand reads");
        let v = with(0.95, 0.5, 0.5);
        assert_eq!(v.holds, Some(false));
        // Without a control, or without the FFMA, or not at 100%: not judged.
        let v = no_ilp_misses_peak_at_full_occupancy(&[row(1, 64, 0.5)]);
        assert_eq!(v.holds, None);
        says(&v, "no control ran");
        let v = no_ilp_misses_peak_at_full_occupancy(&[control(FmaOp::Fmul, 1, 64, 0.5)]);
        assert_eq!(v.holds, None);
        let v = no_ilp_misses_peak_at_full_occupancy(&[
            row(1, 32, 0.5),
            control(FmaOp::Fmul, 1, 32, 0.5),
        ]);
        assert_eq!(v.holds, None);
        let mut wrong = row(1, 64, 0.5);
        wrong.measured.check.passed = false;
        let v = no_ilp_misses_peak_at_full_occupancy(&[wrong, control(FmaOp::Fmul, 1, 64, 0.5)]);
        assert_eq!(v.holds, None);
    }

    #[test]
    fn a_fraction_within_noise_of_the_bar_is_not_judged() {
        // 90.1% of the peak with +-2% noise: the interval straddles 90%.
        let mut r = row(4, 8, 0.901);
        r.timing = noisy(&r.timing);
        let v = ilp_reaches_peak_at_low_occupancy(std::slice::from_ref(&r));
        assert_eq!(v.holds, None, "{}", v.evidence);
        says(&v, "95% CI");
        let mut full = r.clone();
        full.point.ilp = 1;
        full.point.occupancy = 1.0;
        let fadd = control(FmaOp::Fadd, 1, 64, 0.5);
        let v = no_ilp_misses_peak_at_full_occupancy(&[full, fadd]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        // Too few samples: no interval, no judgement.
        let mut few = row(4, 8, 0.99);
        few.timing = two_samples();
        assert_eq!(ilp_reaches_peak_at_low_occupancy(&[few]).holds, None);
    }

    #[test]
    fn the_low_occupancy_pick_is_corrected_over_the_rows_considered() {
        let rows: Vec<IlpRow> = saturating_rows(&[(4, 8), (8, 4), (8, 8), (1, 64)], 32);
        let v = ilp_reaches_peak_at_low_occupancy_corrected(&rows);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        says(&v, "(98.3% CI");
        let corrected = "Bonferroni-corrected 98.3% interval (95% over the 3 rows compared)";
        assert!(v.rule.contains(corrected), "{}", v.rule);
        let slow: Vec<IlpRow> = saturating_rows(&[(4, 8), (8, 8)], 128);
        let v = ilp_reaches_peak_at_low_occupancy_corrected(&slow);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        let mut close = row(4, 8, 0.905);
        close.timing = noisy(&close.timing);
        let v = ilp_reaches_peak_at_low_occupancy_corrected(&[close, row(4, 4, 0.5)]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        // Runs recorded before the correction keep the plain rule.
        let under = |rules| verdicts_under(Some(&ilp_of(rows.clone())), rules).remove(0);
        assert_eq!(
            under(Rules::AsPublished),
            ilp_reaches_peak_at_low_occupancy(&rows)
        );
        assert_eq!(
            under(Rules::FixedInAdvance),
            ilp_reaches_peak_at_low_occupancy_corrected(&rows)
        );
    }

    fn ilp_of(rows: Vec<IlpRow>) -> Ilp {
        Ilp {
            a: 1.0,
            b: 1.0,
            rows,
            volkov: vec![],
            skipped: vec![],
        }
    }
}
