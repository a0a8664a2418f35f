//! Writing a run to a folder (`--out DIR`): `results.json` (the [`RunResults`] schema),
//! `tables.md`, one CSV per experiment, and the report; and reading `results.json` back.

use std::path::{Path, PathBuf};

use crate::report::ReportError;
use crate::results::RunResults;
use crate::tables::{render_results, tables, to_csv, Format};

#[derive(Debug, thiserror::Error)]
pub enum ResultsIoError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a results file: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error(transparent)]
    Report(#[from] ReportError),
}

fn write(path: PathBuf, text: &str) -> Result<PathBuf, ResultsIoError> {
    std::fs::write(&path, text).map_err(|source| ResultsIoError::Io {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// Writes `results.json`, `tables.md` and `{occupancy,bandwidth,regs}.csv` (those present) into
/// `dir`, creating it. Returns the files written.
pub fn write_results(dir: &Path, results: &RunResults) -> Result<Vec<PathBuf>, ResultsIoError> {
    std::fs::create_dir_all(dir).map_err(|source| ResultsIoError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let json = serde_json::to_string_pretty(results).map_err(|source| ResultsIoError::Json {
        path: dir.join("results.json"),
        source,
    })?;
    let mut written = vec![write(dir.join("results.json"), &(json + "\n"))?];
    let m = &results.meta;
    let md = format!(
        "{}\n- command: `{}`\n- date: {}\n- toolchain: {}\n- tool: host {}\n- driver: {}\n",
        render_results(results, Format::Markdown),
        m.command,
        m.date,
        m.toolchain,
        m.tool_version,
        results.device.driver_version
    );
    written.push(write(dir.join("tables.md"), &md)?);
    for (name, table) in tables(results) {
        written.push(write(dir.join(format!("{name}.csv")), &to_csv(&table))?);
    }
    Ok(written)
}

/// The whole `--out DIR` folder of a run: [`write_results`], then the report
/// ([`crate::report::write_folder`]: `report.md`, the experiment plots and the occupancy
/// calculator's curves for the run's device, the tables linked to `tables.md`). Needs no GPU.
/// Returns the files written.
pub fn write_run(dir: &Path, results: &RunResults) -> Result<Vec<PathBuf>, ResultsIoError> {
    let mut written = write_results(dir, results)?;
    written.extend(crate::report::write_folder(results, dir)?);
    Ok(written)
}

/// Reads a `results.json`.
pub fn read_results(path: &Path) -> Result<RunResults, ResultsIoError> {
    let text = std::fs::read_to_string(path).map_err(|source| ResultsIoError::Io {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| ResultsIoError::Json {
        path: path.to_owned(),
        source,
    })
}
