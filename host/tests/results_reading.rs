//! `host report` on a results.json that no run of the lab writes: more samples in one figure than
//! the lab takes (refused before the file is loaded, not after minutes of resampling), figures no
//! GPU can have (refused with the field named), and names with Markdown syntax (escaped in every
//! Markdown file the report writes).

mod support;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;
use support::{fixture_dir, host, path, scratch, stderr};

/// A committed run with every experiment (its occupancy rows hold threads, registers and tiles).
fn committed() -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/2026-12-01-h200-s7");
    serde_json::from_slice(&host::run_json::read_run_json(&dir, u64::MAX).1.unwrap()).unwrap()
}

/// `run` written as `dir/results.json`; returns `dir`.
fn folder(dir: &Path, run: &Value) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("results.json"), serde_json::to_vec(run).unwrap()).unwrap();
    dir.to_owned()
}

/// `host report DIR --out DIR/out`: the exit code and the error.
fn report(dir: &Path) -> (Option<i32>, String) {
    let out = dir.join("out");
    let o = host(&["report", path(dir), "--out", path(&out)]);
    (o.status.code(), stderr(&o))
}

#[test]
fn a_figure_of_millions_of_samples_is_refused_before_it_is_loaded() {
    let d = scratch("samples");
    for n in [2_000_000usize, 10_000_000] {
        // The samples are spliced into the text (serialising ten million floats in a debug build
        // would take longer than the check).
        let mut run = committed();
        run["occupancy"]["rows"][0]["timing"]["samples_ms"] = Value::String("SAMPLES".into());
        let text = serde_json::to_string(&run).unwrap();
        let samples = format!("[{}1.5]", "1.5,".repeat(n - 1));
        let dir = d.join(n.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("results.json"),
            text.replace("\"SAMPLES\"", &samples),
        )
        .unwrap();
        let start = Instant::now();
        let (code, err) = report(&dir);
        eprintln!("{n} samples refused in {:?}", start.elapsed());
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains(
                "occupancy.rows[0].timing.samples_ms: more than 100000 samples in one figure; \
                 the lab takes at most 100000 per figure (--max-samples)"
            ),
            "{err}"
        );
        assert!(!dir.join("out").exists(), "nothing written");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn figures_no_gpu_can_have_are_refused_with_the_field_named() {
    let d = scratch("impossible");
    let cases: [(&str, &str, Value, &str); 7] = [
        ("/occupancy/rows/3/threads", "threads0", 0.into(), "occupancy.rows[3].threads is 0; it must be 1 to 1024"),
        (
            "/occupancy/rows/3/threads",
            "threadsmax",
            4_294_967_295u32.into(),
            "occupancy.rows[3].threads is 4294967295; it must be 1 to 1024 (the most threads per block sm_90 allows)",
        ),
        ("/occupancy/rows/1/regs", "regs0", 0.into(), "occupancy.rows[1].regs is 0; it must be 1 to 255"),
        ("/ilp/rows/0/regs", "regs256", 256.into(), "ilp.rows[0].regs is 256; it must be 1 to 255"),
        (
            "/bandwidth/rows/2/blocks_per_sm",
            "blocks0",
            0.into(),
            "bandwidth.rows[2].blocks_per_sm is 0; it must be 1 to 32 (the most resident blocks per SM sm_90 allows)",
        ),
        (
            "/occupancy/rows/0/tile/dyn_smem",
            "smem",
            (1u32 << 20).into(),
            "occupancy.rows[0].tile.dyn_smem is 1048576; it must be 0 to 232448",
        ),
        (
            "/device/compute_capability",
            "cc",
            serde_json::json!([99, 9]),
            "device.compute_capability is 99.9; it must be one the occupancy calculator knows: 7.0,",
        ),
    ];
    for (pointer, name, value, message) in cases {
        let mut run = committed();
        *run.pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = value;
        let (code, err) = report(&folder(&d.join(name), &run));
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(err.contains(message), "{name}: {err}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn names_with_markdown_syntax_are_escaped_in_every_markdown_file() {
    let d = scratch("names");
    let mut run: Value =
        serde_json::from_slice(&std::fs::read(fixture_dir().join("results.json")).unwrap())
            .unwrap();
    let evil = "Evil|GPU *b* `c` <i>\n# heading";
    let escaped = "Evil&#124;GPU \\*b\\* \\`c\\` \\<i\\> \\# heading";
    run["device"]["name"] = evil.into();
    run["occupancy"][0]["variant"] = "S|_x_".into();
    let dir = folder(&d.join("run"), &run);
    let (code, err) = report(&dir);
    assert_eq!(code, Some(0), "{err}");
    let read = |f: &str| std::fs::read_to_string(dir.join("out").join(f)).unwrap();
    let md = read("report.md");
    assert_eq!(
        md.lines().next().unwrap(),
        format!("# Occupancy lab report: {escaped}")
    );
    assert!(!md.lines().any(|l| l.starts_with("# heading")), "{md}");
    assert!(!md.contains("Evil|"), "{md}");
    let tables = read("tables.md");
    assert!(tables.starts_with(escaped), "{tables}");
    assert!(md.contains("S&#124;\\_x\\_") && tables.contains("S&#124;\\_x\\_"));
    assert!(!md.contains("S|_x_") && !tables.contains("S|_x_"));
    // results.json keeps the names as they are.
    assert!(read("results.json").contains("Evil|GPU *b* `c` <i>\\n# heading"));
    // The merged report escapes them too.
    let merged = d.join("merged");
    let o = host(&[
        "report",
        path(&dir),
        path(&fixture_dir()),
        "--out",
        path(&merged),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = std::fs::read_to_string(merged.join("report.md")).unwrap();
    assert!(md.contains(&format!("### {escaped} · ")), "{md}");
    assert!(!md.contains("Evil|"), "{md}");
    std::fs::remove_dir_all(&d).unwrap();
}
