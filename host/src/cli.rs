//! The `host` command line: the subcommands (the experiments' come from the registry), the exit
//! codes, and the [`Plan`] a command line makes once every flag and file is checked
//! ([`crate::flags`]), before anything touches the GPU.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::error::{ContextKind, ContextValue};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

pub use crate::experiments::registry::AllArgs;
use crate::experiments::registry::{self, ExperimentCommand, Planned};
use crate::experiments::{ExperimentError, RunContext};
use crate::flag_values::{check_lists, list_rule, shown, whole};
pub use crate::flags::{CliError, Common, UsageError};
use crate::kernel_source::module_file::ModuleFileError;
use crate::out_dir::{check_out, create_out, Incoming};
use crate::report::ReportError;
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

const EXIT_CODES: &str = "Exit codes: 0 every check passed; 1 a correctness check failed or a \
kernel faulted (or, for calc --verify, the calculator disagrees with the driver); 2 a usage error \
(a bad flag, file or results.json; nothing ran); 3 no CUDA driver; 4 the run failed part-way (a \
GPU or I/O error, or a kernel still running after --launch-timeout; the experiments that finished \
are written to --out, with a note of what is missing) or stdout could not be written (a full \
disk). A reader closing stdout early (| head) is no error: the printing stops quietly, the exit \
code is the run's own, and --out is still written.

Files: --module/--compare take regular files only (not a FIFO or device; regs, and host all's \
--module-caps/--compare-caps, take folders of per-cap modules), told PTX, cubin or fatbin by their \
first bytes; a cubin must be an NVIDIA ELF exporting the entries a run launches. \
--out must be a new or empty folder, or one holding the very run being written (report A --out \
B, B regenerated from A before): a folder holding another run's results.json, a merged report \
or other files is refused unless --force is given; writing a run or merge removes the lab's files it \
does not write again, so a folder holds one run. Every list flag refuses an item given twice.";

/// Occupancy lab: the seed blog's and Volkov's experiments, their tensor-core counterparts and
/// the shape sweep (the registry's list, `experiments/mod.rs`) on the GPU at hand, with the
/// Rust-built kernels. `about` shows the package's description instead of this text.
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
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = whole(0u32..=1023))]
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
    /// The state of the run to go on with after a fault (`--resume`, given by the host itself).
    pub resume: Option<PathBuf>,
}

/// The plan of checked experiments; `--out` last, once everything else has passed: refused when
/// it holds something else (see [`crate::out_dir`]), then created and probed, and removed again
/// when it was new: the run creates it only once the device is open.
fn plan(common: &Common, command: &str, experiments: Vec<Planned>) -> Result<Plan, CliError> {
    let timing = common.sampling.config().map_err(CliError::Flag)?;
    // A run resumed after a fault (`--resume`) writes on into its own folder.
    if let Some(out) = common.out.as_ref().filter(|_| common.resume.is_none()) {
        check_out(out, Incoming::Run, common.force)?;
        create_out(out)?.undo();
    }
    Ok(Plan {
        device: common.device,
        context: RunContext {
            timing,
            seed: common.seed,
            progress: false,
            launch_timeout: std::time::Duration::from_secs(common.launch_timeout),
            faults: Vec::new(),
        },
        experiments,
        format: common.format,
        out: common.out.clone(),
        command: command.to_owned(),
        check_only: common.check_only,
        resume: common.resume.clone(),
    })
}

impl Command {
    /// Validates an experiment subcommand into a [`Plan`]; `None` for `info`, `calc` and `report`.
    /// Each experiment's flags and files are checked first, `--out` last.
    pub fn plan(&self, command_line: &str) -> Result<Option<Plan>, CliError> {
        Ok(Some(match self {
            Command::Experiment(e) => plan(e.common(), command_line, vec![e.plan()?])?,
            Command::All(a) => plan(&a.common, command_line, registry::plan_all(a)?)?,
            Command::Info(_) | Command::Calc(_) | Command::Report(_) => return Ok(None),
        }))
    }
}

