//! The inputs of the command-line fuzz (`fuzz.rs`): module files of every kind, good and bad,
//! special files, folders, and results folders whose results.json is a run, truncated or
//! hostile, prepared once in a scratch folder.

use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use serde_json::Value;

use crate::support::{cubin, fixture_dir, mkfifo, path};

/// The files and folders the lines are made of, prepared once.
pub struct Pool {
    /// Module files of every kind, good and bad, and special files.
    pub modules: Vec<String>,
    /// Folders of per-cap modules, and things that are not.
    pub folders: Vec<String>,
    /// Results folders: a good run, and truncated or hostile ones.
    pub runs: Vec<String>,
    /// `--out` targets shared by lines (a fresh one is made per line too).
    pub outs: Vec<String>,
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
