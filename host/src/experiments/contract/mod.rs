//! What an experiment is, to everything that consumes one: a folder under `experiments/` whose
//! `Spec` implements [`Run`] (its plan in, its output out) and [`Report`] (its table, plots, claims
//! and merged rows, mostly defaults), whose `Plan` implements [`Plan`] and whose rows implement
//! [`Row`] (by `row!`), plus one line in the list of `experiments/mod.rs`, which gives it its
//! number and name ([`Registered`], implemented for it by the `registry!` macro of
//! `super::roster`).

mod report;
mod row;
mod run;

pub use report::{MergeRow, Merged, Report};
pub(crate) use row::row;
pub use row::{Output, Rate, Row, GBPS, GFLOPS, TFLOPS};
pub use run::{AllArgsOf, ArgsOf, OutputOf, Plan, Registered, RowOf, Run, RunContext};
