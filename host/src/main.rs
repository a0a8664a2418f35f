//! `host`: runs the lab's experiments (the registry's) on the GPU at hand and prints their tables.
//!
//! Exit codes (also in `--help`): 0 every check passed; 1 a correctness check failed; 2 a usage
//! error; 3 no CUDA driver; 4 the run failed part-way (what finished is on disk), or stdout could
//! not be written. A reader that closes stdout early (`| head`) changes none of them.

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
use host::out_dir::create_out;
use host::report::write_run;
use host::results_io::{device_table, render_results};
use host::stdout::{note, print};
use host::table::{render, Format};

fn main() -> ExitCode {
    let cli = match host::cli::parse(std::env::args_os()) {
        Ok(cli) => cli,
        // Help and version (exit 0, on stdout, which may be full or closed as any output), or a
        // usage error (exit 2, as clap prints it).
        Err(e) if !e.use_stderr() => {
            let text = if std::io::stdout().is_terminal() {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            return match print(&text) {
                Ok(_) => ExitCode::from(EXIT_OK),
                Err(e) => {
                    note(&format!("error: {e}"));
                    ExitCode::from(EXIT_RUN_FAILED)
                }
            };
        }
        Err(e) => e.exit(),
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if let Some(d) = e.downcast_ref::<Disagreement>() {
                if let Err(e) = print(&d.report) {
                    note(&format!("error: {e}"));
                    return ExitCode::from(EXIT_RUN_FAILED);
                }
                note(&format!("error: {d}"));
                return ExitCode::from(EXIT_CHECK_FAILED);
            }
            let code = exit_code(&e);
            if code == EXIT_NO_DRIVER {
                note(&format!("host: {e}"));
            } else {
                note(&format!("error: {}", describe(&e)));
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
            note(&format!("error: {e}"));
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
            print(&text)?;
            Ok(EXIT_OK)
        }
        (Command::Calc(a), None) => {
            print(&host::calculator::run(&a)?)?;
            Ok(EXIT_OK)
        }
        (Command::Report(a), None) => {
            host::report::run(a)?;
            Ok(EXIT_OK)
        }
        (_, None) => unreachable!("every experiment subcommand has a plan"),
    }
}

/// Runs the plan's experiments, writing the results folder (when asked) after each one. The
/// folder is created only once the device is open, and removed again if the run leaves it empty.
fn run_experiments(mut plan: Plan) -> anyhow::Result<u8> {
    if plan.check_only {
        let names: Vec<&str> = plan.experiments.iter().map(|e| e.name()).collect();
        note(&format!("checked: {} (nothing run)", names.join(", ")));
        return Ok(EXIT_OK);
    }
    if !driver_present() {
        return Err(CudaError::NoDriver.into());
    }
    // A run going on after a kernel's fault, in the process that fault made it start.
    let resumed =
        (plan.resume.as_deref().map(Resume::read).transpose()).context("resuming the run")?;
    if let Some(r) = &resumed {
        plan.context.faults = r.faults.clone();
    }
    let gpu = Gpu::open(plan.device).with_context(|| format!("opening device {}", plan.device))?;
    let created = plan.out.as_deref().map(create_out).transpose()?;
    let code = match run_on(&gpu, plan, resumed) {
        Ok(Ended::Exit(code)) => Ok(code),
        // The fault lost this process's context: the run goes on in a new process, which
        // prints and writes the whole run.
        Ok(Ended::Faulted(resume)) => {
            drop(gpu);
            // Killed by a signal: the run failed part-way.
            let code = |s: std::process::ExitStatus| s.code().and_then(|c| u8::try_from(c).ok());
            let status = resume::go_on(&resume).map_err(anyhow::Error::from);
            status.map(|s| code(s).unwrap_or(EXIT_RUN_FAILED))
        }
        Err(e) => Err(e),
    };
    if let Some(created) = created {
        created.undo();
    }
    code
}

/// How [`run_on`] ended: with the run's exit code, or on a kernel's fault, with what the new
/// process goes on from.
enum Ended {
    Exit(u8),
    Faulted(Box<Resume>),
}

/// [`run_experiments`] once the device is open and `--out` exists.
fn run_on(gpu: &Gpu, mut plan: Plan, resumed: Option<Resume>) -> anyhow::Result<Ended> {
    plan.context.progress = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
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
    host::phase_log::mark("since started");
    let mut done = |results: &experiments::RunResults| {
        // Each experiment's wall time, its kernels' compile included, for whoever keeps `host
        // all` inside its time.
        let took = since.elapsed();
        host::phase_log::mark("experiment done");
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
                note(&format!(
                    "wrote {} ({}; the last in {:.1} s)",
                    dir.display(),
                    finished.join(", "),
                    took.as_secs_f64()
                ));
            }
            Err(e) => {
                note(&format!(
                    "error: writing the results to {}: {e}",
                    dir.display()
                ));
                write_error = Some(e);
            }
        }
    };
    // The built-in modules the planned experiments will load, compiled once each and loaded one
    // after another in the order they are first needed, on one thread from the start: so that a
    // later experiment's module is ready when it begins, and the first waits only for its own.
    let warm = experiments::registry::warm_order(&plan.experiments);
    // Each module assembled by a ptxas process of its own, all at once: the driver's JIT holds
    // every other module load while it compiles one, so the first experiment's small loads
    // waited a minute behind the tensor-core module (results/2026-12-03-h200-s16).
    if !warm.is_empty() {
        match gpu.assemble_builtins(&warm) {
            Some(ptxas) => note(&format!(
                "the built-in modules are assembled by {} ({} at once)",
                ptxas.display(),
                warm.len()
            )),
            None => note("no ptxas found: the driver compiles the built-in modules, one at a time"),
        }
    }
    let (results, failure) = std::thread::scope(|s| {
        s.spawn(move || {
            for ptx in warm {
                gpu.warm_builtin(host::kernel_source::name::BUILTIN, ptx);
            }
        });
        experiments::run_from(gpu, &plan.context, start, &plan.experiments, &mut done)
    });
    if let Some(e) = failure.as_ref().filter(|e| e.is_fault()) {
        note(&format!("error: {e}"));
        note("a kernel's fault loses the GPU for the rest of a process: going on in a new one");
        let name = e.experiment().unwrap_or_default();
        let by_line = plan
            .experiments
            .iter()
            .any(|p| p.name() == name && experiments::run_loop::fault_by_line(p, e));
        let mut faults = plan.context.faults.clone();
        faults.push(Fault::of(name, e, by_line));
        return Ok(Ended::Faulted(Box::new(Resume { results, faults })));
    }
    // What was measured is on disk already; stdout failing is said after the run's own errors.
    let printed = print(&render_results(&results, plan.format));
    if let Some(e) = failure {
        note(&format!("error: {e}"));
        if let Some(dir) = &plan.out {
            note(&format!(
                "the experiments that finished are in {}; results.json lists what is missing",
                dir.display()
            ));
        }
        return Ok(Ended::Exit(if e.is_no_driver() {
            EXIT_NO_DRIVER
        } else {
            EXIT_RUN_FAILED
        }));
    }
    if let Some(e) = write_error {
        return Err(e).context("writing the results");
    }
    printed?;
    let failed = results.failed_checks();
    if failed.is_empty() {
        Ok(Ended::Exit(EXIT_OK))
    } else {
        for f in &failed {
            note(&format!("FAILED {f}"));
        }
        note(&format!("{} check(s) failed", failed.len()));
        Ok(Ended::Exit(EXIT_CHECK_FAILED))
    }
}
