//! What an experiment is, to everything that consumes one: the CLI (its flags and plan), the run,
//! the tables (terminal, Markdown, CSV; JSON is its output as stored), `report.md`, the plots'
//! data, the verdicts and `host report` merging. An experiment is a folder under
//! `experiments/` implementing [`Experiment`], its [`Plan`], its [`Output`] and its rows' [`Row`]
//! (by [`row!`]), plus one line in the list of `experiments/mod.rs`, which gives it its number and
//! name ([`super::registry`]).
//!
//! Most of the contract has defaults: the table is the rows under the columns and the notes, the failed checks
//! and the merged table come from the part of a row every experiment measures alike
//! ([`Measured`]), and an experiment with no claims or plots says nothing.

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::cells::{compared_columns, HasComparison};
use super::error::ExperimentError;
use super::measured::Measured;
use crate::claim::Verdict;
use crate::cuda::Gpu;
use crate::figure::{Figure, PlotRun};
use crate::flags::{CliError, Shared};
use crate::results::RunMeta;
use crate::sampling::SamplingConfig;
use crate::table::{columns_table, Column, Kind, TableData};

/// What every experiment of a run shares: how figures are timed, the seed of the inputs, whether
/// to draw progress bars.
#[derive(Debug, Clone, PartialEq)]
pub struct RunContext {
    /// Every figure's timing ([`crate::sampling::time_sides`]); its reference clock is set once
    /// the device is open.
    pub timing: SamplingConfig,
    pub seed: u64,
    /// Draw a progress bar (on a terminal).
    pub progress: bool,
    /// The longest any wait for the GPU may take before the run ends (`--launch-timeout`).
    pub launch_timeout: std::time::Duration,
    /// The faults met earlier in the run, in processes before this one (`--resume`).
    pub faults: Vec<super::resume::Fault>,
}

/// One row of the merged table of `host report DIR...`: a row key (variant label, "cap 32") with
/// (throughput, occupancy) of our module and of the compared one.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeRow {
    pub key: String,
    pub ours: (f64, f64),
    pub theirs: Option<(f64, f64)>,
}

/// An experiment's contribution to the merged table.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// Unit of the figures, e.g. "GFLOP/s".
    pub unit: &'static str,
    pub decimals: usize,
    /// A measured reference shown above the rows (name, value), e.g. the device-to-device copy.
    pub reference: Option<(&'static str, f64)>,
    pub rows: Vec<MergeRow>,
}

/// A row's throughput: its unit, the decimals it is shown with, and the header of the compared
/// module's column of it (the renderer puts the compared module's name before it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub unit: &'static str,
    pub decimals: usize,
    pub other: &'static str,
}

impl Rate {
    /// The column kind of a figure in this unit.
    pub const fn kind(self) -> Kind {
        Kind::Rate {
            unit: self.unit,
            decimals: self.decimals,
        }
    }

    /// The compared module's columns of a row in this unit.
    pub fn compared_columns<R: HasComparison>(self) -> Vec<Column<R>> {
        compared_columns(self.other, self.unit, self.decimals)
    }
}

/// FP32 arithmetic, whole GFLOP/s.
pub const GFLOPS: Rate = Rate {
    unit: "GFLOP/s",
    decimals: 0,
    other: "GFLOP/s",
};

/// Tensor-core arithmetic, TFLOP/s to a tenth.
pub const TFLOPS: Rate = Rate {
    unit: "TFLOP/s",
    decimals: 1,
    other: "TFLOP/s",
};

/// Copies, GB/s (read + written) to a tenth.
pub const GBPS: Rate = Rate {
    unit: "GB/s",
    decimals: 1,
    other: "GB/s",
};

/// One row of an experiment's table, as `results.json` stores it: its own columns and, embedded,
/// the part every experiment measures alike ([`Measured`]: the check, the flags, the compared
/// module's side), from which the table's notes, the failed checks and the comparison come.
/// [`row!`](crate::experiments::contract::row) implements it for a row struct.
pub trait Row: Serialize + DeserializeOwned + Clone + Debug + PartialEq {
    /// The unit of [`Row::figures`]' throughput.
    const RATE: Rate;
    /// Names the row in the table's notes, the failed checks and the merged table.
    fn label(&self) -> String;
    fn measured(&self) -> &Measured;
    /// Throughput (in [`Row::RATE`]) and theoretical occupancy, for the merged table.
    fn figures(&self) -> (f64, f64);
    /// The row's key in the merged table of several runs.
    fn merge_key(&self) -> String {
        self.label()
    }
}

