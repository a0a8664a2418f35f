//! The `ilp` experiment's plot: % of the FP32 peak over resident warps per SM, one series per ILP,
//! with the 90% line of Volkov's table. Drawn by the report's one drawer from this data.

use std::collections::BTreeMap;

use super::row::{IlpRow, VOLKOV_FRACTION};
use super::spec::Spec;
use crate::experiments::contract::Registered;
use crate::experiments::ilp_sweep::{at_warps, over_warps, series_by_ilp};
use crate::figure::{LabelledPoint, ReferenceLine, ScatterPlot};
use crate::table::percent_with;

/// % of peak over warps/SM (log x: the warps double along the sweep), one series per ILP in
/// ascending order, points in ascending warps; an ILP whose rows all failed keeps its (empty)
/// series.
pub fn percent_of_peak(rows: &[IlpRow]) -> ScatterPlot {
    let ffma = || rows.iter().filter(|r| r.is_ffma());
    let mut by_ilp: BTreeMap<u32, Vec<LabelledPoint>> =
        ffma().map(|r| (r.point.ilp, Vec::new())).collect();
    for r in ffma().filter(|r| r.measured.checked()) {
        by_ilp
            .entry(r.point.ilp)
            .or_default()
            .push(at_warps(r.point.warps_per_sm, r.fraction_of_peak * 100.0));
    }
    over_warps(
        format!(
            "Experiment {}: FP32 throughput vs warps per SM and ILP",
            Spec::NUMBER
        ),
        "% of FP32 peak at the measured clock",
        series_by_ilp(by_ilp),
        vec![ReferenceLine {
            label: percent_with(VOLKOV_FRACTION, 0),
            y: VOLKOV_FRACTION * 100.0,
            series: None,
        }],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp::row::tests::{row, saturating};

    #[test]
    fn percent_per_ilp_keeping_an_ilp_whose_rows_all_failed() {
        let mut failed = row(4, 2, 0.99);
        failed.measured.check.passed = false;
        let rows = [
            row(1, 64, saturating(1, 64, 32)),
            row(1, 8, saturating(1, 8, 32)),
            failed,
        ];
        let p = percent_of_peak(&rows);
        let names: Vec<&str> = p.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ILP 1", "ILP 4"]);
        assert!(p.series[1].points.is_empty(), "the failed row left out");
        let ys: Vec<f64> = p.series[0].points.iter().map(|q| q.y).collect();
        assert!((ys[0] - 25.0).abs() < 1e-9, "8 of 32: 25%, first in warps");
        assert_eq!(p.references.len(), 1, "Volkov's line");
    }
}
