//! A seeded fuzz of the `host` binary: generated command lines of every subcommand (`mma`,
//! `gemm_bf16`, `held`, `all`, `info`, `calc`, `report` included), each made of parts whose
//! verdict is known: flags with values they must take or refuse, module files that are or are
//! not modules, `--out` folders that are taken or refused, results folders good, broken or
//! impossible. The generator knows from what it put in the exit code each line must give
//! (`fuzz_inputs/rules.rs`: a bad flag 2, never 3; a valid line needing the GPU without a driver
//! 3; help 0; ...), and each line must give exactly that, without a panic or a hang, its stdout
//! a pipe, a pipe whose reader has exited, or `/dev/full`. Where a driver is present every
//! experiment line carries `--check-only`, and nothing that would run on the GPU is generated.
//! The wall time is printed, never asserted.

mod fuzz_inputs;
mod support;

use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::SeedableRng;

use fuzz_inputs::lines::{Case, Generator, Sink};
use fuzz_inputs::rules::{of, Rule, RULES};
use fuzz_inputs::{hazard_folders, pool};
use support::{host_within_to, scratch, DEADLINE};

/// Random lines per run, beside the catalogue's ~900 one-defect lines. All of them take about
/// 40 s of CPU in a debug build (33-58 s of wall time measured on this 2-core machine shared
/// with other builds; about 20 s when the two cores are free): each line is a process, and most
/// of the time is the processes' start, the module checks and the reports' plots. 5,000 random
/// lines took over two minutes, so the catalogue covers each check once instead.
const LINES: usize = 1_200;
const SEED: u64 = 0x0CC_2010_F022;

/// Where a line's stdout goes, made for it.
fn stdout_for(sink: Sink) -> Stdio {
    match sink {
        Sink::Pipe => Stdio::piped(),
        Sink::Full => std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
            .into(),
        Sink::Closed => {
            let (reader, writer) = std::io::pipe().expect("a pipe");
            drop(reader);
            writer.into()
        }
    }
}

/// What is wrong with how a line ended, if anything.
fn judge(case: &Case, o: &std::process::Output) -> Option<String> {
    let err = String::from_utf8_lossy(&o.stderr);
    let code = o.status.code();
    if err.contains("panicked") || code == Some(101) {
        return Some(format!("panicked (exit {code:?}): {err}"));
    }
    if err.len() > 64 * 1024 {
        return Some(format!("{} bytes on stderr", err.len()));
    }
    let want = case.code();
    if code != Some(i32::from(want)) {
        return Some(format!("exit {code:?}, must be {want}: {err}"));
    }
    if let Some(p) = &case.must_write {
        if !p.exists() {
            return Some(format!("{} was not written", p.display()));
        }
    }
    match want {
        // clap answers a missing subcommand with the help, on stderr.
        2 if !(err.starts_with("error:") || err.contains("\nUsage: host")) => {
            Some(format!("usage error without a message: {err:?}"))
        }
        3 if !(err.lines().count() == 1 && err.contains("no CUDA driver")) => {
            Some(format!("no-driver exit without its one line: {err:?}"))
        }
        _ => None,
    }
}

fn cases(pool: &fuzz_inputs::Pool, driver: bool, seed: u64, count: usize) -> Vec<Case> {
    let mut rng = StdRng::seed_from_u64(seed);
    let generator = Generator { pool, driver };
    (0..count).map(|i| generator.case(&mut rng, i)).collect()
}

