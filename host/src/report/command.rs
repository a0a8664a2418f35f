//! The `host report DIR...` subcommand.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::flags::UsageError;
use crate::out_dir::{check_out, create_out, probe_writable, Incoming};
use crate::stdout::{note, print};

/// `host report DIR... [--out DIR]`: rewrite one run's report (with the occupancy calculator's
/// curves for its device), or merge several runs. Every results.json is read and checked (its
/// figures must be numbers above zero) before anything is written.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// Results folders (each with a results.json; each once).
    #[arg(required = true, num_args = 1..)]
    pub dirs: Vec<PathBuf>,
    /// Where to write. With one folder: its whole results folder regenerated there from its
    /// results.json (tables.md, CSVs, results.json, report.md, plots); without --out (or with
    /// the folder itself), only its report.md and plots are rewritten in place, and its
    /// results.json, tables.md and CSVs are left untouched. With several folders (required
    /// then): the merged report. DIR must be new, empty, hold the same run (or, for a merge, an
    /// earlier merged report); another run or other files are refused unless --force is given.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write into --out even when it holds another run or merge (every file of it the new one
    /// does not write again is removed) or other files (they are left beside the new ones).
    #[arg(long, requires = "out")]
    pub force: bool,
}

/// Whether `a` and `b` name the same existing folder.
fn same_folder(a: &Path, b: &Path) -> bool {
    (a.canonicalize()).is_ok_and(|a| b.canonicalize().is_ok_and(|b| a == b))
}

/// Runs the subcommand and prints the files written. Every folder it writes into is found
/// writable (a file written and removed) before anything is written.
pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let written = match (args.dirs.as_slice(), &args.out) {
        ([dir], out) if out.as_deref().is_none_or(|o| same_folder(o, dir)) => {
            let results = super::merge::load(dir)?;
            let flag = if out.is_some() { "--out" } else { "report" };
            probe_writable(dir, flag)?;
            note(&format!(
                "rewriting the report of {} from its results.json: report.md and the plots \
                 (results.json, tables.md and the CSVs are left as they are)",
                dir.display()
            ));
            super::write::write_folder(&results, dir)
                .with_context(|| format!("writing the report of {}", dir.display()))?
        }
        ([dir], Some(out)) => {
            let results = super::merge::load(dir)?;
            let incoming = Incoming::Regenerated {
                date: &results.meta.date,
                command: &results.meta.command,
            };
            check_out(out, incoming, args.force)?;
            create_out(out)?;
            super::write::write_run(out, &results)
                .with_context(|| format!("regenerating {} into {}", dir.display(), out.display()))?
        }
        (_, None) => {
            return Err(UsageError(
                "--out DIR is required when merging several results folders".to_owned(),
            )
            .into())
        }
        (dirs, Some(out)) => {
            let runs = super::merge::load_all(dirs)?;
            check_out(out, Incoming::Merge, args.force)?;
            create_out(out)?;
            super::merge::merge_runs(&runs, out)
                .with_context(|| format!("merging into {}", out.display()))?
        }
    };
    let listed: String = written
        .iter()
        .map(|path| format!("{}\n", path.display()))
        .collect();
    print(&listed)?;
    Ok(())
}
