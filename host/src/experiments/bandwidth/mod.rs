//! The `bandwidth` experiment, bandwidth vs occupancy: strided copies that trade threads for bytes
//! in flight per thread, every variant held at 2 blocks/SM by dynamic shared memory, against the
//! device-to-device copy (`cuMemcpyDtoD`) of the same buffer timed the same way.

mod claims;
mod row;

use kernels_gpu::variants::{MemcpyParams, MemcpyVariant, MEMCPY};

pub use row::{Bandwidth, CopyRow};

use super::cells;
use super::contract::{self, Registered, Report, Run, RunContext, GBPS};
use super::copy::{check_fits, copy_gbps, CopyBuffers, CopyKernel};
use super::error::{ExperimentError, InVariant};
use super::measured::Measured;
use super::module_source::plan_files;
use super::progress::progress_bar;
use super::residency::BLOCKS_PER_SM;
use super::scatter::{named, occupancy_scatter, Axes, Reference};
use crate::claim::{Rules, Verdict};
use crate::cuda::Gpu;
use crate::figure::{Figure, PlotRun, XScale};
use crate::flags::{own_labels, select, CliError, CopySize, ModuleFiles, Shared, VariantRun};
use crate::kernel_source::sources::{Kernels, Needs, Sources};
use crate::results::RunMeta;
use crate::table::{columns_table, extra_row, Column, Kind, TableData, Value};

/// The `bandwidth` experiment.
pub struct Spec;

/// `host bandwidth`.
pub type Args = VariantRun<CopySize>;

/// What the `bandwidth` experiment adds to `host all`: the copy size.
pub type AllArgs = CopySize;

/// The `bandwidth` experiment, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub variants: Vec<&'static MemcpyVariant>,
    /// Bytes of each of the copy's source and destination.
    pub bytes: u64,
    pub sources: Sources<Kernels>,
}

impl contract::Plan for Plan {
    type Args = Args;
    type AllArgs = AllArgs;
    type Output = Bandwidth;
    type Kernels = Kernels;
    fn new(a: &Args) -> Result<Plan, CliError> {
        planned(&a.variants, a.size.copy_mib, &a.modules)
    }
    fn in_all(s: &Shared, a: &AllArgs) -> Result<Plan, CliError> {
        let own = own_labels(&s.run.variants, &Spec::variant_labels());
        planned(&own, a.copy_mib, &s.module_files())
    }
    fn sources(&self) -> &Sources<Kernels> {
        &self.sources
    }
    fn record(&self, meta: &mut RunMeta) {
        meta.copy_bytes = self.bytes;
    }
}

impl Run for Spec {
    const ABOUT: &'static str = "bandwidth vs occupancy (strided copies held at 2 blocks/SM)";

    fn variant_labels() -> Vec<&'static str> {
        MEMCPY.iter().map(|v| v.label).collect()
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Bandwidth, ExperimentError> {
        check_fits(gpu, p.bytes)?;
        let (ours, theirs) = p.sources.load(gpu)?;
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
            let (mine, compared, dyn_smem) = buffers
                .measure(
                    gpu,
                    (&kernel, other.as_ref()),
                    CopyKernel::Registers(variant),
                    BLOCKS_PER_SM,
                    &ctx.timing,
                )
                .in_variant(variant.label)?;
            rows.push(CopyRow {
                variant: variant.label.to_owned(),
                threads: variant.threads,
                loads: variant.loads,
                width: variant.width,
                bytes_per_thread: variant.bytes_per_thread(),
                regs: mine.regs,
                dyn_smem_bytes: dyn_smem,
                blocks_per_sm: mine.blocks_per_sm,
                occupancy: mine.occupancy,
                limiter: mine.limiter.clone(),
                timing: mine.timing.clone(),
                gbps: mine.throughput,
                fraction_of_reference: mine.throughput / reference_gbps,
                measured: Measured::of(&mine, compared.map(|m| (m, None))),
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

    fn builtin_ptx() -> &'static [&'static str] {
        &[crate::kernel_source::builtin::MAIN]
    }
}

impl Report for Spec {
    const SECTION: &'static str = "bandwidth vs occupancy (strided copy)";

    fn columns() -> Vec<Column<CopyRow>> {
        let mut c: Vec<Column<CopyRow>> = vec![
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
            Column::new("GB/s", GBPS.kind(), |r| {
                cells::rate(r.gbps, &r.measured.flags)
            }),
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
            Column::new("Verified", Kind::Check, |r| cells::check(&r.measured.check)),
        ];
        c.extend(GBPS.compared_columns());
        c
    }

    fn title(m: &RunMeta) -> String {
        format!(
            "Bandwidth vs occupancy ({} MiB copy, {})",
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

    fn claims(output: Option<&Bandwidth>) -> Vec<Verdict> {
        claims::claims(output)
    }

    fn claims_under(output: Option<&Bandwidth>, rules: Rules) -> Vec<Verdict> {
        claims::claims_under(output, rules)
    }

    /// Theoretical occupancy (%, log) vs GB/s, the measured copy bandwidth as a line.
    fn figures(runs: &[PlotRun<'_, Bandwidth>]) -> Vec<(String, Figure)> {
        let title = format!("Experiment {}: copy bandwidth vs occupancy", Self::NUMBER);
        let x = ("Theoretical occupancy (%, log scale)", XScale::Log);
        let axes = Axes::new(title, x, "GB/s (read + written)");
        let references = |run: &PlotRun<'_, Bandwidth>| {
            let gbps = run.output.reference_gbps;
            let copy = Reference::measured("copy reference".into(), gbps, 1, " GB/s");
            (gbps > 0.0).then_some(copy).into_iter().collect()
        };
        let figure = occupancy_scatter(runs, axes, |r| &r.variant, references);
        named(Self::NAME, figure)
    }
}

/// The plan of the copies `list` names (all when empty) from `--copy-mib` and the module files,
/// for `host bandwidth` and `host all` alike.
fn planned(list: &[String], copy_mib: u64, files: &ModuleFiles) -> Result<Plan, CliError> {
    let variants = select(list, MEMCPY, |v| v.label, "memcpy")?;
    let entries: Vec<&str> = variants.iter().map(|v| v.entry).collect();
    let needs = Needs {
        entries: &entries,
        signature: MemcpyParams::PARAMS,
    };
    Ok(Plan {
        variants,
        bytes: copy_mib << 20,
        sources: plan_files(files, needs)?,
    })
}
