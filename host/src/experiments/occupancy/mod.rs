//! The `occupancy` experiment, occupancy vs throughput: every GEMM line of the variant table (the
//! seed family's 64x64 tile, where a larger per-thread sub-tile means fewer threads and more
//! registers, and the tuned family's tiles), theoretical occupancy from the driver, GFLOP/s from
//! CUDA events, and cuBLAS's SGEMM on the same buffers as the reference.

mod claims;
#[cfg(test)]
mod column_test;
#[cfg(test)]
mod peak_waves_test;
mod row;
mod sgemm_energy;

use kernels_gpu::variants::{GemmFamily, GemmParams, GemmVariant, GEMM};

pub use row::{family_name, GemmRow, GemmRun, GemmTile, RowFault};

use super::cells::{self, BLOCK_TILE_KIND, WARP_TILE_KIND};
use super::contract::{Output, Registered, Report, Run, RunContext, GFLOPS};
use super::error::{ExperimentError, InVariant};
use super::gemm::{Fp32, GemmBuffers};
use super::gemm_check::rule;
use super::gemm_check_notes;
use super::gemm_clock_energy::{gemm_failures, gemm_table as clock_table, ClockAndEnergy};
use super::gemm_cublas::{gemm_figures, gemm_table, CublasSide, VS_CUBLAS};
use super::gemm_figure_columns::{
    figure_columns, schedule_notes, shown_columns, trace_columns, trace_notes, wave_columns,
};
use super::gemm_figures::{GemmFigures, Schedule};
use super::gemm_plan::{GemmArgs, GemmLines, GemmPlan};
use super::gemm_sides::GemmKind;
use super::line_choice::timed::choose_fp32;
use super::line_choice::{auto_note, Choice};
use super::measured::Measured;
use super::measurement::Peak;
use super::module_source::{plan_files, Loaded};
use super::progress::progress_bar;
use super::scatter::Reference;
use super::whole_waves::{whole_wave_dims, whole_wave_notes, WholeWave};
use crate::claim::Verdict;
use crate::cuda::{Gpu, Module};
use crate::figure::{Figure, PlotRun};
use crate::flags::{check_tiling, CliError, GemmDims, ModuleFiles};
use crate::kernel_source::module_file::{check_compared_entries, check_entries};
use crate::kernel_source::sources::{Kernels, Needs, Sources};
use crate::results::{DeviceInfo, RunMeta};
use crate::table::{Column, Kind, TableData, Value};

/// The `occupancy` experiment.
pub struct Spec;

/// The stem of its per-clock and energy table's CSV.
const CLOCK_STEM: &str = "occupancy_clock";

/// `host occupancy`.
pub type Args = GemmArgs;

/// The `occupancy` experiment, validated (M, N, K: multiples of 64 where a seed variant runs).
pub type Plan = GemmPlan<GemmVariant>;

