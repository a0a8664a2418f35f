//! Claims about the parallelism memory needs. Seed 003's "64 warps cannot hide a 400-cycle
//! latency" ([`warps_cannot_hide_latency`]) counts one request per warp; the rows count bytes in
//! flight.
//!
//! "Needed parallelism = latency x throughput", for memory: Little's law, fed the latency
//! measured under load ([`super::loaded`]), must predict the bytes in flight per SM the sweep
//! needed for 90% and 95% of the copy. The prediction is one figure (the chase is timed once
//! per background); the measured need is the fewest bytes in flight per SM among the usable rows
//! reaching the fraction, and its interval comes from resampling every row's and the copy's
//! samples (a resample can move rows across the fraction).
//!
//! The sweep's copies load, store and exit, so their nominal bytes in flight are a peak, not the
//! time average the law is about; [`sustained_law_predicts`] asks the same of the persistent
//! copies ([`super::sustained`]), which hold theirs through the whole copy.

use super::grid::CopyShape;
use super::loaded::{LoadedPrediction, PREDICTION_WITHIN};
use super::row::{usable, CopyReference, InflightRow, HEADLINE_FRACTIONS, SPILLS_NOTE};
use super::sustained::SustainedRow;
use crate::claim::{all_of, decide, interval_or, ratio, verdict, Verdict};
use crate::confidence::{self, Interval, Timed};
use crate::table::{percent, percent_with};

/// The fewest of `bytes` (one per row) among the rows whose GB/s (in `gbps`, one per row, then
/// the copy's last) reach `fraction` of the copy.
fn least_bytes(bytes: &[f64], gbps: &[f64], fraction: f64) -> Option<f64> {
    let (rates, copy) = gbps.split_at(gbps.len() - 1);
    bytes
        .iter()
        .zip(rates)
        .filter(|(_, g)| **g / copy[0] >= fraction)
        .map(|(b, _)| *b)
        .min_by(f64::total_cmp)
}

