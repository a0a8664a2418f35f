//! The tensor-core sweep's claims, judged by rules fixed before any data was seen. Rows whose
//! results failed the bit-exact check are never used. "Reaching the ceiling" means reaching
//! [`REACHED`] of it, the ceiling being the run's best verified point (under the rules that fix
//! references in advance, [`Rules::FixedInAdvance`], the row named before the data,
//! [`named_ceiling`], and a row picked among several read on a Bonferroni-corrected interval); a
//! row's fraction of it is judged on the bootstrap interval of the ratio of the two rows'
//! figures, so the noise of both counts.

use super::row::{ceiling, Mma, MmaRow};
use super::wgmma_claim::one_warpgroup_verdict;
use crate::claim::{all_of, any_of, Rules, Verdict, NOT_RUN};
use crate::confidence::{self, Coverage, Interval, NoInterval, Timed};
use crate::experiments::ilp_sweep::{checked_at, SweepPoint, LOW_OCCUPANCY, MIN_ILP};
use crate::table::{percent, percent_with};

/// Fraction of the ceiling that counts as reaching it.
pub const REACHED: f64 = 0.95;

/// A row's fraction of the ceiling row's throughput, with its bootstrap interval.
fn fraction(r: &MmaRow, top: &MmaRow) -> Result<Interval, NoInterval> {
    confidence::ratio(
        Timed::new(r.tflops, &r.timing),
        Timed::new(top.tflops, &top.timing),
    )
}

/// [`fraction`] at `coverage` (a row picked among several).
fn fraction_at(r: &MmaRow, top: &MmaRow, coverage: Coverage) -> Result<Interval, NoInterval> {
    confidence::ratio_at(
        Timed::new(r.tflops, &r.timing),
        Timed::new(top.tflops, &top.timing),
        coverage.level,
    )
}

/// [`reaches`] at `coverage`.
fn reaches_at(r: &MmaRow, top: &MmaRow, coverage: Coverage) -> Option<bool> {
    if std::ptr::eq(r, top) {
        return Some(true);
    }
    fraction_at(r, top, coverage)
        .ok()
        .and_then(|iv| iv.exceeds(REACHED))
}

/// Whether a row reaches the ceiling: its interval wholly at or above [`REACHED`]
/// (`Some(true)`), wholly below it (`Some(false)`), or neither. The ceiling row reaches itself.
fn reaches(r: &MmaRow, top: &MmaRow) -> Option<bool> {
    if std::ptr::eq(r, top) {
        return Some(true);
    }
    fraction(r, top).ok().and_then(|iv| iv.exceeds(REACHED))
}

fn describe(r: &MmaRow, top: &MmaRow) -> String {
    describe_at(r, top, None)
}

/// A row against the ceiling in words, its fraction on the 95% interval or, with `coverage`, on
/// the corrected one.
fn describe_at(r: &MmaRow, top: &MmaRow, coverage: Option<Coverage>) -> String {
    let of_ceiling = if std::ptr::eq(r, top) {
        "the ceiling itself".to_owned()
    } else {
        let shown = match coverage {
            None => fraction(r, top).map(|iv| iv.show(percent)),
            Some(c) => fraction_at(r, top, c).map(|iv| iv.show_at(c.level, percent)),
        };
        match shown {
            Ok(iv) => format!("{iv} of the ceiling"),
            Err(e) => format!(
                "{} of the ceiling (no interval: {e})",
                percent(r.fraction_of_ceiling)
            ),
        }
    };
    format!(
        "ILP {} at {} warps/SM ({} occupancy): {:.1} TFLOP/s, {of_ceiling} ({:.1} TFLOP/s, ILP {} \
         at {} warps/SM)",
        r.point.ilp,
        r.point.warps_per_sm,
        percent_with(r.point.occupancy, 2),
        r.tflops,
        top.tflops,
        top.point.ilp,
        top.point.warps_per_sm
    )
}

/// The ceiling the mma.sync claims are judged against where the rules fix references in
/// advance, named before any throughput is read: the row with the most MMAs in flight per SM
/// (ILP x warps/SM; the higher ILP on a tie), where the sweep is furthest past the latency, in
/// place of the run's best point, a maximum picked after the data. None without rows.
pub fn named_ceiling(rows: &[MmaRow]) -> Option<&MmaRow> {
    rows.iter().max_by_key(|r| {
        (
            r.point.ilp.saturating_mul(r.point.warps_per_sm),
            r.point.ilp,
        )
    })
}

