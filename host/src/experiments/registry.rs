//! What the lab makes of its list of experiments, written once over all of them: the subcommands
//! and `host all`, the planned experiments' runs and records, and of a run's results the report's
//! sections, the failed checks, the verdicts, the merged rows, the plots and the files of a
//! results folder. The list itself, and the little that has to name each experiment, is
//! [`super::roster`]; the code here gets each experiment as a type ([`Visit`], [`VisitPlan`]).

use super::contract::{Merged, Plan, RunContext};
use super::error::ExperimentError;
use super::module_source::ModuleNames;
pub use super::roster::{
    each, numbered, AllExperimentArgs, ExperimentArgs, ExperimentCommand, Listed, Planned,
    RunResults, Visit, VisitPlan, NAMES,
};
use crate::claim::Verdict;
use crate::cuda::Gpu;
use crate::figure::{Figure, PlotRun};
use crate::flags::{check_mixed_labels, CliError, Common, Shared};
use crate::kernel_source::name::ModuleSource;
use crate::results::RunMeta;
use crate::table::TableData;

/// `host all`. `--compare-label` names the modules of `--compare` or `--compare-caps` (group
/// `compared`), and is refused without either.
#[derive(Debug, Clone, clap::Args)]
#[command(group = clap::ArgGroup::new("compared").multiple(true)
    .args(["compare", "compare_caps"]))]
pub struct AllArgs {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub shared: Shared,
    #[command(flatten)]
    pub experiments: AllExperimentArgs,
}

/// One experiment's output in a run, by name.
pub struct Section {
    pub name: &'static str,
    pub number: u8,
    /// "Experiment N: what it measures".
    pub heading: String,
    /// Its table, when it ran.
    pub table: Option<TableData>,
    /// Its second table, if it has one, with the stem of its CSV.
    pub second: Option<(&'static str, TableData)>,
}

/// Experiment `E`'s section of `r`: its tables titled with its number.
fn section<E: Listed>(r: &RunResults) -> Section {
    let numbered_title = |mut t: TableData| {
        t.title = format!("{}. {}", E::NUMBER, t.title);
        t
    };
    let output = E::output(r);
    Section {
        name: E::NAME,
        number: E::NUMBER,
        heading: numbered(E::NUMBER, E::SECTION),
        table: output.map(|o| {
            numbered_title(E::table(o, &r.meta).name_compared(r.meta.compare_name().as_deref()))
        }),
        second: output
            .and_then(|o| E::second_table(o, &r.meta))
            .map(|(stem, t)| (stem, numbered_title(t))),
    }
}

/// Experiment `E`'s verdicts from its output (NOT JUDGED where it did not run), each with its
/// number.
fn claims_of<E: Listed>(r: &RunResults) -> Vec<Verdict> {
    let output = E::output(r);
    let mut verdicts = E::claims(output);
    for v in &mut verdicts {
        v.experiment = E::NUMBER;
        if output.is_none() {
            v.evidence = format!("experiment {} was not run", E::NUMBER);
        }
    }
    verdicts
}

impl RunResults {
    /// Every experiment in order, with its table when it ran.
    pub fn sections(&self) -> Vec<Section> {
        struct Sections<'a>(&'a RunResults, Vec<Section>);
        impl Visit for Sections<'_> {
            fn visit<E: Listed>(&mut self) {
                self.1.push(section::<E>(self.0));
            }
        }
        let mut v = Sections(self, Vec::new());
        each(&mut v);
        v.1
    }

    /// Whether experiment `name`'s output is in the results.
    pub fn has_output(&self, name: &str) -> bool {
        struct Has<'a>(&'a RunResults, &'a str, bool);
        impl Visit for Has<'_> {
            fn visit<E: Listed>(&mut self) {
                self.2 |= E::NAME == self.1 && E::output(self.0).is_some();
            }
        }
        let mut v = Has(self, name, false);
        each(&mut v);
        v.2
    }

    /// Descriptions of every failed check, each prefixed with its experiment.
    pub fn failed_checks(&self) -> Vec<String> {
        struct Failed<'a>(&'a RunResults, Vec<String>);
        impl Visit for Failed<'_> {
            fn visit<E: Listed>(&mut self) {
                if let Some(o) = E::output(self.0) {
                    let failed = E::failed_checks(o).into_iter();
                    self.1.extend(failed.map(|f| format!("{} {f}", E::NAME)));
                }
            }
        }
        // An experiment a kernel faulted in checked nothing after the fault.
        let faulted = self.missing.iter().filter(|m| m.faulted);
        let out = faulted.map(|m| format!("{} {}", m.experiment, m.reason));
        let mut v = Failed(self, out.collect());
        each(&mut v);
        v.1
    }

    /// Every claim, judged from its own experiment's output alone.
    pub fn own_verdicts(&self) -> Vec<Verdict> {
        struct Claims<'a>(&'a RunResults, Vec<Verdict>);
        impl Visit for Claims<'_> {
            fn visit<E: Listed>(&mut self) {
                self.1.extend(claims_of::<E>(self.0));
            }
        }
        let mut v = Claims(self, Vec::new());
        each(&mut v);
        v.1
    }

    /// Each experiment's rows for the merged table (`None` where it did not run).
    pub fn merged(&self) -> Vec<(u8, Option<Merged>)> {
        struct Rows<'a>(&'a RunResults, Vec<(u8, Option<Merged>)>);
        impl Visit for Rows<'_> {
            fn visit<E: Listed>(&mut self) {
                self.1.push((E::NUMBER, E::output(self.0).map(E::merged)));
            }
        }
        let mut v = Rows(self, Vec::new());
        each(&mut v);
        v.1
    }
}

