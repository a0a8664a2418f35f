//! Where point labels and the legend go: a greedy placer over the plotting area that keeps each
//! label clear of the others, of the points and of the plot's edge, drawing a leader line to a
//! label it had to move away.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{colour, font, plot_error, POINT_RADIUS, TEXT_SIZE};
use crate::figure::LabelledPoint;
use crate::report::error::ReportError;

/// A pixel rectangle: (x0, y0, x1, y1), x1/y1 exclusive.
pub(super) type Rect = (i32, i32, i32, i32);

fn overlap(a: Rect, b: Rect) -> i64 {
    let w = (a.2.min(b.2) - a.0.max(b.0)).max(0) as i64;
    let h = (a.3.min(b.3) - a.1.max(b.1)).max(0) as i64;
    w * h
}

/// Estimated pixel size of `text` at plotters size `size` (sans-serif, ~0.6 em per character).
pub(super) fn text_extent(text: &str, size: f64) -> (i32, i32) {
    let px = size / 1.24;
    let w = (text.chars().count() as f64 * px * 0.6).ceil() as i32;
    (w, (px * 1.15).ceil() as i32)
}

/// Greedy label placer over the plotting area.
pub(super) struct Placer {
    bounds: Rect,
    taken: Vec<Rect>,
}

impl Placer {
    pub(super) fn new(bounds: Rect) -> Self {
        Self {
            bounds,
            taken: Vec::new(),
        }
    }

    pub(super) fn block(&mut self, r: Rect) {
        self.taken.push(r);
    }

    pub(super) fn cost(&self, r: Rect) -> i64 {
        let inside = overlap(r, self.bounds);
        let area = ((r.2 - r.0) as i64) * ((r.3 - r.1) as i64);
        let outside = area - inside;
        let clash: i64 = self.taken.iter().map(|&t| overlap(r, t)).sum();
        clash + 4 * outside
    }

    /// Places a `w` x `h` box near `p`; returns its top-left corner and whether it needed a
    /// leader line (placed away from the point).
    pub(super) fn place(&mut self, p: (i32, i32), w: i32, h: i32) -> ((i32, i32), bool) {
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
        // The first of the cheapest places.
        let ((x, y), leader) = (candidates.into_iter())
            .map(|((dx, dy), leader)| ((p.0 + dx, p.1 + dy), leader))
            .min_by_key(|&((x, y), _)| self.cost((x, y, x + w, y + h)))
            .unwrap_or(((0, 0), false));
        self.block((x, y, x + w, y + h));
        ((x, y), leader)
    }
}

/// Draws the point labels of each series (the `i`-th in [`colour`]`(i)`), placed around their
/// points on `chart`.
pub(super) fn draw_point_labels<'p, X, Y>(
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
    let (w, h) = text_extent(label, TEXT_SIZE);
    let ((x0, y0), leader) = placer.place(at, w, h);
    if leader {
        let ty = if y0 > at.1 { y0 } else { y0 + h };
        let tx = if x0 > at.0 { x0 } else { x0 + w };
        let leader = PathElement::new(vec![at, (tx, ty)], RGBColor(160, 160, 160).stroke_width(1));
        root.draw(&leader).map_err(err)?;
    }
    let text = Text::new(label.to_string(), (x0, y0), font(TEXT_SIZE).color(c));
    root.draw(&text).map_err(err)?;
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LegendMark {
    Dot,
    Line,
    Bar,
}

/// Draws a legend box in the corner of the plotting area where it covers the least.
pub(super) fn draw_legend(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    placer: &mut Placer,
    entries: &[(String, RGBColor, LegendMark)],
    path: &Path,
) -> Result<(), ReportError> {
    let err = |e: DrawingAreaErrorKind<_>| plot_error(path, e);
    let (_, h) = text_extent("X", TEXT_SIZE);
    let row = h + 4;
    let text_w = entries
        .iter()
        .map(|(n, _, _)| text_extent(n, TEXT_SIZE).0)
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
    let area = [(x0, y0), (x0 + w, y0 + total_h)];
    root.draw(&Rectangle::new(area, WHITE.mix(0.85).filled()))
        .map_err(err)?;
    let frame = RGBColor(180, 180, 180).stroke_width(1);
    root.draw(&Rectangle::new(area, frame)).map_err(err)?;
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
        let text_style = font(TEXT_SIZE).color(&RGBColor(30, 30, 30));
        root.draw(&Text::new(name.clone(), (x0 + 42, y), text_style))
            .map_err(err)?;
    }
    Ok(())
}
