//! The `occupancy` experiment, occupancy vs throughput: every GEMM line of the variant table (the
//! seed family's 64x64 tile, where a larger per-thread sub-tile means fewer threads and more
//! registers, and the tuned family's tiles), theoretical occupancy from the driver, GFLOP/s from
//! CUDA events, and cuBLAS's SGEMM on the same buffers as the reference.

mod claims;
#[cfg(test)]
mod column_test;
mod row;

use kernels_gpu::variants::{GemmFamily, GemmParams, GemmVariant, GEMM};

pub use row::{family_name, CublasOutcome, CublasRow, GemmRow, GemmRun, GemmTile};

use super::cells;
use super::contract::{self, Experiment, Registered, RunContext, GFLOPS};
use super::error::{ExperimentError, InVariant};
use super::gemm::{gflops, GemmBuffers};
use super::gemm_check;
use super::gemm_figures::GemmFigures;
use super::measured::Measured;
use super::measurement::{flag_above_peak, Peak};
use super::module_source::{plan_files, Kernels, Needs, Sources};
use super::progress::progress_bar;
use super::scatter::{named, occupancy_scatter, Axes, Reference};
use crate::claim::Verdict;
use crate::cuda::{module_entries, Cublas, CudaError, Gpu};
use crate::figure::{Figure, PlotRun, XScale};
use crate::flags::{
    check_entries, check_tiling, own_labels, select, CliError, GemmDims, GemmSize, ModuleFiles,
    Shared, VariantRun,
};
use crate::results::RunMeta;
use crate::sampling::summarize;
use crate::table::{columns_table, extra_row, Column, Kind, TableData, Value};

/// The `occupancy` experiment.
pub struct Spec;

/// `host occupancy`.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct Args {
    #[command(flatten)]
    pub run: VariantRun<GemmSize>,
    /// Do not time cuBLAS's SGEMM beside the variants.
    #[arg(long)]
    pub no_cublas: bool,
}

/// What the `occupancy` experiment adds to `host all` (it also reads `--variants`, `--size`,
/// `--module`, `--compare`).
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct AllArgs {
    /// occupancy: do not time cuBLAS's SGEMM beside the variants.
    #[arg(long)]
    pub no_cublas: bool,
}

/// The `occupancy` experiment, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub variants: Vec<&'static GemmVariant>,
    /// M, N, K: multiples of 64 where a seed variant runs.
    pub size: GemmDims,
    pub sources: Sources<Kernels>,
    /// Time cuBLAS too (unless `--no-cublas`).
    pub cublas: bool,
}

impl contract::Plan for Plan {
    type Args = Args;
    type AllArgs = AllArgs;
    type Output = GemmRun;
    fn new(a: &Args) -> Result<Plan, CliError> {
        let variants = select(&a.run.variants, GEMM, |v| v.label, "GEMM")?;
        plan_with(variants, a.run.size.size, &a.run.modules, !a.no_cublas)
    }
    fn in_all(s: &Shared, a: &AllArgs) -> Result<Plan, CliError> {
        let own = own_labels(&s.variants, &Spec::variant_labels());
        let variants = select(&own, GEMM, |v| v.label, "GEMM")?;
        plan_with(variants, s.gemm.size, &s.module_files(), !a.no_cublas)
    }
    fn record(&self, meta: &mut RunMeta) {
        meta.set_gemm(self.size);
    }
}

impl Experiment for Spec {
    const ABOUT: &'static str = "occupancy vs throughput (the SGEMM variants)";
    const SECTION: &'static str = "occupancy vs throughput (GEMM tiles)";
    type Plan = Plan;

