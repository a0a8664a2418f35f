//! SVG plots: labelled scatter plots with reference lines, the register-cap plot with spill
//! bars on a second axis ([`regs`]), heatmaps ([`heatmap`]), and plain curves (the calculator's).
//!
//! Every plot is 800x500 with labelled axes. Point labels are placed in pixel space by a small
//! greedy placer ([`labels`]) that tries positions around each point and keeps the first one that
//! overlaps neither another label, a point, a reference-line label nor the plot's edge.

mod heatmap;
mod labels;
mod regs;

use std::ops::Range;
use std::path::Path;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

pub use heatmap::heatmap;
use labels::{draw_legend, draw_point_labels, text_extent, LegendMark, Placer, Rect};
pub use regs::regs;

use super::error::ReportError;
use crate::figure::{tick, LabelledPoint, Labels, ScatterPlot, Series, XScale};

/// Width of every plot, pixels.
pub const WIDTH: u32 = 800;

/// Height of every plot, pixels.
pub const HEIGHT: u32 = 500;

/// plotters writes `font-size = size / 1.24` into the SVG; these are the sizes asked for: a
/// plot's title, its axis names, and all its other text (ticks, point labels, the legend).
const TITLE_SIZE: f64 = 26.0;
const AXIS_DESC_SIZE: f64 = 20.0;
const TEXT_SIZE: f64 = 18.0;

/// Series colours (colour-blind friendly order: blue, orange, green, red, purple, brown, ...).
const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(230, 120, 10),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(90, 90, 90),
];

/// Radius of a plotted point, pixels.
const POINT_RADIUS: i32 = 5;
const REFERENCE_COLOUR: RGBColor = RGBColor(110, 110, 110);

/// The colour of the `i`-th series (cycles).
pub fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

fn plot_error(path: &Path, e: impl std::fmt::Display) -> ReportError {
    ReportError::Plot {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// How far above the highest figure the y axis goes: room for the labels above the top points,
/// and for a legend of `entries` rows when there is one, so it covers no data.
fn headroom(entries: usize) -> f64 {
    if entries > 1 {
        1.12 + 0.09 * entries as f64
    } else {
        1.12
    }
}

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

/// The mesh of every plot with axes: axis words and tick labels in the plot's fonts, eight
/// labelled y ticks, light grid lines.
fn house_style<'m, 'a, 'b, X, Y, DB>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged,
    Y: Ranged,
    DB: DrawingBackend,
{
    mesh.axis_desc_style(font(AXIS_DESC_SIZE))
        .label_style(font(TEXT_SIZE))
        .y_labels(8)
        .light_line_style(RGBColor(246, 246, 246))
        .bold_line_style(RGBColor(215, 215, 215))
}

/// Draws a labelled scatter/line plot to `path` (SVG).
pub fn scatter(plot: &ScatterPlot, path: &Path) -> Result<(), ReportError> {
    let xs: Vec<f64> = plot
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.x))
        .filter(|x| x.is_finite())
        .collect();
    let ys: Vec<f64> = plot
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.y))
        .chain(plot.references.iter().map(|r| r.y))
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

fn min_max(v: &[f64]) -> Option<(f64, f64)> {
    let mut it = v.iter().copied();
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x))))
}

fn font(size: f64) -> TextStyle<'static> {
    ("sans-serif", size).into_font().into()
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
        chart
            .draw_series(DashedLineSeries::new(
                [(x_domain.start, r.y), (x_domain.end, r.y)],
                10,
                6,
                c.stroke_width(2),
            ))
            .map_err(err)?;
        let (_, y) = chart.backend_coord(&(x_domain.end, r.y));
        let (w, h) = text_extent(&r.label, TEXT_SIZE);
        let mut best = (i64::MAX, (0, 0));
        for dy in [-h - 3, 3, -2 * h - 5, h + 5] {
            let rect = (bounds.2 - w - 6, y + dy, bounds.2 - 6, y + dy + h);
            let cost = placer.cost(rect);
            if cost < best.0 {
                best = (cost, (rect.0, rect.1));
            }
        }
        let (x0, y0) = best.1;
        placer.block((x0, y0, x0 + w, y0 + h));
        root.draw(&Text::new(
            r.label.clone(),
            (x0, y0),
            font(TEXT_SIZE).color(&c),
        ))
        .map_err(err)?;
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

/// Draws one series on `chart`: a line through its points in order when `line`, a marker on each
/// when `markers`; every point's marker area is kept free of labels either way.
fn draw_points<X, Y>(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    placer: &mut Placer,
    points: &[LabelledPoint],
    c: RGBColor,
    line: bool,
    markers: bool,
    path: &Path,
) -> Result<(), ReportError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let err = |e: DrawingAreaErrorKind<_>| plot_error(path, e);
    if line {
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|p| (p.x, p.y)),
                c.stroke_width(2),
            ))
            .map_err(err)?;
    }
    if markers {
        chart
            .draw_series(
                points
                    .iter()
                    .map(|p| Circle::new((p.x, p.y), POINT_RADIUS, c.filled())),
            )
            .map_err(err)?;
    }
    for p in points {
        let (x, y) = chart.backend_coord(&(p.x, p.y));
        placer.block((
            x - POINT_RADIUS,
            y - POINT_RADIUS,
            x + POINT_RADIUS + 1,
            y + POINT_RADIUS + 1,
        ));
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
            .map(|(name, pts)| Series {
                name: name.clone(),
                points: pts
                    .iter()
                    .map(|&(x, y)| LabelledPoint { x, y, label: None })
                    .collect(),
                line: true,
                markers: false,
            })
            .collect(),
        references: Vec::new(),
    };
    scatter(&plot, path)
}
