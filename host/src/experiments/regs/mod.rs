//! The `regs` experiment, register pressure: one GEMM line (the table's `REGS.variant`, or any
//! FP32 or BF16 line named by `--variant`: `line.rs`) rebuilt under each register cap; actual registers from the loaded function, spills and stack frame from
//! the compiler's own report (the JIT's info log, or a `ptxas -v` report beside a cubin). The
//! pairs seed 001's and 002's verdicts compare are timed again where both run whole waves
//! (`crate::experiments::whole_waves`), and judged there.

mod builds;
mod claims;
mod line;
mod row;
mod run;
mod spec;
mod wave_claims;
#[cfg(test)]
mod wave_claims_test;

use kernels_gpu::variants::REGS;

pub use line::CappedLine;
pub use row::RegsRow;
pub use spec::{AllArgs, Args, Plan, Spec};

use super::bf16_gemm::Bf16GemmBuffers;
use super::cells;
use super::contract::{Registered, Report, Row, Run, RunContext, GFLOPS};
use super::error::ExperimentError;
use super::gemm::GemmBuffers;
use super::gemm_check_notes;
use super::gemm_figure_columns::{
    schedule_notes, shown_columns, trace_columns, trace_notes, wave_columns,
};
use super::scatter::named;
use super::whole_waves::whole_wave_notes;
use crate::claim::{Rules, Verdict};
use crate::cuda::Gpu;
use crate::figure::{finish_labels, Figure, LabelledPoint, PlotRun, RegsSeries};
use crate::kernel_source::name::ModuleSource;
use crate::results::{Check, RunMeta};
use crate::table::{columns_table, Column, Kind, TableData, Value};

fn spill(x: u32, unknown: bool) -> Value {
    if unknown {
        Value::NotAvailable
    } else {
        Value::Int(x.into())
    }
}

fn other_spills(r: &RegsRow) -> Value {
    match &r.measured.compare {
        Some(c) => match (c.spill_stores, c.spill_loads) {
            (Some(s), Some(l)) => Value::pair(s.into(), l.into()),
            _ => Value::NotAvailable,
        },
        None => Value::Empty,
    }
}

/// How a module's register caps were applied: `.maxnreg` in the built-in PTX; a folder's files
/// were capped by their own build (nvcc: `-maxrregcount`).
fn cap_mechanism(module: &ModuleSource) -> &'static str {
    match module {
        ModuleSource::BuiltIn => "`.maxnreg`",
        _ => "its build's cap, e.g. `-maxrregcount`",
    }
}

impl Run for Spec {
    const ABOUT: &'static str = "register pressure (one SGEMM variant under each register cap)";

    /// The variant it caps, the caps the built-in kernels were built for, and the check.
    fn help() -> String {
        format!(
            "Variant {} under register caps (--variant: any of {}); built-in caps (the variant \
             table's, and any in 16..=255 for another line): {}\n\n{}",
            REGS.variant,
            CappedLine::labels().join(", "),
            super::module_source::builtin_caps(),
            gemm_check_notes::help_of(
                "each capped build of ours, and --compare's; cuBLAS is not timed here",
                &format!(
                    "an FP32 line under {}; a BF16 line under the tensor-core rule \
                     (`host gemm_bf16 --help`)",
                    super::gemm_check::rule()
                )
            )
        )
    }

    fn builtin_ptx() -> &'static [&'static str] {
        use crate::kernel_source::builtin::{CHECKS, MAIN};
        &[MAIN, CHECKS]
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Vec<RegsRow>, ExperimentError> {
        match p.line {
            CappedLine::Fp32(v) => {
                let at = |size| GemmBuffers::new(gpu, size, ctx.seed);
                let mut buffers = at(p.size)?;
                run::every_cap(gpu, ctx, p, (&mut buffers, &at), v)
            }
            CappedLine::Bf16(v) => {
                let at = |size| Ok(Bf16GemmBuffers::new(gpu, size, ctx.seed)?);
                let mut buffers = at(p.size)?;
                run::every_cap(gpu, ctx, p, (&mut buffers, &at), v)
            }
        }
    }
}

impl Report for Spec {
    const SECTION: &'static str = "register cap vs throughput";

    fn columns() -> Vec<Column<RegsRow>> {
        let mut c: Vec<Column<RegsRow>> = vec![
            Column::new("Cap", Kind::Count, |r| Value::Int(r.cap.into())),
            Column::new("Actual regs", Kind::Count, |r| {
                Value::Int(r.figures.regs.into())
            }),
            Column::new("Theo. occ", Kind::Percent, |r| {
                Value::Float(r.figures.occupancy)
            }),
            Column::new("ms/call", Kind::Duration, |r| {
                cells::timing(&r.figures.timing)
            }),
            Column::new("GFLOP/s", GFLOPS.kind(), |r| {
                cells::rate(r.figures.gflops, &r.measured.flags)
            }),
            Column::new("Spill stores (B)", Kind::Bytes, |r| {
                spill(r.spill_stores, r.spills_unknown)
            }),
            Column::new("Spill loads (B)", Kind::Bytes, |r| {
                spill(r.spill_loads, r.spills_unknown)
            }),
            Column::new("Stack frame (B)", Kind::Bytes, |r| {
                Value::Int(r.stack_frame.into())
            }),
            Column::new("Blocks/SM", Kind::Count, |r| {
                Value::Int(r.figures.blocks_per_sm.into())
            }),
            Column::new("Limiter", Kind::Text, |r| {
                Value::Text(r.figures.limiter.clone())
            }),
        ];
        c.extend(wave_columns());
        c.extend(trace_columns());
        c.push(Column::new("Verified", Kind::Check, |r| {
            cells::check(&r.measured.check)
        }));
        c.extend(GFLOPS.compared_columns());
        c.push(Column::compared(
            "spill st/ld",
            cells::SPILLS_STORES_LOADS,
            other_spills,
        ));
        c
    }

