//! Heatmaps: one coloured, labelled cell per value over two discrete axes.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{
    colour, font, plot_error, AXIS_DESC_SIZE, HEIGHT, TEXT_SIZE, TITLE_SIZE, WIDTH,
};
use crate::figure::Heatmap;
use crate::report::error::ReportError;

/// Colour of a heatmap cell at `t` in 0..=1: from near-white to the first series colour.
fn ramp(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let (r0, g0, b0) = (247.0, 251.0, 255.0);
    let RGBColor(r1, g1, b1) = colour(0);
    let mix = |a: f64, b: u8| (a + (f64::from(b) - a) * t).round() as u8;
    RGBColor(mix(r0, r1), mix(g0, g1), mix(b0, b1))
}

/// The label of the cell whose middle is at `v` on an axis of cells one unit wide (ticks fall
/// on cell edges and middles; only the middles are labelled).
fn cell_tick(ticks: &[String], v: f64) -> String {
    if (v - v.floor() - 0.5).abs() < 1e-6 {
        ticks.get(v.floor() as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

/// Draws a heatmap to `path` (SVG): one coloured, labelled rectangle per measured cell.
pub fn heatmap(h: &Heatmap, path: &Path) -> Result<(), ReportError> {
    let (nx, ny) = (h.x_ticks.len().max(1), h.y_ticks.len().max(1));
    let max = h
        .scale_max
        .or_else(|| {
            h.cells
                .iter()
                .flatten()
                .flatten()
                .copied()
                .filter(|v| v.is_finite())
                .reduce(f64::max)
        })
        .filter(|m| *m > 0.0)
        .unwrap_or(1.0);
    let err = |e: DrawingAreaErrorKind<_>| plot_error(path, e);
    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&h.labels.title, font(TITLE_SIZE))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..nx as f64, 0.0..ny as f64)
        .map_err(err)?;
    let x_tick = |v: &f64| cell_tick(&h.x_ticks, *v);
    let y_tick = |v: &f64| cell_tick(&h.y_ticks, *v);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(&h.labels.x_label)
        .y_desc(&h.labels.y_label)
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .label_style(font(TEXT_SIZE))
        .x_labels(2 * nx + 1)
        .y_labels(2 * ny + 1)
        .x_label_formatter(&x_tick)
        .y_label_formatter(&y_tick)
        .draw()
        .map_err(err)?;
    let cells: Vec<(f64, f64, f64)> = (h.cells.iter().enumerate())
        .flat_map(|(y, row)| (row.iter().enumerate()).map(move |(x, v)| (x, y, v)))
        .filter_map(|(x, y, v)| v.map(|v| (x as f64, y as f64, v)))
        .collect();
    let squares = (cells.iter())
        .map(|&(x, y, v)| Rectangle::new([(x, y), (x + 1.0, y + 1.0)], ramp(v / max).filled()));
    chart.draw_series(squares).map_err(err)?;
    let label = font(TEXT_SIZE * 0.8).pos(Pos::new(HPos::Center, VPos::Center));
    chart
        .draw_series(cells.iter().map(|&(x, y, v)| {
            let style = if v / max > 0.6 {
                label.clone().color(&WHITE)
            } else {
                label.clone()
            };
            Text::new(format!("{v:.*}", h.decimals), (x + 0.5, y + 0.5), style)
        }))
        .map_err(err)?;
    root.present().map_err(err)
}
