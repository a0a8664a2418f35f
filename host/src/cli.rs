//! The `host` command line: the subcommands (the experiments' come from the registry), the exit
//! codes, and the [`Plan`] a command line makes once every flag and file is checked
//! ([`crate::flags`]), before anything touches the GPU.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use crate::experiments::registry::AllArgs;
use crate::experiments::registry::{self, ExperimentCommand, Planned};
use crate::experiments::RunContext;
pub use crate::flags::{check_out, CliError, Common};
use crate::table::Format;

/// Exit code: every check passed.
pub const EXIT_OK: u8 = 0;
/// Exit code: a correctness check failed (the rows are marked).
pub const EXIT_CHECK_FAILED: u8 = 1;
/// Exit code: a flag or file is wrong (nothing ran).
pub const EXIT_USAGE: u8 = 2;
/// Exit code: no CUDA driver on this machine.
pub const EXIT_NO_DRIVER: u8 = 3;
/// Exit code: the run failed part-way (GPU or I/O error); finished experiments are on disk.
pub const EXIT_RUN_FAILED: u8 = 4;

const EXIT_CODES: &str = "Exit codes: 0 every check passed; 1 a correctness check failed; 2 a \
usage error (bad flag or file, nothing ran); 3 no CUDA driver; 4 the run failed part-way (a GPU \
or I/O error; the experiments that finished are written to --out, with a note of what is \
missing).";

/// Occupancy lab: the seed blog's experiments (occupancy vs throughput, bandwidth vs occupancy,
/// register pressure) on the GPU at hand, with the Rust-built kernels.
#[derive(Debug, Parser)]
#[command(name = "host", version, about, long_about = None, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    #[command(flatten)]
    Experiment(ExperimentCommand),
    /// All experiments.
    #[command(after_help = registry::all_variants_help())]
    All(AllArgs),
    /// The device: name, compute capability, SMs, clocks, registers and shared memory, L2, and
    /// the spec peaks behind the percentage columns.
    Info(InfoArgs),
    /// Occupancy calculator (no kernel runs).
    Calc(crate::calculator::CalcArgs),
    /// Report (plots and verdicts) from results folders.
    Report(crate::report::ReportArgs),
}

#[derive(Debug, Clone, Args)]
pub struct InfoArgs {
    /// CUDA device ordinal.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=1023))]
    pub device: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// What an experiment subcommand (or `all`) asks for, every flag and file checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub device: u32,
    pub context: RunContext,
    pub experiments: Vec<Planned>,
    pub format: Format,
    pub out: Option<PathBuf>,
    /// The command line, for the results.
    pub command: String,
    /// Stop after the checks (`--check-only`).
    pub check_only: bool,
}

fn plan(common: &Common, command: &str, experiments: Vec<Planned>) -> Result<Plan, CliError> {
    if let Some(out) = &common.out {
        check_out(out)?;
    }
    Ok(Plan {
        device: common.device,
        context: RunContext {
            timing: common.sampling.config(None).map_err(CliError::Flag)?,
            seed: common.seed,
            progress: false,
        },
        experiments,
        format: common.format,
        out: common.out.clone(),
        command: command.to_owned(),
        check_only: common.check_only,
    })
}

impl Command {
    /// Validates an experiment subcommand into a [`Plan`]; `None` for `info`, `calc` and `report`.
    /// `--out` is checked first, then each experiment's flags and files.
    pub fn plan(&self, command_line: &str) -> Result<Option<Plan>, CliError> {
        Ok(Some(match self {
            Command::Experiment(e) => {
                if let Some(out) = &e.common().out {
                    check_out(out)?;
                }
                plan(e.common(), command_line, vec![e.plan()?])?
            }
            Command::All(a) => {
                if let Some(out) = &a.common.out {
                    check_out(out)?;
                }
                plan(&a.common, command_line, registry::plan_all(a)?)?
            }
            Command::Info(_) | Command::Calc(_) | Command::Report(_) => return Ok(None),
        }))
    }
}

/// The command line as typed, arguments with spaces quoted.
pub fn command_line(args: impl IntoIterator<Item = String>) -> String {
    args.into_iter()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
