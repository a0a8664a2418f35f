//! The inputs of the command-line fuzz (`fuzz.rs`): module files of every kind, good and bad,
//! special files, folders, and results folders whose results.json is a run, truncated, mistyped
//! or impossible, prepared once in a scratch folder and sorted by how a line that names them
//! must end; the lines themselves ([`lines`]) and the exit code each must give ([`rules`]).

pub mod lines;
pub mod rules;

use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use serde_json::Value;

use crate::support::{cubin, fixture_dir, mkfifo, path};

/// The files and folders the lines are made of, prepared once, sorted by what each must do.
pub struct Pool {
    /// The built-in main and tensor-core modules as PTX files (every entry the experiments that
    /// take them launch).
    pub main_ptx: String,
    pub tensor_ptx: String,
    /// Files no experiment takes as `--module`: not modules, cut, lacking the entries, special
    /// files, missing.
    pub bad_modules: Vec<String>,
    /// Of those, the well-formed modules that export no entry: `gemm_bf16 --compare` takes them
    /// (its rows run uncompared where the compared build lacks the entry, by design).
    pub entryless: Vec<String>,
    /// Files `calc --verify --ptx` refuses (binary modules, special files, missing).
    pub bad_ptx: Vec<String>,
    /// A folder of per-cap modules `regs` takes.
    pub good_caps: String,
    /// Folders (and things that are not) `regs --module` refuses.
    pub bad_folders: Vec<String>,
    /// Copies of the report fixture (a run of experiments 1-3), each its own folder.
    pub good_runs: Vec<String>,
    /// The H200 run of 2026-11-30 (all five first experiments).
    pub h200: String,
    /// Results folders whose results.json is not a run: cut, mistyped, hazards, not a file.
    pub bad_runs: Vec<String>,
    /// Results folders whose results.json parses but describes an impossible run.
    pub impossible_runs: Vec<String>,
    /// `--out` folders that hold the fixture's run, other files; a plain file.
    pub taken: String,
    pub unrelated: String,
    pub a_file: String,
    /// Where each line's fresh `--out` folder goes.
    pub fresh: PathBuf,
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
pub fn hazard_folders(root: &Path) -> Vec<String> {
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

/// Where a JSON value of another type than `v`'s goes (never null, which an optional field
/// takes).
fn other_type(v: &Value) -> Value {
    match v {
        Value::String(_) => Value::from(7),
        Value::Number(_) | Value::Bool(_) | Value::Null => Value::from("x"),
        Value::Array(_) => Value::Object(Default::default()),
        Value::Object(_) => Value::Array(vec![]),
    }
}

/// What the results folders hold, by how a report of them must end.
struct Runs {
    good: Vec<String>,
    h200: String,
    bad: Vec<String>,
    impossible: Vec<String>,
}

/// Results folders made from the report fixture (experiments 1-3) and the H200 run of
/// 2026-11-30 (experiments 1-5): the runs themselves, and broken or impossible versions.
fn runs(root: &Path, rng: &mut StdRng) -> Runs {
    let text = std::fs::read_to_string(fixture_dir().join("results.json")).unwrap();
    let good: Value = serde_json::from_str(&text).unwrap();
    let h200_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/2026-11-30-h200");
    let h200_text = String::from_utf8(
        host::run_json::read_run_json(&h200_dir, u64::MAX)
            .1
            .unwrap(),
    )
    .unwrap();
    let made = |name: &str, bytes: &[u8]| -> String {
        write(&root.join(name).join("results.json"), bytes);
        path(&root.join(name)).to_owned()
    };
    let good_runs = vec![
        made("good", text.as_bytes()),
        made("good2", text.as_bytes()),
    ];
    let h200 = made("h200", h200_text.as_bytes());
    let mut bad = Vec::new();
    // Cut anywhere before the closing brace (a prefix of an object is never a whole one).
    let end = text.trim_end().len() - 1;
    for i in 0..12 {
        let cut = rng.gen_range(0..end);
        bad.push(made(&format!("cut{i}"), &text.as_bytes()[..cut]));
    }
    // A leaf of the fixture with a value of another type.
    let mut all_leaves = Vec::new();
    leaves(&good, String::new(), &mut all_leaves);
    for i in 0..24 {
        let mut v = good.clone();
        let leaf = all_leaves.choose(rng).unwrap();
        let x = v.pointer_mut(leaf).unwrap();
        *x = other_type(x);
        bad.push(made(&format!("mistyped{i}"), v.to_string().as_bytes()));
    }
    // Whole files that are not results.
    for (i, body) in [
        &b""[..],
        b"null",
        b"[]",
        b"{}",
        b"\0\0\0\xff",
        b"{\"meta\": 1}",
    ]
    .iter()
    .enumerate()
    {
        bad.push(made(&format!("odd{i}"), body));
    }
    bad.push(made(
        "deep",
        format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).as_bytes(),
    ));
    bad.push(made("trailing", format!("{text}\n{{}}").as_bytes()));
    bad.extend(hazard_folders(root));
    // results.json as a folder, a FIFO, a link to a device; a folder without one.
    std::fs::create_dir_all(root.join("json-dir/results.json")).unwrap();
    bad.push(path(&root.join("json-dir")).to_owned());
    std::fs::create_dir_all(root.join("fifo")).unwrap();
    if mkfifo(&root.join("fifo/results.json")) {
        bad.push(path(&root.join("fifo")).to_owned());
    }
    std::fs::create_dir_all(root.join("zero")).unwrap();
    #[cfg(unix)]
    if std::os::unix::fs::symlink("/dev/zero", root.join("zero/results.json")).is_ok() {
        bad.push(path(&root.join("zero")).to_owned());
    }
    std::fs::create_dir_all(root.join("no-results")).unwrap();
    bad.push(path(&root.join("no-results")).to_owned());
    bad.extend([
        "/nonexistent".into(),
        "/dev".into(),
        "/dev/null".into(),
        String::new(),
    ]);
    // Runs no GPU can have made (issue 29, item 4).
    let mut impossible = Vec::new();
    for (i, (at, value)) in IMPOSSIBLE.iter().enumerate() {
        let mut v = good.clone();
        *v.pointer_mut(at)
            .unwrap_or_else(|| panic!("{at} in the fixture")) =
            serde_json::from_str(value).unwrap();
        impossible.push(made(&format!("impossible{i}"), v.to_string().as_bytes()));
    }
    Runs {
        good: good_runs,
        h200,
        bad,
        impossible,
    }
}

/// Values no run can hold, where they go in the fixture: a report of it must be refused.
const IMPOSSIBLE: &[(&str, &str)] = &[
    ("/occupancy/0/threads", "0"),
    ("/occupancy/0/threads", "4294967295"),
    ("/occupancy/0/regs", "0"),
    ("/occupancy/0/blocks_per_sm", "0"),
    ("/device/compute_capability", "[99, 9]"),
];

pub fn pool(root: &Path, rng: &mut StdRng) -> Pool {
    let m = root.join("modules");
    std::fs::create_dir_all(&m).unwrap();
    let entries: Vec<&str> = kernels_gpu::variants::MEMCPY
        .iter()
        .map(|v| v.entry)
        .chain([kernels_gpu::variants::REGS.gemm().entry])
        .collect();
    let real = cubin(&m, "peer", &entries);
    let real_bytes = std::fs::read(&real).unwrap();
    let main_ptx = write(&m.join("main.ptx"), host::kernel_source::builtin::MAIN);
    let tensor_ptx = write(&m.join("tensor.ptx"), host::kernel_source::builtin::TENSOR);
    let mut bad_ptx = vec![
        path(&real).to_owned(),
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
        "/dev/zero".into(),
        "/dev/null".into(),
        "/dev/urandom".into(),
        "/dev/full".into(),
        "/nonexistent/peer.cubin".into(),
        path(&m).to_owned(),
        String::new(),
    ];
    if mkfifo(&m.join("pipe.cubin")) {
        bad_ptx.push(path(&m.join("pipe.cubin")).to_owned());
    }
    // Not the real cubin: it exports the memcpy entries `bandwidth` and `inflight` launch (with
    // another signature, which a cubin's check does not read).
    let mut bad_modules: Vec<String> = bad_ptx[1..].to_vec();
    let text = write(&m.join("text.txt"), ".version 8.5\n.target sm_90\n");
    bad_modules.extend([
        write(&m.join("notes.ptx"), "notes, not PTX\n"),
        text.clone(),
        "/proc/self/status".into(),
    ]);
    let entryless = vec![path(&m.join("cuda-header.cubin")).to_owned(), text];
    let ptx_32 = host::kernel_source::builtin::capped(32).expect("a built-in cap-32 module");
    let ptx_64 = host::kernel_source::builtin::capped(64).expect("a built-in cap-64 module");
    let good_caps = root.join("good-caps");
    write(&good_caps.join("x_cap32.ptx"), ptx_32);
    write(&good_caps.join("x_cap64.ptx"), ptx_64);
    let caps = root.join("caps");
    write(&caps.join("x_cap32.ptx"), ptx_32);
    std::fs::copy(&real, caps.join("peer_cap64.cubin")).unwrap();
    write(&caps.join("x_cap128.cubin"), b"junk");
    let bad_folders = vec![
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
    let a_file = write(&o.join("a-file"), "x");
    let runs = runs(&root.join("runs"), rng);
    Pool {
        main_ptx,
        tensor_ptx,
        bad_modules,
        entryless,
        bad_ptx,
        good_caps: path(&good_caps).to_owned(),
        bad_folders,
        good_runs: runs.good,
        h200: runs.h200,
        bad_runs: runs.bad,
        impossible_runs: runs.impossible,
        taken: path(&taken).to_owned(),
        unrelated: path(&o.join("unrelated")).to_owned(),
        a_file,
        fresh: root.join("fresh"),
    }
}
