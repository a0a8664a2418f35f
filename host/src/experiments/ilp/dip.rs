//! The scheduler model of the dip below 8 warps per SM. An SM of sm_70 and later issues from
//! [`SCHEDULERS_PER_SM`] schedulers, each with its own FP32 lanes, and places a block's warps on
//! them in turn; a launch ends when its busiest scheduler is done. With `w` warps per SM that
//! one holds `ceil(w / 4)` warps, exactly as at `4 ceil(w / 4)` warps, so the SM runs at
//! `w / (4 ceil(w / 4))` of the rate it has there: 5/8, 6/8 and 7/8 of the 8-warp rate at 5, 6
//! and 7 warps, whatever the kernel. The model scales the measured rate of the same kernel at
//! the next multiple of four, so it predicts the dip and nothing else.

use super::row::IlpRow;

/// Warp schedulers (SM sub-partitions) per SM on every architecture the lab runs on (sm_80+).
pub const SCHEDULERS_PER_SM: u32 = 4;

/// Warps the busiest scheduler holds with `warps` warps per SM.
pub fn busiest(warps: u32) -> u32 {
    warps.div_ceil(SCHEDULERS_PER_SM)
}

/// Warps per SM that load every scheduler as the busiest one is loaded at `warps`.
pub fn balanced(warps: u32) -> u32 {
    busiest(warps).saturating_mul(SCHEDULERS_PER_SM)
}

/// The model's fraction of the rate at [`balanced`]`(warps)`: `w / (4 ceil(w / 4))`.
pub fn fraction_of_balanced(warps: u32) -> f64 {
    f64::from(warps) / f64::from(balanced(warps).max(1))
}

/// The model's % of peak for each row (same order): its fraction of the balanced point's rate
/// times that point's measured % of peak (the checked row of the same entry there). None where
/// the warps already balance the schedulers or that point was not measured.
pub fn predicted(rows: &[IlpRow]) -> Vec<Option<f64>> {
    rows.iter()
        .map(|r| {
            let full = balanced(r.point.warps_per_sm);
            if full == r.point.warps_per_sm {
                return None;
            }
            rows.iter()
                .find(|o| {
                    o.point.entry == r.point.entry
                        && o.point.warps_per_sm == full
                        && o.measured.checked()
                })
                .map(|o| o.fraction_of_peak * fraction_of_balanced(r.point.warps_per_sm))
        })
        .collect()
}

/// Fills every row's `scheduler_model`.
pub fn fill(rows: &mut [IlpRow]) {
    let predictions = predicted(rows);
    for (r, p) in rows.iter_mut().zip(predictions) {
        r.scheduler_model = p;
    }
}

/// The model against the measurement: mean and worst ratio of measured to predicted over the
/// checked rows it predicts, and how many; None without such rows.
pub fn fit(rows: &[IlpRow]) -> Option<(f64, f64, usize)> {
    let ratios: Vec<f64> = rows
        .iter()
        .filter(|r| r.measured.checked())
        .filter_map(|r| r.scheduler_model.map(|p| r.fraction_of_peak / p))
        .collect();
    if ratios.is_empty() {
        return None;
    }
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    let worst = ratios
        .iter()
        .copied()
        .max_by(|a, b| (a - 1.0).abs().total_cmp(&(b - 1.0).abs()))
        .unwrap_or(1.0);
    Some((mean, worst, ratios.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp::row::tests::row;

    #[test]
    fn the_busiest_scheduler_sets_the_fraction() {
        assert_eq!(
            (1..=9).map(busiest).collect::<Vec<_>>(),
            [1, 1, 1, 1, 2, 2, 2, 2, 3]
        );
        assert_eq!(fraction_of_balanced(5), 5.0 / 8.0);
        assert_eq!(fraction_of_balanced(6), 6.0 / 8.0);
        assert_eq!(fraction_of_balanced(7), 7.0 / 8.0);
        assert_eq!(fraction_of_balanced(8), 1.0);
        assert_eq!(fraction_of_balanced(64), 1.0);
        assert_eq!(fraction_of_balanced(3), 3.0 / 4.0);
    }

    #[test]
    fn the_model_scales_the_same_kernels_balanced_point() {
        // (ILP, warps/SM, fraction of the peak)
        let points = [
            (4, 5, 0.60),
            (4, 8, 0.96),
            (2, 5, 0.41),
            (2, 8, 0.66),
            (2, 6, 0.5),
            (1, 7, 0.3),
        ];
        let mut rows: Vec<IlpRow> = points.iter().map(|&(i, w, f)| row(i, w, f)).collect();
        fill(&mut rows);
        let p: Vec<Option<f64>> = rows.iter().map(|r| r.scheduler_model).collect();
        assert!((p[0].unwrap() - 0.96 * 5.0 / 8.0).abs() < 1e-12);
        assert_eq!(p[1], None, "8 warps balance the schedulers");
        assert!((p[2].unwrap() - 0.66 * 5.0 / 8.0).abs() < 1e-12);
        assert!((p[4].unwrap() - 0.66 * 6.0 / 8.0).abs() < 1e-12);
        assert_eq!(p[5], None, "ILP 1 was not measured at 8 warps");
        let (mean, worst, n) = fit(&rows).unwrap();
        assert_eq!(n, 3);
        assert!((worst - 0.5 / (0.66 * 0.75)).abs() < 1e-12, "{worst}");
        assert!(mean > 0.99 && mean < 1.02, "{mean}");
        // A failed check at the balanced point predicts nothing.
        let mut bad = vec![row(4, 5, 0.6), row(4, 8, 0.96)];
        bad[1].measured.check.passed = false;
        assert_eq!(predicted(&bad), [None, None]);
        assert_eq!(fit(&bad), None);
    }
}
