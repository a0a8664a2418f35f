//! A seeded fuzz of the `host` binary: 5,000 random command lines (every subcommand, flags of
//! all of them with valid, borderline and hostile values, module files of every kind, devices,
//! FIFOs, folders, and results folders whose results.json is truncated or hostile), each run as
//! a process killed after 10 s. None may panic or hang, and each must end with a documented exit
//! code: with no GPU here, 0 (help, `calc`, `--check-only`, `report`), 2 (a usage error, said on
//! stderr) or 3 (no CUDA driver, one line), never 1 or 4 (nothing can fail a check or part-way).

mod fuzz_inputs;
mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use fuzz_inputs::{hazard_folders, pool, Pool};
use support::{host_within, path, scratch, DEADLINE};

const LINES: usize = 5_000;
const SEED: u64 = 0x0CC_2010_F022;

const SUBCOMMANDS: &[&str] = &[
    "occupancy",
    "bandwidth",
    "regs",
    "inflight",
    "ilp",
    "all",
    "calc",
    "calc",
    "info",
    "report",
    "report",
    "report",
    "bogus",
];
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "16",
    "20",
    "32",
    "48",
    "64",
    "65",
    "100",
    "128",
    "255",
    "256",
    "1000",
    "1024",
    "1025",
    "4096",
    "32768",
    "32769",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "-1",
    "-0",
    "+5",
    "1e3",
    "0x10",
    "1.5",
    "x",
    "",
    " 64 ",
    "64x64x64",
    "128x256x100",
    "1x1x1",
    "64x0x64",
    "16K",
    "48KiB",
    "1M",
    "1.5K",
    "NaN",
    "inf",
];
const LISTS: &[&str] = &[
    "S,A", "T1", "S,S", "X9", "S,T1", "", ",", ",,,", "A,,C", "32,64", "32,20", "D+", "R1,R4",
    "1,2,4", "1,7", "0", "65", "4,8", "128,256", "1,64", "-1",
];
const NUMBER_FLAGS: &[&str] = &[
    "--device",
    "--iters",
    "--samples",
    "--seed",
    "--size",
    "--copy-mib",
    "--threads",
    "--regs",
    "--smem",
    "--dyn-smem",
    "--carveout",
    "--sms",
    "--block-size-limit",
    "--noise",
    "--min-samples",
    "--max-samples",
    "--max-time-ms",
    "--clock-every",
    "--chase-steps",
    "--chase-mib",
    "--blocks-per-sm",
    "--target-cycles",
    "--inflight-copy-mib",
];
const LIST_FLAGS: &[&str] = &[
    "--variants",
    "--caps",
    "--reg-caps",
    "--loads",
    "--widths",
    "--threads",
    "--warps-per-sm",
    "--ilp",
    "--inflight-loads",
    "--inflight-warps-per-sm",
    "--ilp-warps-per-sm",
];
const MODULE_FLAGS: &[&str] = &["--module", "--compare", "--ptx", "--record-golden"];
const FOLDER_FLAGS: &[&str] = &["--module", "--compare", "--module-caps", "--compare-caps"];
const SWITCHES: &[&str] = &[
    "--check-only",
    "--check-only",
    "--force",
    "--cliff",
    "--curves",
    "--json",
    "--max-potential-block-size",
    "--no-cublas",
    "--every-block-size",
    "--all-entries",
    "--verify",
    "--help",
    "--version",
    "--nonsense",
    "-x",
    "--",
];
const WORDED: &[&str] = &["--format", "--arch", "--compare-label"];
const WORDS: &[&str] = &[
    "table",
    "markdown",
    "csv",
    "json",
    "sm_90",
    "sm_91",
    "sm_61",
    "9.0",
    "compute_80",
    "peer",
    "",
    "x\ny",
    "\u{1b}[31m",
    "ünï",
];

