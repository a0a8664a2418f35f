//! SVG plots: labelled scatter plots with reference lines, the register-cap plot with spill
//! bars on a second axis ([`regs`]), heatmaps ([`heatmap`]), and plain curves (the calculator's).
//!
//! Every plot is 800x500 with labelled axes. Point labels are placed in pixel space by a small
//! greedy placer ([`labels`]) that tries positions around each point and keeps the first one that
//! overlaps neither another label, a point, a reference-line label nor the plot's edge.

mod heatmap;
mod labels;
mod points;
mod regs;
mod style;

use std::ops::Range;
use std::path::Path;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

pub use heatmap::heatmap;
use labels::{draw_legend, draw_point_labels, text_extent, LegendMark, Placer, Rect};
use points::draw_points;
pub use regs::regs;
pub use style::{colour, HEIGHT, WIDTH};
use style::{
    font, headroom, house_style, min_max, plot_error, REFERENCE_COLOUR, TEXT_SIZE, TITLE_SIZE,
};

use super::error::ReportError;
use crate::figure::{tick, LabelledPoint, Labels, ScatterPlot, Series, XScale};

/// Log-axis tick labels only at 1, 2 and 5 times a power of ten; the other ticks stay unlabelled.
fn log_tick_shown(v: f64) -> bool {
    if v <= 0.0 {
        return false;
    }
    let mantissa = v / 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|m| (mantissa - m).abs() < 1e-6)
}

fn padded(lo: f64, hi: f64, frac: f64) -> Range<f64> {
    if !(lo.is_finite() && hi.is_finite()) {
        return 0.0..1.0;
    }
    let span = if hi > lo { hi - lo } else { hi.abs().max(1.0) };
    (lo - span * frac)..(hi + span * frac)
}

/// Draws a labelled scatter/line plot to `path` (SVG).
pub fn scatter(plot: &ScatterPlot, path: &Path) -> Result<(), ReportError> {
    let points = plot.series.iter().flat_map(|s| &s.points);
    let xs: Vec<f64> = points
        .clone()
        .map(|p| p.x)
        .filter(|x| x.is_finite())
        .collect();
    let ys: Vec<f64> = (points
        .map(|p| p.y)
        .chain(plot.references.iter().map(|r| r.y)))
    .filter(|y| y.is_finite())
    .collect();
    let (xmin, xmax) = min_max(&xs).unwrap_or((0.0, 1.0));
    let ymax = min_max(&ys)
        .map(|m| m.1)
        .unwrap_or(1.0)
        .max(f64::MIN_POSITIVE);
    let y_range = 0.0..ymax * headroom(plot.series.len());

    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
    match plot.x_scale {
        XScale::Linear => {
            let x = padded(xmin, xmax, 0.08);
            draw_scatter(&root, plot, x, y_range, path)?;
        }
        XScale::Log => {
            let lo = if xmin > 0.0 { xmin / 1.6 } else { 0.1 };
            let hi = if xmax > lo { xmax * 1.6 } else { lo * 10.0 };
            draw_scatter(&root, plot, (lo..hi).log_scale(), y_range, path)?;
        }
    }
    root.present().map_err(|e| plot_error(path, e))
}

fn draw_scatter<XS>(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    plot: &ScatterPlot,
    x_spec: XS,
    y_range: Range<f64>,
    path: &Path,
) -> Result<(), ReportError>
where
    XS: AsRangedCoord<Value = f64>,
    XS::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<_>| plot_error(path, e);
    let mut chart = ChartBuilder::on(root)
        .caption(&plot.labels.title, font(TITLE_SIZE))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(84)
        .build_cartesian_2d(x_spec, y_range)
        .map_err(err)?;
    let suffix = plot.x_unit_suffix.clone();
    let log = plot.x_scale == XScale::Log;
    let x_fmt = move |v: &f64| {
        if log && !log_tick_shown(*v) {
            String::new()
        } else {
            format!("{}{}", tick(*v), suffix)
        }
    };
    let y_fmt = |v: &f64| tick(*v);
    let mut mesh = chart.configure_mesh();
    house_style(&mut mesh)
        .x_desc(&plot.labels.x_label)
        .y_desc(&plot.labels.y_label)
        .x_labels(match plot.x_scale {
            XScale::Linear => 8,
            XScale::Log => 16,
        })
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .draw()
        .map_err(err)?;

    let (px, py) = chart.plotting_area().get_pixel_range();
    let bounds: Rect = (px.start, py.start, px.end, py.end);
    let mut placer = Placer::new(bounds);
    let x_domain = chart.x_range();

    // Reference lines first: their labels take the right end, just above the line.
    for r in &plot.references {
        let c = r.series.map(colour).unwrap_or(REFERENCE_COLOUR);
        let ends = [(x_domain.start, r.y), (x_domain.end, r.y)];
        let dashed = DashedLineSeries::new(ends, 10, 6, c.stroke_width(2));
        chart.draw_series(dashed).map_err(err)?;
        let (_, y) = chart.backend_coord(&(x_domain.end, r.y));
        let (w, h) = text_extent(&r.label, TEXT_SIZE);
        let x0 = bounds.2 - w - 6;
        let y0 = ([-h - 3, 3, -2 * h - 5, h + 5].into_iter())
            .map(|dy| y + dy)
            .min_by_key(|&y0| placer.cost((x0, y0, x0 + w, y0 + h)))
            .unwrap_or(y);
        placer.block((x0, y0, x0 + w, y0 + h));
        let text = Text::new(r.label.clone(), (x0, y0), font(TEXT_SIZE).color(&c));
        root.draw(&text).map_err(err)?;
    }

    // Lines and markers, and block every marker for the labels.
    for (i, s) in plot.series.iter().enumerate() {
        draw_points(
            &mut chart,
            &mut placer,
            &s.points,
            colour(i),
            s.line,
            s.markers,
            path,
        )?;
    }

    // Point labels, in each series' colour.
    let points = plot.series.iter().map(|s| s.points.as_slice());
    draw_point_labels(root, &chart, &mut placer, points, path)?;

    let entries: Vec<(String, RGBColor, LegendMark)> = plot
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mark = if s.markers {
                LegendMark::Dot
            } else {
                LegendMark::Line
            };
            (s.name.clone(), colour(i), mark)
        })
        .collect();
    if entries.len() > 1 {
        draw_legend(root, &mut placer, &entries, path)?;
    }
    Ok(())
}

/// Draws plain curves (e.g. the occupancy calculator's occupancy vs registers/thread) to `path`.
/// Each series is `(label, points)`; points are joined in order.
pub fn plot_curve(
    labels: &Labels,
    series: &[(String, Vec<(f64, f64)>)],
    path: &Path,
) -> Result<(), ReportError> {
    let plot = ScatterPlot {
        labels: labels.clone(),
        x_scale: XScale::Linear,
        x_unit_suffix: String::new(),
        series: series
            .iter()
            .map(|(name, pts)| {
                Series::line(
                    name,
                    pts.iter().map(|&(x, y)| LabelledPoint::at(x, y)).collect(),
                )
            })
            .collect(),
        references: Vec::new(),
    };
    scatter(&plot, path)
}
