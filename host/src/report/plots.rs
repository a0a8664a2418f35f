//! SVG plots: labelled scatter plots with reference lines (experiments 1 and 2), the register-cap
//! plot with spill bars on a second axis (experiment 3), and plain curves (the calculator's).
//!
//! Every plot is 800x500 with labelled axes. Point labels are placed in pixel space by a small
//! greedy placer that tries positions around each point and keeps the first one that overlaps
//! neither another label, a point, a reference-line label nor the plot's edge.

use std::ops::Range;
use std::path::Path;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::error::ReportError;
use crate::figure::{tick, Heatmap, LabelledPoint, RegsSeries, ScatterPlot, Series, XScale};

/// Width of every plot, pixels.
pub const WIDTH: u32 = 800;
/// Height of every plot, pixels.
pub const HEIGHT: u32 = 500;

/// plotters writes `font-size = size / 1.24` into the SVG; these are the sizes asked for.
const TITLE_SIZE: f64 = 26.0;
const AXIS_DESC_SIZE: f64 = 20.0;
const TICK_SIZE: f64 = 18.0;
const LABEL_SIZE: f64 = 18.0;
const LEGEND_SIZE: f64 = 18.0;
const POINT_RADIUS: i32 = 5;

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

/// A pixel rectangle: (x0, y0, x1, y1), x1/y1 exclusive.
type Rect = (i32, i32, i32, i32);

fn overlap(a: Rect, b: Rect) -> i64 {
    let w = (a.2.min(b.2) - a.0.max(b.0)).max(0) as i64;
    let h = (a.3.min(b.3) - a.1.max(b.1)).max(0) as i64;
    w * h
}

/// Estimated pixel size of `text` at plotters size `size` (sans-serif, ~0.6 em per character).
fn text_extent(text: &str, size: f64) -> (i32, i32) {
    let px = size / 1.24;
    let w = (text.chars().count() as f64 * px * 0.6).ceil() as i32;
    (w, (px * 1.15).ceil() as i32)
}

/// Greedy label placer over the plotting area.
struct Placer {
    bounds: Rect,
    taken: Vec<Rect>,
}

impl Placer {
    fn new(bounds: Rect) -> Self {
        Self {
            bounds,
            taken: Vec::new(),
        }
    }

    fn block(&mut self, r: Rect) {
        self.taken.push(r);
    }

    fn cost(&self, r: Rect) -> i64 {
        let inside = overlap(r, self.bounds);
        let area = ((r.2 - r.0) as i64) * ((r.3 - r.1) as i64);
        let outside = area - inside;
        let clash: i64 = self.taken.iter().map(|&t| overlap(r, t)).sum();
        clash + 4 * outside
    }

    /// Places a `w` x `h` box near `p`; returns its top-left corner and whether it needed a
    /// leader line (placed away from the point).
    fn place(&mut self, p: (i32, i32), w: i32, h: i32) -> ((i32, i32), bool) {
        let gap = POINT_RADIUS + 3;
        let mut candidates: Vec<((i32, i32), bool)> = vec![
            ((gap, -h - 2), false),
            ((gap, 2), false),
            ((-w - gap, -h - 2), false),
            ((-w - gap, 2), false),
            ((-w / 2, -h - gap), false),
            ((-w / 2, gap), false),
            ((gap, -h / 2), false),
            ((-w - gap, -h / 2), false),
        ];
        for k in 1..=5 {
            let step = k * (h + 2);
            candidates.push(((gap, -h - 2 - step), true));
            candidates.push(((gap, 2 + step), true));
            candidates.push(((-w - gap, -h - 2 - step), true));
            candidates.push(((-w - gap, 2 + step), true));
        }
        let mut best = (i64::MAX, ((0, 0), false));
        for ((dx, dy), leader) in candidates {
            let r = (p.0 + dx, p.1 + dy, p.0 + dx + w, p.1 + dy + h);
            let c = self.cost(r);
            if c == 0 {
                best = (0, ((r.0, r.1), leader));
                break;
            }
            if c < best.0 {
                best = (c, ((r.0, r.1), leader));
            }
        }
        let ((x, y), leader) = best.1;
        self.block((x, y, x + w, y + h));
        ((x, y), leader)
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
        .caption(&plot.title, font(TITLE_SIZE))
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
    chart
        .configure_mesh()
        .x_desc(&plot.x_label)
        .y_desc(&plot.y_label)
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .label_style(font(TICK_SIZE))
        .x_labels(match plot.x_scale {
            XScale::Linear => 8,
            XScale::Log => 16,
        })
        .y_labels(8)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .light_line_style(RGBColor(246, 246, 246))
        .bold_line_style(RGBColor(215, 215, 215))
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
        let (w, h) = text_extent(&r.label, LABEL_SIZE);
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
            font(LABEL_SIZE).color(&c),
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

/// Draws the point labels of each series (the `i`-th in [`colour`]`(i)`), placed around their
/// points on `chart`.
fn draw_point_labels<'p, X, Y>(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    chart: &ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    placer: &mut Placer,
    series: impl Iterator<Item = &'p [LabelledPoint]>,
    path: &Path,
) -> Result<(), ReportError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (i, points) in series.enumerate() {
        let c = colour(i);
        for p in points {
            let Some(label) = &p.label else { continue };
            let at = chart.backend_coord(&(p.x, p.y));
            draw_label(root, placer, at, label, &c, path)?;
        }
    }
    Ok(())
}