impl GemmLines for GemmVariant {
    const TABLE: &'static [Self] = GEMM;
    const KIND: &'static str = "GEMM";
    const LABEL: fn(&Self) -> &'static str = |v| v.label;
    // The SGEMM lines are independent of one another: a run goes on without one that faults.
    const GOES_ON_WITHOUT_A_FAULTING_LINE: bool = true;
    type Output = GemmRun;
    /// Checks the size against the variants asked for and the module files against their
    /// entries: `--module` must export every entry; `--compare` the seed entries (a compared
    /// build of the seed kernels has no tuned entries: those rows run uncompared).
    fn sources(
        variants: &[&'static Self],
        size: GemmDims,
        files: &ModuleFiles,
    ) -> Result<Sources<Kernels>, CliError> {
        let experiment = format!("experiment {} ({})", Spec::NUMBER, Spec::NAME);
        check_tiling(size, &experiment, variants, || {
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
        let entries = |seed: bool| -> Vec<&str> {
            (variants.iter())
                .filter(|v| (v.family == GemmFamily::Seed) == seed)
                .map(|v| v.entry)
                .collect()
        };
        let needs = Needs {
            entries: &entries(true),
            signature: GemmParams::PARAMS,
        };
        let sources = plan_files(files, needs)?;
        let tuned = entries(false);
        if let Some(path) = &files.module {
            check_entries("--module", path, &tuned, GemmParams::PARAMS)?;
        }
        if let Some(path) = &files.compare {
            // The tuned entries the compared module does have are launched: their signatures too.
            check_compared_entries(path, &tuned, GemmParams::PARAMS)?;
        }
        Ok(sources)
    }
}

impl Run for Spec {
    const ABOUT: &'static str = "occupancy vs throughput (the SGEMM variants)";

    fn variant_labels() -> Vec<&'static str> {
        GemmVariant::labels()
    }

    /// The variant labels and the check.
    fn help() -> String {
        format!(
            "Variants (from the variant table): {}; or `auto`, one tuned line chosen for the \
             size by the line-choice rule (docs/design.md).\n\n{}",
            Self::variant_labels().join(", "),
            gemm_check_notes::help()
        )
    }

    /// Every line in order but those a kernel faulted in earlier in the run (in a process before
    /// this one: a fault loses the context for the rest of a process), which are failed checks.
    fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<GemmRun, ExperimentError> {
        let faults: Vec<RowFault> = ctx
            .faults
            .iter()
            .filter(|f| f.experiment == Self::NAME)
            .filter_map(|f| {
                Some(RowFault {
                    variant: f.variant.clone()?,
                    error: f.error.clone(),
                })
            })
            .collect();
        let (ours, theirs) = p.sources.load(gpu)?;
        crate::phase_log::mark("occ: loaded");
        let mut buffers = GemmBuffers::new(gpu, p.size, ctx.seed)?;
        crate::phase_log::mark("occ: buffers");
        let (plan, auto) = chosen(gpu, ctx, p, &ours.module, &mut buffers)?;
        crate::phase_log::mark("occ: chosen");
        let p = &plan;
        let variants: Vec<&'static GemmVariant> = p
            .variants
            .iter()
            .copied()
            .filter(|v| !faults.iter().any(|f| f.variant == v.label))
            .collect();
        let mut cublas = CublasSide::open(gpu, p.cublas);
        crate::phase_log::mark("occ: cublas open");
        let bar = progress_bar(ctx, variants.len(), Self::NAME);
        let mut rows = Vec::with_capacity(variants.len());
        for variant in variants {
            bar.set_message(variant.label);
            let loaded = (&ours, theirs.as_ref());
            rows.push(measure_row(
                gpu,
                ctx,
                p,
                variant,
                loaded,
                &mut buffers,
                &mut cublas,
            )?);
            bar.inc(1);
            crate::phase_log::mark(variant.label);
        }
        bar.finish_and_clear();
        // Before cuBLAS's row is finished: the phase launches cuBLAS from the same handle.
        let energy = sgemm_energy::phase(gpu, p, &rows, &ours, (&mut buffers, &cublas))?;
        crate::phase_log::mark("occ: energy");
        let clock_energy = Some(ClockAndEnergy::fp32(gpu.info(), energy));
        let peak = Peak::fp32(gpu.info());
        let cublas = cublas.finish(gpu, &mut buffers, peak)?;
        crate::phase_log::mark("occ: cublas finish");
        drop(buffers);
        peak_pair_at_whole_waves(gpu, ctx, p, &ours, &mut rows)?;
        crate::phase_log::mark("occ: whole waves");
        Ok(GemmRun {
            rows,
            cublas,
            faults,
            clock_energy,
            auto,
        })
    }

    fn builtin_ptx() -> &'static [&'static str] {
        use crate::kernel_source::builtin::{CHECKS, MAIN};
        &[MAIN, CHECKS]
    }
}

impl Report for Spec {
    const SECTION: &'static str = "occupancy vs throughput (GEMM tiles)";
    const MORE_CSVS: &'static [&'static str] = &[CLOCK_STEM];

