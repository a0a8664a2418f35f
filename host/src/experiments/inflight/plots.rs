//! Experiment 4's plots: a heatmap of % of the copy over (warps/SM, bytes/thread); GB/s against
//! bytes in flight per SM on a log axis, one series per width, with the model's curve; measured
//! against predicted GB/s. The two scatter plots are drawn by the report's plotter; the heatmap
//! is drawn here. The data of each plot is built by a pure function, tested without drawing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::model::LittlesLaw;
use super::row::{Inflight, InflightRow};
use crate::report::plots::{
    scatter, LabelledPoint, ReferenceLine, ScatterPlot, Series, XScale, HEIGHT, WIDTH,
};
use crate::report::ReportError;

/// The heatmap's cells: for each (warps/SM, bytes/thread) the best fraction of the copy among
/// the checked rows there (widths and block sizes with the same bytes per thread share a cell).
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    pub warps: Vec<u32>,
    pub bytes: Vec<u32>,
    /// `cells[(w, b)]` = best fraction, by index into `warps` and `bytes`.
    pub cells: BTreeMap<(usize, usize), f64>,
}

pub fn heatmap(rows: &[InflightRow]) -> Heatmap {
    let checked: Vec<&InflightRow> = rows.iter().filter(|r| r.checked()).collect();
    let mut warps: Vec<u32> = checked.iter().map(|r| r.warps_per_sm).collect();
    let mut bytes: Vec<u32> = checked.iter().map(|r| r.bytes_per_thread).collect();
    for v in [&mut warps, &mut bytes] {
        v.sort_unstable();
        v.dedup();
    }
    let mut cells = BTreeMap::new();
    for r in checked {
        let key = (
            warps.binary_search(&r.warps_per_sm).unwrap_or(0),
            bytes.binary_search(&r.bytes_per_thread).unwrap_or(0),
        );
        let cell = cells.entry(key).or_insert(f64::NEG_INFINITY);
        *cell = f64::max(*cell, r.fraction_of_copy);
    }
    Heatmap {
        warps,
        bytes,
        cells,
    }
}

/// White at 0%, dark blue at 100% (and beyond).
fn shade(fraction: f64) -> RGBColor {
    let t = fraction.clamp(0.0, 1.0);
    let mix = |from: f64, to: f64| (from + (to - from) * t).round() as u8;
    RGBColor(mix(255.0, 8.0), mix(255.0, 48.0), mix(255.0, 107.0))
}

/// Draws the heatmap to `path` (SVG), each cell labelled with its percentage.
pub fn draw_heatmap(map: &Heatmap, title: &str, path: &Path) -> Result<(), ReportError> {
    let err = |e: &dyn std::fmt::Display| ReportError::Plot {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (nx, ny) = (map.warps.len().max(1) as i32, map.bytes.len().max(1) as i32);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24.0))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(84)
        .build_cartesian_2d((0..nx).into_segmented(), (0..ny).into_segmented())
        .map_err(|e| err(&e))?;
    let (warps, bytes) = (map.warps.clone(), map.bytes.clone());
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("resident warps per SM")
        .y_desc("bytes per thread")
        .x_labels(nx as usize)
        .y_labels(ny as usize)
        .x_label_formatter(&move |v| cell_label(&warps, v))
        .y_label_formatter(&move |v| cell_label(&bytes, v))
        .draw()
        .map_err(|e| err(&e))?;
    let at = |i: usize| SegmentValue::Exact(i as i32);
    chart
        .draw_series(map.cells.iter().map(|(&(x, y), &f)| {
            Rectangle::new([(at(x), at(y)), (at(x + 1), at(y + 1))], shade(f).filled())
        }))
        .map_err(|e| err(&e))?;
    chart
        .draw_series(map.cells.iter().map(|(&(x, y), &f)| {
            let ink = if f > 0.55 { WHITE } else { BLACK };
            Text::new(
                format!("{:.0}", f * 100.0),
                (
                    SegmentValue::CenterOf(x as i32),
                    SegmentValue::CenterOf(y as i32),
                ),
                ("sans-serif", 13.0)
                    .into_font()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center)),
            )
        }))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

/// The axis label of a cell: the value of the row or column it is the centre of.
fn cell_label(values: &[u32], v: &SegmentValue<i32>) -> String {
    match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => usize::try_from(*i)
            .ok()
            .and_then(|i| values.get(i))
            .map_or(String::new(), u32::to_string),
        SegmentValue::Last => String::new(),
    }
}