/// A run to plot: its name, the compared module's name (when compared) and its results.
pub type RunToPlot<'a> = (&'a str, Option<&'a str>, &'a RunResults);

/// The plots of several runs (one name per run and, when compared, per compared module):
/// (experiment name, file stem, figure) for each plot some run has data for.
pub fn figures(runs: &[RunToPlot<'_>]) -> Vec<(&'static str, String, Figure)> {
    struct Plots<'a, 'r>(&'a [RunToPlot<'r>], Vec<(&'static str, String, Figure)>);
    impl Visit for Plots<'_, '_> {
        fn visit<E: Listed>(&mut self) {
            let plotted: Vec<PlotRun<'_, _>> = (self.0.iter())
                .filter_map(|(name, compare_name, r)| {
                    E::output(r).map(|output| PlotRun {
                        name,
                        compare_name: *compare_name,
                        device: &r.device,
                        meta: &r.meta,
                        output,
                    })
                })
                .collect();
            for (stem, f) in E::figures(&plotted) {
                self.1.push((E::NAME, stem, f));
            }
        }
    }
    let mut v = Plots(runs, Vec::new());
    each(&mut v);
    v.1
}

/// Orders the row keys of experiment `number` seen across runs.
pub fn key_order(number: u8, seen: Vec<String>) -> Vec<String> {
    struct Order(u8, Option<Vec<String>>);
    impl Visit for Order {
        fn visit<E: Listed>(&mut self) {
            if E::NUMBER == self.0 {
                self.1 = self.1.take().map(E::key_order);
            }
        }
    }
    let mut v = Order(number, Some(seen));
    each(&mut v);
    v.1.unwrap_or_default()
}

/// The names of every CSV and plot an experiment may write into a results folder: `NAME.csv` and
/// `NAME.svg`, and those of its second table and other plots.
pub fn file_names() -> Vec<String> {
    struct Files(Vec<String>);
    impl Visit for Files {
        fn visit<E: Listed>(&mut self) {
            self.0.push(format!("{}.csv", E::NAME));
            self.0.push(format!("{}.svg", E::NAME));
            self.0
                .extend(E::MORE_CSVS.iter().map(|s| format!("{s}.csv")));
            self.0
                .extend(E::MORE_PLOTS.iter().map(|s| format!("{s}.svg")));
        }
    }
    let mut v = Files(Vec::new());
    each(&mut v);
    v.0
}

/// Every experiment's name and variant labels, in order.
fn variant_labels() -> Vec<(&'static str, Vec<&'static str>)> {
    struct Labels(Vec<(&'static str, Vec<&'static str>)>);
    impl Visit for Labels {
        fn visit<E: Listed>(&mut self) {
            self.0.push((E::NAME, E::variant_labels()));
        }
    }
    let mut v = Labels(Vec::new());
    each(&mut v);
    v.0
}

/// `host all --help`'s list of every experiment's variant labels.
pub fn all_variants_help() -> String {
    let lines: Vec<String> = variant_labels()
        .iter()
        .filter(|(_, l)| !l.is_empty())
        .map(|(name, l)| format!("  {name}: {}", l.join(", ")))
        .collect();
    format!("Variants (from the variant table):\n{}", lines.join("\n"))
}

/// Validates `host all`'s flags into one plan per experiment.
pub fn plan_all(all: &AllArgs) -> Result<Vec<Planned>, CliError> {
    struct Plans<'a>(&'a AllArgs, Result<Vec<Planned>, CliError>);
    impl Visit for Plans<'_> {
        fn visit<E: Listed>(&mut self) {
            if let Ok(plans) = &mut self.1 {
                match Plan::in_all(&self.0.shared, E::all_args(&self.0.experiments)) {
                    Ok(p) => plans.push(E::planned(p)),
                    Err(e) => self.1 = Err(e),
                }
            }
        }
    }
    let labels = variant_labels();
    let known: Vec<&str> = labels.iter().flat_map(|(_, l)| l.iter().copied()).collect();
    check_mixed_labels(&all.shared.variants, &known, &labels)?;
    let mut v = Plans(all, Ok(Vec::new()));
    each(&mut v);
    v.1
}