    /// Names the GEMM size and how each module's caps were applied.
    fn title(m: &RunMeta) -> String {
        let ours = cap_mechanism(m.module.of_experiment(Self::NAME));
        let theirs = match (&m.compare_module, m.compare_name()) {
            (Some(c), Some(name)) => {
                format!("; {name}: {}", cap_mechanism(c.of_experiment(Self::NAME)))
            }
            _ => String::new(),
        };
        let line = CappedLine::of_run(m);
        format!(
            "Register pressure ({} {}, variant {} under register caps; ours: {ours}{theirs})",
            line.gemm_name(),
            m.gemm_title(),
            line.label()
        )
    }

    /// The rows under their columns (the schedule's only where the run recorded it), then the
    /// notes.
    fn table(rows: &Vec<RegsRow>, meta: &RunMeta) -> TableData {
        let columns = shown_columns(Self::columns(), rows);
        let mut t = columns_table(&Self::title(meta), &columns, rows);
        t.notes.extend(Self::notes(rows));
        t
    }

    fn notes(rows: &Vec<RegsRow>) -> Vec<String> {
        let mut notes: Vec<String> = gemm_check_notes::note(rows.iter().flat_map(|r| {
            let m = &r.measured;
            std::iter::once(&m.check).chain(m.compare.as_ref().map(|c| &c.check))
        }))
        .into_iter()
        .collect();
        notes.extend(schedule_notes(rows, false));
        notes.extend(trace_notes(rows));
        notes.extend(whole_wave_notes(
            (rows.iter()).map(|r| (r.label(), &r.figures, &r.whole_waves[..])),
        ));
        if rows.iter().any(|r| r.spills_unknown) {
            notes.push(
                "n/a: the module is a cubin with no ptxas report beside it; stack frame is the \
                 function's local memory"
                    .to_owned(),
            );
        }
        notes
    }

    fn claims(output: Option<&Vec<RegsRow>>) -> Vec<Verdict> {
        claims::claims(output.map(Vec::as_slice))
    }

    fn claims_under(output: Option<&Vec<RegsRow>>, rules: Rules) -> Vec<Verdict> {
        claims::claims_under(output.map(Vec::as_slice), rules)
    }

    /// Register cap vs GFLOP/s with spill bytes as bars.
    fn figures(runs: &[PlotRun<'_, Vec<RegsRow>>]) -> Vec<(String, Figure)> {
        named(Self::NAME, Self::figure(runs))
    }

    /// Caps in numeric order.
    fn key_order(seen: Vec<String>) -> Vec<String> {
        let cap = |k: &String| {
            k.trim_start_matches("cap ")
                .parse::<u32>()
                .unwrap_or(u32::MAX)
        };
        let mut keys = seen;
        keys.sort_by_key(cap);
        keys.dedup();
        keys
    }
}

impl Spec {
    fn figure(runs: &[PlotRun<'_, Vec<RegsRow>>]) -> Option<Figure> {
        let mut out = Vec::new();
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
        // One series of a module's builds: (cap, GFLOP/s, registers, check, spill bytes).
        type Build<'a> = (u32, f64, u32, &'a Check, Option<f64>);
        let series = |name: String, builds: Vec<Build<'_>>| RegsSeries {
            name,
            points: (builds.iter())
                .map(|&(cap, y, regs, check, _)| LabelledPoint {
                    x: cap as f64,
                    y,
                    label: cap_label(cap, regs, check),
                })
                .collect(),
            spills: (builds.iter())
                .map(|&(cap, .., bytes)| (cap as f64, bytes))
                .collect(),
        };
        for run in runs {
            let ours = (run.output.iter())
                .map(|r| {
                    let bytes = (r.spill_stores + r.spill_loads) as f64;
                    let f = &r.figures;
                    let spills = (!r.spills_unknown).then_some(bytes);
                    (r.cap, f.gflops, f.regs, &r.measured.check, spills)
                })
                .collect();
            out.push(series(run.name.to_string(), ours));
            let theirs: Vec<Build<'_>> = (run.output.iter())
                .filter_map(|r| {
                    let c = r.measured.compare.as_ref()?;
                    let spills = c.spill_stores.zip(c.spill_loads);
                    let bytes = spills.map(|(s, l)| (s + l) as f64);
                    Some((r.cap, c.throughput, c.regs, &c.check, bytes))
                })
                .collect();
            if let (Some(cn), false) = (run.compare_name, theirs.is_empty()) {
                out.push(series(cn.to_string(), theirs));
            }
        }
        if out.is_empty() {
            return None;
        }
        finish_labels(&mut out, |s| &mut s.points);
        Some(Figure::Regs {
            title: format!(
                "Experiment {}: register cap on GEMM variant {}",
                Self::NUMBER,
                runs.first()
                    .map_or(REGS.variant, |r| CappedLine::of_run(r.meta).label())
            ),
            series: out,
        })
    }
}