    fn variant_labels() -> Vec<&'static str> {
        GEMM.iter().map(|v| v.label).collect()
    }

    /// The variant labels and the check.
    fn help() -> String {
        format!(
            "Variants (from the variant table): {}\n\n{}",
            Self::variant_labels().join(", "),
            gemm_check::help()
        )
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<GemmRun, ExperimentError> {
        let (ours, theirs) = p.sources.load(gpu)?;
        let mut buffers = GemmBuffers::new(gpu, p.size, ctx.seed)?;
        let cublas = p.cublas.then(|| Cublas::open(gpu));
        let usable = cublas.as_ref().and_then(|c| c.as_ref().ok());
        let bar = progress_bar(ctx, p.variants.len(), Self::NAME);
        let mut rows = Vec::with_capacity(p.variants.len());
        let mut cublas_samples = Vec::new();
        let mut cublas_checks = Vec::new();
        for variant in &p.variants {
            bar.set_message(variant.label);
            let kernel = ours
                .module
                .kernel(variant.entry)
                .in_variant(variant.label)?;
            // The compared module (e.g. nvcc's build of the seed kernels) may lack the tuned
            // entries: those rows are not compared (the plan has checked the seed entries).
            let other = match &theirs {
                Some(t) if variant.family == GemmFamily::Seed => {
                    Some(t.module.kernel(variant.entry).in_variant(variant.label)?)
                }
                Some(t) => match t.module.kernel(variant.entry) {
                    Ok(k) => Some(k),
                    Err(CudaError::MissingEntry { .. }) => None,
                    Err(e) => return Err(ExperimentError::from(e).in_variant(variant.label)),
                },
                None => None,
            };
            let m = buffers
                .measure(gpu, &kernel, other.as_ref(), variant, &ctx.timing, usable)
                .in_variant(variant.label)?;
            let ours = m.ours;
            let vs_cublas = m.cublas.map(|(t, mut checked)| {
                cublas_samples.extend_from_slice(&t.samples_ms);
                checked.launch = format!("its last timed launch beside {}", variant.label);
                cublas_checks.push(checked);
                ours.throughput / gflops(p.size, &t)
            });
            rows.push(GemmRow {
                variant: variant.label.to_owned(),
                threads: variant.threads(),
                tm: variant.tm,
                tn: variant.tn,
                figures: GemmFigures::of(&ours),
                measured: Measured::of(&ours, m.theirs.map(|t| (t, None))),
                tile: Some(tile_of(variant)),
                vs_cublas,
            });
            bar.inc(1);
        }
        bar.finish_and_clear();
        let cublas = match cublas {
            None => None,
            Some(Err(e)) => Some(CublasOutcome::Unavailable {
                reason: e.to_string(),
            }),
            Some(Ok(c)) => {
                let check = buffers
                    .verify_cublas(gpu, &c, std::mem::take(&mut cublas_checks))
                    .in_variant("cuBLAS")?;
                // Every cuBLAS sample of the run, each interleaved with one variant's.
                let timing = summarize(cublas_samples, None, None);
                let gflops = buffers.gflops(&timing);
                let mut flags = Vec::new();
                flag_above_peak(&mut flags, gflops, Peak::fp32(gpu.info()));
                Some(CublasOutcome::Measured(Box::new(CublasRow {
                    version: c.version(),
                    library: c.library().to_owned(),
                    timing,
                    gflops,
                    check,
                    flags,
                })))
            }
        };
        Ok(GemmRun { rows, cublas })
    }

    fn columns() -> Vec<Column<GemmRow>> {
        let mut c: Vec<Column<GemmRow>> = vec![
            Column::new("Variant", Kind::Text, |r| Value::Text(r.variant.clone())),
            Column::new("Threads/block", Kind::Count, |r| {
                Value::Int(r.threads.into())
            }),
            Column::new(FAMILY, Kind::Text, |r| {
                Value::Text(family_name(r.tile().family).to_owned())
            }),
            Column::new(BLOCK_TILE, BLOCK_TILE_KIND, |r| {
                let (m, n, k) = r.tile().block;
                Value::Dims(vec![m.into(), n.into(), k.into()])
            }),
            Column::new(WARP_TILE, WARP_TILE_KIND, |r| {
                r.tile().warp.map_or(Value::NotAvailable, |(m, n)| {
                    Value::pair(m.into(), n.into())
                })
            }),
            Column::new("Sub-tile TMxTN", SUB_TILE_KIND, |r| {
                Value::pair(r.tm.into(), r.tn.into())
            }),
            Column::new("Regs/thread", Kind::Count, |r| Value::Int(r.figures.regs.into())),
            Column::new("Theo. occ", Kind::Percent, |r| Value::Float(r.figures.occupancy)),
            Column::new("GFLOP/s", GFLOPS.kind(), |r| {
                cells::rate(r.figures.gflops, &r.measured.flags)
            }),
            Column::new("Blocks/SM", Kind::Count, |r| {
                Value::Int(r.figures.blocks_per_sm.into())
            }),
            Column::new("Limiter", Kind::Text, |r| Value::Text(r.figures.limiter.clone())),
            Column::new(MS_PER_CALL, Kind::Duration, |r| {
                cells::timing(&r.figures.timing)
            }),
            Column::new("Verified", Kind::Check, |r| cells::check(&r.measured.check)),
            Column::new(VS_CUBLAS, Kind::Ratio, |r| {
                r.vs_cublas.map_or(Value::NotAvailable, Value::Float)
            }),
        ];
        c.extend(GFLOPS.compared_columns());
        #[cfg(test)]
        c.push(column_test::ACCUMULATORS);
        c
    }

    fn title(m: &RunMeta) -> String {
        format!(
            "Occupancy vs throughput (SGEMM {}, {})",
            m.gemm_title(),
            m.sampling_words()
        )
    }

    /// The rows; the family and tile columns only when a tuned line ran (older runs and seed-only
    /// runs keep their table); cuBLAS's reference row, version and ratio column when it was
    /// asked for.
    fn table(output: &GemmRun, meta: &RunMeta) -> TableData {
        let tuned = output.rows.iter().any(|r| !r.is_seed());
        let columns: Vec<Column<GemmRow>> = Self::columns()
            .into_iter()
            .filter(|c| tuned || ![FAMILY, BLOCK_TILE, WARP_TILE].contains(&c.header))
            .filter(|c| output.cublas.is_some() || c.header != VS_CUBLAS)
            .collect();
        let mut title = Self::title(meta);
        if let Some(c) = &output.cublas {
            match c.measured() {
                Some(m) => title = format!("{title}; cuBLAS {} ({})", m.version, m.library),
                None => title = format!("{title}; {}", cublas_reason(c)),
            }
        }
        let mut t = columns_table(&title, &columns, &output.rows);
        match &output.cublas {
            Some(CublasOutcome::Measured(c)) => {
                extra_row(
                    &mut t,
                    "cuBLAS",
                    &c.flags,
                    &[
                        ("Variant", Value::Text(format!("cuBLAS {}", c.version))),
                        ("GFLOP/s", cells::rate(c.gflops, &c.flags)),
                        (MS_PER_CALL, cells::timing(&c.timing)),
                        ("Verified", cells::check(&c.check)),
                        (VS_CUBLAS, Value::Float(1.0)),
                    ],
                );
                t.notes.push(
                    "cuBLAS: cublasSgemm (row-major through C^T = B^T A^T), default math mode \
                     (FP32, no TF32), on the same buffers; its samples are interleaved with each \
                     variant's and pooled in its row; Ours/cuBLAS compares the samples taken \
                     together. The kernel cuBLAS chose, its registers and occupancy are not read \
                     by the lab."
                        .to_owned(),
                );
            }
            Some(c @ CublasOutcome::Unavailable { .. }) => {
                extra_row(
                    &mut t,
                    "cuBLAS",
                    &[],
                    &[("Variant", Value::Text(cublas_reason(c)))],
                );
            }
            None => {}
        }
        let checks = output.rows.iter().flat_map(|r| {
            let m = &r.measured;
            std::iter::once(&m.check).chain(m.compare.as_ref().map(|c| &c.check))
        });
        let cublas_check = output.cublas_row().map(|c| &c.check);
        t.notes.extend(gemm_check::note(checks.chain(cublas_check)));
        t
    }

    fn claims(output: Option<&GemmRun>) -> Vec<Verdict> {
        claims::claims(output)
    }

    /// Theoretical occupancy (%) vs GFLOP/s, the FP32 peak and cuBLAS as lines.
    fn figures(runs: &[PlotRun<'_, GemmRun>]) -> Vec<(String, Figure)> {
        let title = format!("Experiment {}: occupancy vs GEMM throughput", Self::NUMBER);
        let axes = Axes::new(
            title,
            ("Theoretical occupancy (%)", XScale::Linear),
            "GFLOP/s",
        );
        let references = |run: &PlotRun<'_, GemmRun>| {
            let peak = run.device.peak_fp32_gflops;
            let peak = (peak > 0.0).then(|| Reference::peak("FP32 peak", peak));
            let cublas = run.output.cublas_row();
            let cublas = cublas
                .map(|c| Reference::measured(format!("cuBLAS {}", c.version), c.gflops, 0, ""));
            peak.into_iter().chain(cublas).collect()
        };
        let figure = occupancy_scatter(runs, axes, |r| &r.variant, references);
        named(Self::NAME, figure)
    }
}

