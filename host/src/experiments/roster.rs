//! The list of experiments in `experiments/mod.rs`, line by line: `registry!` generates only what
//! has to name each experiment (its number and name, its field of `results.json` ([`RunResults`]),
//! its subcommand, its flags in `host all`, its case of [`Planned`]) and hands each one, typed, to
//! the code written once over every experiment ([`Visit`], [`VisitPlan`]), which is
//! `super::registry`.

use serde::{Deserialize, Serialize};

use super::contract::{AllArgsOf, ArgsOf, OutputOf, Plan, Registered, Report, Run};
use crate::flags::{CliError, Common};
use crate::results::{DeviceInfo, Missing, RunMeta};

/// An experiment of the list, with where its output and flags sit in the per-experiment types.
pub trait Listed: Report {
    fn output(r: &RunResults) -> Option<&OutputOf<Self>>;
    fn output_mut(r: &mut RunResults) -> &mut Option<OutputOf<Self>>;
    fn all_args(a: &AllExperimentArgs) -> &AllArgsOf<Self>;
    fn planned(p: Self::Plan) -> Planned;
}

/// Something done with each experiment in turn: [`each`] calls `visit` for every experiment, in
/// the list's order, and gives what each call gave.
pub trait Visit {
    type Out;
    fn visit<E: Listed>(&self) -> Self::Out;
}

/// Something done with one planned experiment ([`Planned::visit`]).
pub trait VisitPlan {
    type Out;
    fn visit<E: Listed>(self, plan: &E::Plan) -> Self::Out;
}

/// An experiment's own subcommand: the common flags and its own.
#[derive(Debug, Clone, clap::Args)]
pub struct ExperimentArgs<A: clap::Args> {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub args: A,
}

/// "Experiment N: ...", the words of `--help` and the report's headings.
pub fn numbered(number: u8, words: &str) -> String {
    format!("Experiment {number}: {words}")
}

macro_rules! registry {
    ($($variant:ident => $field:ident),* $(,)?) => {
        /// The experiments in order; the number of each is its place in the list.
        #[repr(u8)]
        enum Place { $($variant,)* }
        $(impl Registered for super::$field::Spec {
            const NUMBER: u8 = Place::$variant as u8 + 1;
            const NAME: &'static str = stringify!($field);
            type Plan = super::$field::Plan;
        }
        impl Listed for super::$field::Spec {
            fn output(r: &RunResults) -> Option<&OutputOf<Self>> { r.$field.as_ref() }
            fn output_mut(r: &mut RunResults) -> &mut Option<OutputOf<Self>> { &mut r.$field }
            fn all_args(a: &AllExperimentArgs) -> &AllArgsOf<Self> { &a.$field }
            fn planned(p: Self::Plan) -> Planned { Planned::$variant(p) }
        })*
        /// Every experiment's name, in order.
        pub const NAMES: &[&str] = &[$(stringify!($field),)*];
        /// What `v` gives of every experiment, in order.
        pub fn each<V: Visit>(v: &V) -> Vec<V::Out> { vec![$(v.visit::<super::$field::Spec>(),)*] }
        /// One run of the lab on one GPU: how it was made, the device, each experiment's output
        /// (`None` when not run: left out of the file, and so read when absent), what is missing.
        #[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
        pub struct RunResults {
            /// The file's layout: absent in the runs recorded before it was stated (version 1).
            #[serde(default = "crate::results::schema_version_1",
                    skip_serializing_if = "crate::results::is_schema_version_1")]
            pub schema_version: u32,
            pub meta: RunMeta,
            pub device: DeviceInfo,
            $(#[serde(default, skip_serializing_if = "Option::is_none")]
            pub $field: Option<OutputOf<super::$field::Spec>>,)*
            /// Experiments asked for but not on disk (still running when written, failed, or
            /// interrupted), with the reason.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub missing: Vec<Missing>,
            /// The rules its claims are judged by: absent in the runs recorded before the
            /// edition was stated, which keep the rules they were published with.
            #[serde(default, skip_serializing_if = "crate::claim::Rules::is_as_published")]
            pub rules: crate::claim::Rules,
        }
        impl RunResults {
            /// A run with no experiment output yet.
            pub fn empty(meta: RunMeta, device: DeviceInfo) -> Self {
                let schema_version = crate::results::SCHEMA_VERSION;
                let rules = crate::claim::Rules::CURRENT;
                Self { schema_version, meta, device, $($field: None,)* missing: Vec::new(), rules }
            }
        }
        /// The experiments' subcommands.
        #[derive(Debug, Clone, clap::Subcommand)]
        pub enum ExperimentCommand {$(
            #[command(name = stringify!($field), about = about::<super::$field::Spec>(),
                      after_help = <super::$field::Spec as Run>::help())]
            $variant(ExperimentArgs<ArgsOf<super::$field::Spec>>),
        )*}
        /// The flags each experiment adds to `host all`.
        #[derive(Debug, Clone, clap::Args)]
        pub struct AllExperimentArgs {
            $(#[command(flatten)] pub $field: AllArgsOf<super::$field::Spec>,)*
        }
        /// One experiment, planned.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Planned { $($variant(super::$field::Plan),)* }
        impl Planned {
            /// Hands the experiment planned, with its plan, to `v`.
            pub fn visit<V: VisitPlan>(&self, v: V) -> V::Out {
                match self { $(Self::$variant(p) => v.visit::<super::$field::Spec>(p),)* }
            }
            pub fn name(&self) -> &'static str {
                match self { $(Self::$variant(_) => stringify!($field),)* }
            }
        }
        impl ExperimentCommand {
            pub fn common(&self) -> &Common { match self { $(Self::$variant(a) => &a.common,)* } }
            /// Validates the subcommand's flags.
            pub fn plan(&self) -> Result<Planned, CliError> {
                Ok(match self { $(Self::$variant(a) => Planned::$variant(Plan::new(&a.args)?),)* })
            }
        }
    };
}

with_experiments!(registry);

// xtask, which cannot depend on the host, lists the experiments from kernels-gpu's copy of their
// names (`cargo xtask sweep --help`): the build fails when the registry and that copy differ.
const _: () = assert!(
    same_names(NAMES, kernels_gpu::experiment_names::EXPERIMENT_NAMES),
    "kernels-gpu/src/experiment_names.rs must list the registry's experiments, in its order"
);

/// Whether `a` and `b` hold the same strings in the same order (`==` on slices is not `const`).
const fn same_names(a: &[&str], b: &[&str]) -> bool {
    match (a, b) {
        ([x, a @ ..], [y, b @ ..]) => same_bytes(x.as_bytes(), y.as_bytes()) && same_names(a, b),
        _ => a.is_empty() && b.is_empty(),
    }
}

const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    match (a, b) {
        ([x, a @ ..], [y, b @ ..]) => *x == *y && same_bytes(a, b),
        _ => a.is_empty() && b.is_empty(),
    }
}

/// Experiment `E`'s line in `host --help`.
fn about<E: Run>() -> String {
    numbered(E::NUMBER, E::ABOUT)
}
