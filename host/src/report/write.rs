//! Writing a run's report (`report.md`, the experiments' plots, part II's, the calculator's
//! curves) and its whole results folder, and clearing a folder of the lab's stale files.

use std::path::{Path, PathBuf};

use super::curve_plots::{self, curves_for};
use super::error::ReportError;
use super::files::{write_file, CurvePlot, PlotFile, REPORT_MD, RESULTS_JSON, TABLES_MD};
use super::plots::plot_curve;
use super::{markdown, plots};
use crate::across::part_two;
use crate::experiments::registry::{self, figures};
use crate::experiments::RunResults;
use crate::figure::Figure;
use crate::markdown_text::{escape, with_escaped_names};
use crate::occupancy::Limits;
use crate::results_io::write_results;

/// The name of every file the lab writes into a results folder, derived from the writers: the
/// results ([`RESULTS_JSON`], [`TABLES_MD`], each experiment's CSVs), the report
/// ([`REPORT_MD`], each experiment's plots, part II's, the calculator's curves).
pub fn lab_file_names() -> Vec<String> {
    let mut names: Vec<String> = [RESULTS_JSON, TABLES_MD, REPORT_MD]
        .map(str::to_owned)
        .into();
    names.extend(registry::file_names());
    names.push(format!("{}.svg", part_two::STEM));
    names.extend(curve_plots::curve_files());
    names
}

/// Removes from `dir` every file of the lab ([`lab_file_names`]) that is not among `written`, so
/// that a folder written over another run or merge holds one only; files the lab does not write
/// are left. Returns the files removed.
pub fn remove_stale(dir: &Path, written: &[PathBuf]) -> Result<Vec<PathBuf>, ReportError> {
    let kept: Vec<&std::ffi::OsStr> = written.iter().filter_map(|p| p.file_name()).collect();
    let mut removed = Vec::new();
    for name in lab_file_names() {
        let path = dir.join(&name);
        if kept.contains(&std::ffi::OsStr::new(&name)) || !path.is_file() {
            continue;
        }
        std::fs::remove_file(&path).map_err(|source| ReportError::Remove {
            path: path.clone(),
            source,
        })?;
        removed.push(path);
    }
    Ok(removed)
}

/// Writes `report.md` and the experiment plots (`NAME.svg` and the like, each only when its
/// experiment ran) into `dir`. Returns the files written.
pub fn write(results: &RunResults, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    write_with_curves(results, dir, &[])
}

/// [`write`], plus one SVG per curve plot, linked from the report.
pub fn write_with_curves(
    results: &RunResults,
    dir: &Path,
    curves: &[CurvePlot],
) -> Result<Vec<PathBuf>, ReportError> {
    write_report(results, dir, curves, None)
}

/// The whole `--out DIR` folder of a run: the results ([`write_results`]: `results.json`,
/// `tables.md`, the CSVs), then the report ([`write_folder`]: `report.md`, the experiment plots
/// and the occupancy calculator's curves for the run's device, the tables linked to
/// `tables.md`); then every other file of the lab's in `dir` is removed ([`remove_stale`]), so
/// that it never mixes two runs. Needs no GPU. Returns the files written.
pub fn write_run(dir: &Path, results: &RunResults) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = write_results(dir, results)?;
    written.extend(write_folder(results, dir)?);
    remove_stale(dir, &written)?;
    Ok(written)
}

/// The report of a results folder, as `--out` and `host report DIR` write it: [`write_with_curves`]
/// with the occupancy calculator's curves for the `occupancy` experiment's variants on the run's
/// device (its limits from `results.device`, so no GPU is needed), and, when the folder has a
/// `tables.md`, the tables linked there rather than repeated.
pub fn write_folder(results: &RunResults, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let curves = curves_for(results, &Limits::from_device_info(&results.device));
    let tables = dir.join(TABLES_MD).is_file().then_some(TABLES_MD);
    write_report(results, dir, &curves, tables)
}

fn write_report(
    results: &RunResults,
    dir: &Path,
    curves: &[CurvePlot],
    tables_file: Option<&str>,
) -> Result<Vec<PathBuf>, ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    let compare_name = results.meta.compare_name();
    let module = results.meta.module.to_string();
    let svgs = draw_all(&[(&module, compare_name.as_deref(), results)], dir)?;
    let mut written: Vec<PathBuf> = svgs.iter().map(|s| dir.join(&s.file)).collect();
    // The Markdown takes the run's names escaped; the plots take them as they are.
    let named = with_escaped_names(results);
    // Part II's picture, where the run has a GEMM to place.
    let ceiling = part_two::mma_ceiling(results);
    let part_two_file = format!("{}.svg", part_two::STEM);
    let part_two = match part_two::figure(results, ceiling) {
        Some(fig) => {
            let path = dir.join(&part_two_file);
            plots::scatter(&fig, &path)?;
            written.push(path);
            part_two::section(&named, &part_two_file, ceiling)
        }
        None => None,
    };
    let mut curve_links = Vec::new();
    for c in curves {
        let file = format!("{}.svg", c.file_stem);
        let path = dir.join(&file);
        plot_curve(&c.labels, &c.series, &path)?;
        written.push(path);
        // The title names the device.
        curve_links.push((file, escape(&c.labels.title).into_owned()));
    }
    let md = markdown::report(
        &named,
        &named.verdicts(),
        &svgs,
        &curve_links,
        tables_file,
        part_two.as_deref(),
    );
    written.insert(0, write_file(&dir.join(REPORT_MD), &md)?);
    Ok(written)
}

/// Draws every experiment's plots that have data (`STEM.svg`) into `dir`.
pub fn draw_all(
    runs: &[(&str, Option<&str>, &RunResults)],
    dir: &Path,
) -> Result<Vec<PlotFile>, ReportError> {
    let mut written = Vec::new();
    for (experiment, stem, figure) in figures(runs) {
        let file = format!("{stem}.svg");
        let path = dir.join(&file);
        match &figure {
            Figure::Scatter(p) => plots::scatter(p, &path)?,
            Figure::Regs { title, series } => plots::regs(title, series, &path)?,
            Figure::Heatmap(h) => plots::heatmap(h, &path)?,
        }
        written.push(PlotFile { experiment, file });
    }
    Ok(written)
}
