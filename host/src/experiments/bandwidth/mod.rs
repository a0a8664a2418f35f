//! Experiment 2, bandwidth vs occupancy: strided copies that trade threads for bytes in flight
//! per thread, every variant held at 2 blocks/SM by dynamic shared memory, against the
//! device-to-device copy (`cuMemcpyDtoD`) of the same buffer timed the same way.

mod claims;
mod row;

use kernels_gpu::variants::{MemcpyVariant, MEMCPY};

pub use row::{Bandwidth, CopyRow};

use super::cells::{self, compared_columns, HasComparison};
use super::contract::{table_order, Experiment, MergeRow, Merged, ModuleNames, RunContext};
use super::copy::{copy_gbps, CopyBuffers};
use super::module_source::{load, plan_files, Kernels, Needs};
use super::residency::BLOCKS_PER_SM;
use super::{comparison, progress_bar, ExperimentError, InVariant};
use crate::claim::Verdict;
use crate::cuda::Gpu;
use crate::figure::{
    finish_labels, peak_label, push_module_series, Figure, PlotRow, PlotRun, ReferenceLine,
    ScatterPlot, XScale,
};
use crate::flags::{own_labels, select, CliError, CopySize, ModuleFiles, Shared};
use crate::results::{Comparison, RunMeta};
use crate::table::{columns_table, extra_row, Column, Kind, TableData, Value};
use kernels_gpu::variants::MemcpyParams;

/// Experiment 2.
pub struct Spec;

/// `host bandwidth`.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct Args {
    /// memcpy variants to run, by label (comma-separated); default all.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub variants: Vec<String>,
    #[command(flatten)]
    pub size: CopySize,
    #[command(flatten)]
    pub modules: ModuleFiles,
}

/// What experiment 2 adds to `host all`: the copy size.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct AllArgs {
    #[command(flatten)]
    pub size: CopySize,
}

/// Experiment 2, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub variants: Vec<&'static MemcpyVariant>,
    /// Bytes of each of the copy's source and destination.
    pub bytes: u64,
    pub kernels: Kernels,
    pub compare: Option<Kernels>,
    pub compare_label: Option<String>,
}

impl HasComparison for CopyRow {
    fn comparison(&self) -> Option<&Comparison> {
        self.compare.as_ref()
    }
}

const GBPS: Kind = Kind::Rate {
    unit: "GB/s",
    decimals: 1,
};

impl Experiment for Spec {
    const NAME: &'static str = "bandwidth";
    const NUMBER: u8 = 2;
    const ABOUT: &'static str =
        "Experiment 2: bandwidth vs occupancy (strided copies held at 2 blocks/SM)";
    const SECTION: &'static str = "Experiment 2: bandwidth vs occupancy (strided copy)";

    type Args = Args;
    type AllArgs = AllArgs;
    type Plan = Plan;
    type Output = Bandwidth;
    type Row = CopyRow;