/// GB/s against bytes in flight per SM (log x), one series per width, with the model's curve
/// and the copy as a reference line.
pub fn gbps_vs_bytes_in_flight(rows: &[InflightRow], model: &LittlesLaw) -> ScatterPlot {
    let mut widths: Vec<u32> = rows.iter().map(|r| r.point.shape.width).collect();
    widths.sort_unstable();
    widths.dedup();
    let mut series: Vec<Series> = widths
        .iter()
        .map(|&w| Series {
            name: format!("{} B per access", 4 * w),
            points: rows
                .iter()
                .filter(|r| r.checked() && r.point.shape.width == w)
                .map(|r| LabelledPoint {
                    x: r.bytes_in_flight_per_sm as f64,
                    y: r.gbps,
                    label: None,
                })
                .collect(),
            line: false,
            markers: true,
        })
        .collect();
    let xs: Vec<f64> = rows
        .iter()
        .map(|r| r.bytes_in_flight_per_sm as f64)
        .collect();
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min).max(1.0);
    let hi = xs.iter().copied().fold(0.0, f64::max).max(lo * 2.0);
    series.push(Series {
        name: "Little's law".into(),
        points: model_curve(model, lo, hi, 64),
        line: true,
        markers: false,
    });
    ScatterPlot {
        title: "Copy bandwidth vs bytes in flight".into(),
        x_label: "bytes of loads in flight per SM".into(),
        y_label: "GB/s (read + write)".into(),
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

/// `n` points of the model's prediction, evenly spaced in log from `lo` to `hi`.
pub fn model_curve(model: &LittlesLaw, lo: f64, hi: f64, n: usize) -> Vec<LabelledPoint> {
    let n = n.max(2);
    (0..n)
        .map(|i| {
            let x = lo * (hi / lo).powf(i as f64 / (n - 1) as f64);
            LabelledPoint {
                x,
                y: model.predicted_gbps(x),
                label: None,
            }
        })
        .collect()
}

/// Measured against predicted GB/s, one series per width, with the line measured = predicted.
pub fn measured_vs_predicted(rows: &[InflightRow]) -> ScatterPlot {
    let mut widths: Vec<u32> = rows.iter().map(|r| r.point.shape.width).collect();
    widths.sort_unstable();
    widths.dedup();
    let mut series: Vec<Series> = widths
        .iter()
        .map(|&w| Series {
            name: format!("{} B per access", 4 * w),
            points: rows
                .iter()
                .filter(|r| r.checked() && r.point.shape.width == w)
                .map(|r| LabelledPoint {
                    x: r.predicted_gbps,
                    y: r.gbps,
                    label: None,
                })
                .collect(),
            line: false,
            markers: true,
        })
        .collect();
    let top = rows
        .iter()
        .flat_map(|r| [r.gbps, r.predicted_gbps])
        .fold(0.0, f64::max);
    series.push(Series {
        name: "measured = predicted".into(),
        points: [0.0, top]
            .iter()
            .map(|&v| LabelledPoint {
                x: v,
                y: v,
                label: None,
            })
            .collect(),
        line: true,
        markers: false,
    });
    ScatterPlot {
        title: "Measured vs Little's law".into(),
        x_label: "predicted GB/s".into(),
        y_label: "measured GB/s".into(),
        x_scale: XScale::Linear,
        x_unit_suffix: String::new(),
        series,
        references: vec![],
    }
}

/// Writes the three plots into `dir`; returns their paths.
pub fn write_plots(result: &Inflight, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let heat = dir.join("inflight_heatmap.svg");
    draw_heatmap(
        &heatmap(&result.rows),
        "% of the device-to-device copy",
        &heat,
    )?;
    let curve = dir.join("inflight_bytes.svg");
    scatter(
        &gbps_vs_bytes_in_flight(&result.rows, &result.model),
        &curve,
    )?;
    let fit = dir.join("inflight_model.svg");
    scatter(&measured_vs_predicted(&result.rows), &fit)?;
    Ok(vec![heat, curve, fit])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::inflight::row::tests::row;

    fn rows() -> Vec<InflightRow> {
        let mut wide = row(32, 1, 16, 0.30);
        wide.point.shape.width = 4;
        vec![
            row(32, 1, 16, 0.20),
            wide,
            row(256, 1, 64, 0.96),
            row(1024, 2, 4, 0.55),
        ]
    }

    #[test]
    fn cells_take_the_best_row_of_their_warps_and_bytes() {
        let map = heatmap(&rows());
        assert_eq!(map.warps, [1, 8, 64]);
        assert_eq!(map.bytes, [4, 16, 64]);
        assert_eq!(map.cells.len(), 3);
        assert_eq!(
            map.cells[&(0, 1)],
            0.30,
            "the wider access is the better of the cell"
        );
        assert_eq!(map.cells[&(1, 2)], 0.96);
    }

    #[test]
    fn one_series_per_width_plus_the_model() {
        let model = LittlesLaw {
            sms: 100,
            latency_ns: 500.0,
            peak_gbps: 4000.0,
        };
        let p = gbps_vs_bytes_in_flight(&rows(), &model);
        let names: Vec<&str> = p.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["4 B per access", "16 B per access", "Little's law"]);
        assert_eq!(p.series[0].points.len(), 3);
        let curve = &p.series[2].points;
        assert!(curve.windows(2).all(|w| w[1].y >= w[0].y), "non-decreasing");
        assert_eq!(curve.last().unwrap().y, 4000.0, "ends on the ceiling");
        assert_eq!(p.x_scale, XScale::Log);
        let m = measured_vs_predicted(&rows());
        assert_eq!(
            m.series.last().unwrap().points[1].x,
            m.series.last().unwrap().points[1].y
        );
    }

    #[test]
    fn the_heatmap_draws_one_rectangle_per_cell() {
        let dir = std::env::temp_dir().join(format!("inflight-heat-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("heat.svg");
        draw_heatmap(&heatmap(&rows()), "test", &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        for label in ["96", "30", "55"] {
            assert!(texts.contains(&label), "{label} missing from {texts:?}");
        }
        assert!(!texts.contains(&"20"), "a cell shows its best row only");
        for axis in ["1", "8", "64", "4", "16"] {
            assert!(
                texts.contains(&axis),
                "axis label {axis} missing from {texts:?}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
