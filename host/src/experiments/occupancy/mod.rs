//! Experiment 1, occupancy vs throughput: every GEMM variant (same 64x64 tile per block, a
//! larger per-thread sub-tile means fewer threads and more registers), theoretical occupancy
//! from the driver, GFLOP/s from CUDA events.

mod claims;
#[cfg(test)]
mod column_test;
mod row;

use kernels_gpu::variants::{GemmFamily, GemmVariant, GEMM};

pub use row::GemmRow;

use super::cells::{self, compared_columns, HasComparison};
use super::contract::{table_order, Experiment, MergeRow, Merged, ModuleNames, RunContext};
use super::gemm::GemmBuffers;
use super::module_source::{load, plan_files, Kernels, Needs};
use super::{comparison, progress_bar, ExperimentError, InVariant};
use crate::claim::Verdict;
use crate::cuda::Gpu;
use crate::figure::{
    finish_labels, peak_label, push_module_series, Figure, PlotRow, PlotRun, ReferenceLine,
    ScatterPlot, XScale,
};
use crate::flags::{own_labels, select, CliError, GemmSize, ModuleFiles, Shared};
use crate::results::{Comparison, RunMeta};
use crate::table::{Column, Kind, Value};
use kernels_gpu::variants::GemmParams;

/// Experiment 1.
pub struct Spec;

/// `host occupancy`.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct Args {
    /// GEMM variants to run, by label (comma-separated); default all.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub variants: Vec<String>,
    #[command(flatten)]
    pub gemm: GemmSize,
    #[command(flatten)]
    pub modules: ModuleFiles,
}

/// Experiment 1 adds no flags to `host all` (it reads `--variants`, `--size`, `--module`,
/// `--compare`).
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct AllArgs {}

/// Experiment 1, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub variants: Vec<&'static GemmVariant>,
    /// M = N = K, a multiple of the block tile.
    pub size: u32,
    pub kernels: Kernels,
    pub compare: Option<Kernels>,
    pub compare_label: Option<String>,
}

impl HasComparison for GemmRow {
    fn comparison(&self) -> Option<&Comparison> {
        self.compare.as_ref()
    }
}

const GFLOPS: Kind = Kind::Rate {
    unit: "GFLOP/s",
    decimals: 0,
};

impl Experiment for Spec {
    const NAME: &'static str = "occupancy";
    const NUMBER: u8 = 1;
    const ABOUT: &'static str = "Experiment 1: occupancy vs throughput (the SGEMM variants)";
    const SECTION: &'static str = "Experiment 1: occupancy vs throughput (GEMM tiles)";

    type Args = Args;
    type AllArgs = AllArgs;
    type Plan = Plan;
    type Output = Vec<GemmRow>;
    type Row = GemmRow;

