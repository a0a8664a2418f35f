//! The `gemm_bf16` experiment, part II's GEMM: every BF16 tensor-core line of the variant table
//! (the `gemm_bf16` section, `kernels-gpu/src/kernels/gemm_mma.rs`: `mma.sync` m16n8k16, BF16 A and
//! B, FP32 accumulate and C) beside cuBLAS's BF16 GEMM (`cublasGemmEx`) and the kernel cuBLAS
//! really runs, on the occupancy table: theoretical occupancy, GFLOP/s, Ours/cuBLAS, every element
//! of every timed output checked under the tensor-core rule. Its pieces, after those it shares with
//! the register experiment's BF16 lines:
//! - [`bf16_inputs`](super::bf16_inputs): random bf16 A and B (the FP32 problem's inputs rounded
//!   to bf16) and their exact f32 widening;
//! - [`bf16_gemm`](super::bf16_gemm): the problem on the device, a line's launch in the table's
//!   shape, ours, the compared module's and cuBLAS's BF16 GEMM timed interleaved, every element of
//!   each checked, and the kernel cuBLAS runs, read through CUPTI;
//! - [`bf16_tolerance`](super::bf16_tolerance): the rule a tensor-core output is held to, and
//!   why;
//! - [`row`]: what a run stores; [`table`]: its columns, table and plot;
//! - [`wgemm`] and [`wgemm_rows`]: the wgmma lines (`gemm_wgmma`, sm_90a) launched through their
//!   TMA tensor maps, as rows beside the `mma.sync` lines; [`plan`]: both picked by label.

mod bf16_energy;
mod claims;
#[cfg(test)]
mod margins;
pub mod plan;
pub mod row;
mod table;
#[cfg(test)]
mod tensor_core_model;
pub use super::wgemm_launch as wgemm;
pub mod wgemm_rows;

use kernels_gpu::variants::{Bf16GemmParams, Bf16GemmVariant, BF16_GEMM};

pub use plan::Plan;
pub use row::{Bf16Row, Bf16Run, NotRun, TensorPath};
pub use table::bf16_peak;

use super::bf16_gemm::{Bf16, Bf16GemmBuffers};
use super::bf16_tolerance;
use super::contract::Output as _;
use super::contract::{Registered, Report, Run, RunContext};
use super::error::{ExperimentError, InVariant};
use super::gemm_check_notes;
use super::gemm_clock_energy::{gemm_failures, gemm_table as clock_table, ClockAndEnergy};
use super::gemm_cublas::{gemm_figures, CublasOutcome, CublasSide};
use super::gemm_figures::Schedule;
use super::gemm_plan::{GemmArgs, GemmLines};
use super::gemm_sides::GemmKind;
use super::line_choice::timed::{choose_bf16, Bf16Line};
use super::line_choice::Choice;
use super::module_source::plan_files;
use super::progress::progress_bar;
use super::scatter::Reference;
use crate::claim::Verdict;
use crate::cuda::{Gpu, Module};
use crate::figure::{Figure, PlotRun};
use crate::flags::{CliError, GemmDims, ModuleFiles};
use crate::kernel_source::builtin;
use crate::kernel_source::module_file::{check_compared_entries, check_entries};
use crate::kernel_source::sources::{Kernels, Needs, Sources};
use crate::results::{DeviceInfo, RunMeta};
use crate::table::{Column, TableData};
use wgemm_rows::run_wgemm_lines;

/// The `gemm_bf16` experiment.
pub struct Spec;

/// The stem of its per-clock and energy table's CSV.
const CLOCK_STEM: &str = "gemm_bf16_clock";

/// `host gemm_bf16`.
pub type Args = GemmArgs;

impl GemmLines for Bf16GemmVariant {
    const TABLE: &'static [Self] = BF16_GEMM;
    const KIND: &'static str = "BF16 GEMM";
    const LABEL: fn(&Self) -> &'static str = |v| v.label;
    type Output = Bf16Run;
    /// `--module` must export every line's entry; `--compare` is checked on the entries it has
    /// (a compared build without the tensor-core family runs those rows uncompared). Any size.
    fn sources(
        variants: &[&'static Self],
        _: GemmDims,
        files: &ModuleFiles,
    ) -> Result<Sources<Kernels>, CliError> {
        let entries: Vec<&str> = variants.iter().map(|v| v.entry).collect();
        let signature = Bf16GemmParams::PARAMS;
        let sources = plan_files(
            files,
            Needs {
                entries: &[],
                signature,
            },
        )?;
        if let Some(path) = &files.module {
            check_entries("--module", path, &entries, signature)?;
        }
        if let Some(path) = &files.compare {
            check_compared_entries(path, &entries, signature)?;
        }
        Ok(sources)
    }
}

impl Run for Spec {
    const ABOUT: &'static str =
        "BF16 tensor-core GEMM vs occupancy (the mma.sync and wgmma lines beside cuBLAS BF16)";

    fn variant_labels() -> Vec<&'static str> {
        plan::labels()
    }

