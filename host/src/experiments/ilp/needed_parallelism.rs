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
use super::peak_reach::{interval_words, reaches, REACHED};
use super::row::IlpRow;
use crate::claim::Verdict;
use crate::confidence::{self, Timed};
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
                    "latency L = {l:.2} cycles{} (ILP 1 at 1 warp/SM); the law needs {} x {} \
                     schedulers x L = {need:.1} independent FFMAs per SM for {}; {fewest}; rows \
                     reaching it with fewer: {}",
                    iv.map_or(String::new(), |(lo, hi)| format!(
                        " ({} CI {lo:.2} to {hi:.2})",
                        percent_with(confidence::LEVEL, 0)
                    )),
                    percent_with(REACHED, 0),
                    SCHEDULERS_PER_SM,
                    percent_with(REACHED, 0),
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
}
