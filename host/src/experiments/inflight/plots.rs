//! The `inflight` experiment's plots, as data for the report's one drawer: a heatmap of % of the
//! copy over (warps/SM, bytes/thread); GB/s against bytes in flight per SM on a log axis, one
//! series per width, with the model's curve; measured against predicted GB/s; latency against
//! bandwidth, the rows' effective latency beside the chase under load.

use super::model::LittlesLaw;
use super::output::Inflight;
use super::row::{usable, InflightRow};
use super::spec::Spec;
use crate::experiments::contract::Registered;
use crate::figure::{
    Figure, Heatmap, LabelledPoint, Labels, ReferenceLine, ScatterPlot, Series, XScale,
};

/// The heatmap figure: warps/SM across, bytes/thread up; in each cell the best % of the copy
/// among the usable rows there (checked, and not spilling; widths and block sizes with the same
/// bytes per thread share a cell).
pub fn heatmap(rows: &[InflightRow], title: &str) -> Heatmap {
    let used: Vec<&InflightRow> = usable(rows).collect();
    let axis = |value: fn(&InflightRow) -> u32| {
        let mut v: Vec<u32> = used.iter().map(|r| value(r)).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (warps, bytes) = (axis(|r| r.warps_per_sm), axis(|r| r.bytes_per_thread));
    let cell = |w: u32, b: u32| {
        used.iter()
            .filter(|r| (r.warps_per_sm, r.bytes_per_thread) == (w, b))
            .map(|r| r.fraction_of_copy * 100.0)
            .reduce(f64::max)
    };
    Heatmap {
        labels: Labels::new(
            title.to_owned(),
            "resident warps per SM",
            "bytes per thread in flight",
        ),
        x_ticks: warps.iter().map(u32::to_string).collect(),
        y_ticks: bytes.iter().map(u32::to_string).collect(),
        cells: bytes
            .iter()
            .map(|&b| warps.iter().map(|&w| cell(w, b)).collect())
            .collect(),
        scale_max: Some(100.0),
        decimals: 0,
    }
}

/// GB/s against bytes in flight per SM (log x), one series per width, with the model's curve
/// and the copy as a reference line.
pub fn gbps_vs_bytes_in_flight(rows: &[InflightRow], model: &LittlesLaw) -> ScatterPlot {
    let mut series = per_width(rows, |r| r.bytes_in_flight_per_sm as f64);
    let xs: Vec<f64> = rows
        .iter()
        .filter(|r| r.usable())
        .map(|r| r.bytes_in_flight_per_sm as f64)
        .collect();
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min).max(1.0);
    let hi = xs.iter().copied().fold(0.0, f64::max).max(lo * 2.0);
    series.push(Series::line("Little's law", model_curve(model, lo, hi, 64)));
    ScatterPlot {
        labels: Labels::new(
            "Copy bandwidth vs bytes in flight",
            "bytes of loads in flight per SM",
            "GB/s (read + write)",
        ),
        x_scale: XScale::Log,
        x_unit_suffix: String::new(),
        series,
        references: vec![ReferenceLine {
            label: format!("D2D copy {:.0} GB/s", model.peak_gbps),
            y: model.peak_gbps,
            series: None,
        }],
    }
}

/// Where a row's bytes in flight live, as its series: registers by access width, or one of the
/// two shared-memory rings (ordered for the legend, named).
fn series_of(r: &InflightRow) -> (u32, u32, String) {
    match r.point.shape.ring {
        None => (
            0,
            r.point.shape.width,
            format!("{} B per access", 4 * u64::from(r.point.shape.width)),
        ),
        Some(ring) if !ring.bulk => (1, 0, "cp.async ring in shared memory".to_owned()),
        Some(_) => (2, 0, "bulk-copy ring in shared memory".to_owned()),
    }
}

/// One series of measured GB/s per access width (and one per shared-memory ring) over the usable
/// rows (checked, and not spilling: a spilling point's bytes in flight are not what it claims),
/// at `x(row)`.
fn per_width(rows: &[InflightRow], x: impl Fn(&InflightRow) -> f64) -> Vec<Series> {
    let mut kinds: Vec<(u32, u32, String)> = rows.iter().map(series_of).collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
        .into_iter()
        .map(|kind| {
            let points: Vec<LabelledPoint> = rows
                .iter()
                .filter(|r| r.usable() && series_of(r) == kind)
                .map(|r| LabelledPoint::at(x(r), r.gbps))
                .collect();
            Series::markers(kind.2, points)
        })
        .collect()
}

