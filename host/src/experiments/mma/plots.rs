//! The tensor-core sweep's plot: TFLOP/s over resident warps per SM, one series per ILP, with the
//! `mma.sync` ceiling and the dense BF16 spec peak drawn. Drawn by the report's one drawer from
//! this data.

use std::collections::BTreeMap;

use super::row::{ceiling, MmaRow};
use super::spec::Spec;
use crate::experiments::contract::Registered;
use crate::experiments::ilp_sweep::{at_warps, over_warps, series_by_ilp};
use crate::figure::{LabelledPoint, ReferenceLine, ScatterPlot};

/// TFLOP/s over warps/SM (log x: the warps double along the sweep), one series per ILP in
/// ascending order, points in ascending warps; failed rows left out (an ILP with none has no
/// series).
pub fn tflops_by_warps(rows: &[MmaRow]) -> ScatterPlot {
    let mut by_ilp: BTreeMap<u32, Vec<LabelledPoint>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.measured.checked()) {
        by_ilp
            .entry(r.point.ilp)
            .or_default()
            .push(at_warps(r.point.warps_per_sm, r.tflops));
    }
    let mut references = Vec::new();
    if let Some(top) = ceiling(rows) {
        references.push(ReferenceLine {
            label: format!("mma.sync ceiling {:.0}", top.tflops),
            y: top.tflops,
            series: None,
        });
        // The spec at the ceiling's clock: the peak the ceiling is a fraction of in the table.
        if let Some(peak) = top.spec_peak_tflops {
            references.push(ReferenceLine {
                label: format!("dense BF16 spec {peak:.0}"),
                y: peak,
                series: None,
            });
        }
    }
    over_warps(
        format!(
            "Experiment {}: tensor-core throughput vs warps per SM and independent MMAs",
            Spec::NUMBER
        ),
        "TFLOP/s (mma.sync m16n8k16 BF16)",
        series_by_ilp(by_ilp),
        references,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests::grid;
    use crate::experiments::mma::row::tests::{row, saturating};
    use crate::experiments::mma::row::with_ceiling;

    #[test]
    fn one_series_per_ilp_in_warps_order_with_the_ceiling_and_spec() {
        let mut rows = grid(&[64, 1, 8], &[4, 1], |warps, ilp| {
            row(ilp, warps, saturating(ilp, warps, 32))
        });
        let mut wrong = row(4, 2, 900.0);
        wrong.measured.check.passed = false;
        rows.push(wrong);
        let p = tflops_by_warps(&with_ceiling(rows));
        let names: Vec<&str> = p.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ILP 1", "ILP 4"]);
        let xs: Vec<f64> = p.series[1].points.iter().map(|q| q.x).collect();
        assert_eq!(xs, [1.0, 8.0, 64.0], "sorted, the failed row left out");
        assert!((p.series[0].points[1].y - 162.5).abs() < 1e-9, "8 of 32");
        let lines: Vec<(&str, f64)> = p
            .references
            .iter()
            .map(|l| (l.label.as_str(), l.y))
            .collect();
        assert_eq!(
            lines,
            [
                ("mma.sync ceiling 650", 650.0),
                ("dense BF16 spec 1000", 1000.0)
            ]
        );
        assert!(tflops_by_warps(&[]).references.is_empty());
    }
}