/// Implements [`Row`] for a row struct with a `measured: Measured` field and an `occupancy`
/// field, from its rate, the field holding its throughput (`figures.gflops` where both sit in an
/// embedded struct, as [`GemmFigures`](crate::experiments::gemm_figures::GemmFigures)) and how it
/// is labelled (and, where the merged table keys it otherwise, how it is keyed there):
///
/// ```ignore
/// row!(RegsRow, GFLOPS, figures.gflops, |r| format!("cap {}", r.cap));
/// row!(IlpRow, GFLOPS, gflops, occupancy: point.occupancy, |r| ..., merge_key: |r| ...);
/// ```
macro_rules! row {
    (@occupancy $s:ident, [$($throughput:ident).+], [$($occupancy:ident).+]) => {
        $s.$($occupancy).+
    };
    (@occupancy $s:ident, [$throughput:ident]) => {
        $s.occupancy
    };
    (@occupancy $s:ident, [$outer:ident . $throughput:ident]) => {
        $s.$outer.occupancy
    };
    ($row:ty, $rate:expr, $($throughput:ident).+ $(, occupancy: $($occupancy:ident).+)?,
        |$r:ident| $label:expr $(, merge_key: |$k:ident| $key:expr)?) => {
        impl $crate::experiments::contract::Row for $row {
            const RATE: $crate::experiments::contract::Rate = $rate;
            fn label(&self) -> String {
                let $r = self;
                $label
            }
            fn measured(&self) -> &$crate::experiments::measured::Measured {
                &self.measured
            }
            fn figures(&self) -> (f64, f64) {
                (
                    self.$($throughput).+,
                    $crate::experiments::contract::row!(
                        @occupancy self, [$($throughput).+] $(, [$($occupancy).+])?
                    ),
                )
            }
            $(fn merge_key(&self) -> String {
                let $k = self;
                $key
            })?
        }
    };
}
pub(crate) use row;

/// The [`Experiment`] methods of an experiment whose folder is laid out as the sweeps' are:
/// `run::run` runs it, `table::notes` writes the notes under its table and `claims::verdicts`
/// judges its claims (the paths resolve in the module that invokes it, inside its
/// `impl Experiment`).
macro_rules! forward_to_modules {
    ($output:ty) => {
        fn run(
            gpu: &$crate::cuda::Gpu,
            ctx: &$crate::experiments::contract::RunContext,
            p: &Self::Plan,
        ) -> Result<$output, $crate::experiments::error::ExperimentError> {
            run::run(gpu, ctx, p)
        }
        fn notes(output: &$output) -> Vec<String> {
            table::notes(output)
        }
        fn claims(output: Option<&$output>) -> Vec<$crate::claim::Verdict> {
            claims::verdicts(output)
        }
    };
}
pub(crate) use forward_to_modules;

/// What an experiment stores in `results.json`: its rows, and what it measured besides them.
pub trait Output: Serialize + DeserializeOwned + Clone + Debug + PartialEq {
    type Row: Row;
    fn rows(&self) -> &[Self::Row];
    /// A measured reference above the merged table's rows (name, value), e.g. cuBLAS.
    fn reference(&self) -> Option<(&'static str, f64)> {
        None
    }
    /// The failed checks outside the rows, in words, e.g. cuBLAS's or the latency chase's.
    fn other_failures(&self) -> Vec<String> {
        Vec::new()
    }
}

/// An experiment whose output is its rows alone.
impl<R: Row> Output for Vec<R> {
    type Row = R;
    fn rows(&self) -> &[R] {
        self
    }
}

/// An experiment's validated flags: everything its run needs, every file checked, and where
/// its kernels come from (a `sources` field, [`super::module_source::Sources`], which the
/// registry reads for the run's record).
pub trait Plan: Sized + Clone + Debug + PartialEq {
    /// Its own subcommand's flags (besides the common ones).
    type Args: clap::Args + Clone + Debug;
    /// The flags it adds to `host all` (besides the shared ones); often none.
    type AllArgs: clap::Args + Clone + Debug;
    /// What running it gives, as `results.json` stores it.
    type Output: Output;
    /// Validates its own subcommand's flags (no GPU).
    fn new(args: &Self::Args) -> Result<Self, CliError>;
    /// Validates its part of `host all` (no GPU).
    fn in_all(shared: &Shared, args: &Self::AllArgs) -> Result<Self, CliError>;
    /// Writes its sizes into the run's record (e.g. the GEMM size).
    fn record(&self, _meta: &mut RunMeta) {}
}

/// What experiment `E` stores.
pub type OutputOf<E> = <<E as Registered>::Plan as Plan>::Output;
/// The rows of experiment `E`.
pub type RowOf<E> = <OutputOf<E> as Output>::Row;

/// An experiment's place in the list of experiments, which implements this from its line: its
/// number (1, 2, 3, ...), its name (the subcommand, the key in `results.json`, the stem of its
/// CSV and plots) and its plan (the `Plan` of its folder, as `Spec` is the experiment).
pub trait Registered {
    const NUMBER: u8;
    const NAME: &'static str;
    /// Its validated flags: what [`Experiment::run`] is given.
    type Plan: Plan;
}