fn draw_label(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    placer: &mut Placer,
    at: (i32, i32),
    label: &str,
    c: &RGBColor,
    path: &Path,
) -> Result<(), ReportError> {
    let err = |e: DrawingAreaErrorKind<_>| plot_error(path, e);
    let (w, h) = text_extent(label, LABEL_SIZE);
    let ((x0, y0), leader) = placer.place(at, w, h);
    if leader {
        let ty = if y0 > at.1 { y0 } else { y0 + h };
        let tx = if x0 > at.0 { x0 } else { x0 + w };
        root.draw(&PathElement::new(
            vec![at, (tx, ty)],
            RGBColor(160, 160, 160).stroke_width(1),
        ))
        .map_err(err)?;
    }
    root.draw(&Text::new(
        label.to_string(),
        (x0, y0),
        font(LABEL_SIZE).color(c),
    ))
    .map_err(err)?;
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LegendMark {
    Dot,
    Line,
    Bar,
}

/// Draws a legend box in the corner of the plotting area where it covers the least.
fn draw_legend(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    placer: &mut Placer,
    entries: &[(String, RGBColor, LegendMark)],
    path: &Path,
) -> Result<(), ReportError> {
    let err = |e: DrawingAreaErrorKind<_>| plot_error(path, e);
    let (_, h) = text_extent("X", LEGEND_SIZE);
    let row = h + 4;
    let text_w = entries
        .iter()
        .map(|(n, _, _)| text_extent(n, LEGEND_SIZE).0)
        .max()
        .unwrap_or(0);
    let w = 10 + 24 + 8 + text_w + 10;
    let total_h = 8 + row * entries.len() as i32 + 4;
    let b = placer.bounds;
    let corners = [
        (b.0 + 8, b.1 + 8),
        (b.2 - w - 8, b.1 + 8),
        (b.2 - w - 8, b.3 - total_h - 8),
        (b.0 + 8, b.3 - total_h - 8),
    ];
    let (x0, y0) = corners
        .iter()
        .copied()
        .min_by_key(|&(x, y)| placer.cost((x, y, x + w, y + total_h)))
        .unwrap_or(corners[0]);
    placer.block((x0, y0, x0 + w, y0 + total_h));
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + total_h)],
        WHITE.mix(0.85).filled(),
    ))
    .map_err(err)?;
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + total_h)],
        RGBColor(180, 180, 180).stroke_width(1),
    ))
    .map_err(err)?;
    for (i, (name, c, mark)) in entries.iter().enumerate() {
        let y = y0 + 8 + row * i as i32;
        let mid = y + h / 2;
        match mark {
            LegendMark::Dot => root
                .draw(&Circle::new((x0 + 22, mid), POINT_RADIUS, c.filled()))
                .map_err(err)?,
            LegendMark::Line => root
                .draw(&PathElement::new(
                    vec![(x0 + 10, mid), (x0 + 34, mid)],
                    c.stroke_width(2),
                ))
                .map_err(err)?,
            LegendMark::Bar => root
                .draw(&Rectangle::new(
                    [(x0 + 14, mid - 6), (x0 + 30, mid + 6)],
                    c.mix(0.45).filled(),
                ))
                .map_err(err)?,
        }
        root.draw(&Text::new(
            name.clone(),
            (x0 + 42, y),
            font(LEGEND_SIZE).color(&RGBColor(30, 30, 30)),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// Draws experiment 3: register cap (x) vs GFLOP/s (left axis, lines with labelled points) and
/// spill bytes (right axis, bars), one colour per series.
pub fn regs(title: &str, series: &[RegsSeries], path: &Path) -> Result<(), ReportError> {
    let err = |e: DrawingAreaErrorKind<_>| plot_error(path, e);
    let caps: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.x))
        .collect();
    let gflops: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.y))
        .collect();
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
    chart
        .configure_mesh()
        .x_desc("Register cap (registers/thread)")
        .y_desc("GFLOP/s (lines)")
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .label_style(font(TICK_SIZE))
        .x_labels(10)
        .y_labels(8)
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .light_line_style(RGBColor(246, 246, 246))
        .bold_line_style(RGBColor(215, 215, 215))
        .draw()
        .map_err(err)?;
    chart
        .configure_secondary_axes()
        .y_desc("Spill bytes, stores + loads (bars)")
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .label_style(font(TICK_SIZE))
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
        chart
            .draw_secondary_series(s.spills.iter().filter_map(|&(cap, b)| {
                let b = b?;
                let x0 = cap + offset - bar_w / 2.0;
                Some(Rectangle::new(
                    [(x0, 0.0), (x0 + bar_w * 0.9, b)],
                    c.mix(0.4).filled(),
                ))
            }))
            .map_err(err)?;
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
        for &(cap, b) in &s.spills {
            if let Some(b) = b {
                let (x, y0) = chart.borrow_secondary().backend_coord(&(cap, 0.0));
                let (_, y1) = chart.borrow_secondary().backend_coord(&(cap, b));
                placer.block((x - 6, y1, x + 6, y0));
            }
        }
    }
    let points = series.iter().map(|s| s.points.as_slice());
    draw_point_labels(&root, &chart, &mut placer, points, path)?;

    let mut entries = Vec::new();
    for (i, s) in series.iter().enumerate() {
        entries.push((format!("GFLOP/s: {}", s.name), colour(i), LegendMark::Dot));
        entries.push((
            format!("spill bytes: {}", s.name),
            colour(i),
            LegendMark::Bar,
        ));
    }
    draw_legend(&root, &mut placer, &entries, path)?;
    root.present().map_err(err)
}

