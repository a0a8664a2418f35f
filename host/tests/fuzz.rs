//! A seeded fuzz of the `host` binary: 5,000 random command lines (every subcommand, flags of
//! all of them with valid, borderline and hostile values, module files of every kind, devices,
//! FIFOs, folders, and results folders whose results.json is truncated or hostile), each run as
//! a process killed after 10 s. None may panic or hang, and each must end with a documented exit
//! code: with no GPU here, 0 (help, `calc`, `--check-only`, `report`), 2 (a usage error, said on
//! stderr) or 3 (no CUDA driver, one line), never 1 or 4 (nothing can fail a check or part-way).

mod support;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::Value;

use support::{cubin, fixture_dir, host_within, mkfifo, path, scratch, DEADLINE};

const LINES: usize = 5_000;
const SEED: u64 = 0x0CC_2010_F022;

/// The files and folders the lines are made of, prepared once.
struct Pool {
    /// Module files of every kind, good and bad, and special files.
    modules: Vec<String>,
    /// Folders of per-cap modules, and things that are not.
    folders: Vec<String>,
    /// Results folders: a good run, and truncated or hostile ones.
    runs: Vec<String>,
    /// `--out` targets shared by lines (a fresh one is made per line too).
    outs: Vec<String>,
    /// Where each line's fresh `--out` folder goes.
    fresh: PathBuf,
}

fn write(p: &Path, bytes: impl AsRef<[u8]>) -> String {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
    path(p).to_owned()
}

/// A 64-bit ELF header for `machine` (62: x86-64, as /bin/ls).
fn elf(machine: u16) -> Vec<u8> {
    let mut h = vec![0u8; 64];
    h[..4].copy_from_slice(b"\x7fELF");
    h[4] = 2;
    h[5] = 1;
    h[6] = 1;
    h[18..20].copy_from_slice(&machine.to_le_bytes());
    h
}

/// A fatbinary header announcing `size` bytes, followed by `body`.
fn fatbin(size: u64, body: &[u8]) -> Vec<u8> {
    let mut f = 0xBA55_ED50u32.to_le_bytes().to_vec();
    f.extend(1u16.to_le_bytes());
    f.extend(16u16.to_le_bytes());
    f.extend(size.to_le_bytes());
    f.extend_from_slice(body);
    f
}

/// Every leaf of `v` (as JSON pointers).
fn leaves(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                leaves(x, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                leaves(x, format!("{at}/{i}"), out);
            }
        }
        _ => out.push(at),
    }
}

/// Values that once made a report hang or overflow, where they were put: each must be refused.
const HAZARDS: &[(&str, &str)] = &[
    ("/device/smem_per_block", "1073741824"),
    ("/device/smem_per_block_optin", "4294967295"),
    ("/device/sm_count", "0"),
    ("/occupancy/0/tm", "4294967295"),
    ("/regs/0/spill_stores", "4294967295"),
    ("/bandwidth/rows/0/occupancy", "5e-324"),
    ("/occupancy/0/gflops", "-11630"),
];

/// The report fixture with each of [`HAZARDS`], and with a register cap measured twice.
fn hazard_folders(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(fixture_dir().join("results.json")).unwrap();
    let good: Value = serde_json::from_str(&text).unwrap();
    let mut made = Vec::new();
    let mut folder = |name: String, v: Value| {
        write(&root.join(&name).join("results.json"), v.to_string());
        made.push(path(&root.join(name)).to_owned());
    };
    for (i, (at, value)) in HAZARDS.iter().enumerate() {
        let mut v = good.clone();
        *v.pointer_mut(at)
            .unwrap_or_else(|| panic!("{at} in the fixture")) =
            serde_json::from_str(value).unwrap();
        folder(format!("hazard{i}"), v);
    }
    let mut twice = good;
    twice["regs"][1]["cap"] = twice["regs"][0]["cap"].clone();
    folder("cap-twice".into(), twice);
    made
}