    fn variant_labels() -> Vec<&'static str> {
        MEMCPY.iter().map(|v| v.label).collect()
    }

    fn plan(a: &Args) -> Result<Plan, CliError> {
        planned(
            &a.variants,
            a.size.copy_mib,
            (&a.modules.module, &a.modules.compare),
            &a.modules.compare_label,
        )
    }

    fn plan_in_all(s: &Shared, a: &AllArgs) -> Result<Plan, CliError> {
        let own = own_labels(&s.variants, &Self::variant_labels());
        planned(
            &own,
            a.size.copy_mib,
            (&s.module, &s.compare),
            &s.compare_label,
        )
    }

    fn modules(p: &Plan) -> ModuleNames {
        ModuleNames::of(&p.kernels, p.compare.as_ref(), &p.compare_label)
    }

    fn record(p: &Plan, meta: &mut RunMeta) {
        meta.copy_bytes = p.bytes;
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Bandwidth, ExperimentError> {
        let total = gpu.info().total_mem_bytes;
        if p.bytes.saturating_mul(2) > total {
            return Err(ExperimentError::CopyTooLarge {
                mib: p.bytes >> 20,
                have_mib: total >> 20,
                max_mib: ((total / 2) >> 20).saturating_sub(256),
            });
        }
        let ours = load(gpu, &p.kernels)?;
        let theirs = p.compare.as_ref().map(|k| load(gpu, k)).transpose()?;
        let floats = (p.bytes / 4) as usize;
        let mut buffers = CopyBuffers::new(gpu, floats, ctx.seed.wrapping_add(10))?;
        let bar = progress_bar(ctx, p.variants.len() + 1, Self::NAME);
        bar.set_message("cuMemcpyDtoD");
        let reference_timing = buffers
            .time_reference(gpu, &ctx.timing)
            .in_variant("cuMemcpyDtoD")?;
        let reference_gbps = copy_gbps(buffers.bytes(), reference_timing.median_ms);
        bar.inc(1);
        let mut rows = Vec::with_capacity(p.variants.len());
        for variant in &p.variants {
            bar.set_message(variant.label);
            let (kernel, other) = ours
                .entry_pair(theirs.as_ref(), variant.entry)
                .in_variant(variant.label)?;
            let (measured, compared, dyn_smem) = buffers
                .measure(
                    gpu,
                    (&kernel, other.as_ref()),
                    variant,
                    BLOCKS_PER_SM,
                    &ctx.timing,
                )
                .in_variant(variant.label)?;
            let mut flags = measured.flags.clone();
            let compare = comparison(&measured, compared.map(|m| (m, None, None)), &mut flags);
            rows.push(CopyRow {
                variant: variant.label.to_owned(),
                threads: variant.threads,
                loads: variant.loads,
                width: variant.width,
                bytes_per_thread: variant.bytes_per_thread(),
                regs: measured.regs,
                dyn_smem_bytes: dyn_smem,
                blocks_per_sm: measured.blocks_per_sm,
                occupancy: measured.occupancy,
                limiter: measured.limiter,
                timing: measured.timing,
                gbps: measured.throughput,
                fraction_of_reference: measured.throughput / reference_gbps,
                check: measured.check,
                flags,
                compare,
            });
            bar.inc(1);
        }
        bar.finish_and_clear();
        Ok(Bandwidth {
            reference_gbps,
            reference_timing,
            rows,
        })
    }

    fn rows(output: &Bandwidth) -> &[CopyRow] {
        &output.rows
    }

    fn columns() -> Vec<Column<CopyRow>> {
        let mut c: Vec<Column<Self::Row>> = vec![
            Column::new("Variant", Kind::Text, |r| Value::Text(r.variant.clone())),
            Column::new("Threads/block", Kind::Count, |r| {
                Value::Int(r.threads.into())
            }),
            Column::new("Loads x width", cells::LOADS_X_WIDTH, |r| {
                Value::pair(r.loads.into(), r.width.into())
            }),
            Column::new("Bytes/thread", Kind::Bytes, |r| {
                Value::Int(r.bytes_per_thread.into())
            }),
            Column::new("Regs/thread", Kind::Count, |r| Value::Int(r.regs.into())),
            Column::new("Theo. occ", Kind::Percent, |r| Value::Float(r.occupancy)),
            Column::new("GB/s", GBPS, |r| cells::rate(r.gbps, &r.flags)),
            Column::new("% of D2D copy", Kind::Percent, |r| {
                Value::Float(r.fraction_of_reference)
            }),
            Column::new("Blocks/SM", Kind::Count, |r| {
                Value::Int(r.blocks_per_sm.into())
            }),
            Column::new("Dyn smem (B)", Kind::Bytes, |r| {
                Value::Int(r.dyn_smem_bytes.into())
            }),
            Column::new("Limiter", Kind::Text, |r| Value::Text(r.limiter.clone())),
            Column::new("ms/call", Kind::Duration, |r| cells::timing(&r.timing)),
            Column::new("Verified", Kind::Check, |r| cells::check(&r.check)),
        ];
        c.extend(compared_columns("GB/s", "GB/s", 1));
        c
    }

    fn title(m: &RunMeta) -> String {
        format!(
            "2. Bandwidth vs occupancy ({} MiB copy, {})",
            m.copy_bytes >> 20,
            m.sampling_words()
        )
    }

    /// The rows, then the device-to-device copy itself as the last row.
    fn table(b: &Bandwidth, meta: &RunMeta) -> TableData {
        let columns = Self::columns();
        let mut t = columns_table(&Self::title(meta), &columns, &b.rows);
        extra_row(
            &mut t,
            "D2D copy",
            &[],
            &[
                ("Variant", Value::Text("D2D copy".into())),
                ("GB/s", Value::Float(b.reference_gbps)),
                ("% of D2D copy", Value::Float(1.0)),
                ("ms/call", cells::timing(&b.reference_timing)),
            ],
        );
        t.notes.push(
            "GB/s count bytes read + bytes written (1e9 B); D2D copy = cuMemcpyDtoD of the same \
             buffer, timed the same way; every variant held at 2 blocks/SM by dynamic shared \
             memory"
                .to_owned(),
        );
        t
    }

    fn failed_checks(output: &Bandwidth) -> Vec<String> {
        let mut out = Vec::new();
        for r in &output.rows {
            cells::failed(r.variant.clone(), &r.check, r.compare.as_ref(), &mut out);
        }
        out
    }

    fn claims(output: Option<&Bandwidth>) -> Vec<Verdict> {
        claims::claims(output)
    }

    /// Theoretical occupancy (%, log) vs GB/s, the measured copy bandwidth as a line.
    fn figures(runs: &[PlotRun<'_, Bandwidth>]) -> Vec<(String, Figure)> {
        Self::figure(runs)
            .map(|f| (Self::NAME.to_owned(), f))
            .into_iter()
            .collect()
    }
    fn merged(output: &Bandwidth) -> Merged {
        Merged {
            unit: "GB/s",
            decimals: 1,
            reference: Some(("copy reference", output.reference_gbps)),
            rows: output
                .rows
                .iter()
                .map(|r| MergeRow {
                    key: r.variant.clone(),
                    ours: (r.gbps, r.occupancy),
                    theirs: r.compare.as_ref().map(|c| (c.throughput, r.occupancy)),
                })
                .collect(),
        }
    }

    fn key_order(seen: Vec<String>) -> Vec<String> {
        table_order(MEMCPY.iter().map(|v| v.label), seen)
    }
}

/// The plan of the copies `list` names (all when empty) from `--copy-mib` and the module files,
/// for `host bandwidth` and `host all` alike.
fn planned(
    list: &[String],
    copy_mib: u64,
    (module, compare): (&Option<std::path::PathBuf>, &Option<std::path::PathBuf>),
    compare_label: &Option<String>,
) -> Result<Plan, CliError> {
    let variants = select(list, MEMCPY, |v| v.label, "memcpy")?;
    let entries: Vec<&str> = variants.iter().map(|v| v.entry).collect();
    let (kernels, compare, compare_label) = plan_files(
        ("--module", module),
        ("--compare", compare),
        compare_label,
        Needs {
            entries: &entries,
            signature: MemcpyParams::PARAMS,
        },
    )?;
    Ok(Plan {
        variants,
        bytes: copy_mib << 20,
        kernels,
        compare,
        compare_label,
    })
}

impl Spec {
    fn figure(runs: &[PlotRun<'_, Bandwidth>]) -> Option<Figure> {
        let mut series = Vec::new();
        let mut references = Vec::new();
        for run in runs {
            let bw = run.output;
            let first = series.len();
            let rows: Vec<PlotRow<'_>> = bw
                .rows
                .iter()
                .map(|r| PlotRow {
                    occupancy: r.occupancy,
                    throughput: r.gbps,
                    variant: &r.variant,
                    check: &r.check,
                    compare: r.compare.as_ref(),
                })
                .collect();
            push_module_series(&mut series, run, &rows);
            if bw.reference_gbps > 0.0 {
                references.push(ReferenceLine {
                    label: format!(
                        "{} GB/s",
                        peak_label(
                            "copy reference",
                            runs.len(),
                            &run.device.name,
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
        Some(Figure::Scatter(ScatterPlot {
            title: "Experiment 2: copy bandwidth vs occupancy".into(),
            x_label: "Theoretical occupancy (%, log scale)".into(),
            y_label: "GB/s (read + written)".into(),
            x_scale: XScale::Log,
            x_unit_suffix: "%".into(),
            series,
            references,
        }))
    }
}
