//! Little's law for arithmetic: the independent FFMAs an SM must hold in flight to keep its FP32
//! pipes busy are the latency of one dependent FFMA times the rate the SM issues them (its
//! [`SCHEDULERS_PER_SM`] schedulers, one warp instruction a cycle each). The latency comes from
//! the sweep itself: one warp of ILP 1 on an SM issues one FFMA per latency on one of its
//! schedulers, so it runs at `1 / (schedulers x latency)` of the peak.
//!
//! The law gives a necessary condition, which the `ilp` experiment can test: no point with fewer
//! independent FFMAs per SM (warps x ILP) than the law needs for 90% of the peak reaches 90%.
//! It is not sufficient: ILP 1 holds far more than that at 64 warps/SM and stays near half the
//! peak ([`super::controls`] names what caps it).

use super::dip::SCHEDULERS_PER_SM;
use super::peak_reach::{fraction_at, interval_words, reaches, reaches_at, REACHED};
use super::row::IlpRow;
use crate::claim::{Claim, Rules, Verdict};
use crate::confidence::{self, Coverage, Timed};
use crate::table::{percent, percent_with};

/// Cycles of one dependent FFMA, from the checked three-register FFMA row at ILP 1 and 1 warp/SM
/// (with the interval of its fraction of the peak, as cycles); None without it.
pub fn latency_cycles(rows: &[IlpRow]) -> Option<(f64, Option<(f64, f64)>)> {
    let r = rows.iter().find(|r| {
        r.is_ffma() && r.point.ilp == 1 && r.point.warps_per_sm == 1 && r.measured.checked()
    })?;
    let cycles = |fraction: f64| 1.0 / (f64::from(SCHEDULERS_PER_SM) * fraction);
    let iv = confidence::value(Timed::new(r.fraction_of_peak, &r.timing))
        .ok()
        .map(|iv| (cycles(iv.hi), cycles(iv.lo)));
    (r.fraction_of_peak > 0.0).then(|| (cycles(r.fraction_of_peak), iv))
}

/// Independent FFMAs per SM the law needs for `fraction` of the peak at `latency` cycles.
pub fn needed(latency: f64, fraction: f64) -> f64 {
    fraction * f64::from(SCHEDULERS_PER_SM) * latency
}

/// The latency L (with its interval) and the independent FFMAs per SM the law needs from it, in
/// words; `schedulers` follows the scheduler count ("4 schedulers x L").
fn need_words((l, iv): (f64, Option<(f64, f64)>), need: f64, schedulers: &str) -> String {
    let ci = iv.map_or(String::new(), |(lo, hi)| {
        format!(
            " ({} CI {lo:.2} to {hi:.2})",
            percent_with(confidence::LEVEL, 0)
        )
    });
    format!(
        "latency L = {l:.2} cycles{ci} (ILP 1 at 1 warp/SM); the law needs {} x \
         {SCHEDULERS_PER_SM}{schedulers} x L = {need:.1} independent FFMAs per SM for {}",
        percent_with(REACHED, 0),
        percent_with(REACHED, 0),
    )
}

