//! The occupancy lab's host side, in layers; each module uses only its own layer and those below
//! it (`tests/layers.rs` checks this from the source):
//! 1. [`results`] (the records a run is made of), [`kernel_source`] (where kernels come from: the
//!    name a run records, the built-in modules, a module image's kind, entries and parameter
//!    lists, the checks of the user's module files and folders, which kernels a plan runs),
//!    [`table`] (the one table renderer) and [`cell`] (a typed cell and its formats),
//!    [`regular_file`] (reading a named file without hanging), [`atomic_file`] (writing one that
//!    no reader sees half of), [`run_json`] (a folder's results.json, plain or gzip-compressed),
//!    [`stdout`] (printing without a panic when the reader is gone or the disk is full),
//!    [`sample_scan`] (a results.json's samples counted before it is loaded), [`flag_values`]
//!    (numbers, lists and echoes of flag values), [`phase_log`] (where a run's wall time goes, on
//!    stderr with `LAB_PHASE_TIMES`);
//! 2. [`claim`], [`figure`] (a verdict and a plot as data), [`confidence`] (bootstrap intervals
//!    of the figures a verdict compares), [`occupancy`] (the calculator's arithmetic, no GPU);
//! 3. [`cuda`] (the driver: device and limits, loading modules and their cache, the one launch
//!    path);
//! 4. [`sampling`] (the one timing path: noise-driven or fixed plans), [`flags`] (the shared flags
//!    and every check before the GPU), [`out_dir`] (`--out` and the rule that no run is
//!    overwritten);
//! 5. [`calculator`] (`host calc`, and its check against the driver);
//! 6. [`experiments`]: one folder per experiment, and the registry that lists them;
//! 7. [`across`]: what reads several experiments' results (part II's picture, the verdicts);
//! 8. [`results_io`]: a run's tables as text, and its results.json, tables.md and CSVs;
//!    [`markdown_text`]: the names a run brings, escaped for Markdown;
//! 9. [`report`]: report.md, plots, merged runs, the whole results folder;
//! 10. [`cli`]: the command line.

pub mod across;
pub mod atomic_file;
pub mod calculator;
pub mod cell;
pub mod claim;
pub mod cli;
pub mod confidence;
pub mod cuda;
pub mod experiments;
pub mod figure;
pub mod flag_values;
pub mod flags;
pub mod kernel_source;
pub mod markdown_text;
pub mod occupancy;
pub mod out_dir;
pub mod phase_log;
pub mod regular_file;
pub mod report;
pub mod results;
pub mod results_io;
pub mod run_json;
pub mod sample_scan;
pub mod sampling;
pub mod stdout;
pub mod table;