/// How the named ceiling is chosen, in a rule's words.
const NAMED_CEILING_WORDS: &str = "the ceiling named before the data: the row with the most MMAs in flight per SM (ILP x warps/SM, the higher ILP on a tie); NOT JUDGED when its check failed";

/// [`named_ceiling`] when its check passed.
fn checked_named_ceiling(rows: &[MmaRow]) -> Option<&MmaRow> {
    named_ceiling(rows).filter(|r| r.measured.checked())
}

/// The row with the most TFLOP/s (by median).
fn fastest<'r>(rows: impl Iterator<Item = &'r MmaRow>) -> Option<&'r MmaRow> {
    rows.max_by(|a, b| a.tflops.total_cmp(&b.tflops))
}

fn interval_words() -> String {
    format!(
        "on the {} bootstrap interval of the row's throughput over the ceiling's ({} resamples \
         of both rows' samples, fixed seed)",
        percent_with(confidence::LEVEL, 0),
        confidence::RESAMPLES
    )
}

/// The sweep's verdicts by the rules its runs were published with ([`verdicts_under`]).
pub fn verdicts(output: Option<&Mma>) -> Vec<Verdict> {
    verdicts_under(output, Rules::AsPublished)
}

/// The sweep's verdicts under the run's edition of the rules, in order: judged on its rows, or
/// NOT JUDGED saying why there are none (it was not run, or its GPU has no bf16 `mma.sync`).
pub fn verdicts_under(output: Option<&Mma>, rules: Rules) -> Vec<Verdict> {
    let why_not = match output {
        None => Some(NOT_RUN.to_owned()),
        Some(o) => o.not_run.as_ref().map(|why| format!("not run: {why}")),
    };
    let rows = output.map_or(&[][..], |o| &o.rows[..]);
    [
        if rules.fixed_in_advance() {
            mma_ilp_reaches_ceiling_at_low_occupancy_corrected(rows)
        } else {
            mma_ilp_reaches_ceiling_at_low_occupancy(rows)
        },
        if rules.fixed_in_advance() {
            no_mma_ilp_misses_named_ceiling_at_full_occupancy(rows)
        } else {
            no_mma_ilp_misses_ceiling_at_full_occupancy(rows)
        },
        one_warpgroup_verdict(output.and_then(|o| o.wgmma.as_ref()), rules),
    ]
    .into_iter()
    .map(|v| match &why_not {
        Some(why) => Verdict {
            holds: None,
            evidence: why.clone(),
            ..v
        },
        None => v,
    })
    .collect()
}

/// "With >= 4 independent MMAs per warp, 95% of the mma.sync ceiling is reached at <= 12.5%
/// occupancy."
///
/// Rule: among checked rows with ILP >= 4 and occupancy <= 12.5%, HOLDS when one's interval
/// lies wholly at or above 95% of the ceiling, DOES NOT HOLD when every one's lies wholly below
/// it, NOT JUDGED otherwise or without such rows.
pub fn mma_ilp_reaches_ceiling_at_low_occupancy(rows: &[MmaRow]) -> Verdict {
    let top = ceiling(rows);
    let low = checked_at(rows, SweepPoint::ilp_at_low_occupancy);
    let outcomes: Vec<Option<bool>> = top.map_or_else(Vec::new, |top| {
        low.iter().map(|r| reaches(r, top)).collect()
    });
    let holds = any_of(outcomes.iter().copied());
    let shown = deciding(&low, &outcomes);
    Verdict {
        key: "mma-ilp-ceiling-at-low-occupancy",
        experiment: 0,
        claim: low_occupancy_claim(),
        rule: format!(
            "a checked row with ILP >= {MIN_ILP} and occupancy <= {} reaches {} of the run's \
             best verified throughput, {}: HOLDS when one row's interval lies at or above it, \
             DOES NOT HOLD when every row's lies below it, NOT JUDGED otherwise",
            percent(LOW_OCCUPANCY),
            percent_with(REACHED, 0),
            interval_words()
        ),
        holds,
        evidence: match (shown, top) {
            (Some(r), Some(top)) => {
                format!("best: {} ({} rows considered)", describe(r, top), low.len())
            }
            _ => format!(
                "no checked row with ILP >= {MIN_ILP} at <= {} occupancy",
                percent(LOW_OCCUPANCY)
            ),
        },
    }
}

