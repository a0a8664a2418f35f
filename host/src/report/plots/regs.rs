//! The register-cap plot: GFLOP/s per cap as labelled lines, spill bytes as bars on a second
//! axis.

use std::path::Path;

use plotters::prelude::*;

use super::labels::{draw_legend, draw_point_labels, LegendMark, Placer, Rect};
use super::points::draw_points;
use super::style::{
    colour, font, headroom, house_style, min_max, plot_error, AXIS_DESC_SIZE, HEIGHT, TEXT_SIZE,
    TITLE_SIZE, WIDTH,
};
use crate::figure::{tick, RegsSeries};
use crate::report::error::ReportError;

/// Draws the `regs` experiment: register cap (x) vs GFLOP/s (left axis, lines with labelled points)
/// and spill bytes (right axis, bars), one colour per series.
pub fn regs(title: &str, series: &[RegsSeries], path: &Path) -> Result<(), ReportError> {
    let err = |e: DrawingAreaErrorKind<_>| plot_error(path, e);
    let points = series.iter().flat_map(|s| &s.points);
    let caps: Vec<f64> = points.clone().map(|p| p.x).collect();
    let gflops: Vec<f64> = points.map(|p| p.y).collect();
    let spill_max = series
        .iter()
        .flat_map(|s| s.spills.iter().filter_map(|&(_, b)| b))
        .fold(0.0_f64, f64::max);
    let (cmin, cmax) = min_max(&caps).unwrap_or((0.0, 256.0));
    let x_range = (cmin - 0.06 * (cmax - cmin).max(16.0))..(cmax + 0.06 * (cmax - cmin).max(16.0));
    let room = headroom(2 * series.len());
    let y_max = min_max(&gflops).map(|m| m.1).unwrap_or(1.0).max(1.0) * room;
    let y2_max = if spill_max > 0.0 {
        spill_max * room
    } else {
        1.0
    };

    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, font(TITLE_SIZE))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(84)
        .right_y_label_area_size(84)
        .build_cartesian_2d(x_range.clone(), 0.0..y_max)
        .map_err(err)?
        .set_secondary_coord(x_range.clone(), 0.0..y2_max);
    let fmt = |v: &f64| tick(*v);
    let mut mesh = chart.configure_mesh();
    house_style(&mut mesh)
        .x_desc("Register cap (registers/thread)")
        .y_desc("GFLOP/s (lines)")
        .x_labels(10)
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .draw()
        .map_err(err)?;
    chart
        .configure_secondary_axes()
        .y_desc("Spill bytes, stores + loads (bars)")
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .label_style(font(TEXT_SIZE))
        .y_labels(8)
        .y_label_formatter(&fmt)
        .draw()
        .map_err(err)?;

    // Bars: one group per cap, one bar per series, ~10 pixels each.
    let (px, py) = chart.plotting_area().get_pixel_range();
    let units_per_px = (x_range.end - x_range.start) / (px.end - px.start).max(1) as f64;
    let bar_w = 10.0 * units_per_px;
    let n = series.len().max(1) as f64;
    for (i, s) in series.iter().enumerate() {
        let c = colour(i);
        let offset = (i as f64 - (n - 1.0) / 2.0) * bar_w;
        let bars = s.spills.iter().filter_map(|&(cap, b)| {
            let (x0, b) = (cap + offset - bar_w / 2.0, b?);
            let bar = [(x0, 0.0), (x0 + bar_w * 0.9, b)];
            Some(Rectangle::new(bar, c.mix(0.4).filled()))
        });
        chart.draw_secondary_series(bars).map_err(err)?;
    }

    let bounds: Rect = (px.start, py.start, px.end, py.end);
    let mut placer = Placer::new(bounds);
    for (i, s) in series.iter().enumerate() {
        draw_points(
            &mut chart,
            &mut placer,
            &s.points,
            colour(i),
            true,
            true,
            path,
        )?;
        for (cap, b) in s.spills.iter().filter_map(|&(cap, b)| Some((cap, b?))) {
            let (x, y0) = chart.borrow_secondary().backend_coord(&(cap, 0.0));
            let (_, y1) = chart.borrow_secondary().backend_coord(&(cap, b));
            placer.block((x - 6, y1, x + 6, y0));
        }
    }
    let points = series.iter().map(|s| s.points.as_slice());
    draw_point_labels(&root, &chart, &mut placer, points, path)?;

    let entries: Vec<(String, RGBColor, LegendMark)> = (series.iter().enumerate())
        .flat_map(|(i, s)| {
            [
                ("GFLOP/s", LegendMark::Dot),
                ("spill bytes", LegendMark::Bar),
            ]
            .map(|(what, mark)| (format!("{what}: {}", s.name), colour(i), mark))
        })
        .collect();
    draw_legend(&root, &mut placer, &entries, path)?;
    root.present().map_err(err)
}