/// Headers of the columns shown only for some runs (see `Spec::table`).
const FAMILY: &str = "Family";
const BLOCK_TILE: &str = "Block tile";
const WARP_TILE: &str = "Warp tile";
const VS_CUBLAS: &str = "Ours/cuBLAS";
const MS_PER_CALL: &str = "ms/call";

/// The tiles' columns: printed joined, one CSV column per side.
const BLOCK_TILE_KIND: Kind = Kind::Dims {
    sep: "x",
    names: &["Block tile M", "Block tile N", "Block tile K"],
};
const WARP_TILE_KIND: Kind = Kind::Dims {
    sep: "x",
    names: &["Warp tile M", "Warp tile N"],
};
const SUB_TILE_KIND: Kind = Kind::Dims {
    sep: "x",
    names: &["TM", "TN"],
};

/// The variant table's line as a row's tile record.
pub fn tile_of(v: &GemmVariant) -> GemmTile {
    GemmTile {
        family: v.family,
        block: (v.bm, v.bn, v.bk),
        warp: v.warp,
        stages: v.stages,
        dyn_smem: v.dynamic_shared_bytes(),
    }
}

/// Why cuBLAS has no figures in a run, in words.
pub fn cublas_reason(c: &CublasOutcome) -> String {
    match c {
        CublasOutcome::Measured(m) => format!("cuBLAS {} measured", m.version),
        CublasOutcome::Unavailable { reason } if reason.starts_with("cuBLAS") => reason.clone(),
        CublasOutcome::Unavailable { reason } => format!("cuBLAS unavailable: {reason}"),
    }
}