/// One experiment: its words, its run and its table (its plan comes with its line in the list,
/// [`Registered`]); the rest has defaults.
pub trait Experiment: Registered + 'static {
    /// One line for `host --help`, after "Experiment N: ".
    const ABOUT: &'static str;
    /// The stems of its CSVs beyond `NAME`'s: its [`Experiment::second_table`]'s. A results
    /// folder's files are known by these ([`registry::file_names`](super::registry::file_names)).
    const MORE_CSVS: &'static [&'static str] = &[];
    /// The stems of its plots beyond `NAME`'s, as [`Experiment::figures`] names them.
    const MORE_PLOTS: &'static [&'static str] = &[];
    /// The report's section heading, after "Experiment N: ".
    const SECTION: &'static str;

    /// Runs it on `gpu`.
    fn run(
        gpu: &Gpu,
        ctx: &RunContext,
        plan: &Self::Plan,
    ) -> Result<OutputOf<Self>, ExperimentError>;

    /// The large built-in PTX modules its run loads when its kernels are the built-in ones; a run
    /// of several experiments compiles them on other threads while earlier ones run (the
    /// modules are shared, `cuda/module_cache.rs`). Small ones may be left out: they are
    /// compiled when loaded.
    fn builtin_ptx() -> &'static [&'static str] {
        &[]
    }

    /// Its table's columns, in order: each declared once, formatted by its kind everywhere.
    fn columns() -> Vec<Column<RowOf<Self>>>;

    /// Its table's title (what was measured, at what size); the registry puts its number first.
    fn title(meta: &RunMeta) -> String;

    /// The labels `--variants` accepts (listed in `--help`); empty when it has none.
    fn variant_labels() -> Vec<&'static str> {
        Vec::new()
    }

    /// What its `--help` lists under the flags: by default its variant labels.
    fn help() -> String {
        let labels = Self::variant_labels();
        if labels.is_empty() {
            String::new()
        } else {
            format!("Variants (from the variant table): {}", labels.join(", "))
        }
    }

    /// What its table says below the rows besides the rows' own flags (how it was measured,
    /// what was not run); none by default.
    fn notes(_output: &OutputOf<Self>) -> Vec<String> {
        Vec::new()
    }

    /// Its table: the rows under [`Experiment::columns`], then [`Experiment::notes`]; an
    /// experiment with a reference row adds it here.
    fn table(output: &OutputOf<Self>, meta: &RunMeta) -> TableData {
        let mut t = columns_table(&Self::title(meta), &Self::columns(), output.rows());
        t.notes.extend(Self::notes(output));
        t
    }

    /// A second table beside the rows' (e.g. experiment 6's wgmma table), with the stem of its
    /// CSV; none by default.
    fn second_table(
        _output: &OutputOf<Self>,
        _meta: &RunMeta,
    ) -> Option<(&'static str, TableData)> {
        None
    }

    /// Every failed correctness check (ours and the compared module's per row, then the checks
    /// outside the rows), in words.
    fn failed_checks(output: &OutputOf<Self>) -> Vec<String> {
        let mut out = Vec::new();
        for r in output.rows() {
            r.measured().failed(&r.label(), &mut out);
        }
        out.extend(output.other_failures());
        out
    }

    /// The blog's claims about it, judged from `output` (NOT JUDGED, with the reason, when
    /// absent; the registry fills in the experiment's number).
    fn claims(_output: Option<&OutputOf<Self>>) -> Vec<Verdict> {
        Vec::new()
    }

    /// Its plots over one or more runs, each with the stem of its file (`NAME` for its main
    /// plot, `NAME_something` for others); none when no run has data.
    fn figures(_runs: &[PlotRun<'_, OutputOf<Self>>]) -> Vec<(String, Figure)> {
        Vec::new()
    }

    /// Its rows for the merged table of several runs: each row's figures and the compared
    /// module's throughput at the row's occupancy.
    fn merged(output: &OutputOf<Self>) -> Merged {
        let rate = RowOf::<Self>::RATE;
        Merged {
            unit: rate.unit,
            decimals: rate.decimals,
            reference: output.reference(),
            rows: output
                .rows()
                .iter()
                .map(|r| {
                    let (throughput, occupancy) = r.figures();
                    MergeRow {
                        key: r.merge_key(),
                        ours: (throughput, occupancy),
                        theirs: r
                            .measured()
                            .compare
                            .as_ref()
                            .map(|c| (c.throughput, occupancy)),
                    }
                })
                .collect(),
        }
    }

    /// Orders the row keys seen across runs (default: in the order of
    /// [`Experiment::variant_labels`], then first seen first).
    fn key_order(seen: Vec<String>) -> Vec<String> {
        table_order(Self::variant_labels().into_iter(), seen)
    }
}

/// Keys in the variant table's order, then any key the table does not know (an older run).
fn table_order<'a>(table: impl Iterator<Item = &'a str>, seen: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = table
        .filter(|l| seen.iter().any(|s| s == l))
        .map(str::to_string)
        .collect();
    for s in seen {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}
