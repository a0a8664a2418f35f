//! The occupancy lab's host side, in layers (each uses only those above it in this list):
//! - [`table`], [`figure`], [`claim`]: how a table, a plot and a verdict are represented and
//!   rendered; they know nothing of experiments.
//! - [`cuda`], [`occupancy`], [`timing`], [`results`] (the records results are made of),
//!   [`modules`] (the built-in kernels).
//! - [`experiments`]: one folder per experiment and the registry that lists them.
//! - [`report`], [`results_io`]: report.md, plots, merged runs, the results folder.
//! - [`cli`]: the command line (its flag types are also used by the experiments' `Args`).

pub mod claim;
pub mod cli;
pub mod cuda;
pub mod experiments;
pub mod figure;
pub mod modules;
pub mod occupancy;
pub mod report;
pub mod results;
pub mod results_io;
pub mod table;
pub mod timing;