/// [`mma_ilp_reaches_ceiling_at_low_occupancy`] with the pick corrected: any one of the
/// low-occupancy rows reaching the bar is one picked among several, so each is read on its
/// Bonferroni-corrected interval over the rows considered.
pub fn mma_ilp_reaches_ceiling_at_low_occupancy_corrected(rows: &[MmaRow]) -> Verdict {
    let top = checked_named_ceiling(rows);
    let low = checked_at(rows, SweepPoint::ilp_at_low_occupancy);
    let coverage = Coverage::bonferroni(low.len());
    let outcomes: Vec<Option<bool>> = top.map_or_else(Vec::new, |top| {
        low.iter().map(|r| reaches_at(r, top, coverage)).collect()
    });
    let holds = any_of(outcomes.iter().copied());
    let shown = deciding(&low, &outcomes);
    let described = |r: &MmaRow, top: &MmaRow| describe_at(r, top, Some(coverage));
    Verdict {
        key: "mma-ilp-ceiling-at-low-occupancy",
        experiment: 0,
        claim: low_occupancy_claim(),
        rule: format!(
            "a checked row with ILP >= {MIN_ILP} and occupancy <= {} reaches {} of \
             {NAMED_CEILING_WORDS}, on {} of the row's throughput over the ceiling's ({} \
             bootstrap resamples of both rows' samples, fixed seed; the row is picked among \
             them after the data): HOLDS when one row's interval lies at or above it, DOES NOT \
             HOLD when every row's lies below it, NOT JUDGED otherwise",
            percent(LOW_OCCUPANCY),
            percent_with(REACHED, 0),
            coverage.words(),
            confidence::RESAMPLES
        ),
        holds,
        evidence: match (shown, top) {
            (Some(r), Some(top)) => {
                format!(
                    "best: {} ({} rows considered)",
                    described(r, top),
                    low.len()
                )
            }
            (_, None) => no_named_ceiling(rows),
            _ => format!(
                "no checked row with ILP >= {MIN_ILP} at <= {} occupancy",
                percent(LOW_OCCUPANCY)
            ),
        },
    }
}

/// Why there is no named ceiling to judge against.
fn no_named_ceiling(rows: &[MmaRow]) -> String {
    match named_ceiling(rows) {
        Some(r) => format!(
            "the ceiling named before the data, ILP {} at {} warps/SM, failed its check",
            r.point.ilp, r.point.warps_per_sm
        ),
        None => "no rows".to_owned(),
    }
}

/// [`no_mma_ilp_misses_ceiling_at_full_occupancy`] against the ceiling named before the data
/// ([`named_ceiling`]) instead of the run's best point, a maximum picked after it (which would
/// make "below the ceiling" likelier the noisier the sweep).
pub fn no_mma_ilp_misses_named_ceiling_at_full_occupancy(rows: &[MmaRow]) -> Verdict {
    let top = checked_named_ceiling(rows);
    let missing = || no_named_ceiling(rows);
    no_mma_ilp_misses_at_full_occupancy(rows, (top, NAMED_CEILING_WORDS), missing)
}

/// "Without MMA-level parallelism, 100% occupancy does not reach the mma.sync ceiling."
///
/// Rule: the checked rows with ILP 1 at 100% occupancy; HOLDS when every one's interval lies
/// wholly below 95% of the ceiling, DOES NOT HOLD when one's lies wholly at or above it, NOT
/// JUDGED otherwise or without such a row.
pub fn no_mma_ilp_misses_ceiling_at_full_occupancy(rows: &[MmaRow]) -> Verdict {
    let words = "the run's best verified throughput";
    let missing = || NO_FULL_ROW.to_owned();
    no_mma_ilp_misses_at_full_occupancy(rows, (ceiling(rows), words), missing)
}

/// Evidence where no row has ILP 1 at 100% occupancy.
const NO_FULL_ROW: &str = "no checked row with ILP 1 at 100% occupancy";

