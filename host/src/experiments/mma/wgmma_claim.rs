//! The verdict on `mma`'s second table: does one warpgroup per SM (6.25% occupancy on
//! sm_90) drive the tensor cores to 90% of the dense BF16 peak with `wgmma`? Judged on the
//! bootstrap interval of the best such row's share of the spec peak at its own clock; under the
//! rules that fix references in advance ([`Rules::FixedInAdvance`]), against a ceiling
//! configuration of the same run named before the data ([`CEILING`]), as the mma.sync verdicts
//! are judged against a measured ceiling, with the spec's share beside it.

use super::wgmma::{best_at_one, WgmmaRow, WgmmaTable, HEADLINE_SHARE};
use crate::claim::{with_interval_rule, Claim, Rules, Verdict};
use crate::confidence::{self, Coverage, Interval, NoInterval, Timed};

/// A configuration of the wgmma table: a line (shape N, commit groups in flight) at a residency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgmmaPoint {
    pub n: u32,
    pub groups: u32,
    pub warpgroups_per_sm: u32,
}

/// The ceiling the one-warpgroup verdict is judged against, named before any data: four
/// warpgroups per SM (one per scheduler quadrant), each with eight commit groups in flight, at
/// N 128, the widest shape whose registers hold four warpgroups on an SM (N 256 holds three).
/// It is the configuration of the table with the most MMA-level parallelism at one warpgroup
/// per quadrant; a test holds it to the variant table and the default residencies.
pub const CEILING: WgmmaPoint = WgmmaPoint {
    n: 128,
    groups: 8,
    warpgroups_per_sm: 4,
};

/// The verdict under the run's edition of the rules: runs recorded before the ceiling was named
/// keep [`one_warpgroup_drives_the_peak`], judged against the spec peak.
pub fn one_warpgroup_verdict(table: Option<&WgmmaTable>, rules: Rules) -> Verdict {
    if rules.fixed_in_advance() {
        one_warpgroup_reaches_the_ceiling(table)
    } else {
        one_warpgroup_drives_the_peak(table)
    }
}

/// "One warpgroup per SM (6.25% occupancy) drives the tensor cores to >= 90% of the dense peak."
///
/// Rule: the best checked row at one warpgroup per SM (median TFLOP/s), over the dense BF16 spec
/// peak at the SM clock read around its samples, on the bootstrap interval of that share: HOLDS
/// when it lies wholly at or above 0.90, DOES NOT HOLD when wholly below, NOT JUDGED when it
/// straddles 0.90, or when the table did not run (no sm_90a device) or has no such row.
pub fn one_warpgroup_drives_the_peak(table: Option<&WgmmaTable>) -> Verdict {
    let (holds, evidence) = judged(table).unwrap_or_else(|why| (None, why));
    Verdict {
        key: "one-warpgroup-drives-the-tensor-cores",
        experiment: 0,
        claim: "one warpgroup per SM (6.25% occupancy) drives the tensor cores to 90% of the \
                dense BF16 peak with wgmma"
            .into(),
        rule: with_interval_rule(&format!(
            "best TFLOP/s of the wgmma lines at one warpgroup per SM over the dense BF16 spec \
             peak at the SM clock read around its samples (the interval of that share, from the \
             row's samples): HOLDS when it lies at or above {HEADLINE_SHARE}, DOES NOT \
             HOLD when it lies below, NOT JUDGED otherwise or without an sm_90a device; failed \
             checks are left out"
        )),
        holds,
        evidence,
    }
}

