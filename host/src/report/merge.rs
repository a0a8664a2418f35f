//! `host report DIR...`: several results folders (different GPUs, or Rust vs nvcc) merged into one
//! Markdown table, one verdict matrix and one set of plots, one series per run and module.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::error::ReportError;
use super::files::{read_run_json, write_file, REPORT_MD};
use super::validate::validate;
use super::write::{draw_all, remove_stale};
use crate::claim::Verdict;
use crate::experiments::contract::Merged;
use crate::experiments::registry::key_order;
use crate::experiments::RunResults;
use crate::flag_values::shorten_words;
use crate::markdown_text::with_escaped_names;
use crate::out_dir::{MAX_RESULTS_BYTES, MERGED_HEADING};
use crate::results_io::parse_results;
use crate::table::{markdown_grid, percent as pct};

/// Reads `dir/results.json` (or the `results.json.gz` of a committed run: `read_run_json`; a
/// regular file, within [`MAX_RESULTS_BYTES`]; every figure within
/// the samples the lab takes, counted before it is loaded: [`parse_results`]) and checks its
/// figures ([`validate`]) before anything is drawn from it.
pub fn load(dir: &Path) -> Result<RunResults, ReportError> {
    let (path, read) = read_run_json(dir, MAX_RESULTS_BYTES);
    let bytes = read.map_err(|e| ReportError::Read {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    // A parser's message quotes the value it could not read, which may be long.
    let results = parse_results(&bytes).map_err(|reason| ReportError::Parse {
        path: path.clone(),
        reason: shorten_words(&reason),
    })?;
    validate(&results).map_err(|e| ReportError::Invalid {
        path,
        reason: e.to_string(),
    })?;
    Ok(results)
}

/// One column of the merged table: a run's own module, or the module it was compared with.
struct Column<'a> {
    name: String,
    run: &'a RunResults,
    compare: bool,
}

/// What tells a run's columns apart from another run's with the same device and module: nothing
/// when none shares them; else its folder's name, then also its date, then the folder as given
/// (two folders given are never the same folder: [`load_all`] refuses that), the first of these
/// that no other run's columns would share. E.g. " (h200-s3)".
fn run_suffixes(runs: &[(PathBuf, RunResults)]) -> Vec<String> {
    let plain: Vec<String> = runs
        .iter()
        .map(|(_, r)| format!("{} · {}", r.device.name, r.meta.module))
        .collect();
    let suffix = |level: usize, (dir, r): &(PathBuf, RunResults)| {
        let folder = dir
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string());
        match level {
            0 => String::new(),
            1 => format!(" ({folder})"),
            2 => format!(" ({folder}, {})", r.meta.date),
            _ => format!(" ({})", dir.display()),
        }
    };
    (0..runs.len())
        .map(|i| {
            (0..=3)
                .map(|level| suffix(level, &runs[i]))
                .find(|own| {
                    let name = format!("{}{own}", plain[i]);
                    (0..runs.len()).all(|j| {
                        j == i
                            || (0..=3)
                                .all(|l| format!("{}{}", plain[j], suffix(l, &runs[j])) != name)
                    })
                })
                .unwrap_or_else(|| suffix(3, &runs[i]))
        })
        .collect()
}

/// Names each run "device · module", and its compared module, where it has one, "device ·
/// label", each with its run's [`run_suffixes`] where another run shares that (so that two
/// runs' compared columns on one GPU are told apart).
fn run_names(runs: &[(PathBuf, RunResults)]) -> Vec<(String, Option<String>)> {
    runs.iter()
        .zip(run_suffixes(runs))
        .map(|((_, r), suffix)| {
            let device = &r.device.name;
            let compared = r
                .meta
                .compare_name()
                .map(|c| format!("{device} · {c}{suffix}"));
            (format!("{device} · {}{suffix}", r.meta.module), compared)
        })
        .collect()
}