/// "Needed parallelism = latency x throughput", for arithmetic.
///
/// Rule: with the latency L from ILP 1 at 1 warp/SM, the law needs 0.9 x 4 x L independent FFMAs
/// per SM for 90% of the peak. Over the checked FFMA rows: DOES NOT HOLD when a row with fewer
/// (warps x ILP) reaches 90% (its interval wholly at or above); HOLDS when none does and a row
/// with at least that many reaches it; NOT JUDGED otherwise, or without the latency row.
pub fn latency_times_throughput(rows: &[IlpRow]) -> Verdict {
    let latency = latency_cycles(rows);
    let rows: Vec<&IlpRow> = rows
        .iter()
        .filter(|r| r.is_ffma() && r.measured.checked())
        .collect();
    let (holds, evidence) = match latency {
        None => (
            None,
            "no checked row of ILP 1 at 1 warp/SM to take the FFMA latency from".to_owned(),
        ),
        Some((l, iv)) => {
            let need = needed(l, REACHED);
            let in_flight = |r: &IlpRow| f64::from(r.point.warps_per_sm * r.point.ilp);
            let reached: Vec<&&IlpRow> = rows.iter().filter(|r| reaches(r) == Some(true)).collect();
            let too_few: Vec<&&&IlpRow> = reached.iter().filter(|r| in_flight(r) < need).collect();
            // The rows with too few in flight are among those reaching it.
            let holds = (!reached.is_empty()).then_some(too_few.is_empty());
            let fewest = reached
                .iter()
                .min_by(|a, b| in_flight(a).total_cmp(&in_flight(b)))
                .map_or("no row reaches it".to_owned(), |r| {
                    format!(
                        "fewest in flight reaching it: ILP {} x {} warps/SM = {}",
                        r.point.ilp,
                        r.point.warps_per_sm,
                        r.point.ilp * r.point.warps_per_sm
                    )
                });
            (
                holds,
                format!(
                    "{}; {fewest}; rows reaching it with fewer: {}",
                    need_words((l, iv), need, " schedulers"),
                    if too_few.is_empty() {
                        "none".to_owned()
                    } else {
                        too_few
                            .iter()
                            .map(|r| {
                                format!(
                                    "ILP {} x {} warps/SM at {}",
                                    r.point.ilp,
                                    r.point.warps_per_sm,
                                    percent(r.fraction_of_peak)
                                )
                            })
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            )
        }
    };
    Verdict {
        key: "needed-parallelism-is-latency-times-throughput",
        experiment: 0,
        claim: "needed parallelism = latency x throughput (Little's law), for arithmetic".into(),
        rule: format!(
            "the latency L of a dependent FFMA is taken from ILP 1 at 1 warp/SM (1 / ({} x its \
             fraction of the peak) cycles); the law needs {} x {} x L independent FFMAs per SM \
             (warps x ILP) for {} of the peak. Over the checked FFMA rows, {}: DOES NOT HOLD \
             when a row with fewer reaches {}, HOLDS when none does and one with at least that \
             many does, NOT JUDGED otherwise. A necessary condition, not a sufficient one",
            SCHEDULERS_PER_SM,
            percent_with(REACHED, 0),
            SCHEDULERS_PER_SM,
            percent_with(REACHED, 0),
            interval_words(),
            percent_with(REACHED, 0),
        ),
        holds,
        evidence,
    }
}

/// The claim's verdict under the run's edition of the rules: the runs recorded before the
/// prediction was named keep [`latency_times_throughput`], whose necessary condition no row of
/// the grid could break (a warp's chain cannot issue faster than its latency).
pub fn latency_times_throughput_under(rows: &[IlpRow], rules: Rules) -> Verdict {
    if rules.fixed_in_advance() {
        predicted_row_reaches(rows)
    } else {
        latency_times_throughput(rows)
    }
}

/// The row the law names from the latency alone, before any other row is read: at
/// [`SCHEDULERS_PER_SM`] warps/SM (one warp on each scheduler, so each holds the same chains) the
/// smallest ILP of the grid whose chains cover the need, `SCHEDULERS_PER_SM x ILP >= need`. The
/// grid is every FFMA row at that residency, checked or not: the choice reads no throughput.
pub fn named_row(rows: &[IlpRow], need: f64) -> Option<&IlpRow> {
    rows.iter()
        .filter(|r| r.is_ffma() && r.point.warps_per_sm == SCHEDULERS_PER_SM)
        .filter(|r| f64::from(SCHEDULERS_PER_SM * r.point.ilp) >= need)
        .min_by_key(|r| r.point.ilp)
}

/// The fraction of the peak the law predicts for `in_flight` independent FFMAs per SM spread
/// evenly over the schedulers at `latency` cycles: `min(1, in_flight / (schedulers x L))`.
pub fn predicted_fraction(in_flight: f64, latency: f64) -> f64 {
    (in_flight / (f64::from(SCHEDULERS_PER_SM) * latency)).min(1.0)
}

fn rule_fixed_in_advance() -> String {
    format!(
        "the latency L of a dependent FFMA is taken from ILP 1 at 1 warp/SM alone (1 / ({s} x \
         its fraction of the peak) cycles); the law needs {r} x {s} x L independent FFMAs per SM \
         (warps x ILP) for {r} of the peak. From L alone, before any other row is read, it names \
         the row where {r} must first come: at {s} warps/SM (one warp on each scheduler) the \
         smallest ILP of the grid with {s} x ILP at or above the need (predicted at min(1, {s} x \
         ILP / ({s} x L)) of the peak). DOES NOT HOLD when the named row's {l} bootstrap \
         interval of its fraction of the peak ({n} resamples of its samples, fixed seed) lies \
         wholly below {r} (the prediction missed), or when a checked FFMA row with fewer in \
         flight than the need reaches {r} on its corrected interval (a row picked among those \
         rows, Bonferroni over them); HOLDS when the named row's interval lies at or above {r} \
         and no row with fewer reaches it; NOT JUDGED otherwise, or without the latency row or \
         the named row (the grid lacks it, or its check failed)",
        s = SCHEDULERS_PER_SM,
        r = percent_with(REACHED, 0),
        l = percent_with(confidence::LEVEL, 0),
        n = confidence::RESAMPLES,
    )
}

/// "Needed parallelism = latency x throughput", as a prediction a named row can refute.
///
/// Rule: from the latency L (ILP 1 at 1 warp/SM) alone, the law names the row where 90% of the
/// peak must first come ([`named_row`]): DOES NOT HOLD when that row's interval lies wholly below
/// 90%, or when a row with fewer independent FFMAs than the need reaches 90% on its
/// Bonferroni-corrected interval; HOLDS when the named row reaches 90% and none with fewer does;
/// NOT JUDGED otherwise.
pub fn predicted_row_reaches(rows: &[IlpRow]) -> Verdict {
    let claim = Claim::new(
        "needed-parallelism-is-latency-times-throughput",
        "needed parallelism = latency x throughput (Little's law), for arithmetic",
        rule_fixed_in_advance(),
    );
    claim.judge(|| {
        let (l, l_iv) = latency_cycles(rows).ok_or_else(|| {
            "no checked row of ILP 1 at 1 warp/SM to take the FFMA latency from".to_owned()
        })?;
        let need = needed(l, REACHED);
        let latency = need_words((l, l_iv), need, "");
        let named = named_row(rows, need).ok_or_else(|| {
            format!(
                "{latency}; the grid has no FFMA row at {SCHEDULERS_PER_SM} warps/SM with \
                 {SCHEDULERS_PER_SM} x ILP >= {need:.1} to name"
            )
        })?;
        let in_flight = |r: &IlpRow| f64::from(r.point.warps_per_sm * r.point.ilp);
        let at = |r: &IlpRow| format!("ILP {} x {} warps/SM", r.point.ilp, r.point.warps_per_sm);
        let predicted = predicted_fraction(in_flight(named), l);
        let named_words = format!(
            "named row: {} = {} in flight, predicted {} of the peak",
            at(named),
            in_flight(named),
            percent(predicted)
        );
        if !named.measured.checked() {
            return Err(format!("{latency}; {named_words}, but its check failed"));
        }
        let plain = Coverage::bonferroni(1);
        let named_iv = fraction_at(named, plain);
        let named_reaches = reaches_at(named, plain);
        let measured = match &named_iv {
            Ok(iv) => iv.show(percent),
            Err(e) => format!("{} (no interval: {e})", percent(named.fraction_of_peak)),
        };
        // The rows that could refute the need: every checked FFMA row with fewer in flight.
        let fewer: Vec<&IlpRow> = (rows.iter())
            .filter(|r| r.is_ffma() && r.measured.checked() && in_flight(r) < need)
            .collect();
        let corrected = Coverage::bonferroni(fewer.len());
        let beat: Vec<&&IlpRow> = (fewer.iter())
            .filter(|r| reaches_at(r, corrected) == Some(true))
            .collect();
        let beat_words = if beat.is_empty() {
            "none".to_owned()
        } else {
            (beat.iter())
                .map(|r| {
                    let iv = fraction_at(r, corrected)
                        .map(|iv| iv.show_at(corrected.level, percent))
                        .unwrap_or_default();
                    format!("{} at {iv}", at(r))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let holds = if !beat.is_empty() || named_reaches == Some(false) {
            Some(false)
        } else {
            named_reaches
        };
        Ok((
            holds,
            format!(
                "{latency}; {named_words}, measured {measured}; rows with fewer than {need:.1} in \
                 flight reaching {} on {}: {beat_words}",
                percent_with(REACHED, 0),
                corrected.words()
            ),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp::row::tests::row;
    use crate::experiments::ilp_sweep::tests::grid;
    use crate::experiments::verdict_check::says;

    /// A sweep where one warp of ILP 1 runs one FFMA per `latency` cycles and the SM reaches the
    /// peak once warps x ILP covers the law's need.
    fn sweep(latency: f64) -> Vec<IlpRow> {
        grid(&[1, 4, 8], &[1, 2, 4, 8], |ilp, w| {
            let f = (f64::from(w * ilp) / (4.0 * latency)).min(0.97);
            row(ilp, w, if ilp == 1 { f.min(0.5) } else { f })
        })
    }

    #[test]
    fn the_latency_comes_from_one_warp_of_ilp_1() {
        let (l, iv) = latency_cycles(&sweep(4.0)).unwrap();
        assert!((l - 4.0).abs() < 1e-9, "{l}");
        let (lo, hi) = iv.unwrap();
        assert!(lo <= l && l <= hi, "{lo} {l} {hi}");
        assert_eq!(needed(4.0, 0.9), 14.4);
        assert_eq!(latency_cycles(&[row(1, 2, 0.1)]), None);
    }

    #[test]
    fn the_law_holds_when_no_point_beats_it_and_fails_when_one_does() {
        let v = latency_times_throughput(&sweep(4.0));
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        for words in ["14.4 independent FFMAs", "ILP 4 x 4 warps/SM = 16"] {
            says(&v, words);
        }
        // ILP 4 at 2 warps (8 in flight) at 95%: faster than the law allows.
        let mut rows = sweep(4.0);
        rows.iter_mut()
            .find(|r| r.point.ilp == 4 && r.point.warps_per_sm == 2)
            .unwrap()
            .fraction_of_peak = 0.95;
        let v = latency_times_throughput(&rows);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        says(&v, "ILP 4 x 2 warps/SM at 95.0%");
        // Nothing reaches 90%, or no latency row: not judged.
        let low: Vec<IlpRow> = sweep(4.0)
            .into_iter()
            .map(|mut r| {
                r.fraction_of_peak = r.fraction_of_peak.min(0.5);
                r
            })
            .collect();
        assert_eq!(latency_times_throughput(&low).holds, None);
        assert_eq!(latency_times_throughput(&[row(4, 8, 0.97)]).holds, None);
    }

    #[test]
    fn the_named_row_is_chosen_from_the_latency_alone() {
        let rows = sweep(4.0);
        // 14.4 needed: at 4 warps/SM, ILP 4 (16 in flight) is the smallest that covers it.
        let named = named_row(&rows, needed(4.0, REACHED)).unwrap();
        assert_eq!((named.point.ilp, named.point.warps_per_sm), (4, 4));
        assert_eq!(predicted_fraction(16.0, 4.0), 1.0);
        assert_eq!(predicted_fraction(8.0, 4.0), 0.5);
        // Its throughput plays no part in the choice.
        let mut slow = rows.clone();
        slow.iter_mut().for_each(|r| r.fraction_of_peak = 0.01);
        let named = named_row(&slow, 14.4).unwrap();
        assert_eq!((named.point.ilp, named.point.warps_per_sm), (4, 4));
        assert!(named_row(&rows, 33.0).is_none(), "4 x 8 = 32 < 33");
    }

    #[test]
    fn the_prediction_holds_fails_at_the_named_row_or_below_the_need_or_is_not_judged() {
        let v = predicted_row_reaches(&sweep(4.0));
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        says(
            &v,
            "named row: ILP 4 x 4 warps/SM = 16 in flight, predicted 100.0%",
        );
        says(&v, "reaching 90% on the Bonferroni-corrected");
        // The named row misses the bar: the law's prediction is refuted there.
        let set = |rows: &mut Vec<IlpRow>, ilp: u32, w: u32, f: f64| {
            rows.iter_mut()
                .find(|r| r.point.ilp == ilp && r.point.warps_per_sm == w)
                .unwrap()
                .fraction_of_peak = f;
        };
        let mut missed = sweep(4.0);
        set(&mut missed, 4, 4, 0.80);
        let v = predicted_row_reaches(&missed);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        says(&v, "measured 80.0% (95% CI");
        // A row with fewer in flight than the need reaches it.
        let mut beaten = sweep(4.0);
        set(&mut beaten, 4, 2, 0.95);
        let v = predicted_row_reaches(&beaten);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        says(&v, "ILP 4 x 2 warps/SM at 95.0% (99.");
        // Within noise of the bar, without the named row, or without the latency: not judged.
        let mut close = sweep(4.0);
        let r = close
            .iter_mut()
            .find(|r| r.point.ilp == 4 && r.point.warps_per_sm == 4)
            .unwrap();
        r.fraction_of_peak = 0.901;
        r.timing = crate::experiments::ilp_sweep::tests::noisy(&r.timing);
        assert_eq!(predicted_row_reaches(&close).holds, None);
        let no_four: Vec<IlpRow> = (sweep(4.0).into_iter())
            .filter(|r| r.point.warps_per_sm != 4)
            .collect();
        let v = predicted_row_reaches(&no_four);
        assert_eq!(v.holds, None);
        says(&v, "no FFMA row at 4 warps/SM");
        let mut failed = sweep(4.0);
        (failed.iter_mut())
            .find(|r| r.point.ilp == 4 && r.point.warps_per_sm == 4)
            .unwrap()
            .measured
            .check
            .passed = false;
        assert_eq!(predicted_row_reaches(&failed).holds, None);
        assert_eq!(predicted_row_reaches(&[row(4, 4, 0.97)]).holds, None);
        // Runs recorded before the prediction was named keep the old rule.
        let old = latency_times_throughput_under(&missed, Rules::AsPublished);
        assert_eq!(old, latency_times_throughput(&missed));
        assert_eq!(old.holds, Some(true), "the necessary condition alone");
    }
}