/// `n` points of the model's prediction, evenly spaced in log from `lo` to `hi`.
pub fn model_curve(model: &LittlesLaw, lo: f64, hi: f64, n: usize) -> Vec<LabelledPoint> {
    let n = n.max(2);
    (0..n)
        .map(|i| {
            let x = lo * (hi / lo).powf(i as f64 / (n - 1) as f64);
            LabelledPoint::at(x, model.predicted_gbps(x))
        })
        .collect()
}

/// Measured against predicted GB/s, one series per width, with the line measured = predicted.
pub fn measured_vs_predicted(rows: &[InflightRow]) -> ScatterPlot {
    let mut series = per_width(rows, |r| r.predicted_gbps);
    let top = rows
        .iter()
        .flat_map(|r| [r.gbps, r.predicted_gbps])
        .fold(0.0, f64::max);
    let diagonal = [0.0, top].map(|v| LabelledPoint::at(v, v));
    series.push(Series::line("measured = predicted", diagonal.to_vec()));
    ScatterPlot {
        labels: Labels::new(
            "Measured vs Little's law",
            "predicted GB/s",
            "measured GB/s",
        ),
        x_scale: XScale::Linear,
        x_unit_suffix: String::new(),
        series,
        references: vec![],
    }
}

/// Latency against bandwidth: each usable row's effective latency (Little's law solved with its
/// own figures) at its GB/s, the chase timed under background copies at theirs, and the unloaded
/// chase as a reference line. Where the two series meet, the rows' latency is the memory
/// system's under that load.
pub fn latency_vs_bandwidth(result: &Inflight) -> ScatterPlot {
    let model = &result.model;
    let rows = unlabelled(usable(&result.rows).filter_map(|r| {
        let ns = model.effective_latency_ns(r.bytes_in_flight_per_sm as f64, r.gbps)?;
        Some((r.gbps, ns))
    }));
    let chase = unlabelled(
        result
            .loaded
            .points
            .iter()
            .filter(|p| p.check.passed && p.covered)
            .map(|p| (p.background_gbps, p.ns_per_hop)),
    );
    ScatterPlot {
        labels: Labels::new("Latency under load", "GB/s (read + write)", "ns per load"),
        x_scale: XScale::Linear,
        x_unit_suffix: String::new(),
        series: vec![
            Series::markers("rows: 2 x SMs x bytes in flight / GB/s", rows),
            Series::joined("chase beside a background copy", chase),
        ],
        references: vec![ReferenceLine {
            label: format!("unloaded chase {:.0} ns", model.latency_ns),
            y: model.latency_ns,
            series: None,
        }],
    }
}

fn unlabelled(xy: impl Iterator<Item = (f64, f64)>) -> Vec<LabelledPoint> {
    xy.map(|(x, y)| LabelledPoint::at(x, y)).collect()
}

/// The stems of the plots beside the heatmap (`inflight`): bandwidth vs bytes in flight,
/// measured vs predicted, latency vs bandwidth.
pub const MORE_STEMS: [&str; 3] = ["inflight_bytes", "inflight_model", "inflight_latency"];

