//! What the three experiment plots show, built from one or more runs: one series per module per
//! run (a run with `--compare` gives two), labelled with the variant, plus the peak and reference
//! lines. `plots.rs` draws them.

use std::path::Path;

use super::error::ReportError;
use super::plots::{self, LabelledPoint, ReferenceLine, RegsSeries, ScatterPlot, Series, XScale};
use crate::results::{Check, Comparison, RunResults};

/// One run to plot, with the name its series carry.
#[derive(Debug, Clone, Copy)]
pub struct PlotRun<'a> {
    /// Series name of the run's own module (e.g. "H200 · rust (built-in)").
    pub name: &'a str,
    /// Series name of its compared module, when the run has one.
    pub compare_name: Option<&'a str>,
    pub results: &'a RunResults,
}

/// More than this many series and only the first is labelled point by point.
const LABELLED_SERIES: usize = 3;

fn label(variant: &str, check: &Check) -> String {
    if check.passed {
        variant.to_string()
    } else {
        format!("{variant} (check failed)")
    }
}

/// With more than [`LABELLED_SERIES`] series, drops the point labels of all but the first.
fn finish_labels<S>(series: &mut [S], points: impl Fn(&mut S) -> &mut Vec<LabelledPoint>) {
    if series.len() > LABELLED_SERIES {
        for s in series.iter_mut().skip(1) {
            for p in points(s) {
                p.label = None;
            }
        }
    }
}

/// One row of experiment 1 or 2 as its scatter plot sees it.
struct PlotRow<'r> {
    /// Theoretical occupancy, 0..=1.
    occupancy: f64,
    /// This module's figure: GFLOP/s or GB/s.
    throughput: f64,
    variant: &'r str,
    check: &'r Check,
    compare: Option<&'r Comparison>,
}

impl<'r> PlotRow<'r> {
    fn new(
        occupancy: f64,
        throughput: f64,
        variant: &'r str,
        check: &'r Check,
        compare: &'r Option<Comparison>,
    ) -> Self {
        Self {
            occupancy,
            throughput,
            variant,
            check,
            compare: compare.as_ref(),
        }
    }
}

/// Pushes the run's series over `rows` (x: occupancy in %), then, when the run was compared with
/// another module and some row has its figures, that module's series.
fn push_module_series(series: &mut Vec<Series>, run: &PlotRun<'_>, rows: &[PlotRow<'_>]) {
    let point = |r: &PlotRow<'_>, y: f64, check: &Check| LabelledPoint {
        x: r.occupancy * 100.0,
        y,
        label: Some(label(r.variant, check)),
    };
    let markers = |name: &str, points: Vec<LabelledPoint>| Series {
        name: name.to_string(),
        points,
        line: false,
        markers: true,
    };
    let own = rows.iter().map(|r| point(r, r.throughput, r.check));
    series.push(markers(run.name, own.collect()));
    if let Some(cn) = run.compare_name {
        let points: Vec<LabelledPoint> = rows
            .iter()
            .filter_map(|r| r.compare.map(|c| point(r, c.throughput, &c.check)))
            .collect();
        if !points.is_empty() {
            series.push(markers(cn, points));
        }
    }
}