/// The ILP-1 verdict against `top`, the reference `top_words` names; `missing` is the evidence
/// when there is no reference.
fn no_mma_ilp_misses_at_full_occupancy(
    rows: &[MmaRow],
    (top, top_words): (Option<&MmaRow>, &str),
    missing: impl FnOnce() -> String,
) -> Verdict {
    let full = checked_at(rows, SweepPoint::no_ilp_at_full_occupancy);
    let holds =
        top.and_then(|top| all_of(full.iter().map(|r| reaches(r, top).map(|reached| !reached))));
    let best = fastest(full.iter().copied());
    Verdict {
        key: "no-mma-ilp-misses-ceiling-at-full-occupancy",
        experiment: 0,
        claim: "without MMA-level parallelism (one mma in flight per warp), 100% occupancy does \
                not reach the mma.sync ceiling"
            .into(),
        rule: format!(
            "every checked row with ILP 1 at 100% occupancy stays below {} of {top_words}, {}: \
             HOLDS when every row's interval lies below it, DOES NOT HOLD when one's lies at or \
             above it, NOT JUDGED otherwise",
            percent_with(REACHED, 0),
            interval_words()
        ),
        holds,
        evidence: match (best, top) {
            (Some(r), Some(top)) => format!("best: {}", describe(r, top)),
            (_, None) => missing(),
            _ => NO_FULL_ROW.to_owned(),
        },
    }
}

/// The row that decides a low-occupancy verdict: the fastest of `low` that reaches the ceiling
/// (by its `outcomes`), else the fastest by median.
fn deciding<'r>(low: &[&'r MmaRow], outcomes: &[Option<bool>]) -> Option<&'r MmaRow> {
    let reached = (low.iter().zip(outcomes))
        .filter(|(_, o)| **o == Some(true))
        .map(|(r, _)| *r);
    fastest(reached).or_else(|| fastest(low.iter().copied()))
}