    fn variant_labels() -> Vec<&'static str> {
        GEMM.iter()
            .filter(|v| v.family == GemmFamily::Seed)
            .map(|v| v.label)
            .collect()
    }

    fn plan(a: &Args) -> Result<Plan, CliError> {
        let variants = seed_only(&a.variants)?;
        let entries: Vec<&str> = variants.iter().map(|v| v.entry).collect();
        let (kernels, compare, compare_label) = plan_files(
            ("--module", &a.modules.module),
            ("--compare", &a.modules.compare),
            &a.modules.compare_label,
            Needs {
                entries: &entries,
                signature: GemmParams::PARAMS,
            },
        )?;
        Ok(Plan {
            variants,
            size: a.gemm.size,
            kernels,
            compare,
            compare_label,
        })
    }

    fn plan_in_all(s: &Shared, _: &AllArgs) -> Result<Plan, CliError> {
        let own = own_labels(&s.variants, &Self::variant_labels());
        let variants = seed_only(&own)?;
        let entries: Vec<&str> = variants.iter().map(|v| v.entry).collect();
        let (kernels, compare, compare_label) = plan_files(
            ("--module", &s.module),
            ("--compare", &s.compare),
            &s.compare_label,
            Needs {
                entries: &entries,
                signature: GemmParams::PARAMS,
            },
        )?;
        Ok(Plan {
            variants,
            size: s.gemm.size,
            kernels,
            compare,
            compare_label,
        })
    }

    fn modules(p: &Plan) -> ModuleNames {
        ModuleNames {
            ours: p.kernels.describe(),
            theirs: p.compare.as_ref().map(Kernels::describe),
            label: p.compare_label.clone(),
        }
    }

    fn record(p: &Plan, meta: &mut RunMeta) {
        meta.gemm_size = p.size;
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Vec<GemmRow>, ExperimentError> {
        let ours = load(gpu, &p.kernels)?;
        let theirs = p.compare.as_ref().map(|k| load(gpu, k)).transpose()?;
        let mut buffers = GemmBuffers::new(gpu, p.size, ctx.seed)?;
        let bar = progress_bar(ctx, p.variants.len(), Self::NAME);
        let mut rows = Vec::with_capacity(p.variants.len());
        for variant in &p.variants {
            bar.set_message(variant.label);
            let (kernel, other) = ours
                .entry_pair(theirs.as_ref(), variant.entry)
                .in_variant(variant.label)?;
            let (measured, compared) = buffers
                .measure(gpu, &kernel, other.as_ref(), variant, &ctx.timing)
                .in_variant(variant.label)?;
            let mut flags = measured.flags.clone();
            let compare = comparison(&measured, compared.map(|m| (m, None, None)), &mut flags);
            rows.push(GemmRow {
                variant: variant.label.to_owned(),
                threads: variant.threads(),
                tm: variant.tm,
                tn: variant.tn,
                regs: measured.regs,
                blocks_per_sm: measured.blocks_per_sm,
                occupancy: measured.occupancy,
                limiter: measured.limiter,
                timing: measured.timing,
                gflops: measured.throughput,
                check: measured.check,
                flags,
                compare,
            });
            bar.inc(1);
        }
        bar.finish_and_clear();
        Ok(rows)
    }

    fn rows(output: &Vec<GemmRow>) -> &[GemmRow] {
        output
    }

    fn columns() -> Vec<Column<GemmRow>> {
        let mut c: Vec<Column<Self::Row>> = vec![
            Column::new("Variant", Kind::Text, |r| Value::Text(r.variant.clone())),
            Column::new("Threads/block", Kind::Count, |r| {
                Value::Int(r.threads.into())
            }),
            Column::new("Sub-tile TMxTN", Kind::Pair { sep: "x" }, |r| {
                Value::Pair(r.tm.into(), r.tn.into())
            }),
            Column::new("Regs/thread", Kind::Count, |r| Value::Int(r.regs.into())),
            Column::new("Theo. occ", Kind::Percent, |r| Value::Float(r.occupancy)),
            Column::new("GFLOP/s", GFLOPS, |r| cells::rate(r.gflops, &r.flags)),
            Column::new("Blocks/SM", Kind::Count, |r| {
                Value::Int(r.blocks_per_sm.into())
            }),
            Column::new("Limiter", Kind::Text, |r| Value::Text(r.limiter.clone())),
            Column::new("ms/call [min-max]", Kind::Duration, |r| {
                cells::timing(&r.timing)
            }),
            Column::new("Verified", Kind::Check, |r| cells::check(&r.check)),
        ];
        c.extend(compared_columns("Other GFLOP/s", "GFLOP/s", 0));
        #[cfg(test)]
        c.push(column_test::ACCUMULATORS);
        c
    }

    fn title(m: &RunMeta) -> String {
        format!(
            "1. Occupancy vs throughput (SGEMM M=N=K={}, {})",
            m.gemm_size,
            m.sampling_words()
        )
    }

    fn failed_checks(output: &Vec<GemmRow>) -> Vec<String> {
        let mut out = Vec::new();
        for r in output {
            cells::failed(r.variant.clone(), &r.check, r.compare.as_ref(), &mut out);
        }
        out
    }

    fn claims(output: Option<&Vec<GemmRow>>) -> Vec<Verdict> {
        claims::claims(output.map(Vec::as_slice))
    }

    /// Theoretical occupancy (%) vs GFLOP/s, the FP32 peak as a line.
    fn figures(runs: &[PlotRun<'_, Vec<GemmRow>>]) -> Vec<(String, Figure)> {
        Self::figure(runs)
            .map(|f| (Self::NAME.to_owned(), f))
            .into_iter()
            .collect()
    }
    fn merged(output: &Vec<GemmRow>) -> Merged {
        Merged {
            unit: "GFLOP/s",
            decimals: 0,
            reference: None,
            rows: output
                .iter()
                .map(|r| MergeRow {
                    key: r.variant.clone(),
                    ours: (r.gflops, r.occupancy),
                    theirs: r.compare.as_ref().map(|c| (c.throughput, r.occupancy)),
                })
                .collect(),
        }
    }

    fn key_order(seen: Vec<String>) -> Vec<String> {
        table_order(GEMM.iter().map(|v| v.label), seen)
    }
}

impl Spec {
    fn figure(runs: &[PlotRun<'_, Vec<GemmRow>>]) -> Option<Figure> {
        let mut series = Vec::new();
        let mut references: Vec<ReferenceLine> = Vec::new();
        for run in runs {
            let first = series.len();
            let rows: Vec<PlotRow<'_>> = run
                .output
                .iter()
                .map(|r| PlotRow {
                    occupancy: r.occupancy,
                    throughput: r.gflops,
                    variant: &r.variant,
                    check: &r.check,
                    compare: r.compare.as_ref(),
                })
                .collect();
            push_module_series(&mut series, run, &rows);
            let peak = run.device.peak_fp32_gflops;
            if peak > 0.0 && !references.iter().any(|r| (r.y - peak).abs() < 1e-6) {
                references.push(ReferenceLine {
                    label: peak_label("FP32 peak", runs.len(), &run.device.name, peak, 0),
                    y: peak,
                    series: (runs.len() > 1).then_some(first),
                });
            }
        }
        if series.is_empty() {
            return None;
        }
        finish_labels(&mut series, |s| &mut s.points);
        Some(Figure::Scatter(ScatterPlot {
            title: "Experiment 1: occupancy vs GEMM throughput".into(),
            x_label: "Theoretical occupancy (%)".into(),
            y_label: "GFLOP/s".into(),
            x_scale: XScale::Linear,
            x_unit_suffix: "%".into(),
            series,
            references,
        }))
    }
}

/// The GEMM lines `list` names (all of the seed family when empty): the host does not launch the
/// tuned family yet (its grid and dynamic shared memory differ).
fn seed_only(list: &[String]) -> Result<Vec<&'static GemmVariant>, CliError> {
    let mut variants = select(list, GEMM, |v| v.label, "GEMM")?;
    if let Some(v) = variants.iter().find(|v| v.family != GemmFamily::Seed) {
        if !list.iter().all(|l| l.trim().is_empty()) {
            return Err(CliError::UnknownVariant {
                kind: "GEMM (seed family)",
                label: v.label.to_owned(),
                valid: Spec::variant_labels().join(", "),
            });
        }
    }
    variants.retain(|v| v.family == GemmFamily::Seed);
    Ok(variants)
}
