//! The occupancy lab's host side, in layers; each module uses only its own layer and those below
//! it (`tests/layers.rs` checks this from the source):
//! 1. [`results`] (the records a run is made of), [`table`] (the one table renderer),
//!    [`modules`] (the built-in kernels);
//! 2. [`claim`], [`figure`] (a verdict and a plot as data), [`confidence`] (bootstrap intervals
//!    of the figures a verdict compares), [`occupancy`] (the calculator's arithmetic, no GPU);
//! 3. [`cuda`] (the driver: device and limits, modules, the one launch path);
//! 4. [`sampling`] (the one timing path: noise-driven or fixed plans), [`flags`] (the shared flags and every check before the GPU);
//! 5. [`calculator`] (`host calc`, and its check against the driver);
//! 6. [`experiments`]: one folder per experiment, and the registry that lists them;
//! 7. [`report`], [`results_io`]: report.md, plots, merged runs, the results folder;
//! 8. [`cli`]: the command line.

pub mod calculator;
pub mod claim;
pub mod cli;
pub mod confidence;
pub mod cuda;
pub mod experiments;
pub mod figure;
pub mod flags;
pub mod modules;
pub mod occupancy;
pub mod report;
pub mod results;
pub mod results_io;
pub mod sampling;
pub mod table;
