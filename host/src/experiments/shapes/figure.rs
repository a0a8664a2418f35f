//! The sweep's figure: each shape's Ours/cuBLAS against how many waves its chosen line runs, so
//! that what the claim argues (below one wave the kernels trade occupancy for tiles; above it
//! they meet) reads off one plot. A series per family (and run, when several share the plot),
//! each point named by its shape; parity and issue 32's BF16 bar as lines.

use super::list::name;
use super::row::{Family, ShapeRow, ShapesRun};
use crate::figure::{
    finish_labels, LabelledPoint, Labels, ReferenceLine, ScatterPlot, Series, XScale,
};

/// Issue 32's bar for every BF16 shape whose cuBLAS call takes 20 µs or more (FP32's, 0.95, is
/// for a subset of the shapes): a ratio drawn beside parity.
const BAR: f64 = 0.90;

/// A point's label: "4096³" for a cube, the shape's name otherwise.
fn short_name(r: &ShapeRow) -> String {
    let d = r.dims;
    if d.is_square() {
        format!("{d}³")
    } else {
        name(d)
    }
}

/// The point of a row that has both a ratio and a schedule: x the waves its line runs (work units
/// over the slots that run them; tiles per block for a persistent grid), y Ours/cuBLAS.
fn point(r: &ShapeRow) -> Option<LabelledPoint> {
    let waves = r.figures.waves()?.waves();
    let ratio = r.vs_cublas?;
    (waves > 0.0 && ratio.is_finite()).then(|| LabelledPoint {
        label: Some(short_name(r)),
        ..LabelledPoint::at(waves, ratio)
    })
}

/// The figure over `runs` (each its series name and output); none when no row has a point.
pub fn figure(number: u8, runs: &[(&str, &ShapesRun)]) -> Option<ScatterPlot> {
    let mut series = Vec::new();
    for (run, output) in runs {
        for family in [Family::Fp32, Family::Bf16] {
            let points: Vec<_> = (output.rows.iter())
                .filter(|r| r.family == family)
                .filter_map(point)
                .collect();
            if points.is_empty() {
                continue;
            }
            let name = match runs.len() {
                1 => family.name().to_owned(),
                _ => format!("{} · {run}", family.name()),
            };
            series.push(Series::markers(name, points));
        }
    }
    if series.is_empty() {
        return None;
    }
    finish_labels(&mut series, |s| &mut s.points);
    let line = |label: &str, y| ReferenceLine {
        label: label.to_owned(),
        y,
        series: None,
    };
    Some(ScatterPlot {
        labels: Labels::new(
            format!("Experiment {number}: the chosen line over cuBLAS, by waves"),
            "waves of the chosen line (tiles per block for a persistent grid; log scale)",
            "Ours/cuBLAS (median time)",
        ),
        x_scale: XScale::Log,
        x_unit_suffix: String::new(),
        series,
        references: vec![line("parity", 1.0), line("BF16 bar (issue 32)", BAR)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::experiments::shapes::row_fixture;
    use crate::results::GemmDims;

    /// A row of `family` at `dims`, Ours/cuBLAS `vs` (none: cuBLAS not timed), `tiles` blocks of
    /// one tile at one block per SM.
    fn row(family: Family, dims: (u32, u32, u32), vs: Option<f64>, tiles: u64) -> ShapeRow {
        let (m, n, k) = dims;
        let mut r = row_fixture::row(family, GemmDims { m, n, k }, 1.0, 0.1, (tiles, 0.1875));
        r.vs_cublas = vs;
        r
    }

    #[test]
    fn a_point_per_timed_row_at_its_waves_a_series_per_family() {
        let run = ShapesRun {
            rows: vec![
                row(Family::Fp32, (4096, 4096, 4096), Some(1.01), 512),
                row(Family::Bf16, (4096, 4096, 4096), Some(0.98), 264),
                row(Family::Bf16, (16, 4096, 4096), Some(1.23), 66),
                // cuBLAS not timed: no ratio, no point.
                row(Family::Bf16, (1, 4096, 4096), None, 64),
            ],
            misses: Vec::new(),
            samples: None,
        };
        let plot = figure(9, &[("H200", &run)]).expect("rows with ratios");
        let names: Vec<&str> = plot.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["FP32", "BF16"]);
        let bf16 = &plot.series[1].points;
        assert_eq!(bf16.len(), 2, "the row without cuBLAS has no point");
        assert!((bf16[0].x - 2.0).abs() < 1e-12 && bf16[0].y == 0.98);
        assert_eq!(bf16[0].label.as_deref(), Some("4096³"));
        assert!((bf16[1].x - 0.5).abs() < 1e-12);
        assert_eq!(bf16[1].label.as_deref(), Some("16x4096x4096"));
        assert!((plot.series[0].points[0].x - 512.0 / 132.0).abs() < 1e-12);
        let ys: Vec<f64> = plot.references.iter().map(|r| r.y).collect();
        assert_eq!(ys, [1.0, BAR]);
        assert_eq!(plot.x_scale, XScale::Log);
    }

    #[test]
    fn several_runs_name_their_series_and_a_run_without_ratios_draws_nothing() {
        let run = ShapesRun {
            rows: vec![row(Family::Bf16, (8192, 8192, 8192), Some(1.03), 528)],
            misses: Vec::new(),
            samples: None,
        };
        let plot = figure(9, &[("a", &run), ("b", &run)]).unwrap();
        let names: Vec<&str> = plot.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["BF16 · a", "BF16 · b"]);
        let untimed = ShapesRun {
            rows: vec![row(Family::Fp32, (512, 512, 512), None, 32)],
            misses: Vec::new(),
            samples: None,
        };
        assert!(figure(9, &[("H200", &untimed)]).is_none());
    }
}