/// (throughput, occupancy) of one experiment row in one column.
type Cell = Option<(f64, f64)>;

fn cell(merged: Option<&Merged>, compare: bool, key: &str) -> Cell {
    let row = merged?.rows.iter().find(|r| r.key == key)?;
    if compare {
        row.theirs
    } else {
        Some(row.ours)
    }
}

fn render_cells(cells: &[Cell], decimals: usize) -> Vec<String> {
    let base = cells.first().copied().flatten();
    cells
        .iter()
        .enumerate()
        .map(|(i, c)| match c {
            None => "-".to_string(),
            Some((v, occ)) => match base {
                Some((b, _)) if i > 0 && b > 0.0 => {
                    format!("{v:.decimals$} ({}; {:.2}x)", pct(*occ), v / b)
                }
                _ => format!("{v:.decimals$} ({})", pct(*occ)),
            },
        })
        .collect()
}

/// The merged Markdown table: a row per experiment row, a column per run and module.
fn combined_table(columns: &[Column<'_>]) -> String {
    let mut header: Vec<&str> = vec!["Exp.", "Row", "Unit"];
    header.extend(columns.iter().map(|c| c.name.as_str()));
    let merged: Vec<Vec<(u8, Option<Merged>)>> = columns.iter().map(|c| c.run.merged()).collect();
    let mut rows = Vec::new();
    let numbers: Vec<u8> = merged
        .first()
        .map_or(Vec::new(), |m| m.iter().map(|(n, _)| *n).collect());
    for (e, &number) in numbers.iter().enumerate() {
        let of = |c: usize| merged[c][e].1.as_ref();
        let Some(any) = (0..columns.len()).find_map(of) else {
            continue;
        };
        let (unit, decimals) = (any.unit, any.decimals);
        if let Some((name, _)) = any.reference {
            let mut row = vec![number.to_string(), name.to_owned(), unit.to_owned()];
            row.extend(columns.iter().enumerate().map(|(i, c)| {
                match (of(i).and_then(|m| m.reference), c.compare) {
                    (Some((_, v)), false) => format!("{v:.decimals$}"),
                    _ => "-".into(),
                }
            }));
            rows.push(row);
        }
        let seen: Vec<String> = (0..columns.len())
            .filter_map(of)
            .flat_map(|m| m.rows.iter().map(|r| r.key.clone()))
            .collect();
        for key in key_order(number, seen) {
            let cells: Vec<Cell> = columns
                .iter()
                .enumerate()
                .map(|(i, c)| cell(of(i), c.compare, &key))
                .collect();
            let mut row = vec![number.to_string(), key.clone(), unit.to_owned()];
            row.extend(render_cells(&cells, decimals));
            rows.push(row);
        }
    }
    markdown_grid(&header, &rows)
}

fn verdict_matrix(names: &[(String, Option<String>)], all: &[Vec<Verdict>]) -> String {
    let mut header: Vec<&str> = vec!["#", "Claim"];
    header.extend(names.iter().map(|(name, _)| name.as_str()));
    let first = all.first().map_or(&[][..], Vec::as_slice);
    let t: Vec<Vec<String>> = (first.iter().enumerate())
        .map(|(i, v)| {
            let outcome = |vs: &Vec<Verdict>| vs.get(i).map(|x| format!("**{}**", x.outcome()));
            let outcomes = all.iter().map(|vs| outcome(vs).unwrap_or_default());
            [(i + 1).to_string(), v.claim.clone()]
                .into_iter()
                .chain(outcomes)
                .collect()
        })
        .collect();
    markdown_grid(&header, &t)
}

/// Merges the `results.json` of each folder in `dirs` into `out`: `report.md` (one combined table,
/// the verdicts of every run side by side) and every experiment's plots with one series per run and
/// module.
/// Returns the files written.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    merge_runs(&load_all(dirs)?, out)
}