/// The verdict's outcome and evidence, or why it is not judged.
fn judged(table: Option<&WgmmaTable>) -> Result<(Option<bool>, String), String> {
    let not_run = "the wgmma table was not run (--no-wgmma, or a run recorded before it)";
    let t = table.ok_or(not_run.to_owned())?;
    if let Some(why) = &t.gaps.not_run {
        return Err(format!("not run: {why}"));
    }
    let r = best_at_one(&t.rows).ok_or("no checked row at one warpgroup per SM".to_owned())?;
    let peak = (r.share.spec_peak_tflops).ok_or_else(|| {
        format!(
            "{}: the lab does not know this GPU's dense BF16 rate",
            r.entry
        )
    })?;
    let iv = confidence::statistics(&[Timed::new(r.tflops, &r.timing)], |v| Some([v[0] / peak]));
    let holds = iv.as_ref().ok().and_then(|[iv]| iv.exceeds(HEADLINE_SHARE));
    let share = match &iv {
        Ok([iv]) => iv.to_string(),
        Err(e) => format!("{:.3} (no interval: {e})", r.tflops / peak),
    };
    let clock =
        (r.share.sm_clock_mhz).map_or("the maximum clock".to_owned(), |m| format!("{m:.0} MHz"));
    let evidence = format!(
        "best at one warpgroup per SM: {} (N {}, {} groups in flight) {:.1} TFLOP/s against the \
         dense BF16 spec's {:.1} at {clock}: share {share}",
        r.entry, r.n, r.groups, r.tflops, peak
    );
    Ok((holds, evidence))
}

/// The claim's words under the named ceiling.
const CLAIM_CEILING: &str = "one warpgroup per SM (6.25% occupancy) drives the tensor cores to \
90% of their measured wgmma ceiling";

fn rule_ceiling() -> String {
    format!(
        "the ceiling, named before the data, is wgmma_bf16_n{n}_g{g} at {w} warpgroups/SM of the \
         same run (one warpgroup per scheduler quadrant, {g} groups in flight). The best checked \
         row at one warpgroup per SM (median TFLOP/s, picked among the table's rows at one \
         warpgroup) over the ceiling row, per clock (each row's share of the dense BF16 spec at \
         the SM clock read around its samples; TFLOP/s where either clock was unreadable), on \
         the percentile-bootstrap interval of that ratio ({} resamples of both rows' samples, \
         fixed seed), Bonferroni-corrected over the rows at one warpgroup: HOLDS when it lies at \
         or above {HEADLINE_SHARE}, DOES NOT HOLD when it lies below, NOT JUDGED otherwise, \
         without an sm_90a device, or without the ceiling row (not in the table, or its check \
         failed). The best row's share of the spec peak is shown beside it, not judged; failed \
         checks are left out",
        confidence::RESAMPLES,
        n = CEILING.n,
        g = CEILING.groups,
        w = CEILING.warpgroups_per_sm
    )
}

/// Whether `r` is the configuration `p`.
fn is_point(r: &WgmmaRow, p: WgmmaPoint) -> bool {
    r.n == p.n && r.groups == p.groups && r.warpgroups_per_sm == p.warpgroups_per_sm
}

/// A row's figure per clock (its share of the spec at its clock) where both rows read their
/// clock, else its TFLOP/s: the ratio of the two compares like with like.
fn per_clock(a: &WgmmaRow, b: &WgmmaRow) -> Option<(f64, f64)> {
    let share = |r: &WgmmaRow| r.share.sm_clock_mhz.and(r.share.fraction_of_spec);
    Some((share(a)?, share(b)?))
}