/// Each headline fraction's outcome and evidence: the loaded prediction over the need (the
/// fewest of `bytes` among the rows reaching the fraction; `figures` are the rows' GB/s, in the
/// same order), on the need's bootstrap interval. `below_grid`, where given, is the fewest bytes
/// any row holds: a need whose interval reaches it only bounds the true one from above (no row
/// of fewer bytes was run), and is not judged.
fn judge_needs<'a>(
    bytes: &[f64],
    mut figures: Vec<Timed<'a>>,
    copy: &'a CopyReference,
    predictions: &[LoadedPrediction],
    below_grid: Option<f64>,
) -> (Vec<Option<bool>>, Vec<String>) {
    figures.push(Timed::new(copy.gbps, &copy.timing));
    let (lo, hi) = (1.0 - PREDICTION_WITHIN, 1.0 + PREDICTION_WITHIN);
    let mut outcomes = Vec::new();
    let mut parts = Vec::new();
    // Both fractions' needs over the same resamples (one pass: the resampling is the cost); a
    // fraction no row reaches gets its own (failing) pass, so it cannot take the other's away.
    let needs = confidence::statistics(&figures, |v| {
        let [a, b] = HEADLINE_FRACTIONS.map(|f| least_bytes(bytes, v, f));
        Some([a?, b?])
    });
    for (i, fraction) in HEADLINE_FRACTIONS.into_iter().enumerate() {
        let at = percent_with(fraction, 0);
        let need = match &needs {
            Ok(both) => Ok(both[i]),
            Err(_) => confidence::statistic(&figures, |v| least_bytes(bytes, v, fraction)),
        };
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
                let at_floor = below_grid.is_some_and(|least| need.lo <= least);
                outcomes.push(if at_floor {
                    None
                } else {
                    decide(
                        ratio.above(lo) && ratio.below(hi),
                        ratio.below(lo) || ratio.above(hi),
                    )
                });
                parts.push(format!(
                    "{at}: predicted {predicted:.0} B per SM{}, measured need {} B, ratio {}{}",
                    if extrapolated {
                        " (latency extrapolated)"
                    } else {
                        ""
                    },
                    need.show(|x| format!("{x:.0}")),
                    ratio.show(|x| format!("{x:.2}")),
                    if at_floor {
                        ": the grid's fewest bytes already reach it, so the need lies at or \
                         below them (not judged)"
                    } else {
                        ""
                    }
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
    (outcomes, parts)
}

/// For each headline fraction, the loaded prediction over the measured need, on the need's
/// interval (the prediction is fixed); the rule is the verdict's text below.
pub fn loaded_law_predicts(
    rows: &[InflightRow],
    copy: &CopyReference,
    predictions: &[LoadedPrediction],
) -> Verdict {
    let used: Vec<&InflightRow> = usable(rows).collect();
    let figures: Vec<Timed<'_>> = used.iter().map(|r| Timed::new(r.gbps, &r.timing)).collect();
    let bytes: Vec<f64> = used
        .iter()
        .map(|r| r.bytes_in_flight_per_sm as f64)
        .collect();
    let (outcomes, parts) = judge_needs(&bytes, figures, copy, predictions, None);
    let (lo, hi) = (1.0 - PREDICTION_WITHIN, 1.0 + PREDICTION_WITHIN);
    verdict(
        "loaded-littles-law-predicts-need",
        "needed parallelism = latency x throughput, for memory: Little's law with the \
                latency measured under load predicts the bytes in flight per SM a copy needs",
        &format!(
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
        all_of(outcomes),
        parts.join("; "),
    )
}

/// The band of sustained bytes in flight per SM the persistent copies' grid must cover for the
/// law to be judged on it (the 16 to 32 KiB: where the loaded model puts the need).
pub const SUSTAINED_BAND: (f64, f64) = (16.0 * 1024.0, 32.0 * 1024.0);
/// Usable persistent points the band must hold.
pub const SUSTAINED_BAND_POINTS: usize = 3;

/// Little's law on the persistent copies: for each headline fraction, the loaded prediction over
/// the fewest sustained bytes in flight per SM among the persistent copies reaching it; the rule
/// is the verdict's text below.
pub fn sustained_law_predicts(
    rows: &[SustainedRow],
    copy: &CopyReference,
    predictions: &[LoadedPrediction],
) -> Verdict {
    let used: Vec<&SustainedRow> = rows.iter().filter(|r| r.usable()).collect();
    let figures: Vec<Timed<'_>> = used
        .iter()
        .map(|r| Timed::new(r.copy.gbps, &r.copy.timing))
        .collect();
    let bytes: Vec<f64> = used.iter().map(|r| r.sustained_bytes_per_sm()).collect();
    // The grid's points by their nominal bytes (the fill trims a few bytes off each).
    let in_band = used
        .iter()
        .map(|r| r.copy.bytes_in_flight_per_sm as f64)
        .filter(|b| (SUSTAINED_BAND.0..=SUSTAINED_BAND.1).contains(b))
        .count();
    let least = bytes.iter().copied().min_by(f64::total_cmp);
    let (outcomes, mut parts) = judge_needs(&bytes, figures, copy, predictions, least);
    let band = format!(
        "{in_band} usable persistent points between {:.0} and {:.0} KiB per SM",
        SUSTAINED_BAND.0 / 1024.0,
        SUSTAINED_BAND.1 / 1024.0
    );
    let holds = if in_band < SUSTAINED_BAND_POINTS {
        parts.push(format!("{band}: too few to judge"));
        None
    } else {
        parts.push(band);
        all_of(outcomes)
    };
    let (lo, hi) = (1.0 - PREDICTION_WITHIN, 1.0 + PREDICTION_WITHIN);
    verdict(
        "sustained-littles-law-predicts-need",
        "needed parallelism = latency x throughput, for memory, on copies that hold their bytes \
         in flight: the bytes in flight per SM a copy needs for a bandwidth are the per-SM \
         bandwidth x the latency measured under load",
        &format!(
            "for 90% and 95% of the device-to-device copy, the loaded model's bytes in flight per \
             SM (fraction x copy GB/s x L(fraction x copy GB/s) / (2 x SMs), L interpolated on \
             the chase timed under background copies) over the fewest sustained bytes in flight \
             per SM (threads x blocks/SM x bytes per thread x the rounds' mean fill) among the \
             persistent copies (one wave of SMs x blocks/SM, each thread streaming over the \
             whole buffer) reaching the fraction, on the {} bootstrap interval of that need ({} \
             resamples of every persistent copy's and the copy's samples, fixed seed): HOLDS \
             when every ratio lies within {lo:.2} to {hi:.2}, DOES NOT HOLD when one lies wholly \
             outside, NOT JUDGED otherwise, when the grid's fewest bytes already reach the \
             fraction (the need lies below the grid), or when fewer than \
             {SUSTAINED_BAND_POINTS} usable points lie between {:.0} and {:.0} KiB per SM; \
             points whose build spills ({SPILLS_NOTE}) and failed checks are left out",
            percent_with(confidence::LEVEL, 0),
            confidence::RESAMPLES,
            SUSTAINED_BAND.0 / 1024.0,
            SUSTAINED_BAND.1 / 1024.0,
        ),
        holds,
        parts.join("; "),
    )
}

/// Seed 003 counts the warps needed as latency / cycles per instruction (400 / 4 = 100), more
/// than an SM's 64, and concludes that the latency cannot be hidden.
pub const SEED_003_CLAIM: &str = "64 warps cannot hide a 400-cycle memory latency (seed 003: \
it takes latency / cycles per instruction = 100 warps, and an SM holds 64)";
/// "Hidden": a copy at this share of the device-to-device copy or more.
pub const HIDDEN_AT: f64 = 0.90;

/// Every usable row against the copy (the rule is the verdict's text below); the evidence names
/// the row with the fewest warps/SM that hides the latency, and the chase's cycles.
pub fn warps_cannot_hide_latency(
    rows: &[InflightRow],
    copy: &CopyReference,
    chase_cycles: f64,
) -> Verdict {
    let judge = |r: &InflightRow| {
        let iv = ratio((r.gbps, &r.timing), (copy.gbps, &copy.timing));
        let reaches = iv.as_ref().ok().and_then(|iv| iv.exceeds(HIDDEN_AT));
        (reaches, interval_or(&iv, r.fraction_of_copy, percent))
    };
    // Fewest warps first (most bytes in flight among equals); only a row whose median reaches
    // the bound can have its interval above it, so the first such row that does decides, and
    // the intervals of the others are taken only when none does.
    let mut order: Vec<&InflightRow> = usable(rows).collect();
    order.sort_by_key(|r| (r.warps_per_sm, std::cmp::Reverse(r.bytes_in_flight_per_sm)));
    let hidden = order
        .iter()
        .filter(|r| r.fraction_of_copy >= HIDDEN_AT)
        .find_map(|r| match judge(r) {
            (Some(true), text) => Some((*r, text)),
            _ => None,
        });
    let judged: Vec<(&InflightRow, (Option<bool>, String))> = match hidden {
        Some(_) => Vec::new(),
        None => order.iter().map(|r| (*r, judge(r))).collect(),
    };
    let best = judged
        .iter()
        .max_by(|a, b| a.0.fraction_of_copy.total_cmp(&b.0.fraction_of_copy));
    let holds = match hidden {
        Some(_) => Some(false),
        None => (!order.is_empty()
            && judged
                .iter()
                .all(|(_, (reaches, _))| *reaches == Some(false)))
        .then_some(true),
    };
    let latency = format!("the chase measured {chase_cycles:.0} cycles per DRAM load");
    let evidence = match (&hidden, best) {
        (Some((r, text)), _) => format!(
            "{} at {} blocks/SM hides it with {} warps/SM ({} B in flight per SM, {} \
             occupancy): {text} of the copy; {latency}; what hides it is bytes in flight, not \
             warps: {}",
            r.entry,
            r.blocks_per_sm,
            r.warps_per_sm,
            r.bytes_in_flight_per_sm,
            percent(r.occupancy),
            outstanding(&r.point.shape)
        ),
        (None, Some((r, (_, text)))) => format!(
            "no row reaches {} of the copy on its interval; the best, {} at {} warps/SM: \
             {text}; {latency}",
            percent(HIDDEN_AT),
            r.entry,
            r.warps_per_sm
        ),
        (None, None) => "no usable row".into(),
    };
    verdict(
        "warps-cannot-hide-memory-latency",
        SEED_003_CLAIM,
        &format!(
            "each usable row (all hold 64 warps/SM or fewer) against the device-to-device copy, \
             on the {} bootstrap interval of its GB/s over the copy's ({} resamples, fixed \
             seed): DOES NOT HOLD when one lies wholly at or above {} (the latency is hidden; \
             the row with the fewest warps/SM named), HOLDS when every one lies wholly below it, \
             NOT JUDGED otherwise; points whose build spills ({SPILLS_NOTE}) and failed checks \
             are left out",
            percent_with(confidence::LEVEL, 0),
            confidence::RESAMPLES,
            percent(HIDDEN_AT)
        ),
        holds,
        evidence,
    )
}

/// What keeps a row's bytes in flight, in words: each thread's loads, or each warp's ring in
/// shared memory and what fills it.
fn outstanding(shape: &CopyShape) -> String {
    match shape.ring {
        Some(ring) => format!(
            "each warp keeps a ring of {} stages of {} B in shared memory filled by {}",
            ring.stages,
            ring.stage_bytes,
            if ring.bulk {
                "one bulk copy a stage"
            } else {
                "every lane's 16-byte cp.async"
            }
        ),
        None => format!(
            "each warp keeps {} loads of {} B per thread outstanding",
            shape.loads,
            shape.width * 4
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests::has;
    use crate::experiments::inflight::row::tests::{copy, row, spilling};
    use crate::experiments::inflight::sustained::tests::sustained;
    use crate::experiments::verdict_check::says;
    use kernels_gpu::variants::{SmemPath, MEMCPY_GRID, SMEM_COPY};

    #[test]
    fn what_keeps_the_bytes_in_flight_is_named_for_each_kind_of_copy() {
        let line = |path| SMEM_COPY.iter().find(|l| l.path == path).unwrap();
        let bulk = line(SmemPath::Bulk);
        let text = outstanding(&CopyShape::from(bulk));
        let stages = format!("{} stages of {} B", bulk.stages, bulk.stage_bytes);
        assert!(
            text.contains("one bulk copy a stage") && text.contains(&stages),
            "{text}"
        );
        let text = outstanding(&CopyShape::from(line(SmemPath::CpAsync)));
        has(&text, "cp.async");
        let p = &MEMCPY_GRID[0];
        let want = format!(
            "each warp keeps {} loads of {} B per thread outstanding",
            p.loads,
            p.width * 4
        );
        assert_eq!(outstanding(&CopyShape::from(p)), want);
    }

    /// Loaded predictions of (fraction, bytes), the unloaded figure beside them fixed.
    fn predictions_of(p: &[(f64, Option<f64>)]) -> Vec<LoadedPrediction> {
        p.iter()
            .map(|&(fraction, loaded_bytes)| LoadedPrediction {
                fraction,
                unloaded_bytes: 5000.0,
                loaded_bytes,
                measured_bytes: None,
                extrapolated: false,
            })
            .collect()
    }

    /// The loaded-law verdict over `rows` (by default, 32 KiB per SM reaching 91% and 64 KiB
    /// 96%, less staying below 90%) with loaded predictions of (fraction, bytes).
    fn judged(rows: Option<&[InflightRow]>, p: &[(f64, Option<f64>)]) -> Verdict {
        let default = [
            row(1024, 1, 16, 0.85),
            row(1024, 1, 32, 0.91),
            row(1024, 2, 32, 0.96),
        ];
        let predictions = predictions_of(p);
        loaded_law_predicts(rows.unwrap_or(&default), &copy(), &predictions)
    }

    #[test]
    fn a_prediction_near_the_need_holds_and_the_unloaded_figure_fails() {
        let v = judged(None, &[(0.90, Some(30_000.0)), (0.95, Some(70_000.0))]);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        says(&v, "measured need 32768");
        says(&v, "95% CI");
        let v = judged(None, &[(0.90, Some(5000.0)), (0.95, Some(70_000.0))]);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
    }

    #[test]
    fn a_missing_curve_or_no_row_reaching_the_fraction_is_not_judged() {
        let v = judged(None, &[(0.9, None)]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        // Without a curve the evidence still gives the measured need and its interval.
        let v = judged(None, &[]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        says(
            &v,
            "90%: no loaded-latency curve to predict from; measured need 32768",
        );
        says(&v, "(95% CI");
        let slow = [row(1024, 1, 16, 0.5), row(1024, 2, 16, 0.6)];
        let v = judged(Some(&slow), &[(0.9, Some(30_000.0))]);
        assert_eq!(v.holds, None, "{}", v.evidence);
    }

    #[test]
    fn eight_warps_with_bytes_in_flight_refute_seed_003() {
        let judge = |rows: &[InflightRow]| warps_cannot_hide_latency(rows, &copy(), 665.0);
        // 8 warps/SM (256 threads) x 256 B each reach 96%: hidden, by bytes in flight.
        let v = judge(&[
            row(1024, 2, 4, 0.55),
            row(256, 1, 256, 0.96),
            row(512, 1, 256, 0.97),
        ]);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        let named = "memcpy_t256_l64_w1 at 1 blocks/SM hides it with 8 warps/SM";
        assert!(v.evidence.starts_with(named), "{}", v.evidence);
        says(&v, "665 cycles");
        says(&v, "95% CI");
        assert!(!v.evidence.contains("  "), "{}", v.evidence);
        // Nothing near the copy: the claim holds; a row at the bound on noisy figures is not judged.
        let v = judge(&[row(1024, 2, 4, 0.55)]);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        let v = judge(&[row(1024, 2, 4, 0.90)]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        assert_eq!(judge(&[]).holds, None);
    }

    /// Floats of a copy that every persistent line covers in whole rounds on 132 SMs (fill 1).
    const WHOLE_ROUNDS: u64 = 132 * 256 * 16 * 5040;

    /// The 256-thread persistent line at `loads`, reaching `fraction` of the copy.
    fn streamed(loads: u32, fraction: f64) -> SustainedRow {
        sustained((256, loads, 4), fraction, WHOLE_ROUNDS)
    }

    /// The 256-thread line climbing to the copy: 20 KiB per SM the first to reach 90%, 24 KiB the
    /// first to reach 95%.
    fn climbing() -> Vec<SustainedRow> {
        [
            (2, 0.5),
            (3, 0.7),
            (4, 0.85),
            (5, 0.91),
            (6, 0.96),
            (7, 0.97),
            (8, 0.98),
        ]
        .map(|(loads, fraction)| streamed(loads, fraction))
        .to_vec()
    }

    /// The sustained-law verdict over `rows` with loaded predictions of (fraction, bytes).
    fn judged_sustained(rows: &[SustainedRow], p: &[(f64, Option<f64>)]) -> Verdict {
        let predictions = predictions_of(p);
        sustained_law_predicts(rows, &copy(), &predictions)
    }

    #[test]
    fn the_sustained_law_holds_near_the_need_and_fails_far_from_it() {
        let v = judged_sustained(
            &climbing(),
            &[(0.90, Some(20_000.0)), (0.95, Some(25_000.0))],
        );
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        assert_eq!(v.key, "sustained-littles-law-predicts-need");
        says(&v, "90%: predicted 20000 B per SM, measured need 20480");
        says(&v, "95%: predicted 25000 B per SM, measured need 24576");
        says(
            &v,
            "5 usable persistent points between 16 and 32 KiB per SM",
        );
        // The unloaded model's figure is far below the need: the law as fed does not hold.
        let v = judged_sustained(
            &climbing(),
            &[(0.90, Some(10_000.0)), (0.95, Some(25_000.0))],
        );
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        // So is one far above it.
        let v = judged_sustained(
            &climbing(),
            &[(0.90, Some(20_000.0)), (0.95, Some(40_000.0))],
        );
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
    }

    #[test]
    fn the_sustained_need_is_the_time_average_over_the_rounds() {
        // Half a round more than whole rounds: every line's sustained bytes fall by the fill.
        let floats = 132 * 256 * 4 * 4 * 10 + 132 * 256 * 4 * 2;
        let rows: Vec<SustainedRow> = [(3, 0.7), (4, 0.85), (5, 0.91), (6, 0.96), (7, 0.97)]
            .map(|(loads, fraction)| sustained((256, loads, 4), fraction, floats))
            .to_vec();
        let fill = rows[2].fill;
        assert!(fill < 1.0);
        let need = 20_480.0 * fill;
        let v = judged_sustained(&rows, &[(0.90, Some(need)), (0.95, Some(24_576.0))]);
        says(&v, &format!("measured need {need:.0}"));
    }

    #[test]
    fn a_need_at_the_grids_floor_too_few_points_or_no_curve_is_not_judged() {
        // The grid's fewest bytes (20 KiB) already reach 90%: the need may lie below the grid.
        let floor: Vec<SustainedRow> = climbing().into_iter().skip(3).collect();
        let v = judged_sustained(&floor, &[(0.90, Some(20_000.0)), (0.95, Some(25_000.0))]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        says(&v, "the grid's fewest bytes already reach it");
        // Two points in the band are too few, whatever the ratios.
        let sparse = [
            streamed(2, 0.5),
            streamed(4, 0.85),
            streamed(5, 0.91),
            streamed(16, 0.99),
        ];
        let v = judged_sustained(&sparse, &[(0.90, Some(20_000.0)), (0.95, Some(60_000.0))]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        says(
            &v,
            "2 usable persistent points between 16 and 32 KiB per SM: too few to judge",
        );
        // No curve; and a failed copy or a spilling build is no evidence.
        let v = judged_sustained(&climbing(), &[]);
        assert_eq!(v.holds, None, "{}", v.evidence);
        let mut rows = climbing();
        rows[3].copy.measured.check.passed = false;
        rows[4].copy = spilling(rows[4].copy.clone(), 8, 8);
        let v = judged_sustained(&rows, &[(0.90, Some(20_000.0)), (0.95, Some(25_000.0))]);
        says(&v, "90%: predicted 20000 B per SM, measured need 28672");
        says(&v, "3 usable persistent points");
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        assert_eq!(judged_sustained(&[], &[(0.9, Some(1.0))]).holds, None);
    }
}