    /// The rows' failed checks, the variants a kernel faulted in first.
    fn failed_checks(output: &GemmRun) -> Vec<String> {
        let mut out: Vec<String> = output.faults.iter().map(ToString::to_string).collect();
        let others = output.other_failures();
        out.extend(gemm_failures(
            &output.rows,
            others,
            output.clock_energy.as_ref(),
        ));
        out
    }

    /// Per clock and per joule (runs that kept the clock basis: none before it).
    fn second_table(output: &GemmRun, meta: &RunMeta) -> Option<(&'static str, TableData)> {
        let ce = output.clock_energy.as_ref()?;
        let cublas = output
            .cublas_row()
            .map(|c| (sgemm_energy::CUBLAS, c.gflops));
        let title = format!("SGEMM per clock and per joule ({})", meta.gemm_title());
        Some((CLOCK_STEM, clock_table(&title, &output.rows, cublas, ce)))
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
        ];
        c.extend(figure_columns());
        c.extend(wave_columns());
        c.extend(trace_columns());
        c.extend([
            Column::new(cells::SM_CLOCK_HEADER, cells::SM_CLOCK, |r: &GemmRow| {
                cells::sm_clock(&r.figures.timing)
            }),
            Column::new("Verified", Kind::Check, |r| cells::check(&r.measured.check)),
            Column::new(VS_CUBLAS, Kind::Ratio, |r| {
                r.vs_cublas.map_or(Value::NotAvailable, Value::Float)
            }),
        ]);
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
            .collect();
        let columns = shown_columns(columns, &output.rows);
        let mut t = gemm_table(output, Self::title(meta), columns, CUBLAS_CALL, rule);
        let cublas_ran = output
            .cublas
            .as_ref()
            .is_some_and(|c| c.measured().is_some());
        t.notes.extend(schedule_notes(&output.rows, cublas_ran));
        t.notes.extend(output.auto.as_ref().map(auto_note));
        t.notes.extend(trace_notes(&output.rows));
        t.notes.extend(whole_wave_notes(
            (output.rows.iter()).map(|r| (r.variant.clone(), &r.figures, &r.whole_waves[..])),
        ));
        t
    }

    fn claims(output: Option<&GemmRun>) -> Vec<Verdict> {
        claims::claims(output)
    }

    /// Theoretical occupancy (%) vs GFLOP/s, the FP32 peak and cuBLAS as lines.
    fn figures(runs: &[PlotRun<'_, GemmRun>]) -> Vec<(String, Figure)> {
        let title = format!("Experiment {}: occupancy vs GEMM throughput", Self::NUMBER);
        let peak = |d: &DeviceInfo| {
            let peak = d.peak_fp32_gflops;
            (peak > 0.0).then(|| Reference::peak("FP32 peak", peak))
        };
        gemm_figures(Self::NAME, title, runs, |r| &r.variant, peak)
    }
}

/// `--variants auto`: the plan with the tuned line the rule chose for its size (`line_choice`),
/// and the choice; the plan as it is otherwise.
fn chosen(
    gpu: &Gpu,
    ctx: &RunContext,
    p: &Plan,
    module: &Module,
    buffers: &mut GemmBuffers,
) -> Result<(Plan, Option<Choice>), ExperimentError> {
    if !p.auto {
        return Ok((p.clone(), None));
    }
    let (choice, line) = choose_fp32(gpu, module, buffers, &ctx.timing)?;
    let variants = line.into_iter().collect();
    Ok((
        Plan {
            variants,
            ..p.clone()
        },
        Some(choice),
    ))
}

/// How cuBLAS's SGEMM is called and timed, for the table's note.
const CUBLAS_CALL: &str =
    "cublasSgemm (row-major through C^T = B^T A^T), default math mode (FP32, \
no TF32), on the same buffers; its samples are interleaved with each variant's and pooled in its \
row; Ours/cuBLAS compares the samples taken together.";

