//! The verdicts on the committed H200 runs: judged on bootstrap intervals whose figures the
//! evidence carries, the cases the figures decide (cap 192 over cap 160 is not "no help"; cuBLAS
//! faster than every variant leaves `fastest-gemm-at-low-occupancy` not judged), noise that can
//! only take a judgement away, older fixed-plan runs, and experiment 4's spilling points. No GPU
//! needed.

use std::path::{Path, PathBuf};

use host::claim::Verdict;
use host::experiments::spills::Spills;
use host::experiments::RunResults;
use host::report;

fn run_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../results")
        .join(name)
}

fn h200() -> RunResults {
    report::merge::load(&run_dir("2026-11-30-h200")).expect("the committed run loads")
}

fn by_key<'a>(vs: &'a [Verdict], key: &str) -> &'a Verdict {
    vs.iter()
        .find(|v| v.key == key)
        .unwrap_or_else(|| panic!("no verdict {key}"))
}

const FASTEST: &str = "fastest-gemm-at-low-occupancy";
const FIRST_FREE: &str = "first-spill-free-cap-is-best";
const MORE_REGS: &str = "more-registers-do-not-help";
const BYTES: &str = "bandwidth-set-by-bytes-in-flight";
const FEW_MATCH: &str = "few-threads-with-bytes-match-many";

#[test]
fn every_verdict_of_the_committed_run_states_its_interval() {
    let vs = h200().verdicts();
    assert_eq!(vs.len(), 24);
    // The committed run predates experiments 6 to 8: their verdicts say they were not run.
    let (ran, not_run): (Vec<_>, Vec<_>) = vs.iter().partition(|v| v.experiment <= 5);
    assert_eq!(not_run.len(), 4);
    assert!(not_run
        .iter()
        .all(|v| v.holds.is_none() && v.evidence.ends_with("was not run")));
    for v in ran {
        assert!(v.rule.contains("95%"), "{}: {}", v.key, v.rule);
        // The committed run predates the shared-memory copies: that claim has no rows to judge.
        if v.key == "one-warp-copies-from-shared-memory" {
            assert!(v.holds.is_none() && v.evidence.contains("no usable shared-memory copy"));
            continue;
        }
        assert!(v.evidence.contains("(95% CI "), "{}: {}", v.key, v.evidence);
    }
}

#[test]
fn cap_192_over_cap_160_is_not_no_help() {
    // Cap 192 runs 3.7% above cap 160, an interval well clear of the +-2% band: more registers
    // helped there, whatever the min-max ranges of the two figures do.
    let vs = h200().verdicts();
    let v = by_key(&vs, MORE_REGS);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    let step = v
        .evidence
        .split(" -> ")
        .find(|s| s.starts_with("cap 192"))
        .expect("a step to cap 192");
    assert!(
        step.contains("1.037 (95% CI") && step.ends_with("x cap 160 (helps: more than 2% faster)"),
        "{step}"
    );
    // No cap beats cap 128, the first without spills: every other build is clearly slower.
    let v = by_key(&vs, FIRST_FREE);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
}

#[test]
fn cublas_faster_than_every_variant_leaves_verdict_4_not_judged() {
    let vs = h200().verdicts();
    let v = by_key(&vs, FASTEST);
    assert_eq!(v.holds, None, "{}", v.evidence);
    assert!(
        v.evidence.contains("R4 48797 GFLOP/s")
            && v.evidence.contains("x cuBLAS 13.1.0")
            && v.evidence.contains("its occupancy is unknown")
            && v.evidence.contains("was not recorded"),
        "{}",
        v.evidence
    );
}

