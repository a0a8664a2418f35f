//! What a plot shows, as data: series of labelled points, reference lines, the regs plot's
//! bars. Experiments build these from their outputs; `report::plots` draws them. Also the helpers
//! that build the usual "one series per module per run" scatter.

use crate::results::{Check, Comparison, DeviceInfo, RunMeta};

/// A point, optionally labelled next to its marker.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledPoint {
    pub x: f64,
    pub y: f64,
    pub label: Option<String>,
}

impl LabelledPoint {
    /// A point without a label.
    pub fn at(x: f64, y: f64) -> Self {
        Self { x, y, label: None }
    }
}

/// One series of points (one module, or one run when merging).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    pub points: Vec<LabelledPoint>,
    /// Join the points (in the given order) with a line.
    pub line: bool,
    /// Draw a marker on each point.
    pub markers: bool,
}

impl Series {
    /// Measured points: a marker on each, not joined.
    pub fn markers(name: impl Into<String>, points: Vec<LabelledPoint>) -> Self {
        Self::drawn(name, points, false, true)
    }

    /// A curve: the points joined in order, without markers.
    pub fn line(name: impl Into<String>, points: Vec<LabelledPoint>) -> Self {
        Self::drawn(name, points, true, false)
    }

    /// Measured points joined in order, a marker on each.
    pub fn joined(name: impl Into<String>, points: Vec<LabelledPoint>) -> Self {
        Self::drawn(name, points, true, true)
    }

    fn drawn(
        name: impl Into<String>,
        points: Vec<LabelledPoint>,
        line: bool,
        markers: bool,
    ) -> Self {
        let name = name.into();
        Self {
            name,
            points,
            line,
            markers,
        }
    }
}

/// A horizontal reference line (a peak or a measured reference), labelled at its right end.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceLine {
    pub label: String,
    pub y: f64,
    /// Index of the series it belongs to (its colour); `None` for a grey line.
    pub series: Option<usize>,
}

/// How the x axis is scaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XScale {
    Linear,
    Log,
}

/// A plot's title and the names of its two axes, the words every kind of plot carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Labels {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
}

impl Labels {
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        Self {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
        }
    }
}

/// A scatter/line plot with optional reference lines.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterPlot {
    pub labels: Labels,
    pub x_scale: XScale,
    /// Written after each x tick label's number (e.g. "%").
    pub x_unit_suffix: String,
    pub series: Vec<Series>,
    pub references: Vec<ReferenceLine>,
}

/// The `regs` experiment's data for one module/run: GFLOP/s and spill bytes per register cap.
#[derive(Debug, Clone, PartialEq)]
pub struct RegsSeries {
    pub name: String,
    /// (cap, GFLOP/s, label).
    pub points: Vec<LabelledPoint>,
    /// (cap, spill bytes: stores + loads); `None` where unknown.
    pub spills: Vec<(f64, Option<f64>)>,
}

/// A grid of values over two discrete axes (e.g. % of copy bandwidth over warps/SM and bytes per
/// thread), each cell coloured by its value and labelled with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    pub labels: Labels,
    /// Column labels, left to right.
    pub x_ticks: Vec<String>,
    /// Row labels, bottom to top.
    pub y_ticks: Vec<String>,
    /// `cells[row][column]`; `None` where there is no measurement.
    pub cells: Vec<Vec<Option<f64>>>,
    /// The value at which the colour scale saturates (e.g. 100 for a percentage); the largest
    /// cell when `None`.
    pub scale_max: Option<f64>,
    /// Decimals of the cell labels.
    pub decimals: usize,
}

/// One experiment's plot.
#[derive(Debug, Clone, PartialEq)]
pub enum Figure {
    /// Occupancy (or another x) against a throughput, with reference lines; series with `line`
    /// set draw a model's curve.
    Scatter(ScatterPlot),
    /// Throughput per register cap with spill bytes as bars.
    Regs {
        title: String,
        series: Vec<RegsSeries>,
    },
    /// Values over two discrete axes.
    Heatmap(Heatmap),
}

/// One run's output of an experiment to plot, with the names its series carry.
#[derive(Debug, Clone, Copy)]
pub struct PlotRun<'a, O> {
    /// Series name of the run's own module (e.g. "H200 · rust (built-in)").
    pub name: &'a str,
    /// Series name of its compared module, when the run has one.
    pub compare_name: Option<&'a str>,
    pub device: &'a DeviceInfo,
    /// The run's record (its sizes, the line the `regs` experiment capped).
    pub meta: &'a RunMeta,
    pub output: &'a O,
}

/// More than this many series and only the first is labelled point by point.
const LABELLED_SERIES: usize = 3;

/// A point's label: the variant, marked when its check failed.
pub fn point_label(variant: &str, passed: bool) -> String {
    if passed {
        variant.to_string()
    } else {
        format!("{variant} (check failed)")
    }
}

/// With more than a few series, drops the point labels of all but the first.
pub fn finish_labels<S>(series: &mut [S], points: impl Fn(&mut S) -> &mut Vec<LabelledPoint>) {
    if series.len() > LABELLED_SERIES {
        for s in series.iter_mut().skip(1) {
            for p in points(s) {
                p.label = None;
            }
        }
    }
}

/// One row of a scatter over occupancy.
pub struct PlotRow<'r> {
    /// Theoretical occupancy, 0..=1.
    pub occupancy: f64,
    /// This module's figure.
    pub throughput: f64,
    pub variant: &'r str,
    pub check: &'r Check,
    pub compare: Option<&'r Comparison>,
}

/// Pushes the run's series over `rows` (x: occupancy in %), then, when the run was compared with
/// another module and some row has its figures, that module's series.
pub fn push_module_series<O>(series: &mut Vec<Series>, run: &PlotRun<'_, O>, rows: &[PlotRow<'_>]) {
    let point = |r: &PlotRow<'_>, y: f64, check: &Check| LabelledPoint {
        x: r.occupancy * 100.0,
        y,
        label: Some(point_label(r.variant, check.passed)),
    };
    let own = rows.iter().map(|r| point(r, r.throughput, r.check));
    series.push(Series::markers(run.name, own.collect()));
    if let Some(cn) = run.compare_name {
        let points: Vec<LabelledPoint> = rows
            .iter()
            .filter_map(|r| r.compare.map(|c| point(r, c.throughput, &c.check)))
            .collect();
        if !points.is_empty() {
            series.push(Series::markers(cn, points));
        }
    }
}

/// The label of a peak or reference line; names the device when several runs share the plot.
pub fn peak_label(what: &str, runs: usize, device: &str, value: f64, decimals: usize) -> String {
    let v = if decimals == 0 {
        tick(value)
    } else {
        format!("{value:.decimals$}")
    };
    if runs > 1 {
        format!("{what} {device}: {v}")
    } else {
        format!("{what}: {v}")
    }
}

fn thousands(v: f64) -> String {
    let s = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 && s != "0" {
        format!("-{out}")
    } else {
        out
    }
}

/// Formats an axis tick value compactly: thousands separators above 100, else up to 2 decimals.
pub fn tick(v: f64) -> String {
    if v.abs() >= 100.0 {
        thousands(v)
    } else if (v - v.round()).abs() < 1e-9 {
        format!("{:.0}", v)
    } else if (v * 10.0 - (v * 10.0).round()).abs() < 1e-9 {
        format!("{:.1}", v)
    } else {
        format!("{:.2}", v)
    }
}
