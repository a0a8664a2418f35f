//! The plots' house style: sizes, fonts, colours, the mesh, the headroom above the data, and how
//! a drawing error reads. Every kind of plot draws with it, so it sits below them all.

use std::path::Path;

use plotters::chart::MeshStyle;
use plotters::prelude::*;

use crate::report::error::ReportError;

/// Width of every plot, pixels.
pub const WIDTH: u32 = 800;

/// Height of every plot, pixels.
pub const HEIGHT: u32 = 500;

/// plotters writes `font-size = size / 1.24` into the SVG; these are the sizes asked for: a
/// plot's title, its axis names, and all its other text (ticks, point labels, the legend).
pub(super) const TITLE_SIZE: f64 = 26.0;
pub(super) const AXIS_DESC_SIZE: f64 = 20.0;
pub(super) const TEXT_SIZE: f64 = 18.0;

/// Series colours (colour-blind friendly order: blue, orange, green, red, purple, brown, ...).
pub(super) const COLOURS: [RGBColor; 8] = [
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
pub(super) const POINT_RADIUS: i32 = 5;
pub(super) const REFERENCE_COLOUR: RGBColor = RGBColor(110, 110, 110);

/// The colour of the `i`-th series (cycles).
pub fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

pub(super) fn plot_error(path: &Path, e: impl std::fmt::Display) -> ReportError {
    ReportError::Plot {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// How far above the highest figure the y axis goes: room for the labels above the top points,
/// and for a legend of `entries` rows when there is one, so it covers no data.
pub(super) fn headroom(entries: usize) -> f64 {
    if entries > 1 {
        1.12 + 0.09 * entries as f64
    } else {
        1.12
    }
}

/// The mesh of every plot with axes: axis words and tick labels in the plot's fonts, eight
/// labelled y ticks, light grid lines.
pub(super) fn house_style<'m, 'a, 'b, X, Y, DB>(
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

pub(super) fn min_max(v: &[f64]) -> Option<(f64, f64)> {
    let mut it = v.iter().copied();
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x))))
}

pub(super) fn font(size: f64) -> TextStyle<'static> {
    ("sans-serif", size).into_font().into()
}