/// "One warpgroup per SM reaches 90% of the wgmma ceiling named in advance."
///
/// Rule: the best checked row at one warpgroup per SM over [`CEILING`]'s row of the same run, per
/// clock, on the Bonferroni-corrected interval over the rows at one warpgroup: HOLDS at or above
/// 0.90, DOES NOT HOLD wholly below, NOT JUDGED otherwise; the spec's share shown beside it.
pub fn one_warpgroup_reaches_the_ceiling(table: Option<&WgmmaTable>) -> Verdict {
    let claim = Claim::new(
        "one-warpgroup-drives-the-tensor-cores",
        CLAIM_CEILING,
        rule_ceiling(),
    );
    claim.judge(|| {
        let not_run = "the wgmma table was not run (--no-wgmma, or a run recorded before it)";
        let t = table.ok_or(not_run.to_owned())?;
        if let Some(why) = &t.gaps.not_run {
            return Err(format!("not run: {why}"));
        }
        let one =
            best_at_one(&t.rows).ok_or("no checked row at one warpgroup per SM".to_owned())?;
        let named = format!(
            "wgmma_bf16_n{}_g{} at {} warpgroups/SM",
            CEILING.n, CEILING.groups, CEILING.warpgroups_per_sm
        );
        let top = match t.rows.iter().find(|r| is_point(r, CEILING)) {
            None => {
                return Err(format!(
                    "the ceiling named in advance, {named}, is not in the table"
                ))
            }
            Some(r) if !r.usable() => {
                return Err(format!(
                    "the ceiling named in advance, {named}, failed its check"
                ))
            }
            Some(r) => r,
        };
        let k = (t.rows.iter())
            .filter(|r| r.usable() && r.warpgroups_per_sm == 1)
            .count();
        let coverage = Coverage::bonferroni(k);
        let (figures, how) = match per_clock(one, top) {
            Some(f) => (f, "per clock"),
            None => (
                (one.tflops, top.tflops),
                "per second (a clock was unreadable)",
            ),
        };
        let iv: Result<Interval, NoInterval> = confidence::ratio_at(
            Timed::new(figures.0, &one.timing),
            Timed::new(figures.1, &top.timing),
            coverage.level,
        );
        let holds = iv.as_ref().ok().and_then(|iv| iv.exceeds(HEADLINE_SHARE));
        let ratio = match &iv {
            Ok(iv) => iv.show_at(coverage.level, |x| format!("{x:.3}")),
            Err(e) => format!("{:.3} (no interval: {e})", figures.0 / figures.1),
        };
        let spec = |r: &WgmmaRow| {
            let clock = (r.share.sm_clock_mhz)
                .map_or("the maximum clock".to_owned(), |m| format!("{m:.0} MHz"));
            match r.share.spec_peak_tflops {
                Some(peak) => {
                    let iv = confidence::value(Timed::new(r.tflops / peak, &r.timing));
                    let share = match iv {
                        Ok(iv) => iv.to_string(),
                        Err(e) => format!("{:.3} (no interval: {e})", r.tflops / peak),
                    };
                    format!("{share} of the dense BF16 spec's {peak:.1} TFLOP/s at {clock}")
                }
                None => "the lab does not know this GPU's dense BF16 rate".to_owned(),
            }
        };
        let evidence = format!(
            "ceiling (named in advance): {named}, {:.1} TFLOP/s; best at one warpgroup per SM \
             ({k} rows): {} (N {}, {} groups in flight) {:.1} TFLOP/s; over the ceiling {how}: \
             {ratio}; beside it, the spec: the best at one warpgroup reaches {}, the ceiling {}",
            top.tflops,
            one.entry,
            one.n,
            one.groups,
            one.tflops,
            spec(one),
            spec(top)
        );
        Ok((holds, evidence))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::mma::wgmma::tests::{row, table_of as table};
    use crate::experiments::verdict_check::says;

    #[test]
    fn the_best_one_warpgroup_row_decides_on_its_interval() {
        let judged = |rows| one_warpgroup_drives_the_peak(Some(&table(rows)));
        let v = judged(vec![
            row(64, 1, 1, 0.6),
            row(256, 4, 1, 0.95),
            row(256, 4, 2, 0.99),
        ]);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        assert!(v.evidence.contains("wgmma_bf16_n256_g4") && v.evidence.contains("(95% CI "));
        // Two warpgroups at 99% do not count; the best at one is at 84%.
        let v = judged(vec![row(256, 2, 1, 0.84), row(256, 4, 2, 0.99)]);
        assert_eq!(v.holds, Some(false));
        // At the threshold the interval straddles it.
        assert_eq!(judged(vec![row(256, 2, 1, HEADLINE_SHARE)]).holds, None);
    }

    #[test]
    fn no_device_no_rows_or_failed_checks_leave_it_unjudged() {
        let v = one_warpgroup_drives_the_peak(Some(&WgmmaTable::not_run("needs sm_90a".into())));
        assert_eq!(v.holds, None);
        says(&v, "not run: needs sm_90a");
        assert!(one_warpgroup_drives_the_peak(None)
            .evidence
            .contains("--no-wgmma"));
        let mut bad = row(256, 4, 1, 0.99);
        bad.check.passed = false;
        let v = one_warpgroup_drives_the_peak(Some(&table(vec![bad])));
        assert_eq!(v.holds, None);
        says(&v, "no checked row");
    }

    #[test]
    fn the_ceiling_named_in_advance_is_in_the_variant_table_and_the_default_residencies() {
        use crate::experiments::mma::wgmma::DEFAULT_WARPGROUPS_PER_SM;
        use kernels_gpu::variants::WGMMA_BF16;
        assert!(WGMMA_BF16
            .iter()
            .any(|v| v.n == CEILING.n && v.groups == CEILING.groups));
        assert!(DEFAULT_WARPGROUPS_PER_SM.contains(&CEILING.warpgroups_per_sm));
    }

    #[test]
    fn one_warpgroup_is_judged_against_the_named_ceiling_with_the_spec_beside_it() {
        let judged = |rows| one_warpgroup_reaches_the_ceiling(Some(&table(rows)));
        let ceiling = |f| row(128, 8, 4, f);
        // 86% of the spec at one warpgroup, the ceiling at 91%: 0.945 of the ceiling.
        let v = judged(vec![
            row(256, 16, 1, 0.86),
            row(64, 1, 1, 0.3),
            ceiling(0.91),
        ]);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        says(
            &v,
            "ceiling (named in advance): wgmma_bf16_n128_g8 at 4 warpgroups/SM",
        );
        says(&v, "over the ceiling per clock: 0.945 (97.5% CI");
        says(
            &v,
            "the spec: the best at one warpgroup reaches 0.860 (95% CI",
        );
        // Under the spec-peak rule the same rows do not hold.
        let old = one_warpgroup_verdict(
            Some(&table(vec![row(256, 16, 1, 0.86), ceiling(0.91)])),
            Rules::AsPublished,
        );
        assert_eq!(old.holds, Some(false), "{}", old.evidence);
        // A faster row elsewhere is not the ceiling: only the named one is.
        let v = judged(vec![
            row(256, 16, 1, 0.70),
            ceiling(0.91),
            row(64, 2, 8, 0.99),
        ]);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        says(&v, "0.769");
        // Straddling 0.9, no ceiling row, a failed ceiling, or no device: not judged.
        assert_eq!(judged(vec![row(256, 2, 1, 0.9), ceiling(1.0)]).holds, None);
        let v = judged(vec![row(256, 16, 1, 0.86), row(128, 8, 3, 0.91)]);
        assert_eq!(v.holds, None);
        says(&v, "is not in the table");
        let mut bad = ceiling(0.91);
        bad.check.passed = false;
        let v = judged(vec![row(256, 16, 1, 0.86), bad]);
        assert_eq!(v.holds, None);
        says(&v, "failed its check");
        let v =
            one_warpgroup_reaches_the_ceiling(Some(&WgmmaTable::not_run("needs sm_90a".into())));
        assert_eq!(v.holds, None);
        assert_eq!(one_warpgroup_reaches_the_ceiling(None).holds, None);
    }

    #[test]
    fn an_unreadable_clock_compares_tflops() {
        let mut one = row(256, 16, 1, 0.86);
        one.share.sm_clock_mhz = None;
        let v = one_warpgroup_reaches_the_ceiling(Some(&table(vec![one, row(128, 8, 4, 0.91)])));
        says(&v, "per second (a clock was unreadable)");
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
    }
}
