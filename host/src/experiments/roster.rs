//! How the list of experiments in `experiments/mod.rs` becomes the lab: `registry!` turns each
//! line, `Variant => name`, into the experiment's module (`experiments/name/`, whose `Spec`
//! implements [`Experiment`] and whose `Plan` is its plan), its number (its place in the list) and
//! name (its subcommand and its key in `results.json`), and the registry module, which holds the subcommands, `host all`, the
//! fields of `results.json` ([`RunResults`]), and the order of the tables, report sections,
//! plots, verdicts and merged rows.

use super::contract::{Experiment, OutputOf, Registered};
use super::registry::RunResults;
use crate::claim::Verdict;
use crate::flags::Common;
use crate::table::TableData;

/// An experiment's own subcommand: the common flags and its own.
#[derive(Debug, Clone, clap::Args)]
pub struct ExperimentArgs<A: clap::Args> {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub args: A,
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

/// "Experiment N: ...", the words of `--help` and the report's headings.
pub(super) fn numbered(number: u8, words: &str) -> String {
    format!("Experiment {number}: {words}")
}

/// Experiment `E`'s verdicts from its output (NOT JUDGED where it did not run), each with its
/// number.
pub(super) fn claims_of<E: Experiment>(output: Option<&OutputOf<E>>) -> Vec<Verdict> {
    let mut verdicts = E::claims(output);
    for v in &mut verdicts {
        v.experiment = E::NUMBER;
        if output.is_none() {
            v.evidence = format!("experiment {} was not run", E::NUMBER);
        }
    }
    verdicts
}

macro_rules! registry {
    ($($variant:ident => $field:ident),* $(,)?) => {
        $(pub mod $field;)*

        /// The experiments in the order of the list in `experiments/mod.rs`, and what comes of
        /// it ([`super::roster`] says how): each one's number and name, the subcommands, `host
        /// all`, the fields of `results.json` ([`RunResults`]), the order of the tables, report
        /// sections, plots, verdicts and merged rows.
        pub mod registry {
            use serde::{Deserialize, Serialize};

            use super::contract::{Experiment, Merged, OutputOf, Plan, Registered, RunContext};
            use crate::kernel_source::sources::ModuleNames;
            use super::error::ExperimentError;
            use super::roster::{claims_of, numbered};
            pub use super::roster::{ExperimentArgs, Section};
            use crate::claim::Verdict;
            use crate::cuda::Gpu;
            use crate::figure::{Figure, PlotRun};
            use crate::flags::{check_mixed_labels, CliError, Common, Shared};
            use crate::results::{DeviceInfo, Missing, RunMeta};

            // Each experiment by its variant's name.
            $(use super::$field::Spec as $variant;)*

            /// `host all`. `--compare-label` names the modules of `--compare` or
            /// `--compare-caps` (group `compared`), and is refused without either.
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

            /// The experiments in order; the number of each is its place in the list.
            #[repr(u8)]
            enum Place {
                $($variant,)*
            }

            $(impl Registered for $variant {
                const NUMBER: u8 = Place::$variant as u8 + 1;
                const NAME: &'static str = stringify!($field);
                type Plan = super::$field::Plan;
            })*

            /// One run of the lab on one GPU: how it was made, the device, each experiment's output
            /// (`None` when not run) and what is missing from it.
            #[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
            pub struct RunResults {
                /// The file's layout: absent in the runs recorded before it was stated (version
                /// 1), [`SCHEMA_VERSION`](crate::results::SCHEMA_VERSION) for a run recorded now.
                #[serde(
                    default = "crate::results::schema_version_1",
                    skip_serializing_if = "crate::results::is_schema_version_1"
                )]
                pub schema_version: u32,
                pub meta: RunMeta,
                pub device: DeviceInfo,
                // An experiment that did not run is left out (results.json files written before an
                // experiment existed read as it not having run).
                $(#[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<OutputOf<$variant>>,)*
                /// Experiments asked for but not on disk (still running when written, failed, or
                /// interrupted), with the reason.
                #[serde(default, skip_serializing_if = "Vec::is_empty")]
                pub missing: Vec<Missing>,
            }

            /// The experiments' subcommands.
            #[derive(Debug, Clone, clap::Subcommand)]
            pub enum ExperimentCommand {
                $(
                    #[command(name = <$variant>::NAME,
                              about = numbered(<$variant>::NUMBER, <$variant as Experiment>::ABOUT),
                              after_help = <$variant as Experiment>::help())]
                    $variant(ExperimentArgs<<<$variant as Registered>::Plan as Plan>::Args>),
                )*
            }

