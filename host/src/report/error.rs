//! What can go wrong while writing a report.

use std::path::PathBuf;

use crate::results_io::ResultsIoError;

/// An error of the report writer, naming the file it concerns.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file of another run, which the run written over it does not write again.
    #[error("cannot remove {path}, left from the run or merge this one replaces: {source}")]
    Remove {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A results folder's results.json cannot be read: missing, not a regular file, too large.
    #[error("{path} {reason}; a results folder holds the results.json of a run (--out DIR)")]
    Read { path: PathBuf, reason: String },
    /// A results.json that does not read: `reason` names the field where it stopped.
    #[error("{path} is not a results file: {reason}")]
    Parse { path: PathBuf, reason: String },
    #[error("{path}: {reason}")]
    Invalid { path: PathBuf, reason: String },
    #[error("cannot draw {path}: {message}")]
    Plot { path: PathBuf, message: String },
    #[error("no results folder given")]
    NoRuns,
    /// One results folder given twice (the same folder, however named).
    #[error("{again} is given twice (first as {first}); give each results folder once")]
    Repeated { first: PathBuf, again: PathBuf },
    /// The run's results (results.json, tables.md, the CSVs) could not be written.
    #[error(transparent)]
    Results(#[from] ResultsIoError),
}

impl ReportError {
    /// Whether the error is in what the user gave (a results folder that cannot be read, or a
    /// results.json that is damaged or holds impossible figures) rather than in writing.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            ReportError::Read { .. }
                | ReportError::Parse { .. }
                | ReportError::Invalid { .. }
                | ReportError::NoRuns
                | ReportError::Repeated { .. }
        )
    }
}