/// Results folders made from the report fixture (experiments 1-3) and the H200 run of
/// 2026-11-30 (all five): the runs themselves, and hostile versions of them.
fn runs(root: &Path, rng: &mut StdRng) -> Vec<String> {
    let text = std::fs::read_to_string(fixture_dir().join("results.json")).unwrap();
    let good: Value = serde_json::from_str(&text).unwrap();
    let h200 =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/2026-11-30-h200/results.json");
    let h200: Value = serde_json::from_str(&std::fs::read_to_string(h200).unwrap()).unwrap();
    let mut all_leaves = Vec::new();
    leaves(&good, String::new(), &mut all_leaves);
    write(&root.join("good/results.json"), &text);
    let mut out = vec![path(&root.join("good")).to_owned()];
    let mut folder = |name: String, bytes: Vec<u8>| {
        write(&root.join(&name).join("results.json"), bytes);
        out.push(path(&root.join(name)).to_owned());
    };
    for i in 0..12 {
        let cut = rng.gen_range(0..text.len());
        folder(format!("cut{i}"), text.as_bytes()[..cut].to_vec());
    }
    let hostile: Vec<Value> = vec![
        (-1).into(),
        0.into(),
        (-11630.0).into(),
        1e308.into(),
        (-1e308).into(),
        5e-324.into(),
        u64::MAX.into(),
        i64::MIN.into(),
        Value::Null,
        "".into(),
        "x".repeat(100_000).into(),
        "\u{0}\u{1b}[31m\u{202e}".into(),
        Value::Array(vec![]),
        Value::Object(Default::default()),
        true.into(),
    ];
    for i in 0..40 {
        let mut v = good.clone();
        for _ in 0..rng.gen_range(1..4) {
            let leaf = all_leaves.choose(rng).unwrap();
            if let Some(x) = v.pointer_mut(leaf) {
                *x = hostile.choose(rng).unwrap().clone();
            }
        }
        folder(format!("hostile{i}"), v.to_string().into_bytes());
    }
    let mut h200_leaves = Vec::new();
    leaves(&h200, String::new(), &mut h200_leaves);
    folder("h200".into(), h200.to_string().into_bytes());
    for i in 0..8 {
        let mut v = h200.clone();
        let leaf = h200_leaves.choose(rng).unwrap();
        *v.pointer_mut(leaf).unwrap() = hostile.choose(rng).unwrap().clone();
        folder(format!("h200-hostile{i}"), v.to_string().into_bytes());
    }
    // Whole files that are not results.
    for (i, body) in [
        &b""[..],
        b"null",
        b"[]",
        b"{}",
        b"\0\0\0\xff",
        b"{\"meta\": 1}",
        text.replace("\"meta\"", "\"meta\" ").as_bytes(),
    ]
    .iter()
    .enumerate()
    {
        folder(format!("odd{i}"), body.to_vec());
    }
    folder(
        "deep".into(),
        format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
    );
    folder("trailing".into(), format!("{text}\n{{}}").into_bytes());
    // Empty sections and rows.
    let mut empty = good.clone();
    for key in ["occupancy", "bandwidth", "regs"] {
        if let Some(x) = empty.get_mut(key) {
            *x = Value::Array(vec![]);
        }
    }
    folder("empty-rows".into(), empty.to_string().into_bytes());
    out.extend(hazard_folders(root));
    // results.json as a folder, a FIFO, a link to a device; a folder without one.
    std::fs::create_dir_all(root.join("json-dir/results.json")).unwrap();
    out.push(path(&root.join("json-dir")).to_owned());
    std::fs::create_dir_all(root.join("fifo")).unwrap();
    if mkfifo(&root.join("fifo/results.json")) {
        out.push(path(&root.join("fifo")).to_owned());
    }
    std::fs::create_dir_all(root.join("zero")).unwrap();
    #[cfg(unix)]
    if std::os::unix::fs::symlink("/dev/zero", root.join("zero/results.json")).is_ok() {
        out.push(path(&root.join("zero")).to_owned());
    }
    std::fs::create_dir_all(root.join("no-results")).unwrap();
    out.push(path(&root.join("no-results")).to_owned());
    out.extend([
        "/nonexistent".into(),
        "/dev".into(),
        "/dev/null".into(),
        String::new(),
    ]);
    out
}