/// The runs of `dirs`, each loaded and checked ([`load`]).
pub fn load_all(dirs: &[PathBuf]) -> Result<Vec<(PathBuf, RunResults)>, ReportError> {
    if dirs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    // The same run twice would be two identical columns, told apart by nothing.
    for (i, d) in dirs.iter().enumerate() {
        let Ok(real) = d.canonicalize() else { continue };
        if let Some(first) = dirs[..i]
            .iter()
            .find(|e| e.canonicalize().is_ok_and(|r| r == real))
        {
            return Err(ReportError::Repeated {
                first: first.clone(),
                again: d.clone(),
            });
        }
    }
    dirs.iter()
        .map(|d| load(d).map(|r| (d.clone(), r)))
        .collect()
}

/// [`merge`] of runs already loaded, each with its folder.
pub fn merge_runs(runs: &[(PathBuf, RunResults)], out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    if runs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    std::fs::create_dir_all(out).map_err(|source| ReportError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    // The plots take the runs' names as they are; the Markdown takes them escaped.
    let plot_names = run_names(runs);
    let plot_runs: Vec<(&str, Option<&str>, &RunResults)> = runs
        .iter()
        .zip(&plot_names)
        .map(|((_, r), (n, c))| (n.as_str(), c.as_deref(), r))
        .collect();
    let svgs = draw_all(&plot_runs, out)?;

    let runs: Vec<(PathBuf, RunResults)> = runs
        .iter()
        .map(|(d, r)| (d.clone(), with_escaped_names(r).into_owned()))
        .collect();
    let names = run_names(&runs);

    let mut columns = Vec::new();
    for ((_, run), (name, cname)) in runs.iter().zip(&names) {
        columns.push(Column {
            name: name.clone(),
            run,
            compare: false,
        });
        if let Some(cn) = cname {
            columns.push(Column {
                name: cn.clone(),
                run,
                compare: true,
            });
        }
    }

    let all_verdicts: Vec<Vec<Verdict>> = runs.iter().map(|(_, r)| r.verdicts()).collect();
    let mut md = format!("{MERGED_HEADING}\n\n## Runs\n\n");
    let mut t = Vec::new();
    for ((dir, r), (name, _)) in runs.iter().zip(&names) {
        t.push(vec![
            name.clone(),
            dir.display().to_string(),
            format!(
                "{} (cc {}.{}, {} SMs)",
                r.device.name,
                r.device.compute_capability.0,
                r.device.compute_capability.1,
                r.device.sm_count
            ),
            match &r.meta.compare_module {
                Some(c) => format!("{} vs {c}", r.meta.module),
                None => r.meta.module.to_string(),
            },
            r.meta.date.clone(),
            format!("`{}`", r.meta.command),
        ]);
    }
    md.push_str(&markdown_grid(
        &["Run", "Folder", "Device", "Kernels", "Date", "Command"],
        &t,
    ));
    md.push_str(
        "\n## Figures\n\nEach cell: throughput (theoretical occupancy); from the second column on, \
also the ratio to the first column.\n\n",
    );
    md.push_str(&combined_table(&columns));
    md.push_str("\n## Plots\n\n");
    for svg in &svgs {
        let _ = writeln!(md, "![{0}]({0})\n", svg.file);
    }
    md.push_str("## Verdicts\n\nJudged for each run's own module, by the rules of the single-run report.\n\n");
    md.push_str(&verdict_matrix(&names, &all_verdicts));
    for ((name, _), vs) in names.iter().zip(&all_verdicts) {
        let _ = writeln!(md, "\n### {name}\n");
        for (i, v) in vs.iter().enumerate() {
            let _ = writeln!(md, "{}. **{}**: {}", i + 1, v.outcome(), v.evidence);
        }
    }
    let mut written = vec![write_file(&out.join(REPORT_MD), &md)?];
    written.extend(svgs.iter().map(|s| out.join(&s.file)));
    remove_stale(out, &written)?;
    Ok(written)
}