/// Experiment 1: theoretical occupancy (%) vs GFLOP/s, FP32 peak as a line.
pub fn occupancy_plot(runs: &[PlotRun<'_>]) -> Option<ScatterPlot> {
    let mut series = Vec::new();
    let mut references: Vec<ReferenceLine> = Vec::new();
    for run in runs {
        let Some(rows) = &run.results.occupancy else {
            continue;
        };
        let first = series.len();
        let rows: Vec<PlotRow<'_>> = rows
            .iter()
            .map(|r| PlotRow::new(r.occupancy, r.gflops, &r.variant, &r.check, &r.compare))
            .collect();
        push_module_series(&mut series, run, &rows);
        let peak = run.results.device.peak_fp32_gflops;
        if peak > 0.0 && !references.iter().any(|r| (r.y - peak).abs() < 1e-6) {
            references.push(ReferenceLine {
                label: peak_label("FP32 peak", runs.len(), &run.results.device.name, peak, 0),
                y: peak,
                series: (runs.len() > 1).then_some(first),
            });
        }
    }
    if series.is_empty() {
        return None;
    }
    finish_labels(&mut series, |s| &mut s.points);
    Some(ScatterPlot {
        title: "Experiment 1: occupancy vs GEMM throughput".into(),
        x_label: "Theoretical occupancy (%)".into(),
        y_label: "GFLOP/s".into(),
        x_scale: XScale::Linear,
        x_unit_suffix: "%".into(),
        series,
        references,
    })
}

fn peak_label(what: &str, runs: usize, device: &str, value: f64, decimals: usize) -> String {
    let v = if decimals == 0 {
        plots::tick(value)
    } else {
        format!("{value:.decimals$}")
    };
    if runs > 1 {
        format!("{what} {device}: {v}")
    } else {
        format!("{what}: {v}")
    }
}

/// Experiment 2: theoretical occupancy (%, log) vs GB/s, the measured copy bandwidth as a line.
pub fn bandwidth_plot(runs: &[PlotRun<'_>]) -> Option<ScatterPlot> {
    let mut series = Vec::new();
    let mut references = Vec::new();
    for run in runs {
        let Some(bw) = &run.results.bandwidth else {
            continue;
        };
        let first = series.len();
        let rows: Vec<PlotRow<'_>> = bw
            .rows
            .iter()
            .map(|r| PlotRow::new(r.occupancy, r.gbps, &r.variant, &r.check, &r.compare))
            .collect();
        push_module_series(&mut series, run, &rows);
        if bw.reference_gbps > 0.0 {
            references.push(ReferenceLine {
                label: format!(
                    "{} GB/s",
                    peak_label(
                        "copy reference",
                        runs.len(),
                        &run.results.device.name,
                        bw.reference_gbps,
                        1
                    )
                ),
                y: bw.reference_gbps,
                series: (runs.len() > 1).then_some(first),
            });
        }
    }
    if series.is_empty() {
        return None;
    }
    finish_labels(&mut series, |s| &mut s.points);
    Some(ScatterPlot {
        title: "Experiment 2: copy bandwidth vs occupancy".into(),
        x_label: "Theoretical occupancy (%, log scale)".into(),
        y_label: "GB/s (read + written)".into(),
        x_scale: XScale::Log,
        x_unit_suffix: "%".into(),
        series,
        references,
    })
}

/// Experiment 3: register cap vs GFLOP/s with spill bytes as bars.
pub fn regs_series(runs: &[PlotRun<'_>]) -> Vec<RegsSeries> {
    let mut out = Vec::new();
    for run in runs {
        let Some(rows) = &run.results.regs else {
            continue;
        };
        let cap_label = |cap: u32, regs: u32, check: &Check| {
            let mut l = String::new();
            if regs != cap {
                l = format!("{regs} regs");
            }
            if !check.passed {
                l = format!("{l} (check failed)").trim().to_string();
            }
            (!l.is_empty()).then_some(l)
        };
        out.push(RegsSeries {
            name: run.name.to_string(),
            points: rows
                .iter()
                .map(|r| LabelledPoint {
                    x: r.cap as f64,
                    y: r.gflops,
                    label: cap_label(r.cap, r.regs, &r.check),
                })
                .collect(),
            spills: rows
                .iter()
                .map(|r| {
                    let bytes = (r.spill_stores + r.spill_loads) as f64;
                    (r.cap as f64, (!r.spills_unknown).then_some(bytes))
                })
                .collect(),
        });
        if let Some(cn) = run.compare_name {
            let with: Vec<_> = rows
                .iter()
                .filter_map(|r| r.compare.as_ref().map(|c| (r.cap, c)))
                .collect();
            if !with.is_empty() {
                out.push(RegsSeries {
                    name: cn.to_string(),
                    points: with
                        .iter()
                        .map(|(cap, c)| LabelledPoint {
                            x: *cap as f64,
                            y: c.throughput,
                            label: cap_label(*cap, c.regs, &c.check),
                        })
                        .collect(),
                    spills: with
                        .iter()
                        .map(|(cap, c)| {
                            let b = c
                                .spill_stores
                                .zip(c.spill_loads)
                                .map(|(s, l)| (s + l) as f64);
                            (*cap as f64, b)
                        })
                        .collect(),
                });
            }
        }
    }
    finish_labels(&mut out, |s| &mut s.points);
    out
}

/// File names of the three experiment plots.
pub const OCCUPANCY_SVG: &str = "occupancy.svg";
pub const BANDWIDTH_SVG: &str = "bandwidth.svg";
pub const REGS_SVG: &str = "regs.svg";

/// Draws the experiment plots that have data into `dir`; returns the file names written.
pub fn draw_all(runs: &[PlotRun<'_>], dir: &Path) -> Result<Vec<&'static str>, ReportError> {
    let mut written = Vec::new();
    if let Some(p) = occupancy_plot(runs) {
        plots::scatter(&p, &dir.join(OCCUPANCY_SVG))?;
        written.push(OCCUPANCY_SVG);
    }
    if let Some(p) = bandwidth_plot(runs) {
        plots::scatter(&p, &dir.join(BANDWIDTH_SVG))?;
        written.push(BANDWIDTH_SVG);
    }
    let regs = regs_series(runs);
    if !regs.is_empty() {
        let variant = kernels_gpu::variants::REGS.variant;
        let title = format!("Experiment 3: register cap on GEMM variant {variant}");
        plots::regs(&title, &regs, &dir.join(REGS_SVG))?;
        written.push(REGS_SVG);
    }
    Ok(written)
}