            /// The flags of `host all`: the common ones, the shared ones, and each experiment's.
            #[derive(Debug, Clone, clap::Args)]
            pub struct AllExperimentArgs {
                $(
                    #[command(flatten)]
                    pub $field: <<$variant as Registered>::Plan as Plan>::AllArgs,
                )*
            }

            /// One experiment, planned.
            #[derive(Debug, Clone, PartialEq)]
            pub enum Planned {
                $($variant(<$variant as Registered>::Plan),)*
            }

            /// Every experiment's name, in order.
            pub const NAMES: &[&str] = &[$(<$variant>::NAME,)*];

            /// The names of every CSV and plot an experiment may write into a results folder:
            /// `NAME.csv` and `NAME.svg`, and those of its second table and other plots.
            pub fn file_names() -> Vec<String> {
                let mut out = Vec::new();
                $(
                    out.push(format!("{}.csv", <$variant>::NAME));
                    out.push(format!("{}.svg", <$variant>::NAME));
                    out.extend(<$variant as Experiment>::MORE_CSVS.iter().map(|s| format!("{s}.csv")));
                    out.extend(<$variant as Experiment>::MORE_PLOTS.iter().map(|s| format!("{s}.svg")));
                )*
                out
            }

            impl ExperimentCommand {
                pub fn common(&self) -> &Common {
                    match self {
                        $(ExperimentCommand::$variant(a) => &a.common,)*
                    }
                }

                /// Validates the subcommand's flags.
                pub fn plan(&self) -> Result<Planned, CliError> {
                    Ok(match self {
                        $(ExperimentCommand::$variant(a) =>
                            Planned::$variant(Plan::new(&a.args)?),)*
                    })
                }
            }

            /// `host all --help`'s list of every experiment's variant labels.
            pub fn all_variants_help() -> String {
                let labels = [$((<$variant>::NAME, <$variant as Experiment>::variant_labels()),)*];
                let lines: Vec<String> = labels
                    .iter()
                    .filter(|(_, l)| !l.is_empty())
                    .map(|(name, l)| format!("  {name}: {}", l.join(", ")))
                    .collect();
                format!("Variants (from the variant table):\n{}", lines.join("\n"))
            }

            /// Validates `host all`'s flags into one plan per experiment.
            pub fn plan_all(all: &AllArgs) -> Result<Vec<Planned>, CliError> {
                let known: Vec<&str> = [$(<$variant as Experiment>::variant_labels(),)*].concat();
                check_mixed_labels(&all.shared.variants, &known, &[
                    $((<$variant>::NAME, <$variant as Experiment>::variant_labels()),)*
                ])?;
                Ok(vec![$(Planned::$variant(
                    Plan::in_all(&all.shared, &all.experiments.$field)?
                ),)*])
            }

            impl Planned {
                pub fn name(&self) -> &'static str {
                    match self {
                        $(Planned::$variant(_) => <$variant>::NAME,)*
                    }
                }

                /// Writes the experiment's sizes into the run's record.
                pub fn record(&self, meta: &mut RunMeta) {
                    match self {
                        $(Planned::$variant(p) => p.record(meta),)*
                    }
                }

                /// The modules the experiment will load (every plan says where its kernels come
                /// from in its `sources`).
                pub fn modules(&self) -> ModuleNames {
                    match self {
                        $(Planned::$variant(p) => p.sources.names(),)*
                    }
                }

