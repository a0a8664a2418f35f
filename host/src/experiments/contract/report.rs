//! Reporting an experiment: its table (columns, title, notes, a second table), its plots, the
//! blog's claims judged from its output, its failed checks, and its rows in the merged table of
//! several runs ([`Report`]). Most of it has defaults: the table is the rows under the columns and
//! the notes, the failed checks and the merged rows come from the part of a row every experiment
//! measures alike ([`Measured`](crate::experiments::measured::Measured)), and an experiment with
//! no claims or plots says nothing.

use super::row::{Output, Rate, Row};
use super::run::{OutputOf, RowOf, Run};
use crate::claim::{Rules, Verdict};
use crate::figure::{Figure, PlotRun};
use crate::results::RunMeta;
use crate::table::{columns_table, Column, TableData};

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

/// How an experiment's output is shown and judged (it runs by [`Run`]); all but its columns and
/// title have defaults.
pub trait Report: Run {
    /// The report's section heading, after "Experiment N: ".
    const SECTION: &'static str;
    /// The stems of its CSVs beyond `NAME`'s: its [`Report::second_table`]'s. A results
    /// folder's files are known by these (`registry::file_names`).
    const MORE_CSVS: &'static [&'static str] = &[];
    /// The stems of its plots beyond `NAME`'s, as [`Report::figures`] names them.
    const MORE_PLOTS: &'static [&'static str] = &[];

    /// Its table's columns, in order: each declared once, formatted by its kind everywhere.
    fn columns() -> Vec<Column<RowOf<Self>>>;

    /// Its table's title (what was measured, at what size); the registry puts its number first.
    fn title(meta: &RunMeta) -> String;

    /// What its table says below the rows besides the rows' own flags (how it was measured,
    /// what was not run); none by default.
    fn notes(_output: &OutputOf<Self>) -> Vec<String> {
        Vec::new()
    }

    /// Its table: the rows under [`Report::columns`], then [`Report::notes`]; an
    /// experiment with a reference row adds it here.
    fn table(output: &OutputOf<Self>, meta: &RunMeta) -> TableData {
        let mut t = columns_table(&Self::title(meta), &Self::columns(), output.rows());
        t.notes.extend(Self::notes(output));
        t
    }

    /// A second table beside the rows' (e.g. `mma`'s wgmma table), with the stem of its
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

    /// Its claims judged by the run's edition of the rules: [`Report::claims`], unless the
    /// experiment's rules changed with an edition (then runs of the older one keep its verdicts).
    fn claims_under(output: Option<&OutputOf<Self>>, rules: Rules) -> Vec<Verdict> {
        let _ = rules;
        Self::claims(output)
    }

    /// Its plots over one or more runs, each with the stem of its file (`NAME` for its main
    /// plot, `NAME_something` for others); none when no run has data.
    fn figures(_runs: &[PlotRun<'_, OutputOf<Self>>]) -> Vec<(String, Figure)> {
        Vec::new()
    }

    /// Its rows for the merged table of several runs: each row's figures and the compared
    /// module's throughput at the row's occupancy.
    fn merged(output: &OutputOf<Self>) -> Merged {
        let row = |r: &RowOf<Self>| {
            let (throughput, occupancy) = r.figures();
            let theirs = r.measured().compare.as_ref();
            MergeRow {
                key: r.merge_key(),
                ours: (throughput, occupancy),
                theirs: theirs.map(|c| (c.throughput, occupancy)),
            }
        };
        let Rate { unit, decimals } = RowOf::<Self>::RATE;
        let rows = output.rows().iter().map(row).collect();
        let reference = output.reference();
        Merged {
            unit,
            decimals,
            reference,
            rows,
        }
    }

    /// Orders the row keys seen across runs: by default those of [`Run::variant_labels`] in its
    /// order, then any key it does not know (an older run's), first seen first.
    fn key_order(seen: Vec<String>) -> Vec<String> {
        let labels = Self::variant_labels().into_iter();
        let mut out: Vec<String> = labels
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
}
