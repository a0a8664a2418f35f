//! "Needed parallelism = latency x throughput", for memory: Little's law, fed the latency
//! measured under load ([`super::loaded`]), must predict the bytes in flight per SM the sweep
//! needed for 90% and 95% of the copy. The prediction is one figure (the chase is timed once
//! per background); the measured need is the fewest bytes in flight per SM among the usable rows
//! reaching the fraction, and its interval comes from resampling every row's and the copy's
//! samples (a resample can move rows across the fraction).

use super::loaded::{LoadedPrediction, PREDICTION_WITHIN};
use super::row::{usable, CopyReference, InflightRow, HEADLINE_FRACTIONS, SPILLS_NOTE};
use crate::claim::Verdict;
use crate::confidence::{self, Interval, Timed};
use crate::table::percent_with;

/// The fewest bytes in flight per SM among `rows` whose GB/s (in `gbps`, one per row, then the
/// copy's last) reach `fraction` of the copy.
fn least_bytes(rows: &[&InflightRow], gbps: &[f64], fraction: f64) -> Option<f64> {
    let (rates, copy) = gbps.split_at(gbps.len() - 1);
    rows.iter()
        .zip(rates)
        .filter(|(_, g)| **g / copy[0] >= fraction)
        .map(|(r, _)| r.bytes_in_flight_per_sm as f64)
        .min_by(f64::total_cmp)
}

/// Rule: for each fraction with a loaded prediction, the interval of prediction / measured need
/// (the need's bootstrap interval, the prediction fixed). HOLDS when every interval lies within
/// `1 +- PREDICTION_WITHIN`; DOES NOT HOLD when one lies wholly outside it; NOT JUDGED otherwise,
/// or without a curve or a row reaching the fraction.
pub fn loaded_law_predicts(
    rows: &[InflightRow],
    copy: &CopyReference,
    predictions: &[LoadedPrediction],
) -> Verdict {
    let used: Vec<&InflightRow> = usable(rows).collect();
    let mut figures: Vec<Timed<'_>> = used.iter().map(|r| Timed::new(r.gbps, &r.timing)).collect();
    figures.push(Timed::new(copy.gbps, &copy.timing));
    let (lo, hi) = (1.0 - PREDICTION_WITHIN, 1.0 + PREDICTION_WITHIN);
    let mut outcomes = Vec::new();
    let mut parts = Vec::new();
    for fraction in HEADLINE_FRACTIONS {
        let at = percent_with(fraction, 0);
        let need = confidence::statistic(&figures, |v| least_bytes(&used, v, fraction));
        let predicted = predictions
            .iter()
            .find(|p| (p.fraction - fraction).abs() < 1e-9)
            .and_then(|p| p.loaded_bytes.map(|b| (b, p.extrapolated)));
        let Some((predicted, extrapolated)) = predicted else {
            outcomes.push(None);
            parts.push(match need {
                Ok(need) => format!(
                    "{at}: no loaded-latency curve to predict from; measured need {} B",
                    need.show(|x| format!("{x:.0}"))
                ),
                Err(e) => format!("{at}: no loaded-latency curve, and no measured need ({e})"),
            });
            continue;
        };
        match need {
            Ok(need) => {
                // The prediction over the need: its interval is the need's, inverted.
                let ratio = Interval {
                    point: predicted / need.point,
                    lo: predicted / need.hi,
                    hi: predicted / need.lo,
                };
                outcomes.push(if ratio.above(lo) && ratio.below(hi) {
                    Some(true)
                } else if ratio.below(lo) || ratio.above(hi) {
                    Some(false)
                } else {
                    None
                });
                parts.push(format!(
                    "{at}: predicted {predicted:.0} B per SM{}, measured need {} B, ratio {}",
                    if extrapolated {
                        " (latency extrapolated)"
                    } else {
                        ""
                    },
                    need.show(|x| format!("{x:.0}")),
                    ratio.show(|x| format!("{x:.2}"))
                ));
            }
            Err(e) => {
                outcomes.push(None);
                parts.push(format!(
                    "{at}: predicted {predicted:.0} B per SM; no measured need ({e})"
                ));
            }
        }
    }
    let holds = if outcomes.contains(&Some(false)) {
        Some(false)
    } else if !outcomes.is_empty() && outcomes.iter().all(|o| *o == Some(true)) {
        Some(true)
    } else {
        None
    };
    Verdict {
        key: "loaded-littles-law-predicts-need",
        experiment: 0,
        claim: "needed parallelism = latency x throughput, for memory: Little's law with the \
                latency measured under load predicts the bytes in flight per SM a copy needs"
            .into(),
        rule: format!(
            "for 90% and 95% of the device-to-device copy, the loaded model's bytes in flight per \
             SM (fraction x copy GB/s x L(fraction x copy GB/s) / (2 x SMs), L interpolated on \
             the chase timed under background copies) over the fewest a usable row needed, on \
             the {} bootstrap interval of that need ({} resamples of every row's and the copy's \
             samples, fixed seed): HOLDS when every ratio lies within {lo:.2} to {hi:.2}, DOES \
             NOT HOLD when one lies wholly outside, NOT JUDGED otherwise; points whose build \
             spills ({SPILLS_NOTE}) and failed checks are left out",
            percent_with(confidence::LEVEL, 0),
            confidence::RESAMPLES,
        ),
        holds,
        evidence: parts.join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::inflight::row::tests::row;

    fn copy() -> CopyReference {
        CopyReference {
            bytes: 1 << 27,
            gbps: 4000.0,
            timing: row(32, 1, 4, 1.0).timing,
        }
    }

    fn predicted(fraction: f64, bytes: Option<f64>) -> LoadedPrediction {
        LoadedPrediction {
            fraction,
            unloaded_bytes: 5000.0,
            loaded_bytes: bytes,
            measured_bytes: None,
            extrapolated: false,
        }
    }

    /// 32 KiB per SM reaches 91%, 64 KiB 96%; less stays below 90%.
    fn rows() -> Vec<InflightRow> {
        vec![
            row(1024, 1, 16, 0.85),
            row(1024, 1, 32, 0.91),
            row(1024, 2, 32, 0.96),
        ]
    }

    #[test]
    fn a_prediction_near_the_need_holds() {
        let p = [
            predicted(0.90, Some(30_000.0)),
            predicted(0.95, Some(70_000.0)),
        ];
        let v = loaded_law_predicts(&rows(), &copy(), &p);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        assert!(v.evidence.contains("measured need 32768"), "{}", v.evidence);
        assert!(v.evidence.contains("95% CI"), "{}", v.evidence);
    }

    #[test]
    fn the_unloaded_figure_fails_and_a_missing_curve_is_not_judged() {
        let p = [predicted(0.90, Some(5000.0)), predicted(0.95, Some(70_000.0))];
        let v = loaded_law_predicts(&rows(), &copy(), &p);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        let v = loaded_law_predicts(&rows(), &copy(), &[predicted(0.9, None)]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        // Without a curve the evidence still gives the measured need and its interval.
        let v = loaded_law_predicts(&rows(), &copy(), &[]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        assert!(
            v.evidence.contains("90%: no loaded-latency curve to predict from; measured need 32768")
                && v.evidence.contains("(95% CI"),
            "{}",
            v.evidence
        );
    }

    #[test]
    fn no_row_reaching_the_fraction_is_not_judged() {
        let slow = vec![row(1024, 1, 16, 0.5), row(1024, 2, 16, 0.6)];
        let v = loaded_law_predicts(&slow, &copy(), &[predicted(0.9, Some(30_000.0))]);
        assert_eq!(v.holds, None, "{}", v.evidence);
    }
}