/// The run with every figure's samples spread `k` times further from their median (the medians,
/// and so every reported figure, unchanged).
fn noisier(r: &RunResults, k: f64) -> RunResults {
    fn walk(v: &mut serde_json::Value, k: f64) {
        match v {
            serde_json::Value::Object(m) => {
                let median = m.get("median_ms").and_then(serde_json::Value::as_f64);
                if let (Some(med), Some(serde_json::Value::Array(samples))) =
                    (median, m.get_mut("samples_ms"))
                {
                    for s in samples.iter_mut() {
                        let x = s.as_f64().expect("a sample");
                        *s = serde_json::json!(med + k * (x - med));
                    }
                }
                for x in m.values_mut() {
                    walk(x, k);
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| walk(x, k)),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(r).unwrap();
    walk(&mut v, k);
    serde_json::from_value(v).unwrap()
}

#[test]
fn noisier_samples_can_only_take_a_judgement_away() {
    let r = h200();
    let plain = r.verdicts();
    let loud = noisier(&r, 10.0).verdicts();
    let mut lost = 0;
    for (a, b) in plain.iter().zip(&loud) {
        assert_eq!(a.key, b.key);
        assert!(
            b.holds.is_none() || b.holds == a.holds,
            "{}: {:?} became {:?} with noisier samples: {}",
            a.key,
            a.holds,
            b.holds,
            b.evidence
        );
        lost += usize::from(a.holds.is_some() && b.holds.is_none());
    }
    assert!(lost > 0, "ten times the noise changed no judgement");
}

#[test]
fn an_older_fixed_plan_run_renders_and_too_few_samples_are_not_judged() {
    let mut r = report::merge::load(&run_dir("h200")).expect("the 2026-11-29 run loads");
    // Seven samples per figure: judged, with intervals.
    let vs = r.verdicts();
    let v = by_key(&vs, FIRST_FREE);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(v.evidence.contains("(95% CI "), "{}", v.evidence);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("verdicts_older_run");
    let _ = std::fs::remove_dir_all(&dir);
    report::write(&r, &dir).expect("the older run renders");
    // Three samples per figure: too few for an interval, so nothing timed is judged.
    for row in r.regs.as_mut().unwrap() {
        row.figures.timing.samples_ms.truncate(3);
    }
    let vs = r.verdicts();
    for key in [FIRST_FREE, MORE_REGS] {
        let v = by_key(&vs, key);
        assert_eq!(v.holds, None, "{key}: {}", v.evidence);
        assert!(
            v.evidence.contains("3 samples, fewer than the 5"),
            "{key}: {}",
            v.evidence
        );
    }
}

/// The spill and stack figures ptxas 13.0 gave for the built-in copies at sm_90
/// (`rust_ptxas_manifest_sm_90.json` beside the run), as a run now records them per point.
fn with_manifest_spills(r: &mut RunResults) -> usize {
    let text =
        std::fs::read_to_string(run_dir("2026-11-30-h200").join("rust_ptxas_manifest_sm_90.json"))
            .unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entries: Vec<&serde_json::Value> = manifest["modules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "main")
        .flat_map(|m| m["entries"].as_array().unwrap())
        .collect();
    let mut spilling = 0;
    for row in &mut r.inflight.as_mut().unwrap().rows {
        let e = entries
            .iter()
            .find(|e| e["name"] == row.entry.as_str())
            .unwrap_or_else(|| panic!("{} not in the manifest", row.entry));
        let n = |k: &str| e[k].as_u64().unwrap() as u32;
        let s = Spills {
            stores: Some(n("spill_stores")),
            loads: Some(n("spill_loads")),
            stack_frame: n("stack_frame"),
        };
        spilling += usize::from(s.in_local_memory());
        row.spills = Some(s);
    }
    spilling
}

#[test]
fn spilling_copy_points_are_named_and_left_out() {
    let mut r = h200();
    let spilling = with_manifest_spills(&mut r);
    // The 512- and 1024-thread points with 16-32 loads of 8-16 B that ran: the five that run at
    // 0.39-0.93 of nvcc's build, and memcpy_t512_l32_w2, whose 40 B of spills cost it nothing
    // measurable against nvcc (1.01) but still leave loads out of flight.
    assert_eq!(spilling, 6);
    let vs = r.verdicts();
    for key in [BYTES, FEW_MATCH] {
        let v = by_key(&vs, key);
        assert!(
            v.evidence
                .contains("left out: 6 spilling points (spills: not all loads in flight)"),
            "{key}: {}",
            v.evidence
        );
    }
    assert!(by_key(&vs, BYTES).evidence.contains("112 usable rows"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("verdicts_spilling_points");
    let _ = std::fs::remove_dir_all(&dir);
    host::report::write_run(&dir, &r).expect("written");
    let md = std::fs::read_to_string(dir.join("tables.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.contains("| memcpy_t1024_l32_w4 "))
        .expect("the row is still in the table");
    assert!(row.contains("spills: not all loads in flight"), "{row}");
    assert!(row.contains("| 792 ") && row.contains("| 800 "), "{row}");
    assert!(
        md.contains("6 point(s) whose build keeps values in local memory"),
        "the table says which points and why"
    );
}
