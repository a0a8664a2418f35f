//! What the lab makes of its list of experiments, written once over all of them: the subcommands
//! and `host all`, the planned experiments' runs and records, and of a run's results the report's
//! sections, the failed checks, the verdicts, the merged rows, the plots and the files of a
//! results folder. The list itself, and the little that has to name each experiment, is
//! [`super::roster`]; the code here gets each experiment as a type ([`Visit`], [`VisitPlan`]).

use super::contract::{Merged, Plan, RunContext};
use super::error::ExperimentError;
pub use super::roster::{
    each, numbered, AllExperimentArgs, ExperimentArgs, ExperimentCommand, Listed, Planned,
    RunResults, Visit, VisitPlan, NAMES,
};
use crate::claim::Verdict;
use crate::cuda::Gpu;
use crate::figure::{Figure, PlotRun};
use crate::flags::{check_mixed_labels, CliError, Common, Shared};
use crate::kernel_source::name::ModuleSource;
use crate::kernel_source::sources::ModuleNames;
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
    let mut verdicts = E::claims_under(output, r.rules);
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
        struct Sections<'a>(&'a RunResults);
        impl Visit for Sections<'_> {
            type Out = Section;
            fn visit<E: Listed>(&self) -> Section {
                section::<E>(self.0)
            }
        }
        each(&Sections(self))
    }

    /// Whether experiment `name`'s output is in the results.
    pub fn has_output(&self, name: &str) -> bool {
        struct Has<'a>(&'a RunResults, &'a str);
        impl Visit for Has<'_> {
            type Out = bool;
            fn visit<E: Listed>(&self) -> bool {
                E::NAME == self.1 && E::output(self.0).is_some()
            }
        }
        each(&Has(self, name)).contains(&true)
    }

    /// Descriptions of every failed check, each prefixed with its experiment.
    pub fn failed_checks(&self) -> Vec<String> {
        struct Failed<'a>(&'a RunResults);
        impl Visit for Failed<'_> {
            type Out = Vec<String>;
            fn visit<E: Listed>(&self) -> Vec<String> {
                let failed = E::output(self.0).map(E::failed_checks).unwrap_or_default();
                failed
                    .into_iter()
                    .map(|f| format!("{} {f}", E::NAME))
                    .collect()
            }
        }
        // An experiment a kernel faulted in checked nothing after the fault.
        let faulted = self.missing.iter().filter(|m| m.faulted);
        let faulted = faulted.map(|m| format!("{} {}", m.experiment, m.reason));
        faulted
            .chain(each(&Failed(self)).into_iter().flatten())
            .collect()
    }

    /// Every claim, judged from its own experiment's output alone.
    pub fn own_verdicts(&self) -> Vec<Verdict> {
        struct Claims<'a>(&'a RunResults);
        impl Visit for Claims<'_> {
            type Out = Vec<Verdict>;
            fn visit<E: Listed>(&self) -> Vec<Verdict> {
                claims_of::<E>(self.0)
            }
        }
        each(&Claims(self)).concat()
    }

    /// Each experiment's rows for the merged table (`None` where it did not run).
    pub fn merged(&self) -> Vec<(u8, Option<Merged>)> {
        struct Rows<'a>(&'a RunResults);
        impl Visit for Rows<'_> {
            type Out = (u8, Option<Merged>);
            fn visit<E: Listed>(&self) -> Self::Out {
                (E::NUMBER, E::output(self.0).map(E::merged))
            }
        }
        each(&Rows(self))
    }
}

/// A run to plot: its name, the compared module's name (when compared) and its results.
pub type RunToPlot<'a> = (&'a str, Option<&'a str>, &'a RunResults);