/// Checks the size against the variants asked for and the module files against their entries:
/// `--module` must export every entry; `--compare` the seed entries (a compared build of the
/// seed kernels has no tuned entries: those rows run uncompared).
fn plan_with(
    variants: Vec<&'static GemmVariant>,
    size: GemmDims,
    files: &ModuleFiles,
    cublas: bool,
) -> Result<Plan, CliError> {
    let experiment = format!("experiment {} ({})", Spec::NUMBER, Spec::NAME);
    check_tiling(size, &experiment, &variants, || {
        let tuned: Vec<&str> = GEMM
            .iter()
            .filter(|v| v.size_multiple().is_none())
            .map(|v| v.label)
            .collect();
        format!(
            "; the tuned variants take any size: --variants {}",
            tuned.join(",")
        )
    })?;
    let seed_entries: Vec<&str> = variants
        .iter()
        .filter(|v| v.family == GemmFamily::Seed)
        .map(|v| v.entry)
        .collect();
    let needs = Needs {
        entries: &seed_entries,
        signature: GemmParams::PARAMS,
    };
    let sources = plan_files(files, needs)?;
    let tuned: Vec<&str> = variants
        .iter()
        .filter(|v| v.family != GemmFamily::Seed)
        .map(|v| v.entry)
        .collect();
    if let Some(path) = &files.module {
        check_entries("--module", path, &tuned, GemmParams::PARAMS)?;
    }
    if let Some(path) = &files.compare {
        // The tuned entries the compared module does have are launched: their signatures too.
        let listed = std::fs::read(path)
            .map(|image| module_entries(&image))
            .unwrap_or_default();
        let present: Vec<&str> = tuned
            .iter()
            .copied()
            .filter(|e| listed.iter().any(|l| l == e))
            .collect();
        check_entries("--compare", path, &present, GemmParams::PARAMS)?;
    }
    Ok(Plan {
        variants,
        size,
        sources,
        cublas,
    })
}
