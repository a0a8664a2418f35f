//! The verdict on `mma`'s second table: does one warpgroup per SM (6.25% occupancy on
//! sm_90) drive the tensor cores to 90% of the dense BF16 peak with `wgmma`? Judged on the
//! bootstrap interval of the best such row's share of the spec peak at its own clock.

use super::wgmma::{best_at_one, WgmmaTable, HEADLINE_SHARE};
use crate::claim::{with_interval_rule, Verdict};
use crate::confidence::{self, Timed};

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
}