#[test]
fn generated_command_lines_end_with_the_code_their_parts_call_for() {
    let driver = host::cuda::driver_present();
    let root = scratch("fuzz");
    let mut rng = StdRng::seed_from_u64(SEED);
    let pool = pool(&root, &mut rng);
    let generator = Generator {
        pool: &pool,
        driver,
    };
    let mut lines = generator.catalogue();
    let catalogued = lines.len();
    lines.extend(cases(&pool, driver, SEED, LINES));

    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let start = Instant::now();
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 8)
        * 2;
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = lines.get(i) else { break };
                let argv: Vec<&str> = case.args.iter().map(String::as_str).collect();
                let problem = match host_within_to(&argv, DEADLINE, stdout_for(case.sink)) {
                    None => Some(format!("still running after {DEADLINE:?}: killed")),
                    Some(o) => judge(case, &o),
                };
                if let Some(p) = problem {
                    let p: String = p.chars().take(400).collect();
                    failures.lock().unwrap().push((
                        case.rule,
                        format!("line {i} {:?} to {:?}: {p}", case.args, case.sink),
                    ));
                }
            });
        }
    });
    let elapsed = start.elapsed();
    let failures = failures.into_inner().unwrap();
    // Per rule: lines, and lines that ended otherwise.
    let mut tally: BTreeMap<Rule, (usize, usize)> = BTreeMap::new();
    for c in &lines {
        tally.entry(c.rule).or_default().0 += 1;
    }
    for (rule, _) in &failures {
        tally.entry(*rule).or_default().1 += 1;
    }
    eprintln!(
        "{} lines ({catalogued} one defect each, {LINES} random) in {:.1} s on {threads} \
         threads (driver present: {driver})",
        lines.len(),
        elapsed.as_secs_f64()
    );
    for (rule, (n, bad)) in &tally {
        let row = of(*rule);
        eprintln!("  {rule:?}: exit {}, {n} lines, {bad} otherwise", row.code);
    }
    // Every rule this machine can reach was generated, so the lines exercise each check.
    let unreachable: &[Rule] = if driver {
        &[Rule::NoDriver]
    } else {
        &[Rule::Info]
    };
    for row in RULES {
        if !unreachable.contains(&row.rule) {
            assert!(tally.contains_key(&row.rule), "no line for {:?}", row.rule);
        }
    }
    let mut by_rule: BTreeMap<Rule, Vec<&String>> = BTreeMap::new();
    for (rule, f) in &failures {
        by_rule.entry(*rule).or_default().push(f);
    }
    assert!(
        failures.is_empty(),
        "{} of {} lines ended otherwise than their rule says; the first of each rule:\n{}",
        failures.len(),
        lines.len(),
        by_rule
            .iter()
            .flat_map(|(rule, fs)| {
                let head = format!("{rule:?} ({} lines):", fs.len());
                std::iter::once(head).chain(fs.iter().take(3).map(|f| format!("  {f}")))
            })
            .collect::<Vec<_>>()
            .join("\n")
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn every_hazard_found_before_is_refused() {
    let root = scratch("fuzz-hazards");
    for dir in hazard_folders(&root) {
        let o = support::host(&["report", &dir]);
        let err = support::stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{dir}: {err}");
        assert!(err.contains("results.json: "), "{dir}: {err}");
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// The same seed makes the same lines: a failure found once can be run again.
#[test]
fn the_lines_are_the_same_for_the_same_seed() {
    let root = scratch("fuzz-seed");
    let mut rng = StdRng::seed_from_u64(SEED);
    let pool = pool(&root, &mut rng);
    assert_eq!(cases(&pool, false, SEED, 50), cases(&pool, false, SEED, 50));
    assert_ne!(
        cases(&pool, false, SEED, 50),
        cases(&pool, false, SEED + 1, 50)
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// Where a driver is present, nothing generated reaches the GPU: every experiment line carries
/// `--check-only`, `calc` reads no device but 0 and never verifies, `info` opens device 0.
#[test]
fn with_a_driver_no_line_would_run_on_the_gpu() {
    let root = scratch("fuzz-driver");
    let mut rng = StdRng::seed_from_u64(SEED);
    let pool = pool(&root, &mut rng);
    let experiments = fuzz_inputs::lines::experiments();
    let mut lines = Generator {
        pool: &pool,
        driver: true,
    }
    .catalogue();
    lines.extend(cases(&pool, true, SEED, LINES));
    for c in &lines {
        let a = &c.args;
        let sub = a.first().map_or("", String::as_str);
        let device = a
            .iter()
            .position(|x| x == "--device")
            .and_then(|i| a.get(i + 1));
        assert_ne!(c.rule, Rule::NoDriver, "{a:?}");
        if a.get(1).is_some_and(|x| x == "--help" || x == "-h") {
            // Help: nothing after it is read.
            continue;
        }
        if experiments.contains(&sub) {
            assert!(a.iter().any(|x| x == "--check-only"), "{a:?}");
        }
        // A line refused (2) stops at its checks, before any device is opened.
        if sub == "calc" && of(c.rule).code != 2 {
            assert!(
                !a.iter().any(|x| x == "--verify" || x == "--record-golden"),
                "{a:?}"
            );
        }
        if (sub == "calc" || sub == "info") && of(c.rule).code != 2 {
            assert!(device.is_none_or(|d| d == "0"), "{a:?}");
        }
    }
    assert!(lines.iter().any(|c| c.rule == Rule::Info));
    std::fs::remove_dir_all(&root).unwrap();
}