fn pool(root: &Path, rng: &mut StdRng) -> Pool {
    let m = root.join("modules");
    std::fs::create_dir_all(&m).unwrap();
    let entries: Vec<&str> = kernels_gpu::variants::MEMCPY
        .iter()
        .map(|v| v.entry)
        .chain([kernels_gpu::variants::REGS.gemm().entry])
        .collect();
    let real = cubin(&m, "peer", &entries);
    let real_bytes = std::fs::read(&real).unwrap();
    let ptx_small = host::modules::capped(32).expect("a built-in cap-32 module");
    let mut modules = vec![
        path(&real).to_owned(),
        write(&m.join("small.ptx"), ptx_small),
        write(&m.join("main.ptx"), host::modules::MAIN),
        write(&m.join("notes.ptx"), "notes, not PTX\n"),
        write(&m.join("empty.cubin"), b""),
        write(&m.join("junk.cubin"), [0u8, 1, 2, 3, 0xff, 0xfe]),
        write(&m.join("ls.cubin"), elf(62)),
        write(&m.join("cuda-header.cubin"), elf(190)),
        write(&m.join("cut.cubin"), &real_bytes[..real_bytes.len() / 3]),
        write(
            &m.join("fake.cubin"),
            b"\x7fELF\x02\x01\x01\0.text.gemm_tm8_tn8\0",
        ),
        write(&m.join("over.fatbin"), fatbin(u64::MAX, b"")),
        write(&m.join("short.fatbin"), fatbin(4, b"\x02\0")),
        write(&m.join("bad-entry.fatbin"), fatbin(64, &[0xff; 64])),
        write(&m.join("text.txt"), ".version 8.5\n.target sm_90\n"),
        "/dev/zero".into(),
        "/dev/null".into(),
        "/dev/urandom".into(),
        "/dev/full".into(),
        "/proc/self/status".into(),
        "/nonexistent/peer.cubin".into(),
        path(&m).to_owned(),
        String::new(),
    ];
    if mkfifo(&m.join("pipe.cubin")) {
        modules.push(path(&m.join("pipe.cubin")).to_owned());
    }
    let caps = root.join("caps");
    write(&caps.join("x_cap32.ptx"), ptx_small);
    std::fs::copy(&real, caps.join("peer_cap64.cubin")).unwrap();
    write(&caps.join("x_cap128.cubin"), b"junk");
    let folders = vec![
        path(&caps).to_owned(),
        path(&m).to_owned(),
        path(&real).to_owned(),
        "/dev".into(),
        "/nonexistent".into(),
        "/dev/zero".into(),
    ];
    let o = root.join("outs");
    let taken = o.join("taken");
    std::fs::create_dir_all(&taken).unwrap();
    std::fs::copy(
        fixture_dir().join("results.json"),
        taken.join("results.json"),
    )
    .unwrap();
    write(&o.join("unrelated/notes.txt"), "mine");
    write(&o.join("a-file"), "x");
    let outs = vec![
        path(&taken).to_owned(),
        path(&o.join("unrelated")).to_owned(),
        path(&o.join("a-file")).to_owned(),
        path(&o.join("shared-new")).to_owned(),
        "/proc/x".into(),
        "/dev/null".into(),
        "/".into(),
    ];
    Pool {
        modules,
        folders,
        runs: runs(&root.join("runs"), rng),
        outs,
        fresh: root.join("fresh"),
    }
}

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
