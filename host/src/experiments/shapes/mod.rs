//! The `shapes` experiment, GEMMs over a fixed list of shapes (issue 32): per shape and family
//! (FP32, BF16) the lab's line chosen by the shared rule (`line_choice`: the table and the
//! occupancy calculator short-list, a short timing picks), timed again interleaved with cuBLAS,
//! every element of both checked, with its tiles, waves, occupancy and clock and the kernel
//! cuBLAS ran. A shape no line can run is a miss with the reason. Its pieces:
//! - [`list`]: the shapes; [`spec`]: the experiment, its flags and plan;
//! - [`run`]: one shape and family on the GPU; [`row`]: what a run stores;
//! - [`table`]: the columns, the misses and the summary against issue 32's targets;
//! - [`claims`]: what the sweep shows about occupancy and waves, judged from the rows;
//! - [`figure`]: Ours/cuBLAS against the chosen line's waves.

mod claims;
mod figure;
pub mod list;
pub mod row;
#[cfg(test)]
mod row_fixture;
mod run;
pub mod spec;
mod table;

pub use row::{Family, Miss, ShapeRow, ShapesRun};
pub use spec::{Args, Plan, Spec, ALL_SAMPLES};

use super::contract::{Registered, Report, Run, RunContext};
use super::progress::progress_bar;
use crate::claim::Verdict;
use crate::cuda::Gpu;
use crate::experiments::error::ExperimentError;
use crate::figure::{Figure, PlotRun};
use crate::kernel_source::builtin;
use crate::results::RunMeta;
use crate::table::{Column, TableData};
use run::Outcome;

impl Run for Spec {
    const ABOUT: &'static str =
        "GEMMs over shapes (the line chosen per shape, FP32 and BF16, beside cuBLAS)";

    fn help() -> String {
        let shapes: Vec<String> = list::SHAPES.iter().map(|s| list::name(s.dims)).collect();
        format!(
            "Shapes (M x N x K; 16384³ BF16 only): {}\n\nEach shape's line is chosen by the rule \
             of `line_choice` (docs/design.md), then timed with cuBLAS interleaved; every \
             element of both is checked. In `host all` each figure takes {ALL_SAMPLES} samples.",
            shapes.join(", ")
        )
    }

    fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<ShapesRun, ExperimentError> {
        let (main, _) = p.sources.load(gpu)?;
        let (tensor, _) = p.sources.load_with(gpu, builtin::TENSOR)?;
        let pairs = p.pairs();
        let bar = progress_bar(ctx, pairs.len(), Self::NAME);
        let mut out = ShapesRun {
            rows: Vec::new(),
            misses: Vec::new(),
            samples: p.samples,
        };
        for (s, family) in pairs {
            bar.set_message(format!("{} {}", family.name(), list::name(s.dims)));
            let got = match family {
                Family::Fp32 => run::fp32(gpu, ctx, p, (s, &main.module))?,
                Family::Bf16 => run::bf16(gpu, ctx, p, (s, &tensor.module))?,
            };
            match got {
                Outcome::Row(r) => out.rows.push(*r),
                Outcome::Miss(m) => out.misses.push(m),
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        Ok(out)
    }

    fn builtin_ptx() -> &'static [&'static str] {
        &[
            builtin::MAIN,
            builtin::TENSOR,
            builtin::HOPPER,
            builtin::CHECKS,
        ]
    }
}

impl Report for Spec {
    const SECTION: &'static str = "GEMMs over shapes (the chosen line per shape beside cuBLAS)";

    fn columns() -> Vec<Column<ShapeRow>> {
        table::columns()
    }

    fn title(m: &RunMeta) -> String {
        format!(
            "GEMMs over shapes: the line chosen per shape and family beside cuBLAS ({})",
            m.sampling_words()
        )
    }

    fn table(output: &ShapesRun, meta: &RunMeta) -> TableData {
        table::table(output, &Self::title(meta))
    }

    /// Judged from a run that has the sweep; none for runs without it (they keep their report).
    fn claims(output: Option<&ShapesRun>) -> Vec<Verdict> {
        output.map(claims::claims).unwrap_or_default()
    }

    /// Ours/cuBLAS by the chosen line's waves, a series per family (and run).
    fn figures(runs: &[PlotRun<'_, ShapesRun>]) -> Vec<(String, Figure)> {
        let runs: Vec<_> = runs.iter().map(|r| (r.name, r.output)).collect();
        let plot = figure::figure(Self::NUMBER, &runs);
        plot.map(|p| (Self::NAME.to_owned(), Figure::Scatter(p)))
            .into_iter()
            .collect()
    }
}
