//! `host report DIR...`: several results folders (different GPUs, or Rust vs nvcc) merged into one
//! Markdown table, one verdict matrix and one set of plots, one series per run and module.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kernels_gpu::variants::{GEMM, MEMCPY};

use super::error::ReportError;
use super::figures::{self, PlotRun};
use super::markdown::{pct, Align, Table};
use super::verdicts::{verdicts, Verdict};
use super::{write_file, REPORT_MD, RESULTS_JSON};
use crate::results::RunResults;

/// Reads `dir/results.json`.
pub fn load(dir: &Path) -> Result<RunResults, ReportError> {
    let path = dir.join(RESULTS_JSON);
    let text = std::fs::read_to_string(&path).map_err(|source| ReportError::Read {
        path: path.clone(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| ReportError::Parse { path, source })
}

/// One column of the merged table: a run's own module, or the module it was compared with.
struct Column<'a> {
    name: String,
    run: &'a RunResults,
    compare: bool,
}

/// Names each run "device · module", adding the folder name where two runs would share a name.
fn run_names(runs: &[(PathBuf, RunResults)]) -> Vec<String> {
    let plain: Vec<String> = runs
        .iter()
        .map(|(_, r)| format!("{} · {}", r.device.name, r.meta.module))
        .collect();
    plain
        .iter()
        .zip(runs)
        .map(|(name, (dir, _))| {
            if plain.iter().filter(|n| *n == name).count() > 1 {
                let folder = dir
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_else(|| dir.display().to_string());
                format!("{name} ({folder})")
            } else {
                name.clone()
            }
        })
        .collect()
}

/// Row keys in the variant table's order, then any label the table does not know (an older run).
fn ordered_labels<'a>(table: impl Iterator<Item = &'a str>, seen: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = table
        .filter(|l| seen.iter().any(|s| s == l))
        .map(str::to_string)
        .collect();
    for s in seen {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// (throughput, occupancy) of one experiment row in one column.
type Cell = Option<(f64, f64)>;

fn gemm_cell(c: &Column<'_>, label: &str) -> Cell {
    let row = c
        .run
        .occupancy
        .as_ref()?
        .iter()
        .find(|r| r.variant == label)?;
    if c.compare {
        Some((row.compare.as_ref()?.throughput, row.occupancy))
    } else {
        Some((row.gflops, row.occupancy))
    }
}

fn copy_cell(c: &Column<'_>, label: &str) -> Cell {
    let bw = c.run.bandwidth.as_ref()?;
    let row = bw.rows.iter().find(|r| r.variant == label)?;
    if c.compare {
        Some((row.compare.as_ref()?.throughput, row.occupancy))
    } else {
        Some((row.gbps, row.occupancy))
    }
}

fn regs_cell(c: &Column<'_>, cap: u32) -> Cell {
    let row = c.run.regs.as_ref()?.iter().find(|r| r.cap == cap)?;
    if c.compare {
        Some((row.compare.as_ref()?.throughput, row.occupancy))
    } else {
        Some((row.gflops, row.occupancy))
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
    let mut headers: Vec<(&str, Align)> = vec![
        ("Exp.", Align::Right),
        ("Row", Align::Left),
        ("Unit", Align::Left),
    ];
    headers.extend(columns.iter().map(|c| (c.name.as_str(), Align::Right)));
    let mut t = Table::new(&headers);

    let gemm_seen: Vec<String> = columns
        .iter()
        .flat_map(|c| c.run.occupancy.iter().flatten().map(|r| r.variant.clone()))
        .collect();
    for label in ordered_labels(GEMM.iter().map(|v| v.label), gemm_seen) {
        let cells: Vec<Cell> = columns.iter().map(|c| gemm_cell(c, &label)).collect();
        let mut row = vec!["1".into(), label.clone(), "GFLOP/s".into()];
        row.extend(render_cells(&cells, 0));
        t.push(row);
    }
    let copy_seen: Vec<String> = columns
        .iter()
        .flat_map(|c| {
            c.run
                .bandwidth
                .iter()
                .flat_map(|b| b.rows.iter().map(|r| r.variant.clone()))
        })
        .collect();
    let has_copy = columns.iter().any(|c| c.run.bandwidth.is_some());
    if has_copy {
        let mut row = vec!["2".into(), "copy reference".into(), "GB/s".into()];
        row.extend(columns.iter().map(|c| match (&c.run.bandwidth, c.compare) {
            (Some(b), false) => format!("{:.1}", b.reference_gbps),
            _ => "-".into(),
        }));
        t.push(row);
    }
    for label in ordered_labels(MEMCPY.iter().map(|v| v.label), copy_seen) {
        let cells: Vec<Cell> = columns.iter().map(|c| copy_cell(c, &label)).collect();
        let mut row = vec!["2".into(), label.clone(), "GB/s".into()];
        row.extend(render_cells(&cells, 1));
        t.push(row);
    }
    let mut caps: Vec<u32> = columns
        .iter()
        .flat_map(|c| c.run.regs.iter().flatten().map(|r| r.cap))
        .collect();
    caps.sort_unstable();
    caps.dedup();
    for cap in caps {
        let cells: Vec<Cell> = columns.iter().map(|c| regs_cell(c, cap)).collect();
        let mut row = vec!["3".into(), format!("cap {cap}"), "GFLOP/s".into()];
        row.extend(render_cells(&cells, 0));
        t.push(row);
    }
    t.render()
}

fn verdict_matrix(names: &[String], all: &[Vec<Verdict>]) -> String {
    let mut headers: Vec<(&str, Align)> = vec![("#", Align::Right), ("Claim", Align::Left)];
    headers.extend(names.iter().map(|n| (n.as_str(), Align::Left)));
    let mut t = Table::new(&headers);
    let Some(first) = all.first() else {
        return t.render();
    };
    for (i, v) in first.iter().enumerate() {
        let mut row = vec![(i + 1).to_string(), v.claim.clone()];
        row.extend(all.iter().map(|vs| {
            vs.get(i)
                .map(|x| format!("**{}**", x.outcome()))
                .unwrap_or_default()
        }));
        t.push(row);
    }
    t.render()
}

/// Merges the `results.json` of each folder in `dirs` into `out`: `report.md` (one combined table,
/// the verdicts of every run side by side) and the three plots with one series per run and module.
/// Returns the files written.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    if dirs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    let runs: Vec<(PathBuf, RunResults)> = dirs
        .iter()
        .map(|d| load(d).map(|r| (d.clone(), r)))
        .collect::<Result<_, _>>()?;
    std::fs::create_dir_all(out).map_err(|source| ReportError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    let names = run_names(&runs);
    let compare_names: Vec<Option<String>> = runs
        .iter()
        .zip(&names)
        .map(|((_, r), n)| {
            r.meta
                .compare_module
                .as_ref()
                .map(|c| format!("{} · {c}", n.split(" · ").next().unwrap_or(n)))
        })
        .collect();

    let mut columns = Vec::new();
    for (((_, run), name), cname) in runs.iter().zip(&names).zip(&compare_names) {
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

    let plot_runs: Vec<PlotRun<'_>> = runs
        .iter()
        .zip(&names)
        .zip(&compare_names)
        .map(|(((_, r), n), c)| PlotRun {
            name: n,
            compare_name: c.as_deref(),
            results: r,
        })
        .collect();
    let svgs = figures::draw_all(&plot_runs, out)?;

    let all_verdicts: Vec<Vec<Verdict>> = runs.iter().map(|(_, r)| verdicts(r)).collect();
    let mut md = String::new();
    md.push_str("# Occupancy lab: runs side by side\n\n## Runs\n\n");
    let mut t = Table::new(&[
        ("Run", Align::Left),
        ("Folder", Align::Left),
        ("Device", Align::Left),
        ("Kernels", Align::Left),
        ("Date", Align::Left),
        ("Command", Align::Left),
    ]);
    for ((dir, r), name) in runs.iter().zip(&names) {
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
                None => r.meta.module.clone(),
            },
            r.meta.date.clone(),
            format!("`{}`", r.meta.command),
        ]);
    }
    md.push_str(&t.render());
    md.push_str(
        "\n## Figures\n\nEach cell: throughput (theoretical occupancy); from the second column on, \
also the ratio to the first column.\n\n",
    );
    md.push_str(&combined_table(&columns));
    md.push_str("\n## Plots\n\n");
    for svg in &svgs {
        let _ = writeln!(md, "![{svg}]({svg})\n");
    }
    md.push_str("## Verdicts\n\nJudged for each run's own module, by the rules of the single-run report.\n\n");
    md.push_str(&verdict_matrix(&names, &all_verdicts));
    for (name, vs) in names.iter().zip(&all_verdicts) {
        let _ = writeln!(md, "\n### {name}\n");
        for (i, v) in vs.iter().enumerate() {
            let _ = writeln!(md, "{}. **{}**: {}", i + 1, v.outcome(), v.evidence);
        }
    }
    let mut written = vec![write_file(&out.join(REPORT_MD), &md)?];
    written.extend(svgs.iter().map(|s| out.join(s)));
    Ok(written)
}