/// Draws plain curves (e.g. the occupancy calculator's occupancy vs registers/thread) to `path`.
/// Each series is `(label, points)`; points are joined in order.
pub fn plot_curve(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    path: &Path,
) -> Result<(), ReportError> {
    let plot = ScatterPlot {
        title: title.to_string(),
        x_label: x_label.to_string(),
        y_label: y_label.to_string(),
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

/// Colour of a heatmap cell at `t` in 0..=1: from near-white to the first series colour.
fn ramp(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let (r0, g0, b0) = (247.0, 251.0, 255.0);
    let RGBColor(r1, g1, b1) = colour(0);
    let mix = |a: f64, b: u8| (a + (f64::from(b) - a) * t).round() as u8;
    RGBColor(mix(r0, r1), mix(g0, g1), mix(b0, b1))
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
    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&h.title, font(TITLE_SIZE))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..nx as f64, 0.0..ny as f64)
        .map_err(|e| plot_error(path, e))?;
    let x_tick = |v: &f64| {
        let i = v.floor() as usize;
        if (v - v.floor() - 0.5).abs() < 1e-6 {
            h.x_ticks.get(i).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let y_tick = |v: &f64| {
        let i = v.floor() as usize;
        if (v - v.floor() - 0.5).abs() < 1e-6 {
            h.y_ticks.get(i).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(&h.x_label)
        .y_desc(&h.y_label)
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .label_style(font(TICK_SIZE))
        .x_labels(2 * nx + 1)
        .y_labels(2 * ny + 1)
        .x_label_formatter(&x_tick)
        .y_label_formatter(&y_tick)
        .draw()
        .map_err(|e| plot_error(path, e))?;
    let cells = h.cells.iter().enumerate().flat_map(|(y, row)| {
        row.iter()
            .enumerate()
            .filter_map(move |(x, v)| v.map(|v| (x as f64, y as f64, v)))
    });
    let cells: Vec<(f64, f64, f64)> = cells.collect();
    chart
        .draw_series(
            cells.iter().map(|&(x, y, v)| {
                Rectangle::new([(x, y), (x + 1.0, y + 1.0)], ramp(v / max).filled())
            }),
        )
        .map_err(|e| plot_error(path, e))?;
    let label = font(LABEL_SIZE * 0.8).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Center,
    ));
    chart
        .draw_series(cells.iter().map(|&(x, y, v)| {
            let style = if v / max > 0.6 {
                label.clone().color(&WHITE)
            } else {
                label.clone()
            };
            Text::new(format!("{v:.*}", h.decimals), (x + 0.5, y + 0.5), style)
        }))
        .map_err(|e| plot_error(path, e))?;
    root.present().map_err(|e| plot_error(path, e))
}
