//! The report of an "ILP x warps per SM" sweep (`ilp`, `mma`), written once: each sweep names its
//! heading, title, own columns, notes, verdicts and plot ([`SweepReport`]); its [`Report`] adds
//! the compared module's columns at the rows' rate, the title's sampling words, the plot of the
//! first run's rows, and the claims as published (the first edition of its rules).

use crate::claim::{Rules, Verdict};
use crate::experiments::cells::HasComparison;
use crate::experiments::contract::{Output, OutputOf, Report, Row, RowOf, Run};
use crate::figure::{Figure, PlotRun, ScatterPlot};
use crate::results::RunMeta;
use crate::table::{Column, TableData};

/// What an ILP sweep's report says of its own; [`Report`] follows from it.
pub trait SweepReport: Run {
    /// The report's section heading ([`Report::SECTION`]).
    const HEADING: &'static str;
    /// What its table measured, before how it was sampled ("FP32 throughput vs ...").
    const MEASURED: &'static str;
    /// The stems of its CSVs beyond `NAME`'s ([`Report::MORE_CSVS`]).
    const EXTRA_CSVS: &'static [&'static str] = &[];

    /// Its table's columns before the compared module's.
    const COLUMNS: fn() -> Vec<Column<RowOf<Self>>>;
    /// What its table says below the rows ([`Report::notes`]).
    const NOTES: fn(&OutputOf<Self>) -> Vec<String>;
    /// Its verdicts under the run's edition of the rules.
    const VERDICTS: fn(Option<&OutputOf<Self>>, Rules) -> Vec<Verdict>;
    /// Its one plot, of one run's rows.
    const PLOT: fn(&[RowOf<Self>]) -> ScatterPlot;

    /// A second table beside the rows' ([`Report::second_table`]); none by default.
    fn extra_table(_output: &OutputOf<Self>, _meta: &RunMeta) -> Option<(&'static str, TableData)> {
        None
    }
}

impl<S: SweepReport> Report for S
where
    RowOf<S>: HasComparison,
{
    const SECTION: &'static str = S::HEADING;
    const MORE_CSVS: &'static [&'static str] = S::EXTRA_CSVS;

    fn columns() -> Vec<Column<RowOf<S>>> {
        let mut c = (S::COLUMNS)();
        c.extend(RowOf::<S>::RATE.compared_columns());
        c
    }

    fn title(m: &RunMeta) -> String {
        format!("{} ({})", S::MEASURED, m.sampling_words())
    }

    fn notes(output: &OutputOf<S>) -> Vec<String> {
        (S::NOTES)(output)
    }

    fn claims(output: Option<&OutputOf<S>>) -> Vec<Verdict> {
        (S::VERDICTS)(output, Rules::AsPublished)
    }

    fn claims_under(output: Option<&OutputOf<S>>, rules: Rules) -> Vec<Verdict> {
        (S::VERDICTS)(output, rules)
    }

    fn figures(runs: &[PlotRun<'_, OutputOf<S>>]) -> Vec<(String, Figure)> {
        first_run_plot(runs, S::NAME, S::PLOT)
    }

    fn second_table(output: &OutputOf<S>, meta: &RunMeta) -> Option<(&'static str, TableData)> {
        S::extra_table(output, meta)
    }
}

/// A sweep's one plot: `plot` of the first run's rows, named `name`; none when that run has no
/// rows.
pub fn first_run_plot<O: Output>(
    runs: &[PlotRun<'_, O>],
    name: &str,
    plot: fn(&[O::Row]) -> ScatterPlot,
) -> Vec<(String, Figure)> {
    runs.first()
        .map(|r| r.output.rows())
        .filter(|rows| !rows.is_empty())
        .map(|rows| vec![(name.to_owned(), Figure::Scatter(plot(rows)))])
        .unwrap_or_default()
}