    /// The variant labels and the check.
    fn help() -> String {
        format!(
            "Variants (from the variant table's gemm_bf16 and gemm_wgmma sections): {}; or \
             `auto`, one line chosen for the size by the line-choice rule (docs/design.md).\n\nNeeds \
             sm_80 or newer (mma.sync bf16, ldmatrix, cp.async). The wgmma lines ({}) come from \
             the built-in sm_90a module whatever --module says; they run on compute capability \
             9.0 only (otherwise the table says why they did not run); where K or N is not a \
             multiple of 8, each launch first copies A or B into rows TMA can read (16-byte \
             strides), inside the timed call.\n\n{}",
            Self::variant_labels().join(", "),
            kernels_gpu::variants::WGEMM
                .iter()
                .map(|v| v.label)
                .collect::<Vec<_>>()
                .join(", "),
            gemm_check_notes::help_under(&bf16_tolerance::rule())
        )
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Bf16Run, ExperimentError> {
        let (ours, theirs) = p.sources.load_with(gpu, builtin::TENSOR)?;
        let mut buffers = Bf16GemmBuffers::new(gpu, p.size, ctx.seed)?;
        let (plan, auto) = chosen(gpu, ctx, p, &ours.module, &mut buffers)?;
        let p = &plan;
        let mut cublas = CublasSide::open(gpu, p.cublas);
        let bar = progress_bar(ctx, p.lines(), Self::NAME);
        let mut rows = Vec::with_capacity(p.lines());
        for v in &p.variants {
            bar.set_message(v.label);
            let kernel = ours.module.kernel(v.entry).in_variant(v.label)?;
            let other = match &theirs {
                Some(t) => t.kernel_if_present(v.entry).in_variant(v.label)?,
                None => None,
            };
            let shape = Bf16::launch_shape(v, p.size);
            let kernels = (v.label, (&kernel, other.as_ref()));
            let (m, theirs, vs_cublas) = cublas.measure(
                gpu,
                &mut buffers,
                kernels,
                (shape, &Bf16::launch),
                &ctx.timing,
            )?;
            let schedule = Schedule::one_block_per_tile(&shape, gpu.info().sm_count);
            rows.push(Bf16Row::new(v, &m, theirs, vs_cublas).scheduled(schedule));
            crate::phase_log::mark(v.label);
            bar.inc(1);
        }
        let each = |label: &str| {
            crate::phase_log::mark(label);
            bar.set_message(label.to_owned());
            bar.inc(1);
        };
        // The compared build's sm_90a module, for the ring lines, where it has one.
        let theirs_sm90a = if p.wgmma.is_empty() {
            None
        } else {
            p.sources.load_compared_sm90a(gpu)?
        };
        let lines = (p.wgmma.as_slice(), theirs_sm90a.as_ref());
        let w = run_wgemm_lines(gpu, ctx, lines, (&mut buffers, &mut cublas), each)?;
        rows.extend(w.rows);
        bar.finish_and_clear();
        // Before cuBLAS's row is finished: the phase launches cuBLAS from the same handle.
        let energy = bf16_energy::phase(gpu, p, &rows, &ours, (&mut buffers, &cublas))?;
        let clock_energy = Some(ClockAndEnergy::bf16(gpu.info(), energy));
        let peak = Bf16::peak(gpu);
        // cuBLAS is timed only beside a line: with none run (the wgmma lines alone, off sm_90a)
        // it has no samples.
        let cublas = match (rows.is_empty(), p.cublas) {
            (true, true) => Some(CublasOutcome::Unavailable {
                reason: "no line ran for cuBLAS BF16 to be timed beside".into(),
            }),
            (true, false) => None,
            (false, _) => cublas.finish(gpu, &mut buffers, peak)?,
        };
        Ok(Bf16Run {
            rows,
            cublas,
            not_run: w.not_run,
            clock_energy,
            auto,
        })
    }

    fn builtin_ptx() -> &'static [&'static str] {
        use crate::kernel_source::builtin::{CHECKS, HOPPER, TENSOR};
        &[TENSOR, HOPPER, CHECKS]
    }
}

/// `--variants auto`: the plan with the line the rule chose for its size (`line_choice`: the
/// `mma.sync` lines of `module` and the ring lines), and the choice; the plan as it is otherwise.
fn chosen(
    gpu: &Gpu,
    ctx: &RunContext,
    p: &Plan,
    module: &Module,
    buffers: &mut Bf16GemmBuffers,
) -> Result<(Plan, Option<Choice>), ExperimentError> {
    if !p.auto {
        return Ok((p.clone(), None));
    }
    let (choice, line) = choose_bf16(gpu, module, buffers, &ctx.timing)?;
    let mut p = p.clone();
    match line {
        Some(Bf16Line::Mma(v)) => p.variants = vec![v],
        Some(Bf16Line::Ring(v)) => p.wgmma = vec![v],
        None => {}
    }
    Ok((p, Some(choice)))
}