/// The command line's definition, with the rules every flag shares: a value may look like a
/// negative number, so that `--size -1` is refused by `--size` itself, naming it, rather than
/// read as an unknown flag `-1`; and every list flag's rule ([`list_rule`]).
pub fn definition() -> clap::Command {
    fn negatives(a: clap::Arg) -> clap::Arg {
        let takes_values = a.get_action().takes_values();
        list_rule(a.allow_negative_numbers(takes_values))
    }
    fn all_args(c: clap::Command) -> clap::Command {
        c.mut_args(negatives).mut_subcommands(all_args)
    }
    all_args(Cli::command())
}

/// Parses a command line (the program's name first) by [`definition`]. A value a clap message
/// repeats is shortened when long ([`shown`]).
pub fn parse<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut cmd = definition();
    let matches = cmd.try_get_matches_from_mut(args).map_err(shorten)?;
    check_lists(&cmd, &matches).map_err(shorten)?;
    Cli::from_arg_matches(&matches).map_err(|e| shorten(e.format(&mut cmd)))
}

/// A clap error whose repeated value is long, with the value shortened.
fn shorten(mut e: clap::Error) -> clap::Error {
    for kind in [ContextKind::InvalidValue, ContextKind::InvalidArg] {
        if let Some(ContextValue::String(v)) = e.get(kind) {
            let short = shown(v);
            if short != *v {
                e.insert(kind, ContextValue::String(short));
            }
        }
    }
    e
}

/// The exit code of a command that failed with `e`: 2 for a usage error (a flag or file, a
/// module file that is not one, a results folder that cannot be read, a configuration the
/// calculator cannot launch), 3 without a CUDA driver, 4 for anything else (the run failed
/// part-way).
pub fn exit_code(e: &anyhow::Error) -> u8 {
    let usage = e.chain().any(|c| {
        c.is::<UsageError>()
            || c.is::<CliError>()
            || c.is::<ModuleFileError>()
            || c.downcast_ref::<ReportError>()
                .is_some_and(ReportError::is_usage)
    });
    let no_driver = e.chain().any(|c| {
        matches!(
            c.downcast_ref::<crate::cuda::CudaError>(),
            Some(crate::cuda::CudaError::NoDriver)
        ) || c
            .downcast_ref::<ExperimentError>()
            .is_some_and(ExperimentError::is_no_driver)
    });
    if no_driver {
        EXIT_NO_DRIVER
    } else if usage {
        EXIT_USAGE
    } else {
        EXIT_RUN_FAILED
    }
}

/// `e` and its causes in one line, each cause said once: a cause whose text the message already
/// holds (many errors repeat their source in their own message) is not repeated.
pub fn describe(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if part.is_empty() || text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_said_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file");
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read x: {0}")]
        struct Repeats(#[source] std::io::Error);
        let e = anyhow::Error::new(Repeats(io)).context("loading the run");
        assert_eq!(describe(&e), "loading the run: cannot read x: No such file");
    }

    #[test]
    fn usage_errors_exit_2_under_any_context() {
        let usage =
            anyhow::Error::new(UsageError("--out DIR is required".into())).context("report");
        assert_eq!(exit_code(&usage), EXIT_USAGE);
        let flag = anyhow::Error::new(CliError::Flag("--x: bad".into())).context("planning");
        assert_eq!(exit_code(&flag), EXIT_USAGE);
        let module = anyhow::Error::new(ModuleFileError::MissingPath {
            flag: "--ptx",
            path: "k.ptx".into(),
        });
        assert_eq!(exit_code(&module), EXIT_USAGE);
        let read = anyhow::Error::new(ReportError::Read {
            path: "r/results.json".into(),
            reason: "does not exist".into(),
        });
        assert_eq!(exit_code(&read), EXIT_USAGE);
        let write = anyhow::Error::new(ReportError::Write {
            path: "r/report.md".into(),
            source: std::io::Error::other("disk full"),
        });
        assert_eq!(exit_code(&write), EXIT_RUN_FAILED);
        let driver = anyhow::Error::new(crate::cuda::CudaError::NoDriver).context("opening");
        assert_eq!(exit_code(&driver), EXIT_NO_DRIVER);
    }

    #[test]
    fn a_long_value_in_a_clap_message_is_shortened() {
        let huge = "9".repeat(300);
        let e = parse(["host", "occupancy", "--size", &huge]).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("(300 characters)") && !text.contains(&huge[..50]),
            "{text}"
        );
        let e = parse(["host", "occupancy", "--size", "-1"]).unwrap_err();
        assert!(e.to_string().contains("--size"), "{e}");
    }
}
