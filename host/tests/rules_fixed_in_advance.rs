//! The rules that fix references in advance and correct picks (`claim::Rules`), on a committed
//! run: a run recorded before them keeps the verdicts it was published with, the same figures
//! under the new rules are judged against the references named in advance, and a run recorded
//! now states its rules. No GPU needed.

use std::path::Path;

use host::claim::{Rules, Verdict};
use host::experiments::RunResults;
use host::report::merge::load;

fn s11() -> RunResults {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/2026-12-02-h200-s11");
    load(&dir).expect("the committed run loads")
}

fn by_key(vs: &[Verdict], key: &str) -> Verdict {
    vs.iter()
        .find(|v| v.key == key)
        .unwrap_or_else(|| panic!("no verdict {key}"))
        .clone()
}

fn fixed(mut r: RunResults) -> RunResults {
    r.rules = Rules::FixedInAdvance;
    r
}

#[test]
fn a_run_recorded_before_keeps_its_rules_and_one_recorded_now_states_them() {
    let run = s11();
    assert_eq!(
        run.rules,
        Rules::AsPublished,
        "no \"rules\" in its results.json"
    );
    let json = serde_json::to_value(&run).unwrap();
    assert!(
        json.get("rules").is_none(),
        "written back without the field"
    );
    let now = RunResults::empty(run.meta.clone(), run.device.clone());
    let json = serde_json::to_value(&now).unwrap();
    assert_eq!(json["rules"], "fixed_in_advance");
    let back: RunResults = serde_json::from_value(json).unwrap();
    assert_eq!(back.rules, Rules::FixedInAdvance);
}

#[test]
fn the_same_figures_are_judged_against_references_named_in_advance() {
    let old = s11().verdicts();
    let new = fixed(s11()).verdicts();
    assert_eq!(old.len(), new.len());
    // wgmma at one warpgroup: below 90% of the spec, above 90% of the named wgmma ceiling.
    let key = "one-warpgroup-drives-the-tensor-cores";
    assert_eq!(by_key(&old, key).holds, Some(false));
    let v = by_key(&new, key);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(v.evidence.contains("wgmma_bf16_n128_g8 at 4 warpgroups/SM"));
    assert!(
        v.evidence.contains("of the dense BF16 spec's"),
        "the spec beside it"
    );
    // The arithmetic Little's law names its row from the latency alone.
    let v = by_key(&new, "needed-parallelism-is-latency-times-throughput");
    assert!(
        v.evidence.contains("named row: ILP 4 x 4 warps/SM"),
        "{}",
        v.evidence
    );
    // The register band comes from the codegen pair, recorded first in the evidence.
    let v = by_key(&new, "more-registers-do-not-help");
    assert!(v.evidence.starts_with("codegen spread (named in advance)"));
}

#[test]
fn the_best_many_thread_copy_is_read_on_a_corrected_interval() {
    let key = "few-threads-match-many";
    let v = by_key(&fixed(s11()).verdicts(), key);
    // T14f4 at 77% of T2, picked among T1, T2 and T4.
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(v.evidence.contains("(98.3% CI "), "{}", v.evidence);
    assert!(v.evidence.contains("among 3 many-thread variants"));
    assert!(
        v.rule.contains("Bonferroni-corrected over them"),
        "{}",
        v.rule
    );
    let set = |r: &mut RunResults, variant: &str, gbps: f64| {
        let bw = r.bandwidth.as_mut().unwrap();
        bw.rows
            .iter_mut()
            .find(|c| c.variant == variant)
            .unwrap()
            .gbps = gbps;
    };
    let t2 = (s11().bandwidth.unwrap().rows.iter())
        .find(|c| c.variant == "T2")
        .unwrap()
        .gbps;
    let mut matched = fixed(s11());
    set(&mut matched, "T14f4", t2);
    assert_eq!(by_key(&matched.verdicts(), key).holds, Some(true));
    let mut close = fixed(s11());
    set(&mut close, "T14f4", 0.9 * t2);
    assert_eq!(by_key(&close.verdicts(), key).holds, None);
    // As published: the plain interval and the old words.
    let old = by_key(&s11().verdicts(), key);
    assert!(old.evidence.contains("(95% CI ") && !old.evidence.contains("among"));
}
