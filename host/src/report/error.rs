//! What can go wrong while writing a report.

use std::path::PathBuf;

/// An error of the report writer, naming the file it concerns.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a results file: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot draw {path}: {message}")]
    Plot { path: PathBuf, message: String },
    #[error("no results folder given")]
    NoRuns,
}