/// Headers of the columns shown only for some runs (see `Spec::table`).
const FAMILY: &str = "Family";
const BLOCK_TILE: &str = "Block tile";
const WARP_TILE: &str = "Warp tile";

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

/// The lines `peak-below-max-occupancy` compares (named from the table and the calculator, not
/// the timings), timed again (our module alone, without cuBLAS) at the size nearest the plan's
/// where all of them run whole waves, recorded in their rows. Lines already whole at the plan's
/// size keep their figures; without such a size nothing is timed (the verdict says so).
fn peak_pair_at_whole_waves(
    gpu: &Gpu,
    ctx: &RunContext,
    p: &Plan,
    ours: &Loaded,
    rows: &mut [GemmRow],
) -> Result<(), ExperimentError> {
    let lines: Vec<(String, u32, GemmTile)> = (claims::peak_pair_lines(rows).iter())
        .map(|r| (r.variant.clone(), r.figures.blocks_per_sm, r.tile()))
        .collect();
    let Some((_, _, first)) = lines.first() else {
        return Ok(());
    };
    // The pair is of seed lines, which share one tile; lines of several tiles are not paired.
    if lines.iter().any(|(_, _, t)| t.block != first.block) {
        return Ok(());
    }
    let tile = (first.block.0, first.block.1);
    let blocks: Vec<u32> = lines.iter().map(|(_, b, _)| *b).collect();
    let Some(size) = whole_wave_dims(p.size, tile, &blocks, gpu.info().sm_count) else {
        return Ok(());
    };
    let at_size = Plan { size, ..p.clone() };
    let mut buffers = (size != p.size)
        .then(|| GemmBuffers::new(gpu, size, ctx.seed))
        .transpose()?;
    let mut no_cublas = CublasSide::open(gpu, false);
    for (label, _, _) in lines {
        let row = (rows.iter_mut())
            .find(|r| r.variant == label)
            .expect("a line of the rows");
        let figures = match &mut buffers {
            None => row.figures.clone(),
            Some(b) => {
                let variant = (p.variants.iter())
                    .find(|v| v.label == label)
                    .expect("a line of the plan");
                let at = measure_row(gpu, ctx, &at_size, variant, (ours, None), b, &mut no_cublas)?;
                at.figures
            }
        };
        row.whole_waves.push(WholeWave { size, figures });
    }
    Ok(())
}

/// One line's row.
fn measure_row(
    gpu: &Gpu,
    ctx: &RunContext,
    p: &Plan,
    variant: &GemmVariant,
    (ours, theirs): (&Loaded, Option<&Loaded>),
    buffers: &mut GemmBuffers,
    cublas: &mut CublasSide,
) -> Result<GemmRow, ExperimentError> {
    let kernel = ours
        .module
        .kernel(variant.entry)
        .in_variant(variant.label)?;
    // The compared module (e.g. nvcc's build of the seed kernels) may lack the tuned
    // entries: those rows are not compared (the plan has checked the seed entries).
    let other = match theirs {
        Some(t) if variant.family == GemmFamily::Seed => {
            Some(t.module.kernel(variant.entry).in_variant(variant.label)?)
        }
        Some(t) => t
            .kernel_if_present(variant.entry)
            .in_variant(variant.label)?,
        None => None,
    };
    let shape = Fp32::launch_shape(variant, p.size);
    let kernels = (variant.label, (&kernel, other.as_ref()));
    let (ours, theirs, vs_cublas) =
        cublas.measure(gpu, buffers, kernels, (shape, &Fp32::launch), &ctx.timing)?;
    Ok(GemmRow {
        variant: variant.label.to_owned(),
        threads: variant.threads(),
        tm: variant.tm,
        tn: variant.tn,
        figures: GemmFigures::of(&ours)
            .scheduled(Schedule::one_block_per_tile(&shape, gpu.info().sm_count)),
        measured: Measured::of(&ours, theirs.map(|t| (t, None))),
        tile: Some(tile_of(variant)),
        vs_cublas,
        whole_waves: vec![],
    })
}