/// The low-occupancy claim, in words (under either rule).
fn low_occupancy_claim() -> String {
    format!(
        "with >= {MIN_ILP} independent MMAs per warp, {} of the mma.sync ceiling is reached at \
         <= {} occupancy",
        percent_with(REACHED, 0),
        percent(LOW_OCCUPANCY)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests::{noisy, two_samples};
    use crate::experiments::mma::row::tests::{not_run, row, sweep};
    use crate::experiments::mma::row::with_ceiling;
    use crate::experiments::verdict_check::says;

    #[test]
    fn ilp_at_low_occupancy_is_judged_against_the_ceiling() {
        // 32 mma in flight per SM needed: ILP 4 x 8 warps gets there at 12.5%.
        let v = mma_ilp_reaches_ceiling_at_low_occupancy(&sweep(32));
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        says(&v, "ILP 8 at 8 warps/SM");
        // Needing 256: ILP 8 x 8 warps is a quarter of the ceiling (reached at 64 warps x ILP 4).
        let v = mma_ilp_reaches_ceiling_at_low_occupancy(&sweep(256));
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        says(&v, "25.0% (95% CI");
        says(&v, "ILP 8");
        // ILP 2 rows or 25% occupancy rows do not count.
        let rows = with_ceiling(vec![row(2, 4, 650.0), row(4, 16, 650.0)]);
        assert_eq!(mma_ilp_reaches_ceiling_at_low_occupancy(&rows).holds, None);
        assert_eq!(mma_ilp_reaches_ceiling_at_low_occupancy(&[]).holds, None);
    }

    #[test]
    fn full_occupancy_without_ilp() {
        let full = |rows| no_mma_ilp_misses_ceiling_at_full_occupancy(&with_ceiling(rows));
        let v = full(vec![row(1, 64, 500.0), row(4, 64, 650.0)]);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        says(&v, "76.9% (95% CI");
        let v = full(vec![row(1, 64, 640.0), row(4, 64, 650.0)]);
        assert_eq!(v.holds, Some(false));
        // ILP 1 at 100% occupancy is itself the ceiling: it reaches it.
        let v = full(vec![row(1, 64, 650.0), row(4, 8, 600.0)]);
        assert_eq!(v.holds, Some(false));
        says(&v, "the ceiling itself");
        assert_eq!(full(vec![row(1, 32, 300.0)]).holds, None);
        let mut wrong = row(1, 64, 300.0);
        wrong.measured.check.passed = false;
        assert_eq!(full(vec![wrong, row(4, 8, 650.0)]).holds, None);
    }

    #[test]
    fn a_fraction_within_noise_of_the_bar_is_not_judged() {
        // 95.1% of the ceiling with +-2% noise: the interval straddles 95%.
        let mut r = row(4, 8, 0.951 * 650.0);
        r.timing = noisy(&r.timing);
        let rows = with_ceiling(vec![r.clone(), row(8, 64, 650.0)]);
        let v = mma_ilp_reaches_ceiling_at_low_occupancy(&rows);
        assert_eq!(v.holds, None, "{}", v.evidence);
        says(&v, "95% CI");
        let mut full = r;
        full.point.ilp = 1;
        full.point.occupancy = 1.0;
        let rows = with_ceiling(vec![full, row(8, 64, 650.0)]);
        let v = no_mma_ilp_misses_ceiling_at_full_occupancy(&rows);
        assert_eq!(v.holds, None, "{}", v.evidence);
        // Too few samples: no interval, no judgement.
        let mut few = row(4, 8, 640.0);
        few.timing = two_samples();
        let rows = with_ceiling(vec![few, row(8, 64, 650.0)]);
        assert_eq!(mma_ilp_reaches_ceiling_at_low_occupancy(&rows).holds, None);
    }

    #[test]
    fn not_run_is_not_judged() {
        let v = verdicts(None);
        assert_eq!(v.len(), 3);
        assert!(v.iter().all(|x| x.holds.is_none() && x.evidence == NOT_RUN));
        let v = verdicts(Some(&not_run("needs sm_80")));
        assert!(v
            .iter()
            .all(|x| x.holds.is_none() && x.evidence == "not run: needs sm_80"));
        let ran = Mma {
            rows: sweep(32),
            not_run: None,
            ..not_run("")
        };
        assert_eq!(verdicts(Some(&ran))[0].holds, Some(true));
    }

    #[test]
    fn the_low_occupancy_pick_is_corrected_over_the_rows_considered() {
        let v = mma_ilp_reaches_ceiling_at_low_occupancy_corrected(&sweep(32));
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        assert!(v.rule.contains("Bonferroni-corrected"), "{}", v.rule);
        let v = mma_ilp_reaches_ceiling_at_low_occupancy_corrected(&sweep(256));
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        says(&v, "25.0% (9");
        let mut r = row(4, 8, 0.951 * 650.0);
        r.timing = noisy(&r.timing);
        let rows = with_ceiling(vec![r, row(8, 64, 650.0)]);
        assert_eq!(
            mma_ilp_reaches_ceiling_at_low_occupancy_corrected(&rows).holds,
            None
        );
        let ran = Mma {
            rows: sweep(32),
            not_run: None,
            ..not_run("")
        };
        assert_eq!(
            verdicts_under(Some(&ran), Rules::FixedInAdvance)[0],
            mma_ilp_reaches_ceiling_at_low_occupancy_corrected(&ran.rows)
        );
        assert_eq!(
            verdicts_under(Some(&ran), Rules::AsPublished),
            verdicts(Some(&ran))
        );
    }

    #[test]
    fn the_named_ceiling_is_the_most_mmas_in_flight_whatever_its_throughput() {
        let rows = with_ceiling(vec![
            row(1, 64, 500.0),
            row(4, 64, 600.0),
            row(8, 32, 640.0),
        ]);
        let top = named_ceiling(&rows).unwrap();
        assert_eq!(
            (top.point.ilp, top.point.warps_per_sm),
            (8, 32),
            "the tie goes to ILP 8"
        );
        // ILP 1 at 64 warps: 500 / 640 = 78%, below 95% of the named ceiling.
        let v = no_mma_ilp_misses_named_ceiling_at_full_occupancy(&rows);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        says(&v, "(640.0 TFLOP/s, ILP 8 at 32 warps/SM)");
        assert!(v.rule.contains("the ceiling named before the data"));
        // A faster row elsewhere does not move the named ceiling: ILP 1 reaches it.
        let rows = with_ceiling(vec![row(1, 64, 630.0), row(4, 8, 700.0), row(8, 32, 640.0)]);
        let v = no_mma_ilp_misses_named_ceiling_at_full_occupancy(&rows);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        // The named ceiling failed its check: not judged, and no other row stands in.
        let mut bad = row(8, 32, 640.0);
        bad.measured.check.passed = false;
        let rows = with_ceiling(vec![row(1, 64, 500.0), row(4, 64, 600.0), bad]);
        let v = no_mma_ilp_misses_named_ceiling_at_full_occupancy(&rows);
        assert_eq!(v.holds, None);
        says(&v, "ILP 8 at 32 warps/SM, failed its check");
        let v = mma_ilp_reaches_ceiling_at_low_occupancy_corrected(&rows);
        assert_eq!(v.holds, None);
        says(&v, "failed its check");
    }
}