                /// The built-in PTX modules it will load ([`Experiment::builtin_ptx`]), none
                /// when its own kernels come from a file.
                pub fn builtin_ptx(&self) -> &'static [&'static str] {
                    if self.modules().ours != crate::kernel_source::name::ModuleSource::BuiltIn {
                        return &[];
                    }
                    match self {
                        $(Planned::$variant(_) => <$variant as Experiment>::builtin_ptx(),)*
                    }
                }

                /// Runs the experiment and stores its output in `results`.
                pub fn run(
                    &self,
                    gpu: &Gpu,
                    ctx: &RunContext,
                    results: &mut RunResults,
                ) -> Result<(), ExperimentError> {
                    match self {
                        $(Planned::$variant(p) => {
                            results.$field = Some(<$variant as Experiment>::run(gpu, ctx, p)?);
                        })*
                    }
                    Ok(())
                }
            }

            impl RunResults {
                /// A run with no experiment output yet.
                pub fn empty(meta: RunMeta, device: DeviceInfo) -> Self {
                    Self {
                        schema_version: crate::results::SCHEMA_VERSION,
                        meta,
                        device,
                        $($field: None,)*
                        missing: Vec::new(),
                    }
                }

                /// Every experiment in order, with its table when it ran.
                pub fn sections(&self) -> Vec<Section> {
                    vec![$(Section {
                        name: <$variant>::NAME,
                        number: <$variant>::NUMBER,
                        heading: numbered(<$variant>::NUMBER, <$variant as Experiment>::SECTION),
                        table: self.$field.as_ref().map(|o| {
                            let mut t = <$variant as Experiment>::table(o, &self.meta)
                                .name_compared(self.meta.compare_name().as_deref());
                            t.title = format!("{}. {}", <$variant>::NUMBER, t.title);
                            t
                        }),
                        second: self.$field.as_ref().and_then(|o| {
                            <$variant as Experiment>::second_table(o, &self.meta).map(|(n, mut t)| {
                                t.title = format!("{}. {}", <$variant>::NUMBER, t.title);
                                (n, t)
                            })
                        }),
                    },)*]
                }

                /// Whether experiment `name`'s output is in the results.
                pub fn has_output(&self, name: &str) -> bool {
                    $(if name == <$variant>::NAME {
                        return self.$field.is_some();
                    })*
                    false
                }

                /// Descriptions of every failed check, each prefixed with its experiment.
                pub fn failed_checks(&self) -> Vec<String> {
                    // An experiment a kernel faulted in checked nothing after the fault.
                    let mut out: Vec<String> = self
                        .missing
                        .iter()
                        .filter(|m| m.faulted)
                        .map(|m| format!("{} {}", m.experiment, m.reason))
                        .collect();
                    $(if let Some(o) = &self.$field {
                        out.extend(<$variant as Experiment>::failed_checks(o)
                            .into_iter()
                            .map(|f| format!("{} {f}", <$variant>::NAME)));
                    })*
                    out
                }

                /// Every claim, judged from its own experiment's output alone.
                pub(crate) fn own_verdicts(&self) -> Vec<Verdict> {
                    let mut out = Vec::new();
                    $(out.extend(claims_of::<$variant>(self.$field.as_ref()));)*
                    out
                }

                /// Each experiment's rows for the merged table (`None` where it did not run).
                pub fn merged(&self) -> Vec<(u8, Option<Merged>)> {
                    vec![$((
                        <$variant>::NUMBER,
                        self.$field.as_ref().map(<$variant as Experiment>::merged),
                    ),)*]
                }
            }

            /// The plots of several runs (one name per run and, when compared, per compared
            /// module): (experiment name, file stem, figure) for each plot some run has data for.
            pub fn figures(
                runs: &[(&str, Option<&str>, &RunResults)],
            ) -> Vec<(&'static str, String, Figure)> {
                let mut out = Vec::new();
                $({
                    let plotted: Vec<PlotRun<'_, OutputOf<$variant>>> = runs
                        .iter()
                        .filter_map(|(name, compare_name, r)| {
                            r.$field.as_ref().map(|output| PlotRun {
                                name,
                                compare_name: *compare_name,
                                device: &r.device,
                                meta: &r.meta,
                                output,
                            })
                        })
                        .collect();
                    for (stem, f) in <$variant as Experiment>::figures(&plotted) {
                        out.push((<$variant>::NAME, stem, f));
                    }
                })*
                out
            }

            /// Orders the row keys of experiment `number` seen across runs.
            pub fn key_order(number: u8, seen: Vec<String>) -> Vec<String> {
                $(if number == <$variant>::NUMBER {
                    return <$variant as Experiment>::key_order(seen);
                })*
                seen
            }
        }
    };
}

impl RunResults {
    /// Every claim, judged from this run. Where the `inflight` experiment ran too, the `bandwidth`
    /// experiment's verdicts carry its reason: the bytes in flight the blog's copy variants hold
    /// against what Little's law with this GPU's latency says are needed.
    pub fn verdicts(&self) -> Vec<Verdict> {
        let mut out = self.own_verdicts();
        if let Some(inflight) = &self.inflight {
            let why = super::inflight::table::experiment2_note(&inflight.model, &inflight.rows);
            for v in out
                .iter_mut()
                .filter(|v| v.experiment == super::bandwidth::Spec::NUMBER && v.holds.is_some())
            {
                v.evidence = format!("{} {why}", v.evidence);
            }
        }
        out
    }
}
