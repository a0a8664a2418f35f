//! `host`: runs the seed blog's experiments on the GPU at hand and prints the blog's tables.
//!
//! Exit codes: 0 all checks passed; 1 a check failed (the rows are marked) or an error;
//! 2 no CUDA driver, or a bad flag.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use host::cli::{command_line, Cli, Command, Plan};
use host::cuda::{driver_present, CudaError, Gpu};
use host::experiments::{self, ExperimentError};
use host::results_io::write_run;
use host::tables::{device_table, render, render_results, Format};

const NO_DRIVER: u8 = 2;
const BAD_FLAG: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            if is_no_driver(&e) {
                eprintln!("host: {e}");
                return ExitCode::from(NO_DRIVER);
            }
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_no_driver(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(c.downcast_ref::<CudaError>(), Some(CudaError::NoDriver))
            || matches!(
                c.downcast_ref::<ExperimentError>(),
                Some(ExperimentError::Cuda(CudaError::NoDriver))
            )
    })
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let line = command_line(std::env::args());
    let plan = match cli.command.plan(&line) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(BAD_FLAG));
        }
    };
    match (cli.command, plan) {
        (_, Some(plan)) => run_experiments(plan),
        (Command::Info(a), None) => {
            if !driver_present() {
                return Err(CudaError::NoDriver.into());
            }
            let gpu =
                Gpu::open(a.device).with_context(|| format!("opening device {}", a.device))?;
            let text = match a.format {
                Format::Json => serde_json::to_string_pretty(gpu.info())? + "\n",
                f => render(&device_table(gpu.info()), f),
            };
            print!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        (Command::Calc(a), None) => {
            print!("{}", host::occupancy::cli::run(&a)?);
            Ok(ExitCode::SUCCESS)
        }
        (Command::Report(a), None) => {
            host::report::run(a)?;
            Ok(ExitCode::SUCCESS)
        }
        (Command::Inflight(a), None) => Ok(passed(host::experiments::inflight::run::command(&a)?)),
        (Command::Ilp(a), None) => Ok(passed(host::experiments::ilp::run::command(&a)?)),
        (_, None) => unreachable!("every experiment subcommand has a plan"),
    }
}

fn passed(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn run_experiments(mut plan: Plan) -> anyhow::Result<ExitCode> {
    if !driver_present() {
        return Err(CudaError::NoDriver.into());
    }
    plan.options.progress = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    let results = experiments::run(&plan.options, &plan.experiments)?;
    print!("{}", render_results(&results, plan.format));
    if let Some(dir) = &plan.out {
        let written = write_run(dir, &results)
            .with_context(|| format!("writing the results to {}", dir.display()))?;
        for path in written {
            eprintln!("wrote {}", path.display());
        }
    }
    let failed = experiments::failed_checks(&results);
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        for f in &failed {
            eprintln!("FAILED {f}");
        }
        eprintln!("{} check(s) failed", failed.len());
        Ok(ExitCode::FAILURE)
    }
}