impl Report for Spec {
    const SECTION: &'static str = "BF16 tensor-core GEMM vs occupancy (mma.sync lines, cuBLAS)";
    const MORE_CSVS: &'static [&'static str] = &[CLOCK_STEM];

    /// The rows' failed checks, cuBLAS's, and those of the energy sides' outputs after their
    /// windows.
    fn failed_checks(output: &Bf16Run) -> Vec<String> {
        let others = output.other_failures();
        gemm_failures(&output.rows, others, output.clock_energy.as_ref())
    }

    /// Per clock and per joule against cuBLAS (runs that kept the clock basis only).
    fn claims(output: Option<&Bf16Run>) -> Vec<Verdict> {
        claims::claims(output)
    }

    /// Per clock and per joule (runs that kept the clock basis: none before it).
    fn second_table(output: &Bf16Run, meta: &RunMeta) -> Option<(&'static str, TableData)> {
        let ce = output.clock_energy.as_ref()?;
        let cublas = output.cublas_row().map(|c| (bf16_energy::CUBLAS, c.gflops));
        let title = format!("BF16 GEMM per clock and per joule ({})", meta.gemm_title());
        Some((CLOCK_STEM, clock_table(&title, &output.rows, cublas, ce)))
    }

    fn columns() -> Vec<Column<Bf16Row>> {
        table::columns()
    }

    fn title(m: &RunMeta) -> String {
        format!(
            "BF16 tensor-core GEMM vs occupancy (mma.sync m16n8k16, BF16 A and B, FP32 \
             accumulate and C, {}, {})",
            m.gemm_title(),
            m.sampling_words()
        )
    }

    fn table(output: &Bf16Run, meta: &RunMeta) -> TableData {
        table::table(output, &Self::title(meta))
    }

    /// Theoretical occupancy (%) vs GFLOP/s, the dense BF16 peak and cuBLAS as lines, the kernel
    /// cuBLAS ran as a point.
    fn figures(runs: &[PlotRun<'_, Bf16Run>]) -> Vec<(String, Figure)> {
        let title = format!(
            "Experiment {}: occupancy vs BF16 GEMM throughput",
            Self::NUMBER
        );
        let peak = |d: &DeviceInfo| bf16_peak(d).map(|p| Reference::peak("dense BF16 peak", p));
        gemm_figures(Self::NAME, title, runs, |r| &r.variant, peak)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::contract::Plan as _;
    use crate::flag_values::parse_flags;

    fn plan(args: &[&str]) -> Result<Plan, CliError> {
        Plan::new(&parse_flags::<Args>(args).unwrap())
    }

    #[test]
    fn defaults_take_every_line_at_4096_cubed_with_cublas() {
        let p = plan(&[]).unwrap();
        assert_eq!(p.wgmma.len(), kernels_gpu::variants::WGEMM.len());
        assert_eq!(p.variants.len(), BF16_GEMM.len());
        assert_eq!(p.size, GemmDims::square(4096));
        assert!(p.cublas);
        assert_eq!(p.sources.ours, Kernels::Builtin);
    }

    #[test]
    fn any_size_and_a_subset_of_lines_are_taken() {
        let p = plan(&["--variants", "M1,M4", "--size", "1000", "--no-cublas"]).unwrap();
        assert!(
            p.wgmma.is_empty(),
            "mma.sync lines alone take no wgmma line"
        );
        let labels: Vec<&str> = p.variants.iter().map(|v| v.label).collect();
        assert_eq!(labels, ["M1", "M4"]);
        assert_eq!(p.size, GemmDims::square(1000));
        assert!(!p.cublas);
        let odd = plan(&["--size", "2048x8192x1024"]).unwrap();
        assert_eq!((odd.size.m, odd.size.n, odd.size.k), (2048, 8192, 1024));
    }

    #[test]
    fn wgmma_lines_are_picked_by_label_alone_or_beside_mma_sync_lines() {
        let w = kernels_gpu::variants::WGEMM;
        let only = plan(&["--variants", w[0].label]).unwrap();
        assert!(only.variants.is_empty());
        assert_eq!(only.wgmma, [&w[0]]);
        let both = plan(&["--variants", &format!("M1,{}", w[0].label)]).unwrap();
        assert_eq!(both.lines(), 2);
        assert_eq!(both.variants[0].label, "M1");
        let labels = Spec::variant_labels();
        assert!(w.iter().all(|v| labels.contains(&v.label)), "{labels:?}");
        let twice = plan(&["--variants", &format!("{0},{0}", w[0].label)]);
        assert!(twice.is_err());
    }

    #[test]
    fn auto_plans_no_line_until_the_run_chooses_one() {
        let p = plan(&["--variants", "auto", "--size", "16x4096x4096"]).unwrap();
        assert!(p.auto);
        assert_eq!(p.lines(), 0, "neither an mma.sync nor a wgmma line yet");
        assert!(plan(&["--variants", "W1,auto"]).is_err());
    }

    #[test]
    fn an_unknown_line_or_a_missing_module_is_refused() {
        let e = plan(&["--variants", "M99"]).unwrap_err().to_string();
        assert!(e.contains("M99") && e.contains("M1"), "{e}");
        let e = plan(&["--compare", "/nonexistent/twin.cubin"]).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/twin.cubin"), "{e}");
    }
}