impl Planned {
    pub fn name(&self) -> &'static str {
        struct Name;
        impl VisitPlan for Name {
            type Out = &'static str;
            fn visit<E: Listed>(self, _: &E::Plan) -> &'static str {
                E::NAME
            }
        }
        self.visit(Name)
    }

    /// Writes the experiment's sizes into the run's record.
    pub fn record(&self, meta: &mut RunMeta) {
        struct Record<'a>(&'a mut RunMeta);
        impl VisitPlan for Record<'_> {
            type Out = ();
            fn visit<E: Listed>(self, plan: &E::Plan) {
                plan.record(self.0);
            }
        }
        self.visit(Record(meta));
    }

    /// The modules the experiment will load ([`Plan::sources`]).
    pub fn modules(&self) -> ModuleNames {
        struct Modules;
        impl VisitPlan for Modules {
            type Out = ModuleNames;
            fn visit<E: Listed>(self, plan: &E::Plan) -> ModuleNames {
                plan.sources().names()
            }
        }
        self.visit(Modules)
    }

    /// The built-in PTX modules it will load
    /// ([`Run::builtin_ptx`](super::contract::Run::builtin_ptx)), none when its own kernels come
    /// from a file.
    pub fn builtin_ptx(&self) -> &'static [&'static str] {
        struct Builtin;
        impl VisitPlan for Builtin {
            type Out = &'static [&'static str];
            fn visit<E: Listed>(self, _: &E::Plan) -> &'static [&'static str] {
                E::builtin_ptx()
            }
        }
        if self.modules().ours != ModuleSource::BuiltIn {
            return &[];
        }
        self.visit(Builtin)
    }

    /// Whether a kernel's fault in its line `line` leaves the rest of the experiment to run
    /// ([`Plan::goes_on_without`]).
    pub fn goes_on_without(&self, line: &str) -> bool {
        struct GoesOn<'a>(&'a str);
        impl VisitPlan for GoesOn<'_> {
            type Out = bool;
            fn visit<E: Listed>(self, plan: &E::Plan) -> bool {
                plan.goes_on_without(self.0)
            }
        }
        self.visit(GoesOn(line))
    }

    /// Runs the experiment and stores its output in `results`.
    pub fn run(
        &self,
        gpu: &Gpu,
        ctx: &RunContext,
        results: &mut RunResults,
    ) -> Result<(), ExperimentError> {
        struct Running<'a>(&'a Gpu, &'a RunContext, &'a mut RunResults);
        impl VisitPlan for Running<'_> {
            type Out = Result<(), ExperimentError>;
            fn visit<E: Listed>(self, plan: &E::Plan) -> Self::Out {
                *E::output_mut(self.2) = Some(E::run(self.0, self.1, plan)?);
                Ok(())
            }
        }
        self.visit(Running(gpu, ctx, results))
    }
}
