//! What the command-line tests share: running the host binary (with a deadline, so a check that
//! hangs fails the test instead of stalling it), scratch folders, and real kernel modules made
//! with ptxas.

#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use host::cuda::{driver_present, Gpu, Module};
use host::experiments::contract::{ArgsOf, OutputOf, Plan, Report, RunContext};
use host::sampling::{SamplingConfig, SamplingPlan, TimingPlan};

/// How long one command may take before it is killed and the test fails.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// The host binary run with `args`, its stdout sent to `stdout` (piped, a closed pipe,
/// `/dev/full`), killed after `deadline`: `None` if it had to be killed. The output's stdout is
/// empty unless it is `Stdio::piped()`; its pipes are read while it runs, so that a long message
/// cannot fill one and stall it.
pub fn host_within_to(args: &[&str], deadline: Duration, stdout: Stdio) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the host binary");
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(Some(Box::new(child.stderr.take().expect("piped stderr"))));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the host") {
            break Some(status);
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let (stdout, stderr) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    status.map(|status| Output {
        status,
        stdout,
        stderr,
    })
}

/// The host binary run with `args`; the test fails if it takes longer than [`DEADLINE`].
pub fn host(args: &[&str]) -> Output {
    host_to(args, Stdio::piped())
}

/// [`host`] with stdout sent to `stdout`, as [`host_within_to`].
pub fn host_to(args: &[&str], stdout: Stdio) -> Output {
    host_until(args, DEADLINE, stdout)
}

/// [`host_within_to`], the test failing if the run goes past `deadline`: for the runs that do
/// GPU work, which [`DEADLINE`] is too short for.
pub fn host_until(args: &[&str], deadline: Duration, stdout: Stdio) -> Output {
    host_within_to(args, deadline, stdout)
        .unwrap_or_else(|| panic!("host {args:?} ran past {deadline:?}"))
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `f` of each item, in the items' order, spread over the machine's CPUs: the tests that render
/// every committed run spend seconds per run, one CPU at a time otherwise.
pub fn each_in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = items.len().div_ceil(cpus).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| s.spawn(|| part.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// A fresh, empty scratch folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("host-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// The report fixture's folder (a hand-made run with experiments 1-3).
pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_fixture")
}

/// A copy of the report fixture's results.json in a new folder `dir`.
pub fn run_folder(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(fixture_dir().join("results.json"), dir.join("results.json")).unwrap();
    dir.to_owned()
}

/// ptxas (as the build finds it); the tests need it, as the README says.
pub fn ptxas() -> PathBuf {
    xtask::ptxas::find().expect("ptxas (set PTXAS; see the README)")
}

/// A real cubin `name.cubin` in `dir` exporting `entries` (each an empty kernel), assembled by
/// ptxas for sm_90.
pub fn cubin(dir: &Path, name: &str, entries: &[&str]) -> PathBuf {
    let mut ptx = String::from(".version 8.0\n.target sm_80\n.address_size 64\n");
    for e in entries {
        ptx.push_str(&format!(
            ".visible .entry {e}(.param .u64 a)\n{{\n\tret;\n}}\n"
        ));
    }
    let src = dir.join(format!("{name}.ptx"));
    std::fs::write(&src, ptx).unwrap();
    let out = dir.join(format!("{name}.cubin"));
    let o = Command::new(ptxas())
        .args(["-arch=sm_90", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .expect("run ptxas");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_file(&src).unwrap();
    out
}

/// Makes a FIFO at `path`; false where mkfifo is not available.
pub fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `host SUBCOMMAND ARGS --format json --iters 2 --samples 3` (a quick GPU run) and gives its
/// results; the run must exit 0.
pub fn quick_json_run(subcommand: &str, args: &[&str]) -> host::experiments::RunResults {
    let out = Command::new(env!("CARGO_BIN_EXE_host"))
        .arg(subcommand)
        .args(args)
        .args(["--format", "json", "--iters", "2", "--samples", "3"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "host {subcommand} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Device 0 for a GPU-only test. Asked to run (`--ignored`, or a build that found libcuda) on a
/// machine without a driver, the test fails here: a GPU test must not pass without having run.
/// `gpu_tests_fail_without_a_driver.rs` holds every `*_gpu` test to that.
pub fn gpu() -> Gpu {
    assert!(
        driver_present(),
        "no CUDA driver: this GPU-only test was asked to run and cannot (it fails rather than \
         passing untested)"
    );
    Gpu::open(0).expect("open device 0")
}

/// The built-in module (the main PTX, every sm_80 entry) loaded on `gpu`.
pub fn main_module(gpu: &Gpu) -> Module {
    Module::load(
        gpu,
        "built-in",
        host::kernel_source::builtin::MAIN.as_bytes(),
    )
    .expect("the built-in module loads")
}

/// The built-in main module and its unbounded build (no launch bounds), loaded on `gpu`: ours
/// and a compared side of the same entries.
pub fn main_and_unbounded(gpu: &Gpu) -> (Module, Module) {
    let load = |name, text: &str| Module::load(gpu, name, text.as_bytes()).expect(name);
    (
        load("built-in", host::kernel_source::builtin::MAIN),
        load("unbounded", host::kernel_source::builtin::UNBOUNDED),
    )
}

/// The run context of an experiment run inside a GPU test: a fixed plan (`iters` launches a
/// sample, `samples` samples, no noise target), the device's SM clock as the reference, seed 7,
/// no progress bar.
pub fn fixed_context(gpu: &Gpu, iters: u32, samples: u32) -> RunContext {
    RunContext {
        timing: SamplingConfig {
            plan: SamplingPlan::Fixed(TimingPlan { iters, samples }),
            reference_clock_mhz: Some(gpu.info().sm_clock_khz / 1000),
            ..SamplingConfig::default()
        },
        seed: 7,
        progress: false,
        launch_timeout: host::cuda::deadline::DEFAULT_LAUNCH_TIMEOUT,
        faults: Vec::new(),
    }
}

/// One experiment's flags (`A`, its `Args`) parsed from `cmd` (its name, then the flags) as
/// `host NAME FLAGS...` would parse them; a bad flag ends the test with clap's message.
pub fn experiment_args<A: clap::Args>(cmd: &[&str]) -> A {
    #[derive(clap::Parser)]
    struct Command<A: clap::Args> {
        #[command(flatten)]
        args: A,
    }
    <Command<A> as clap::Parser>::parse_from(cmd).args
}

/// Experiment `E` run on `gpu` under `ctx` from its command line `cmd` (its name, then the
/// flags); the test fails on any of its checks that failed.
pub fn run_verified<E: Report>(gpu: &Gpu, ctx: &RunContext, cmd: &[&str]) -> OutputOf<E> {
    let args = experiment_args::<ArgsOf<E>>(cmd);
    let plan = <E::Plan as Plan>::new(&args).expect("the flags make a plan");
    let output = E::run(gpu, ctx, &plan).expect("the experiment runs");
    let failed = E::failed_checks(&output);
    assert!(failed.is_empty(), "{cmd:?}: {failed:?}");
    output
}
