//! What an experiment is, to everything that consumes one: the CLI (its flags and plan), the run,
//! the tables (terminal, Markdown, CSV; JSON is its output as stored), `report.md`, the plots'
//! data, the verdicts and `host report` merging. An experiment is a folder under
//! `experiments/` implementing [`Experiment`], plus one line in [`super::registry`].

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::module_source::DescribeModule;
use super::ExperimentError;
use crate::claim::Verdict;
use crate::cuda::Gpu;
use crate::figure::{Figure, PlotRun};
use crate::flags::{CliError, Shared};
use crate::module_name::ModuleSource;
use crate::results::RunMeta;
use crate::sampling::SamplingConfig;
use crate::table::{columns_table, Column, TableData, TableRow};

/// What every experiment of a run shares: how figures are timed, the seed of the inputs, whether
/// to draw progress bars.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunContext {
    /// Every figure's timing ([`crate::sampling::time_sides`]); its reference clock is set once
    /// the device is open.
    pub timing: SamplingConfig,
    pub seed: u64,
    /// Draw a progress bar (on a terminal).
    pub progress: bool,
}

/// Where an experiment's kernels come from, for the run's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleNames {
    pub ours: ModuleSource,
    pub theirs: Option<ModuleSource>,
    /// The compared module's name in tables, plots and legends (`--compare-label`).
    pub label: Option<String>,
}

impl ModuleNames {
    /// The names of a plan's module, its compared module and the compared module's label.
    pub fn of<K: DescribeModule>(ours: &K, theirs: Option<&K>, label: &Option<String>) -> Self {
        Self {
            ours: ours.describe(),
            theirs: theirs.map(DescribeModule::describe),
            label: label.clone(),
        }
    }
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

/// One experiment. `NAME` is its subcommand, its key in `results.json`, the stem of its CSV and
/// of its plot.
pub trait Experiment: 'static {
    /// Subcommand, `results.json` key, `NAME.csv`, `NAME.svg`.
    const NAME: &'static str;
    /// Its number in the tables and the report (1, 2, 3, ...).
    const NUMBER: u8;
    /// One line for `host --help`.
    const ABOUT: &'static str;
    /// The report's section heading.
    const SECTION: &'static str;

    /// Its own subcommand's flags (besides the common ones).
    type Args: clap::Args + Clone + Debug;
    /// The flags it adds to `host all` (besides the shared ones); often none.
    type AllArgs: clap::Args + Clone + Debug;
    /// Its flags validated: everything the run needs, every file checked.
    type Plan: Clone + Debug + PartialEq;
    /// What it measured, as `results.json` stores it.
    type Output: Serialize + DeserializeOwned + Clone + Debug + PartialEq;
    /// One row of its table.
    type Row: TableRow;

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

    /// Validates its own subcommand's flags (no GPU).
    fn plan(args: &Self::Args) -> Result<Self::Plan, CliError>;

    /// Validates its part of `host all` (no GPU).
    fn plan_in_all(shared: &Shared, args: &Self::AllArgs) -> Result<Self::Plan, CliError>;

    /// The modules it will load, for the run's record.
    fn modules(plan: &Self::Plan) -> ModuleNames;

    /// Writes its sizes into the run's record (e.g. the GEMM size).
    fn record(_plan: &Self::Plan, _meta: &mut RunMeta) {}

    /// Runs it on `gpu`.
    fn run(gpu: &Gpu, ctx: &RunContext, plan: &Self::Plan)
        -> Result<Self::Output, ExperimentError>;

    /// Its table rows.
    fn rows(output: &Self::Output) -> &[Self::Row];

    /// Its table's columns, in order: each declared once, formatted by its kind everywhere.
    fn columns() -> Vec<Column<Self::Row>>;

    /// Its table's title (what was measured, at what size).
    fn title(meta: &RunMeta) -> String;

    /// Its table: the rows under [`Experiment::columns`]; an experiment with a reference row or
    /// notes of its own adds them here.
    fn table(output: &Self::Output, meta: &RunMeta) -> TableData {
        columns_table(&Self::title(meta), &Self::columns(), Self::rows(output))
    }

    /// Every failed correctness check (ours and the compared module's), in words.
    fn failed_checks(output: &Self::Output) -> Vec<String>;

    /// The blog's claims about it, judged from `output` (NOT JUDGED, with the reason, when absent).
    fn claims(output: Option<&Self::Output>) -> Vec<Verdict>;

    /// Its plots over one or more runs, each with the stem of its file (`NAME` for its main
    /// plot, `NAME_something` for others); none when no run has data.
    fn figures(runs: &[PlotRun<'_, Self::Output>]) -> Vec<(String, Figure)>;

    /// Its rows for the merged table of several runs.
    fn merged(output: &Self::Output) -> Merged;

    /// Orders the row keys seen across runs (default: first seen first).
    fn key_order(seen: Vec<String>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in seen {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }
}

/// Keys in the variant table's order, then any key the table does not know (an older run).
pub fn table_order<'a>(table: impl Iterator<Item = &'a str>, seen: Vec<String>) -> Vec<String> {
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
