//! Reports: `report.md` with a verdict per claim of the seed blog, SVG plots, and several runs
//! merged side by side, all from the experiments' contract; and the whole results folder of a
//! run (its results through [`crate::results_io`], then the report). Needs no GPU.

mod command;
pub mod curve_plots;
pub mod error;
mod files;
pub mod markdown;
pub mod merge;
pub mod plots;
pub mod validate;
mod write;

pub use command::{run, ReportArgs};
pub use curve_plots::{curve_plots, curves_for};
pub use error::ReportError;
pub use files::{CurvePlot, PlotFile, REPORT_MD, RESULTS_JSON, TABLES_MD};
pub use merge::merge;
pub use plots::plot_curve;
pub use write::{
    draw_all, lab_file_names, remove_stale, write, write_folder, write_run, write_with_curves,
};
