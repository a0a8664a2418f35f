//! `host`: runs the lab's experiments (the registry's) on the GPU at hand and prints their tables.
//!
//! Exit codes (also in `--help`): 0 every check passed; 1 a correctness check failed; 2 a usage
//! error; 3 no CUDA driver; 4 the run failed part-way (what finished is on disk).

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Context;
use host::calculator::Disagreement;
use host::cli::{
    command_line, describe, exit_code, Cli, Command, Plan, EXIT_CHECK_FAILED, EXIT_NO_DRIVER,
    EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE,
};
use host::cuda::{driver_present, CudaError, Gpu};
use host::experiments;
use host::experiments::resume::{self, Fault, Resume};
use host::report::write_run;
use host::results_io::{device_table, render_results};
use host::table::{render, Format};

fn main() -> ExitCode {
    let cli = match host::cli::parse(std::env::args_os()) {
        Ok(cli) => cli,
        // Help and version (exit 0) or a usage error (exit 2), as clap prints them.
        Err(e) => e.exit(),
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if let Some(d) = e.downcast_ref::<Disagreement>() {
                print!("{}", d.report);
                eprintln!("error: {d}");
                return ExitCode::from(EXIT_CHECK_FAILED);
            }
            let code = exit_code(&e);
            if code == EXIT_NO_DRIVER {
                eprintln!("host: {e}");
            } else {
                eprintln!("error: {}", describe(&e));
            }
            ExitCode::from(code)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<u8> {
    let line = command_line(std::env::args_os().map(|a| a.to_string_lossy().into_owned()));
    let plan = match cli.command.plan(&line) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(EXIT_USAGE);
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
            Ok(EXIT_OK)
        }
        (Command::Calc(a), None) => {
            print!("{}", host::calculator::run(&a)?);
            Ok(EXIT_OK)
        }
        (Command::Report(a), None) => {
            host::report::run(a)?;
            Ok(EXIT_OK)
        }
        (_, None) => unreachable!("every experiment subcommand has a plan"),
    }
}

/// Runs the plan's experiments, writing the results folder (when asked) after each one.
fn run_experiments(mut plan: Plan) -> anyhow::Result<u8> {
    if plan.check_only {
        let names: Vec<&str> = plan.experiments.iter().map(|e| e.name()).collect();
        eprintln!("checked: {} (nothing run)", names.join(", "));
        return Ok(EXIT_OK);
    }
    if !driver_present() {
        return Err(CudaError::NoDriver.into());
    }
    plan.context.progress = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    // A run going on after a kernel's fault, in the process that fault made it start.
    let resumed = match &plan.resume {
        Some(path) => Some(Resume::read(path).context("resuming the run")?),
        None => None,
    };
    if let Some(r) = &resumed {
        plan.context.faults = r.faults.clone();
    }
    let gpu = Gpu::open(plan.device).with_context(|| format!("opening device {}", plan.device))?;
    plan.context.timing.reference_clock_mhz = Some(gpu.info().sm_clock_khz / 1000);
    let start = match resumed {
        Some(r) => r.results,
        None => experiments::RunResults::empty(
            experiments::meta(
                &plan.command,
                &plan.context.timing,
                &plan.experiments,
                &gpu.info().driver_version,
            ),
            gpu.info().clone(),
        ),
    };
    let mut write_error = None;
    let mut since = std::time::Instant::now();
    let mut done = |results: &experiments::RunResults| {
        // Each experiment's wall time, its kernels' compile included, for whoever keeps `host
        // all` inside its time.
        let took = since.elapsed();
        since = std::time::Instant::now();
        let Some(dir) = &plan.out else { return };
        match write_run(dir, results) {
            Ok(_) => {
                let finished: Vec<&str> = results
                    .sections()
                    .iter()
                    .filter(|s| s.table.is_some())
                    .map(|s| s.name)
                    .collect();
                eprintln!(
                    "wrote {} ({}; the last in {:.1} s)",
                    dir.display(),
                    finished.join(", "),
                    took.as_secs_f64()
                );
            }
            Err(e) => {
                eprintln!("error: writing the results to {}: {e}", dir.display());
                write_error = Some(e);
            }
        }
    };
    // The large built-in modules every planned experiment will load, each compiled once on its
    // own thread from the start, so that a later experiment's module is ready when it begins
    // (the first waits for its own, as it would compiling it itself).
    let mut warm: Vec<&'static str> = Vec::new();
    for ptx in plan.experiments.iter().flat_map(|e| e.builtin_ptx()) {
        if !warm.contains(ptx) {
            warm.push(ptx);
        }
    }
    let (results, failure) = std::thread::scope(|s| {
        for ptx in warm {
            let gpu = &gpu;
            s.spawn(move || gpu.warm_builtin(host::module_name::BUILTIN, ptx));
        }
        experiments::run_from(&gpu, &plan.context, start, &plan.experiments, &mut done)
    });
    if let Some(e) = failure.as_ref().filter(|e| e.is_fault()) {
        // The fault lost this process's context: the run goes on in a new process, which
        // prints and writes the whole run.
        eprintln!("error: {e}");
        eprintln!(
            "a kernel's fault loses the GPU for the rest of a process: going on in a new one"
        );
        drop(gpu);
        let name = e.experiment().unwrap_or_default();
        let by_line = plan
            .experiments
            .iter()
            .any(|p| p.name() == name && experiments::run_loop::fault_by_line(p, e));
        let mut faults = plan.context.faults.clone();
        faults.push(Fault::of(name, e, by_line));
        let status = resume::go_on(&Resume { results, faults })?;
        // Killed by a signal: the run failed part-way.
        return Ok(status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(EXIT_RUN_FAILED));
    }
    print!("{}", render_results(&results, plan.format));
    if let Some(e) = failure {
        eprintln!("error: {e}");
        if let Some(dir) = &plan.out {
            eprintln!(
                "the experiments that finished are in {}; results.json lists what is missing",
                dir.display()
            );
        }
        return Ok(if e.is_no_driver() {
            EXIT_NO_DRIVER
        } else {
            EXIT_RUN_FAILED
        });
    }
    if let Some(e) = write_error {
        return Err(e).context("writing the results");
    }
    let failed = results.failed_checks();
    if failed.is_empty() {
        Ok(EXIT_OK)
    } else {
        for f in &failed {
            eprintln!("FAILED {f}");
        }
        eprintln!("{} check(s) failed", failed.len());
        Ok(EXIT_CHECK_FAILED)
    }
}