/// The plots of several runs (one name per run and, when compared, per compared module):
/// (experiment name, file stem, figure) for each plot some run has data for.
pub fn figures(runs: &[RunToPlot<'_>]) -> Vec<(&'static str, String, Figure)> {
    struct Plots<'a, 'r>(&'a [RunToPlot<'r>]);
    impl Visit for Plots<'_, '_> {
        type Out = Vec<(&'static str, String, Figure)>;
        fn visit<E: Listed>(&self) -> Self::Out {
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
            let figures = E::figures(&plotted).into_iter();
            figures.map(|(stem, f)| (E::NAME, stem, f)).collect()
        }
    }
    each(&Plots(runs)).concat()
}

/// Orders the row keys of experiment `number` seen across runs.
pub fn key_order(number: u8, seen: Vec<String>) -> Vec<String> {
    struct Order<'a>(u8, &'a [String]);
    impl Visit for Order<'_> {
        type Out = Option<Vec<String>>;
        fn visit<E: Listed>(&self) -> Self::Out {
            (E::NUMBER == self.0).then(|| E::key_order(self.1.to_vec()))
        }
    }
    let ordered = each(&Order(number, &seen)).into_iter().flatten().next();
    ordered.unwrap_or(seen)
}

/// The names of every CSV and plot an experiment may write into a results folder: `NAME.csv` and
/// `NAME.svg`, and those of its second table and other plots.
pub fn file_names() -> Vec<String> {
    struct Files;
    impl Visit for Files {
        type Out = Vec<String>;
        fn visit<E: Listed>(&self) -> Vec<String> {
            let mut out = vec![format!("{}.csv", E::NAME), format!("{}.svg", E::NAME)];
            out.extend(E::MORE_CSVS.iter().map(|s| format!("{s}.csv")));
            out.extend(E::MORE_PLOTS.iter().map(|s| format!("{s}.svg")));
            out
        }
    }
    each(&Files).concat()
}

/// Every experiment's name and variant labels, in order.
fn variant_labels() -> Vec<(&'static str, Vec<&'static str>)> {
    struct Labels;
    impl Visit for Labels {
        type Out = (&'static str, Vec<&'static str>);
        fn visit<E: Listed>(&self) -> Self::Out {
            (E::NAME, E::variant_labels())
        }
    }
    each(&Labels)
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

/// Validates `host all`'s flags into one plan per experiment (the first refusal, in the list's
/// order, is the error).
pub fn plan_all(all: &AllArgs) -> Result<Vec<Planned>, CliError> {
    struct Plans<'a>(&'a AllArgs);
    impl Visit for Plans<'_> {
        type Out = Result<Planned, CliError>;
        fn visit<E: Listed>(&self) -> Self::Out {
            let args = E::all_args(&self.0.experiments);
            Ok(E::planned(Plan::in_all(&self.0.shared, args)?))
        }
    }
    let labels = variant_labels();
    let known: Vec<&str> = labels.iter().flat_map(|(_, l)| l.iter().copied()).collect();
    check_mixed_labels(&all.shared.run.variants, &known, &labels)?;
    each(&Plans(all)).into_iter().collect()
}

/// The built-in modules `plans` will load, each once, in the order the experiments first need
/// them: what a run assembles ahead (all at once where ptxas is found) and loads, one after
/// another, on a thread of its own (`main.rs`).
pub fn warm_order(plans: &[Planned]) -> Vec<&'static str> {
    let mut order: Vec<&'static str> = Vec::new();
    for ptx in plans.iter().flat_map(Planned::builtin_ptx) {
        if !order.contains(ptx) {
            order.push(ptx);
        }
    }
    order
}

impl Planned {
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

#[cfg(test)]
mod warm_tests {
    use super::*;
    use crate::kernel_source::builtin::{CHECKS, HOPPER, MAIN, MMA_ILP, TENSOR};
    use clap::Parser;

    #[derive(Parser)]
    struct All {
        #[command(flatten)]
        all: AllArgs,
    }

    /// `host all` compiles what its first experiment needs first (the main module, then the
    /// small check module, never behind the tensor-core module's long compile), then the rest in
    /// the order the experiments come to them, each once.
    #[test]
    fn host_all_warms_each_module_once_in_the_order_of_first_need() {
        let all = All::try_parse_from(["all"]).expect("host all's defaults");
        let plans = plan_all(&all.all).expect("host all plans");
        let order = warm_order(&plans);
        assert_eq!(order.len(), 5, "MAIN, CHECKS, HOPPER, MMA_ILP, TENSOR");
        for (at, (got, want)) in order
            .iter()
            .zip([MAIN, CHECKS, HOPPER, MMA_ILP, TENSOR])
            .enumerate()
        {
            assert!(
                *got == want,
                "module {at} of the warm order is not the one first needed"
            );
        }
    }
}