/// The plots of one run (`inflight`, then [`MORE_STEMS`]); a merged report of several runs
/// plots the first run that has the experiment (the axes are per device).
pub fn figures(name: &str, result: &Inflight) -> Vec<(String, Figure)> {
    if result.rows.is_empty() {
        return Vec::new();
    }
    let [bytes, model, latency] = MORE_STEMS.map(str::to_owned);
    vec![
        (
            Spec::NAME.to_owned(),
            Figure::Heatmap(heatmap(
                &result.rows,
                &format!(
                    "Experiment {}: % of the device-to-device copy ({name})",
                    Spec::NUMBER
                ),
            )),
        ),
        (
            bytes,
            Figure::Scatter(gbps_vs_bytes_in_flight(&result.rows, &result.model)),
        ),
        (model, Figure::Scatter(measured_vs_predicted(&result.rows))),
        (latency, Figure::Scatter(latency_vs_bandwidth(result))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::inflight::grid::SmemRing;
    use crate::experiments::inflight::loaded::{tests::point, LoadedLatency};
    use crate::experiments::inflight::model::tests::GPU;
    use crate::experiments::inflight::row::tests::{row, synthetic};

    /// `r` with accesses of `width` floats.
    fn wide(mut r: InflightRow, width: u32) -> InflightRow {
        r.point.shape.width = width;
        r
    }

    fn rows() -> Vec<InflightRow> {
        let w = wide(row(32, 1, 16, 0.30), 4);
        vec![
            row(32, 1, 16, 0.20),
            w,
            row(256, 1, 64, 0.96),
            row(1024, 2, 4, 0.55),
        ]
    }

    #[test]
    fn cells_take_the_best_row_of_their_warps_and_bytes() {
        let h = heatmap(&rows(), "t");
        assert_eq!(h.x_ticks, ["1", "8", "64"]);
        assert_eq!(h.y_ticks, ["4", "16", "64"]);
        assert_eq!(h.cells.iter().flatten().flatten().count(), 3);
        assert_eq!(
            h.cells[1][0],
            Some(30.0),
            "16 B at 1 warp: the wider access"
        );
        assert_eq!(h.cells[2][1], Some(96.0));
        assert_eq!(h.cells[0][0], None);
    }

    #[test]
    fn shared_memory_rings_are_series_of_their_own() {
        let mut rows = rows();
        for bulk in [false, true] {
            let mut r = wide(row(32, 1, 2048, 0.9), 4);
            r.point.shape.ring = Some(SmemRing {
                stage_bytes: 4096,
                stages: 16,
                bulk,
            });
            rows.push(r);
        }
        let names: Vec<String> = per_width(&rows, |r| r.bytes_in_flight_per_sm as f64)
            .into_iter()
            .map(|s| format!("{} ({})", s.name, s.points.len()))
            .collect();
        let want = [
            "4 B per access (3)",
            "16 B per access (1)",
            "cp.async ring in shared memory (1)",
            "bulk-copy ring in shared memory (1)",
        ];
        assert_eq!(names, want);
    }

    #[test]
    fn one_series_per_width_plus_the_model() {
        let p = gbps_vs_bytes_in_flight(&rows(), &GPU);
        let names: Vec<&str> = p.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["4 B per access", "16 B per access", "Little's law"]);
        assert_eq!(p.series[0].points.len(), 3);
        let curve = &p.series[2].points;
        assert!(curve.windows(2).all(|w| w[1].y >= w[0].y), "non-decreasing");
        assert_eq!(curve.last().unwrap().y, 4000.0, "ends on the ceiling");
        assert_eq!(p.x_scale, XScale::Log);
        let diagonal = measured_vs_predicted(&rows()).series.pop().unwrap();
        assert_eq!(diagonal.points[1].x, diagonal.points[1].y);
    }

    #[test]
    fn latency_pairs_the_rows_with_the_chase_under_load() {
        let mut result = synthetic(rows(), GPU);
        let mut outlasted = point(3500.0, 9.0);
        outlasted.covered = false;
        let points = vec![point(0.0, 500.0), point(3000.0, 1500.0), outlasted];
        result.loaded = LoadedLatency::new(points);
        let p = latency_vs_bandwidth(&result);
        // Every row is usable; 256 threads x 64 B at 96% of 4000 GB/s with 100 SMs:
        // 2 x 100 x 16384 / 3840 = 853 ns.
        assert_eq!(p.series[0].points.len(), 4);
        let r = &p.series[0].points[2];
        assert!((r.x - 3840.0).abs() < 1e-9 && (r.y - 2.0 * 100.0 * 16384.0 / 3840.0).abs() < 1e-9);
        // The chase that outlasted its copies is not drawn.
        let xs: Vec<f64> = p.series[1].points.iter().map(|q| q.x).collect();
        assert_eq!(xs, [0.0, 3000.0]);
        assert_eq!(p.references[0].y, result.model.latency_ns);
    }
}
