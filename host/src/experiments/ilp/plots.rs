//! The `ilp` experiment's plot: % of the FP32 peak over resident warps per SM, one series per ILP,
//! with the 90% line of Volkov's table. Drawn by the report's one drawer from this data.

use super::row::{IlpRow, VOLKOV_FRACTION};
use super::Spec;
use crate::experiments::contract::Registered;
use crate::figure::{LabelledPoint, ReferenceLine, ScatterPlot, Series, XScale};
use crate::table::percent_with;

/// % of peak over warps/SM (log x: the warps double along the sweep), one series per ILP in
/// ascending order, points in ascending warps.
pub fn percent_of_peak(rows: &[IlpRow]) -> ScatterPlot {
    let mut ilps: Vec<u32> = rows.iter().filter(|r| r.is_ffma()).map(|r| r.ilp).collect();
    ilps.sort_unstable();
    ilps.dedup();
    let series = ilps
        .iter()
        .map(|&ilp| {
            let mut points: Vec<LabelledPoint> = rows
                .iter()
                .filter(|r| r.is_ffma() && r.ilp == ilp && r.measured.checked())
                .map(|r| LabelledPoint {
                    x: f64::from(r.warps_per_sm),
                    y: r.fraction_of_peak * 100.0,
                    label: None,
                })
                .collect();
            points.sort_by(|a, b| a.x.total_cmp(&b.x));
            Series {
                name: format!("ILP {ilp}"),
                points,
                line: true,
                markers: true,
            }
        })
        .collect();
    ScatterPlot {
        title: format!(
            "Experiment {}: FP32 throughput vs warps per SM and ILP",
            Spec::NUMBER
        ),
        x_label: "resident warps per SM".into(),
        y_label: "% of FP32 peak at the measured clock".into(),
        x_scale: XScale::Log,
        x_unit_suffix: String::new(),
        series,
        references: vec![ReferenceLine {
            label: percent_with(VOLKOV_FRACTION, 0),
            y: VOLKOV_FRACTION * 100.0,
            series: None,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp::row::tests::{row, saturating};

    #[test]
    fn one_series_per_ilp_in_warps_order() {
        let mut rows = Vec::new();
        for warps in [64, 1, 8] {
            for ilp in [4, 1] {
                rows.push(row(ilp, warps, saturating(ilp, warps, 32)));
            }
        }
        let mut wrong = row(4, 2, 0.99);
        wrong.measured.check.passed = false;
        rows.push(wrong);
        let p = percent_of_peak(&rows);
        let names: Vec<&str> = p.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ILP 1", "ILP 4"]);
        let xs: Vec<f64> = p.series[1].points.iter().map(|q| q.x).collect();
        assert_eq!(xs, [1.0, 8.0, 64.0], "sorted, the failed row left out");
        assert!(
            (p.series[0].points[1].y - 25.0).abs() < 1e-9,
            "8 of 32: 25%"
        );
    }
}
