//! The plot of the experiments whose rows are variants at an occupancy: throughput over
//! theoretical occupancy, one series per run and module, with each run's reference lines (a
//! peak, a measured reference).

use super::contract::Output;
use super::row_views::plot_rows;
use crate::figure::{
    finish_labels, peak_label, push_module_series, Figure, Labels, PlotRun, ReferenceLine,
    ScatterPlot, XScale,
};

/// A horizontal line a run adds to the plot.
pub struct Reference {
    /// What it is, e.g. "FP32 peak".
    pub what: String,
    pub y: f64,
    /// Decimals of the value in its label.
    pub decimals: usize,
    /// Written after the value, e.g. " GB/s".
    pub unit: &'static str,
    /// Drawn once when several runs share the value (a device's spec peak).
    pub once: bool,
}

impl Reference {
    /// A device's spec peak, drawn once when several runs share it.
    pub fn peak(what: &str, y: f64) -> Self {
        Self {
            what: what.to_owned(),
            y,
            decimals: 0,
            unit: "",
            once: true,
        }
    }

    /// A figure one run measured, with `decimals` and `unit` in its label.
    pub fn measured(what: String, y: f64, decimals: usize, unit: &'static str) -> Self {
        Self {
            what,
            y,
            decimals,
            unit,
            once: false,
        }
    }
}

/// The plot's words and x axis.
pub struct Axes {
    pub title: String,
    pub x_label: &'static str,
    pub y_label: &'static str,
    pub x_scale: XScale,
}

impl Axes {
    pub fn new(title: String, (x_label, x_scale): (&'static str, XScale), y: &'static str) -> Self {
        Self {
            title,
            x_label,
            y_label: y,
            x_scale,
        }
    }
}

/// Throughput (y) over occupancy (x, in %) of every run's rows, each point named by `name`, and
/// each run's `references`; none when no run has rows to plot.
pub fn occupancy_scatter<'r, O: Output>(
    runs: &[PlotRun<'r, O>],
    axes: Axes,
    name: impl Fn(&'r O::Row) -> &'r str,
    references: impl Fn(&PlotRun<'r, O>) -> Vec<Reference>,
) -> Option<Figure> {
    let mut series = Vec::new();
    let mut lines: Vec<ReferenceLine> = Vec::new();
    for run in runs {
        let first = series.len();
        push_module_series(&mut series, run, &plot_rows(run.output.rows(), &name));
        for r in references(run) {
            if r.once && lines.iter().any(|l| (l.y - r.y).abs() < 1e-6) {
                continue;
            }
            let label = peak_label(&r.what, runs.len(), &run.device.name, r.y, r.decimals);
            lines.push(ReferenceLine {
                label: format!("{label}{}", r.unit),
                y: r.y,
                series: (runs.len() > 1).then_some(first),
            });
        }
    }
    if series.is_empty() {
        return None;
    }
    finish_labels(&mut series, |s| &mut s.points);
    Some(Figure::Scatter(ScatterPlot {
        labels: Labels::new(axes.title, axes.x_label, axes.y_label),
        x_scale: axes.x_scale,
        x_unit_suffix: "%".into(),
        series,
        references: lines,
    }))
}

/// An experiment's one plot, under the experiment's name.
pub fn named(name: &str, figure: Option<Figure>) -> Vec<(String, Figure)> {
    figure.map(|f| (name.to_owned(), f)).into_iter().collect()
}
