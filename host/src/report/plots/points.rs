//! One series' points on a chart, kept free of labels: the scatter and the register plot draw
//! their series with it.

use std::path::Path;

use plotters::prelude::*;

use super::labels::Placer;
use super::style::{plot_error, POINT_RADIUS};
use crate::figure::LabelledPoint;
use crate::report::error::ReportError;

/// Draws one series on `chart`: a line through its points in order when `line`, a marker on each
/// when `markers`; every point's marker area is kept free of labels either way.
pub(super) fn draw_points<X, Y>(
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
    let at = points.iter().map(|p| (p.x, p.y));
    if line {
        chart
            .draw_series(LineSeries::new(at.clone(), c.stroke_width(2)))
            .map_err(err)?;
    }
    if markers {
        let dots = at.map(|xy| Circle::new(xy, POINT_RADIUS, c.filled()));
        chart.draw_series(dots).map_err(err)?;
    }
    for p in points {
        let (x, y) = chart.backend_coord(&(p.x, p.y));
        let r = POINT_RADIUS;
        placer.block((x - r, y - r, x + r + 1, y + r + 1));
    }
    Ok(())
}
