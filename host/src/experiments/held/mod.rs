//! `held`, occupancy apart from code generation: fixed binaries (GEMM lines C, D and R4, and
//! the cap-128 build of the register experiment's line) each run at every residency from one
//! block per SM to the most it reaches, held there by the dynamic shared memory of its launch as
//! the bandwidth experiment holds its copies, so that only occupancy changes, never the code.
//! Throughput is plotted against occupancy per binary (each point labelled with its last wave's
//! tail), and the verdict says whether a binary needs its highest occupancy for its best
//! throughput: on a pair fixed before the data (its most blocks/SM against three quarters of
//! them), timed again where both run whole waves, so that it does not measure the tail.
//!
//! Layout: [`binary`] (the binaries and their lines), [`row`], [`claims`] (the verdict), and
//! [`run`], the one file that touches the driver.

mod binary;
mod claims;
mod row;
mod run;
mod spec;

use binary::BINARIES;
pub use row::HeldRow;
pub use spec::{AllArgs, Args, Plan, Spec};

use super::cells;
use super::contract::{Registered, Report, Row, Run, RunContext, GFLOPS};
use super::error::ExperimentError;
use super::gemm_figure_columns::{
    schedule_notes, shown_columns, trace_columns, trace_notes, wave_columns,
};
use super::whole_waves::whole_wave_notes;
use crate::claim::Verdict;
use crate::cuda::Gpu;
use crate::figure::{Figure, LabelledPoint, Labels, PlotRun, ScatterPlot, Series, XScale};
use crate::results::RunMeta;
use crate::table::{columns_table, percent_with, Column, Kind, TableData, Value};

impl Run for Spec {
    const ABOUT: &'static str =
        "occupancy apart from code generation (fixed GEMM binaries held at each blocks/SM)";

    fn variant_labels() -> Vec<&'static str> {
        BINARIES.iter().map(|b| b.0).collect()
    }

    /// Its binaries: lines of the variant table, `@N` a line's build under a register cap of N.
    fn help() -> String {
        format!(
            "Binaries (lines of the variant table; LINE@N: the line built under a cap of N \
             registers): {}",
            Self::variant_labels().join(", ")
        )
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Vec<HeldRow>, ExperimentError> {
        run::run(gpu, ctx, p)
    }

    fn builtin_ptx() -> &'static [&'static str] {
        use crate::kernel_source::builtin::{CHECKS, MAIN};
        &[MAIN, CHECKS]
    }
}

impl Report for Spec {
    const SECTION: &'static str = "occupancy apart from code generation";

    fn columns() -> Vec<Column<HeldRow>> {
        let mut c = vec![
            Column::new("Binary", Kind::Text, |r: &HeldRow| {
                Value::Text(r.binary.clone())
            }),
            Column::new("Regs/thread", Kind::Count, |r| {
                Value::Int(r.figures.regs.into())
            }),
            Column::new("Blocks/SM", Kind::Count, |r| {
                Value::Int(r.figures.blocks_per_sm.into())
            }),
            Column::new("Dyn smem B", Kind::Count, |r| Value::Int(r.dyn_smem.into())),
            Column::new("Theo. occ", Kind::Percent, |r| {
                Value::Float(r.figures.occupancy)
            }),
            Column::new("GFLOP/s", GFLOPS.kind(), |r| {
                cells::rate(r.figures.gflops, &r.measured.flags)
            }),
            Column::new("ms/call", Kind::Duration, |r| {
                cells::timing(&r.figures.timing)
            }),
        ];
        c.extend(wave_columns());
        c.extend(trace_columns());
        c.push(Column::new("Verified", Kind::Check, |r| {
            cells::check(&r.measured.check)
        }));
        c.extend(GFLOPS.compared_columns());
        c
    }

    fn title(m: &RunMeta) -> String {
        format!(
            "Fixed SGEMM binaries held at each blocks/SM by dynamic shared memory ({}, {})",
            m.gemm_title(),
            m.sampling_words()
        )
    }

    /// The rows under their columns, the schedule's only where the run recorded it.
    fn table(rows: &Vec<HeldRow>, meta: &RunMeta) -> TableData {
        let columns = shown_columns(Self::columns(), rows);
        let mut t = columns_table(&Self::title(meta), &columns, rows);
        t.notes.extend(schedule_notes(rows, false));
        t.notes.extend(trace_notes(rows));
        t.notes.extend(whole_wave_notes(
            (rows.iter()).map(|r| (r.label(), &r.figures, &r.whole_waves[..])),
        ));
        t
    }

    fn claims(rows: Option<&Vec<HeldRow>>) -> Vec<Verdict> {
        claims::verdicts(rows)
    }

    fn figures(runs: &[PlotRun<'_, Vec<HeldRow>>]) -> Vec<(String, Figure)> {
        let mut series = Vec::new();
        for run in runs {
            for (label, _, _) in BINARIES {
                let points: Vec<LabelledPoint> = run
                    .output
                    .iter()
                    .filter(|r| r.binary == label)
                    .map(|r| {
                        let point =
                            LabelledPoint::at(r.figures.occupancy * 100.0, r.figures.gflops);
                        // Each point's tail, where the run recorded its waves: a point on a
                        // partial last wave is slower for the tail, not for its occupancy.
                        let tail = r.figures.waves().map(|w| w.tail_efficiency());
                        LabelledPoint {
                            label: tail.map(|t| format!("tail {}", percent_with(t, 0))),
                            ..point
                        }
                    })
                    .collect();
                if points.is_empty() {
                    continue;
                }
                let name = match runs.len() {
                    1 => label.to_owned(),
                    _ => format!("{label} · {}", run.name),
                };
                series.push(Series::joined(name, points));
            }
        }
        if series.is_empty() {
            return Vec::new();
        }
        let plot = ScatterPlot {
            labels: Labels::new(
                format!(
                    "Experiment {}: GFLOP/s vs occupancy, each binary fixed",
                    Self::NUMBER
                ),
                "theoretical occupancy (%)",
                "GFLOP/s",
            ),
            x_scale: XScale::Linear,
            x_unit_suffix: "%".into(),
            series,
            references: Vec::new(),
        };
        vec![(Self::NAME.to_owned(), Figure::Scatter(plot))]
    }
}

#[cfg(test)]
mod tests;