/// One random command line.
fn line(rng: &mut StdRng, pool: &Pool, index: usize) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    if rng.gen_bool(0.98) {
        args.push(SUBCOMMANDS.choose(rng).unwrap().to_string());
    }
    let pick = |rng: &mut StdRng, v: &[&str]| v.choose(rng).unwrap().to_string();
    if args.first().is_some_and(|s| s == "report") {
        for _ in 0..rng.gen_range(0..4) {
            args.push(pool.runs.choose(rng).unwrap().clone());
        }
    }
    for _ in 0..rng.gen_range(0..7) {
        match rng.gen_range(0..20) {
            0..=4 => {
                args.push(pick(rng, NUMBER_FLAGS));
                args.push(pick(rng, NUMBERS));
            }
            5..=7 => {
                args.push(pick(rng, LIST_FLAGS));
                args.push(pick(rng, LISTS));
            }
            8..=10 => {
                args.push(pick(rng, MODULE_FLAGS));
                args.push(pool.modules.choose(rng).unwrap().clone());
            }
            11 => {
                args.push(pick(rng, FOLDER_FLAGS));
                args.push(pool.folders.choose(rng).unwrap().clone());
            }
            12..=13 => {
                args.push("--out".into());
                if rng.gen_bool(0.5) {
                    let fresh = pool.fresh.join(format!("{index}/{}", rng.gen_range(0..3)));
                    args.push(path(&fresh).to_owned());
                } else {
                    args.push(pool.outs.choose(rng).unwrap().clone());
                }
            }
            14..=16 => args.push(pick(rng, SWITCHES)),
            17..=18 => {
                args.push(pick(rng, WORDED));
                args.push(pick(rng, WORDS));
            }
            _ => args.push(match rng.gen_range(0..3) {
                0 => pool.runs.choose(rng).unwrap().clone(),
                1 => pool.modules.choose(rng).unwrap().clone(),
                _ => format!("1{}", "0".repeat(rng.gen_range(20..400))),
            }),
        }
    }
    args
}

/// What is wrong with how a line ended, if anything.
fn judge(o: &std::process::Output) -> Option<String> {
    let err = String::from_utf8_lossy(&o.stderr);
    let code = o.status.code();
    if err.contains("panicked") || code == Some(101) {
        return Some(format!("panicked: {err}"));
    }
    if err.len() > 64 * 1024 {
        return Some(format!("{} bytes on stderr", err.len()));
    }
    match code {
        Some(0) => None,
        // clap answers a missing subcommand with the help, on stderr.
        Some(2) if err.starts_with("error:") || err.contains("\nUsage: host") => None,
        Some(2) => Some(format!("usage error without a message: {err:?}")),
        Some(3) if err.lines().count() == 1 && err.contains("no CUDA driver") => None,
        Some(3) => Some(format!("no-driver exit without its one line: {err:?}")),
        other => Some(format!(
            "exit code {other:?} (no GPU here: 0, 2 or 3): {err}"
        )),
    }
}

#[test]
#[cfg_attr(
    lab_gpu,
    ignore = "a CUDA driver is present: lines that pass their checks would run on the GPU"
)]
fn five_thousand_random_command_lines_end_as_documented() {
    if host::cuda::driver_present() {
        eprintln!("SKIP: a CUDA driver is present; lines that pass their checks would run on it");
        return;
    }
    let root = scratch("fuzz");
    let mut rng = StdRng::seed_from_u64(SEED);
    let pool = pool(&root, &mut rng);
    let lines: Vec<Vec<String>> = (0..LINES).map(|i| line(&mut rng, &pool, i)).collect();

    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let codes = Mutex::new([0usize; 256]);
    let start = Instant::now();
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 8)
        * 2;
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(args) = lines.get(i) else { break };
                let argv: Vec<&str> = args.iter().map(String::as_str).collect();
                let problem = match host_within(&argv, DEADLINE) {
                    None => Some(format!("still running after {DEADLINE:?}: killed")),
                    Some(o) => {
                        if let Some(c) = o.status.code() {
                            codes.lock().unwrap()[c as usize & 0xff] += 1;
                        }
                        judge(&o)
                    }
                };
                if let Some(p) = problem {
                    let p: String = p.chars().take(600).collect();
                    failures
                        .lock()
                        .unwrap()
                        .push(format!("line {i} {args:?}: {p}"));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let codes = codes.into_inner().unwrap();
    eprintln!(
        "{LINES} lines in {:.1} s on {threads} threads; exit codes: 0 x{}, 2 x{}, 3 x{}",
        start.elapsed().as_secs_f64(),
        codes[0],
        codes[2],
        codes[3]
    );
    assert!(
        failures.is_empty(),
        "{} of {LINES} lines went wrong; the first:\n{}",
        failures.len(),
        failures
            .iter()
            .take(15)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    // Every documented ending was reached, so the lines exercise the checks, not one path.
    assert!(
        codes[0] > 100 && codes[2] > 1000 && codes[3] > 100,
        "exit codes 0/2/3: {}/{}/{}",
        codes[0],
        codes[2],
        codes[3]
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
    let again = |seed| {
        let mut r = StdRng::seed_from_u64(seed);
        (0..50).map(|i| line(&mut r, &pool, i)).collect::<Vec<_>>()
    };
    assert_eq!(again(SEED), again(SEED));
    assert_ne!(again(SEED), again(SEED + 1));
    std::fs::remove_dir_all(&root).unwrap();
}
