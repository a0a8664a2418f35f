//! The `host report DIR...` subcommand.

use std::path::PathBuf;

use anyhow::Context as _;

/// `host report DIR... [--out DIR]`: rewrite one run's report (with the occupancy calculator's
/// curves for its device), or merge several runs.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// Results folders (each with a results.json).
    #[arg(required = true, num_args = 1..)]
    pub dirs: Vec<PathBuf>,
    /// Where to write. With one folder: its whole results folder regenerated there from its
    /// results.json (tables.md, CSVs, results.json, report.md, plots); without --out, its report
    /// is rewritten in place. With several folders (required then): the merged report.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Runs the subcommand and prints the files written.
pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let written = match (args.dirs.as_slice(), &args.out) {
        ([dir], None) => {
            let results = super::merge::load(dir)?;
            super::write_folder(&results, dir)
                .with_context(|| format!("writing the report of {}", dir.display()))?
        }
        ([dir], Some(out)) => {
            let results = super::merge::load(dir)?;
            crate::results_io::write_run(out, &results)
                .with_context(|| format!("regenerating {} into {}", dir.display(), out.display()))?
        }
        (_, None) => anyhow::bail!("--out DIR is required when merging several results folders"),
        (dirs, Some(out)) => {
            super::merge(dirs, out).with_context(|| format!("merging into {}", out.display()))?
        }
    };
    for path in written {
        println!("{}", path.display());
    }
    Ok(())
}
