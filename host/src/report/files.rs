//! The files of a results folder that the report's writers share: their names, what a curve plot
//! and a plot beside the report are, and how a file is written (atomically). Below every writer.

use std::path::{Path, PathBuf};

use super::error::ReportError;
use crate::atomic_file::write_atomic;
use crate::figure::Labels;
pub use crate::run_json::{read_run_json, RESULTS_JSON};

/// The report's file name inside a results folder.
pub const REPORT_MD: &str = "report.md";
/// The blog-column tables a results folder has beside its report (`--out` writes them).
pub const TABLES_MD: &str = "tables.md";

/// A curve plot drawn beside the experiments, e.g. one of the occupancy calculator's tables
/// (occupancy vs registers/thread, vs block size, vs dynamic shared memory).
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePlot {
    /// File name without extension, e.g. `"curve_registers"`; `.svg` is added.
    pub file_stem: String,
    pub labels: Labels,
    /// (legend label, points joined in order).
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// A plot written beside a report: the experiment it belongs to and its file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlotFile {
    pub experiment: &'static str,
    pub file: String,
}

pub(super) fn write_file(path: &Path, text: &str) -> Result<PathBuf, ReportError> {
    write_atomic(path, text).map_err(|source| ReportError::Write {
        path: path.to_path_buf(),
        source,
    })
}
