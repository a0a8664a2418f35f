//! The report: verdict rules on hand-made result sets (each claim holding and failing), plots
//! written and well-formed from the stored hand-made fixture, and runs merged side by side.
//! No GPU needed.

use std::path::{Path, PathBuf};

use host::claim::Verdict;
use host::experiments::RunResults;
use host::figure::Labels;
use host::report::{self, CurvePlot};
use host::results::Comparison;

mod cublas_fixture;
use cublas_fixture::with_cublas;

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_fixture")
}

fn fixture() -> RunResults {
    report::merge::load(&fixture_dir()).expect("fixture loads")
}

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn by_key<'a>(vs: &'a [Verdict], key: &str) -> &'a Verdict {
    vs.iter()
        .find(|v| v.key == key)
        .unwrap_or_else(|| panic!("no verdict {key}"))
}

fn judge(r: &RunResults, key: &str) -> Verdict {
    by_key(&r.verdicts(), key).clone()
}

#[test]
fn fixture_is_marked_hand_made() {
    let r = fixture();
    assert_eq!(r.meta.module.to_string(), "hand-made test fixture");
}

#[test]
fn every_claim_holds_on_the_fixture() {
    let vs = fixture().verdicts();
    assert_eq!(vs.len(), 24);
    // The fixture has experiments 1-3, recorded before cuBLAS was timed: the sweeps' claims
    // say they were not run, and the cuBLAS claim is not judged.
    let (run, not_run): (Vec<_>, Vec<_>) = vs.iter().partition(|v| v.experiment <= 3);
    assert_eq!(run.len(), 12);
    assert!(not_run
        .iter()
        .all(|v| v.holds.is_none() && v.evidence.contains("was not run")));
    assert_eq!(judge(&fixture(), FASTEST).holds, None);
    // The fixture's shared-memory word rates (S against B) are 14% apart: not judged.
    assert_eq!(judge(&fixture(), SMEM).holds, None);
    for v in run.iter().filter(|v| v.key != FASTEST && v.key != SMEM) {
        assert_eq!(v.holds, Some(true), "{}: {}", v.key, v.evidence);
        assert!(v.evidence.chars().any(|c| c.is_ascii_digit()), "{}", v.key);
    }
}

/// Parses an SVG as XML and returns the text of its `<text>` elements.
fn svg_texts(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", path.display()));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some("800"));
    assert_eq!(root.attribute("height"), Some("500"));
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

/// The rows of every Markdown table in `md`, each as its trimmed cells (separator lines left out).
fn md_rows(md: &str) -> Vec<Vec<String>> {
    md.lines()
        .filter(|l| l.starts_with('|') && !l.contains("---"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

/// Whether some table row of `md` starts with `cells`.
fn has_row(md: &str, cells: &[&str]) -> bool {
    md_rows(md)
        .iter()
        .any(|r| r.len() >= cells.len() && r.iter().zip(cells).all(|(a, b)| a == b))
}

fn has(texts: &[String], needle: &str) -> bool {
    texts.iter().any(|t| t.contains(needle))
}

#[test]
fn plots_are_written_and_well_formed_from_the_stored_fixture() {
    let r = fixture();
    let dir = out_dir("report_single");
    let written = report::write(&r, &dir).expect("report written");
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "report.md",
            "occupancy.svg",
            "bandwidth.svg",
            "regs.svg",
            "part2.svg"
        ]
    );

    let occ = svg_texts(&dir.join("occupancy.svg"));
    for v in &r.occupancy.as_ref().unwrap().rows {
        assert!(
            occ.contains(&v.variant),
            "occupancy.svg lacks label {}",
            v.variant
        );
    }
    assert!(has(&occ, "Theoretical occupancy (%)"));
    assert!(has(&occ, "GFLOP/s"));
    assert!(has(&occ, "FP32 peak: 11,996"), "{occ:?}");

    // Part II's picture: experiment 1's rows at their share of the FP32 peak.
    let part2 = svg_texts(&dir.join("part2.svg"));
    assert!(has(&part2, "% of the pipe's peak"), "{part2:?}");
    assert!(part2.contains(&"D".to_owned()), "{part2:?}");

    let bw = svg_texts(&dir.join("bandwidth.svg"));
    for v in &r.bandwidth.as_ref().unwrap().rows {
        assert!(
            bw.contains(&v.variant),
            "bandwidth.svg lacks label {}",
            v.variant
        );
    }
    assert!(has(&bw, "log scale"));
    assert!(has(&bw, "copy reference: 210.0 GB/s"), "{bw:?}");

    let regs = svg_texts(&dir.join("regs.svg"));
    assert!(has(&regs, "Register cap"));
    assert!(has(&regs, "Spill bytes"));
    assert!(
        has(&regs, "154 regs"),
        "the caps where the compiler stopped short are labelled"
    );
    assert!(has(&regs, "spill bytes: hand-made test fixture"));

    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for svg in ["occupancy.svg", "bandwidth.svg", "regs.svg"] {
        assert!(md.contains(&format!("]({svg})")), "report.md links {svg}");
    }
    assert!(md.contains(&r.device.name));
    assert!(md.contains(&r.meta.command));
    assert_eq!(
        md.matches("**HOLDS**").count(),
        20,
        "10 in the summary, 10 in the details"
    );
    assert!(has_row(&md, &["D+", "16", "16x16", "255"]), "{md}");
    assert!(has_row(&md, &["T14f4", "32", "14x4", "224"]));
    assert!(has_row(&md, &["128", "128"]));
}

fn gemm_mut<'a>(
    r: &'a mut RunResults,
    label: &str,
) -> &'a mut host::experiments::occupancy::GemmRow {
    r.occupancy
        .as_mut()
        .unwrap()
        .rows
        .iter_mut()
        .find(|x| x.variant == label)
        .unwrap()
}

fn copy_mut<'a>(
    r: &'a mut RunResults,
    label: &str,
) -> &'a mut host::experiments::bandwidth::CopyRow {
    r.bandwidth
        .as_mut()
        .unwrap()
        .rows
        .iter_mut()
        .find(|x| x.variant == label)
        .unwrap()
}

fn cap_mut(r: &mut RunResults, cap: u32) -> &mut host::experiments::regs::RegsRow {
    r.regs
        .as_mut()
        .unwrap()
        .iter_mut()
        .find(|x| x.cap == cap)
        .unwrap()
}

const PEAK: &str = "peak-below-max-occupancy";
const FASTEST: &str = "fastest-gemm-at-low-occupancy";

#[test]
fn cublas_unavailable_leaves_the_claim_not_judged_and_says_why() {
    use host::experiments::occupancy::CublasOutcome;
    let mut r = fixture();
    r.occupancy.as_mut().unwrap().cublas = Some(CublasOutcome::Unavailable {
        reason: "cuBLAS not found: none of libcublas.so.13 could be loaded".into(),
    });
    let v = judge(&r, FASTEST);
    assert_eq!(v.holds, None);
    assert!(v.evidence.contains("cuBLAS not found"), "{}", v.evidence);
}
const ACC: &str = "more-accumulators-at-equal-occupancy";
const FALLS: &str = "falls-past-peak";
const FEW: &str = "few-threads-match-many";
const FLAT: &str = "bandwidth-flat-over-occupancy";
const SPILLS: &str = "throughput-rises-as-spills-fall";
const FIRST_FREE: &str = "first-spill-free-cap-is-best";
const MORE_REGS: &str = "more-registers-do-not-help";

#[test]
fn peak_at_the_highest_occupancy_fails_claim_1() {
    let mut r = fixture();
    gemm_mut(&mut r, "A1").figures.gflops = 5000.0;
    let v = judge(&r, PEAK);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(
        v.evidence.contains("A1 5000 GFLOP/s at 100.0%"),
        "{}",
        v.evidence
    );
}

#[test]
fn a_peak_within_the_timing_noise_leaves_claim_1_not_judged() {
    let mut r = fixture();
    // B is fastest at 4230, but A1 at the highest occupancy is within B's sample spread.
    gemm_mut(&mut r, "A1").figures.gflops = 4220.0;
    let v = judge(&r, PEAK);
    assert_eq!(v.holds, None, "{}", v.evidence);
    assert!(v.evidence.contains("within noise"), "{}", v.evidence);
    assert!(v.evidence.contains("(95% CI"), "{}", v.evidence);
}

#[test]
fn fewer_accumulators_winning_at_equal_occupancy_fails_claim_2() {
    let mut r = fixture();
    gemm_mut(&mut r, "S").figures.gflops = 4000.0;
    let v = judge(&r, ACC);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(v
        .evidence
        .contains("at 66.7%: A (16 accumulators) 3770 vs S (4 accumulators) 4000"));
}

#[test]
fn no_pair_at_equal_occupancy_leaves_claim_2_not_judged() {
    let mut r = fixture();
    gemm_mut(&mut r, "S").figures.occupancy = 0.5;
    let v = judge(&r, ACC);
    assert_eq!(v.holds, None);
    assert_eq!(v.outcome(), "NOT JUDGED");
    assert!(v
        .evidence
        .contains("no two valid variants share an occupancy"));
}

#[test]
fn claim_2_pairs_only_whole_warp_spill_free_variants() {
    // D+ (16 threads, 256 accumulators) beside D at D's occupancy, far slower: left out, so
    // the claim still holds, and the evidence says why.
    let mut r = fixture();
    let d = gemm_mut(&mut r, "D").figures.occupancy;
    gemm_mut(&mut r, "D+").figures.occupancy = d;
    let v = judge(&r, ACC);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(
        v.evidence
            .contains("D+ (16 threads, 16x16) left out: blocks of part of a warp"),
        "{}",
        v.evidence
    );
    // A whole-warp variant with too many accumulators is left out for its spills.
    gemm_mut(&mut r, "D+").threads = 32;
    let v = judge(&r, ACC);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(
        v.evidence.contains("left out: more accumulators"),
        "{}",
        v.evidence
    );
    // The same pair with D+ valid (64 accumulators) and faster than D decides against it.
    gemm_mut(&mut r, "D+").tm = 8;
    gemm_mut(&mut r, "D+").tn = 8;
    gemm_mut(&mut r, "D+").figures.gflops = 4000.0;
    let v = judge(&r, ACC);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
}

#[test]
fn one_point_past_the_peak_leaves_claim_3_not_judged() {
    // D the fastest: only D+ is past it.
    let mut r = fixture();
    gemm_mut(&mut r, "D").figures.gflops = 5000.0;
    let v = judge(&r, FALLS);
    assert_eq!(v.holds, None, "{}", v.evidence);
    assert!(
        v.evidence.contains("one point is not a trend"),
        "{}",
        v.evidence
    );
    // C the fastest: D and D+ past it, both falling: a trend.
    let mut r = fixture();
    gemm_mut(&mut r, "C").figures.gflops = 5000.0;
    let v = judge(&r, FALLS);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
}

#[test]
fn a_largest_tile_that_keeps_up_fails_claim_3() {
    let mut r = fixture();
    gemm_mut(&mut r, "D+").figures.gflops = 3000.0;
    let v = judge(&r, FALLS);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(
        v.evidence.contains("D+ 3000 (255 regs, 1.010 (95% CI")
            && v.evidence.contains("x D, not lower)"),
        "{}",
        v.evidence
    );

    let mut r = fixture();
    gemm_mut(&mut r, "D+").figures.gflops = 5000.0;
    let v = judge(&r, FALLS);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(v.evidence.contains("nothing falls past it"));
}

#[test]
fn few_threads_well_short_of_many_fails_claim_4() {
    let mut r = fixture();
    copy_mut(&mut r, "T14f4").gbps = 150.0;
    let v = judge(&r, FEW);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    // Against the best many-thread variant (T4, 206.7 at 66.7%), not the weakest (T1, 194.7):
    // 150 / 206.7 = 72.6%, against a bound of 90%.
    assert!(
        v.evidence
            .contains("vs the best many-thread variant T4 (512 threads")
            && v.evidence.contains("72.6% (95% CI")
            && v.evidence.ends_with("(bound 90.0%)"),
        "{}",
        v.evidence
    );
    assert!(
        v.evidence.starts_with("T14f4 (32 threads"),
        "{}",
        v.evidence
    );
}

#[test]
fn the_bandwidth_claims_are_not_judged_without_experiment_2() {
    let mut r = fixture();
    r.bandwidth = None;
    for key in [FEW, FLAT] {
        let v = judge(&r, key);
        assert_eq!(v.holds, None);
        assert!(v.evidence.contains("experiment 2 was not run"));
    }
}

#[test]
fn bandwidth_collapsing_at_low_occupancy_fails_claim_5() {
    let mut r = fixture();
    for l in ["T8f2", "T8f4", "T14f4"] {
        copy_mut(&mut r, l).gbps = 120.0;
    }
    let v = judge(&r, FLAT);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(
        v.evidence.contains("span 33.3% to 66.7% = 2.0x"),
        "{}",
        v.evidence
    );
}

#[test]
fn a_narrow_sweep_leaves_claim_5_not_judged() {
    let mut r = fixture();
    r.bandwidth
        .as_mut()
        .unwrap()
        .rows
        .retain(|x| x.occupancy > 0.3);
    let v = judge(&r, FLAT);
    assert_eq!(v.holds, None, "{}", v.evidence);
    assert!(v.evidence.contains("less than 10x"));
}

#[test]
fn more_spills_running_faster_fails_claim_6() {
    let mut r = fixture();
    cap_mut(&mut r, 48).figures.gflops = 200.0;
    let v = judge(&r, SPILLS);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(
        v.evidence
            .contains("cap 48 (48 regs, 6124 spill B) 200 GFLOP/s, 0.797 (95% CI")
            && v.evidence.contains("x the one before (slower)"),
        "{}",
        v.evidence
    );
}

#[test]
fn no_spills_at_all_leaves_the_spill_claims_not_judged() {
    let mut r = fixture();
    for x in r.regs.as_mut().unwrap() {
        x.spill_stores = 0;
        x.spill_loads = 0;
    }
    assert_eq!(judge(&r, SPILLS).holds, None);
    // With every cap spill-free, the first is cap 32, and cap 128 clearly beats it.
    assert_eq!(judge(&r, FIRST_FREE).holds, Some(false));

    let mut r = fixture();
    for x in r.regs.as_mut().unwrap() {
        x.spill_stores = 8;
    }
    let v = judge(&r, FIRST_FREE);
    assert_eq!(v.holds, None);
    assert!(v.evidence.contains("every cap spills"));
    assert_eq!(judge(&r, MORE_REGS).holds, None);
}

#[test]
fn a_higher_cap_beating_the_first_spill_free_one_fails_claims_7_and_8() {
    let mut r = fixture();
    cap_mut(&mut r, 160).figures.gflops = 4600.0;
    let v = judge(&r, FIRST_FREE);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(
        v.evidence
            .contains("beaten by more than 2% by cap 160 4600 GFLOP/s"),
        "{}",
        v.evidence
    );
    let v = judge(&r, MORE_REGS);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(
        v.evidence.contains("(helps: more than 2% faster)"),
        "{}",
        v.evidence
    );
}

#[test]
fn a_higher_cap_within_the_noise_does_not_fail_claim_7() {
    let mut r = fixture();
    // 4240 vs 4233 with a +-0.6% sample spread on both: not a win.
    cap_mut(&mut r, 160).figures.gflops = 4240.0;
    let v = judge(&r, FIRST_FREE);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
}

#[test]
fn small_rises_above_the_first_spill_free_cap_within_noise_are_allowed() {
    let r = fixture();
    // The fixture has 3723 -> 3729 from cap 192 to 255 (as in the blog): within noise.
    let v = judge(&r, MORE_REGS);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(v
        .evidence
        .contains("cap 255 (154 regs, 0 spill B) 3729 GFLOP/s"));

    // 3.7% above the cap before it, well outside the noise: that cap helps.
    let mut r = fixture();
    cap_mut(&mut r, 192).figures.gflops = 3875.0;
    let v = judge(&r, MORE_REGS);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    // 1.7% above, with an interval across the 2% band: not shown to help, nor not to.
    let mut r = fixture();
    cap_mut(&mut r, 192).figures.gflops = 3800.0;
    let v = judge(&r, MORE_REGS);
    assert_eq!(v.holds, None, "{}", v.evidence);
    assert!(
        v.evidence.contains("interval across 1.02"),
        "{}",
        v.evidence
    );
}

#[test]
fn rows_that_failed_their_check_are_left_out_and_named() {
    let mut r = fixture();
    let a1 = gemm_mut(&mut r, "A1");
    a1.figures.gflops = 9000.0;
    a1.measured.check.passed = false;
    let v = judge(&r, PEAK);
    // A1's 9000 would make the peak sit at the highest occupancy; it is excluded instead, and the
    // highest occupancy left is 66.7% (S and A), below which B still peaks.
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(
        v.evidence.ends_with("Excluded (check failed): A1"),
        "{}",
        v.evidence
    );

    let mut r = fixture();
    for x in r.regs.as_mut().unwrap() {
        x.measured.check.passed = false;
    }
    let v = judge(&r, SPILLS);
    assert_eq!(v.holds, None);
    assert!(v
        .evidence
        .contains("Excluded (check failed): cap 32, cap 48"));
}

#[test]
fn no_experiment_means_nothing_is_judged() {
    let mut r = fixture();
    r.occupancy = None;
    r.bandwidth = None;
    r.regs = None;
    let vs = r.verdicts();
    assert!(vs.iter().all(|v| v.holds.is_none()));
    let dir = out_dir("report_empty");
    let written = report::write(&r, &dir).unwrap();
    assert_eq!(written.len(), 1, "only report.md: {written:?}");
    let md = std::fs::read_to_string(&written[0]).unwrap();
    assert_eq!(md.matches("**NOT JUDGED**").count(), 48);
    assert_eq!(
        md.matches("Not run.").count(),
        host::experiments::registry::NAMES.len()
    );
}

fn with_comparison(mut r: RunResults) -> RunResults {
    let cmp = |throughput: f64, regs: u32, timing: &host::results::Timing, check| Comparison {
        regs: regs + 2,
        throughput: throughput * 0.9,
        ratio: 1.0 / 0.9,
        spill_stores: Some(0),
        spill_loads: Some(0),
        timing: timing.clone(),
        check,
    };
    r.meta.compare_module = Some("nvcc (hand-made)".into());
    for x in &mut r.occupancy.as_mut().unwrap().rows {
        x.measured.compare = Some(cmp(
            x.figures.gflops,
            x.figures.regs,
            &x.figures.timing,
            x.measured.check.clone(),
        ));
    }
    for x in &mut r.bandwidth.as_mut().unwrap().rows {
        x.measured.compare = Some(cmp(x.gbps, x.regs, &x.timing, x.measured.check.clone()));
    }
    for x in r.regs.as_mut().unwrap() {
        x.measured.compare = Some(cmp(
            x.figures.gflops,
            x.figures.regs,
            &x.figures.timing,
            x.measured.check.clone(),
        ));
    }
    r
}

#[test]
fn compare_puts_both_modules_on_the_same_axes_and_adds_the_ratio() {
    let r = with_comparison(fixture());
    let dir = out_dir("report_compare");
    report::write(&r, &dir).unwrap();
    for svg in ["occupancy.svg", "bandwidth.svg", "regs.svg"] {
        let t = svg_texts(&dir.join(svg));
        assert!(has(&t, "hand-made test fixture"), "{svg} legend: {t:?}");
        assert!(has(&t, "nvcc (hand-made)"), "{svg} legend: {t:?}");
    }
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let rows = md_rows(&md);
    let header = rows
        .iter()
        .find(|r| r.first().map(String::as_str) == Some("Variant"))
        .expect("experiment 1's header");
    // The compared module's columns carry its label, not "other".
    let ratio = header
        .iter()
        .position(|h| h == "Ours/nvcc (hand-made)")
        .expect("ratio column named after the compared module");
    assert!(
        header.iter().any(|h| h == "nvcc (hand-made) GFLOP/s"),
        "{header:?}"
    );
    assert!(!header.iter().any(|h| h.starts_with("Other")), "{header:?}");
    let s = rows.iter().find(|r| r[0] == "S").expect("row S");
    assert_eq!(s[ratio], "1.11");
    assert!(md.contains("hand-made test fixture (compared with nvcc (hand-made))"));
}

/// Boxes of the coloured (point and reference-line) labels, estimated as the placer does.
fn label_boxes(path: &Path) -> Vec<(String, f64, f64, f64, f64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter(|n| n.attribute("fill") != Some("#000000") && n.attribute("transform").is_none())
        .filter(|n| n.attribute("text-anchor") == Some("start"))
        .filter_map(|n| {
            let s = n.text()?.trim().to_string();
            let x: f64 = n.attribute("x")?.parse().ok()?;
            let y: f64 = n.attribute("y")?.parse().ok()?;
            let fs: f64 = n.attribute("font-size")?.parse().ok()?;
            let w = s.chars().count() as f64 * fs * 0.6;
            Some((s, x, y, x + w, y + fs * 1.15))
        })
        .collect()
}

#[test]
fn point_labels_do_not_overlap() {
    let dir = out_dir("report_overlap");
    report::write(&with_comparison(fixture()), &dir).unwrap();
    for svg in ["occupancy.svg", "bandwidth.svg", "regs.svg"] {
        let boxes = label_boxes(&dir.join(svg));
        assert!(boxes.len() >= 3, "{svg}: {boxes:?}");
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                let w = a.3.min(b.3) - a.1.max(b.1);
                let h = a.4.min(b.4) - a.2.max(b.2);
                assert!(w <= 1.0 || h <= 1.0, "{svg}: {a:?} overlaps {b:?}");
            }
            assert!(
                a.1 >= 0.0 && a.3 <= 800.0 && a.2 >= 0.0 && a.4 <= 500.0,
                "{svg}: {a:?}"
            );
        }
    }
}

/// The cells of the first Markdown table row of `md` that starts with `first`.
fn md_row(md: &str, first: &[&str]) -> Vec<String> {
    md.lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.len() >= first.len() && cells[..first.len()] == *first)
        .unwrap_or_else(|| panic!("no row {first:?} in\n{md}"))
}

#[test]
fn runs_merge_into_one_table_and_one_set_of_plots() {
    let base = out_dir("report_merge");
    let (a, b, out) = (base.join("a"), base.join("b"), base.join("out"));
    let ra = fixture();
    let mut rb = with_comparison(fixture());
    rb.device.name = "Second fixture GPU".into();
    for x in &mut rb.occupancy.as_mut().unwrap().rows {
        x.figures.gflops *= 2.0;
    }
    for (dir, r) in [(&a, &ra), (&b, &rb)] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("results.json"), serde_json::to_string(r).unwrap()).unwrap();
    }
    let written = report::merge(&[a.clone(), b.clone()], &out).unwrap();
    assert_eq!(written.len(), 4, "{written:?}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let col_a = "Fixture GPU (hand-made, not a measurement) · hand-made test fixture";
    let col_b = "Second fixture GPU · hand-made test fixture";
    let col_b_cmp = "Second fixture GPU · nvcc (hand-made)";
    for col in [col_a, col_b, col_b_cmp] {
        assert!(md.contains(col), "report.md lacks column {col}");
    }
    // Run b's own module runs twice as fast as run a; its compared module at 0.9 of run a
    // (the comparison was made before the doubling).
    assert_eq!(
        md_row(&md, &["1", "B"]),
        [
            "1",
            "B",
            "GFLOP/s",
            "4230 (41.7%)",
            "8460 (41.7%; 2.00x)",
            "3807 (41.7%; 0.90x)"
        ],
        "{md}"
    );
    assert_eq!(
        md_row(&md, &["2", "copy reference"]),
        ["2", "copy reference", "GB/s", "210.0", "210.0", "-"]
    );
    assert_eq!(md_row(&md, &["3", "cap 128"])[2], "GFLOP/s");
    assert_eq!(
        md.matches("**HOLDS**").count(),
        40,
        "10 verdicts in the matrix and 10 in the details, for each of 2 runs"
    );
    for svg in ["occupancy.svg", "bandwidth.svg", "regs.svg"] {
        let t = svg_texts(&out.join(svg));
        for col in [col_a, col_b, col_b_cmp] {
            assert!(has(&t, col), "{svg} lacks series {col}");
        }
    }

    let missing = base.join("missing");
    let err = report::merge(&[a, missing], &out).unwrap_err();
    assert!(err.to_string().contains("results.json"), "{err}");
    assert!(matches!(
        report::merge(&[], &out),
        Err(report::ReportError::NoRuns)
    ));
}

#[test]
fn curve_plots_are_drawn_and_linked() {
    let dir = out_dir("report_curves");
    let curve = CurvePlot {
        file_stem: "curve_registers".into(),
        labels: Labels::new(
            "Occupancy vs registers per thread",
            "Registers per thread",
            "Theoretical occupancy (%)",
        ),
        series: vec![
            (
                "256 threads/block".into(),
                (16..=255)
                    .map(|r| {
                        (
                            r as f64,
                            (65536 / (r * 256)).min(6) as f64 * 256.0 / 1536.0 * 100.0,
                        )
                    })
                    .collect(),
            ),
            (
                "1024 threads/block".into(),
                (16..=64)
                    .map(|r| {
                        (
                            r as f64,
                            (65536 / (r * 1024)).min(1) as f64 * 1024.0 / 1536.0 * 100.0,
                        )
                    })
                    .collect(),
            ),
        ],
    };
    let written = report::write_with_curves(&fixture(), &dir, &[curve]).unwrap();
    assert!(written.contains(&dir.join("curve_registers.svg")));
    let t = svg_texts(&dir.join("curve_registers.svg"));
    assert!(has(&t, "Registers per thread"));
    assert!(has(&t, "256 threads/block") && has(&t, "1024 threads/block"));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("![Occupancy vs registers per thread](curve_registers.svg)"));
}

#[test]
fn report_args_parse_and_single_dir_rewrites_its_report() {
    use clap::Parser;
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: report::ReportArgs,
    }
    let dir = out_dir("report_cli");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture_dir().join("results.json"), dir.join("results.json")).unwrap();
    let cli = Cli::try_parse_from(["report", dir.to_str().unwrap()]).unwrap();
    report::run(cli.args).unwrap();
    assert!(dir.join("report.md").exists() && dir.join("regs.svg").exists());

    let cli = Cli::try_parse_from(["report", "x", "y"]).unwrap();
    assert!(report::run(cli.args).is_err(), "merging needs --out");
    assert!(
        Cli::try_parse_from(["report"]).is_err(),
        "a folder is required"
    );
    let cli = Cli::try_parse_from(["report", "x", "y", "--out", "z"]).unwrap();
    assert_eq!(cli.args.out.as_deref(), Some(Path::new("z")));
}

#[test]
fn the_calculators_curves_become_one_plot_per_axis() {
    use host::occupancy::{all_curves, Arch, KernelResources};
    let limits = Arch::from_compute_capability(9, 0).unwrap().limits();
    let mut curves = Vec::new();
    for v in kernels_gpu::variants::GEMM.iter().take(3) {
        let kernel = KernelResources {
            threads: v.threads(),
            regs_per_thread: 64,
            static_smem: kernels_gpu::variants::GemmVariant::SEED_STATIC_SHARED_BYTES,
            dyn_smem: 0,
        };
        for c in all_curves(&limits, &kernel) {
            curves.push((v.label.to_string(), c));
        }
    }
    let plots = report::curve_plots(&curves);
    let stems: Vec<&str> = plots.iter().map(|p| p.file_stem.as_str()).collect();
    assert_eq!(
        stems,
        ["curve_registers", "curve_block_size", "curve_dynamic_smem"]
    );
    for p in &plots {
        assert_eq!(p.series.len(), 3);
        assert!(p
            .series
            .iter()
            .all(|(_, pts)| pts.iter().all(|&(_, y)| (0.0..=100.0).contains(&y))));
    }
    let dir = out_dir("report_calculator_curves");
    report::write_with_curves(&fixture(), &dir, &plots).unwrap();
    let t = svg_texts(&dir.join("curve_registers.svg"));
    assert!(has(&t, "Registers per thread") && has(&t, "Theoretical occupancy (%)"));
    for v in kernels_gpu::variants::GEMM.iter().take(3) {
        assert!(t.contains(&v.label.to_string()), "legend has {}", v.label);
    }
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("(curve_dynamic_smem.svg)"));
}

#[test]
fn unknown_spills_leave_the_spill_claims_not_judged() {
    let mut r = fixture();
    cap_mut(&mut r, 64).spills_unknown = true;
    for key in [SPILLS, FIRST_FREE, MORE_REGS] {
        let v = judge(&r, key);
        assert_eq!(v.holds, None, "{key}");
        assert!(v
            .evidence
            .contains("spill bytes unknown (no compiler report) for cap 64"));
    }
    let dir = out_dir("report_spills_unknown");
    report::write(&r, &dir).unwrap();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md_rows(&md)
            .iter()
            .any(|r| r[0] == "64" && r[5..7] == ["n/a", "n/a"]),
        "{md}"
    );
}

#[test]
fn the_out_folder_write_path_gives_a_report_with_the_calculators_curves() {
    let r = fixture();
    let dir = out_dir("report_out_folder");
    // What `--out DIR` writes after the experiments, from the stored fixture instead of a GPU.
    let written = host::report::write_run(&dir, &r).expect("folder written");
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for f in [
        "results.json",
        "tables.md",
        "occupancy.csv",
        "report.md",
        "occupancy.svg",
        "bandwidth.svg",
        "regs.svg",
        "curve_registers.svg",
        "curve_block_size.svg",
        "curve_dynamic_smem.svg",
    ] {
        assert!(names.iter().any(|n| n == f), "{f} not in {names:?}");
        assert!(dir.join(f).is_file(), "{f} not on disk");
    }
    for svg in names.iter().filter(|n| n.ends_with(".svg")) {
        svg_texts(&dir.join(svg));
    }
    // One series per GEMM variant of experiment 1, on the fixture device's limits.
    let curve = svg_texts(&dir.join("curve_registers.svg"));
    assert!(has(&curve, &r.device.name), "{curve:?}");
    for row in &r.occupancy.as_ref().unwrap().rows {
        assert!(curve.contains(&row.variant), "legend lacks {}", row.variant);
    }

    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for svg in names.iter().filter(|n| n.ends_with(".svg")) {
        assert!(md.contains(&format!("]({svg})")), "report.md links {svg}");
    }
    // The tables are in tables.md, linked, not repeated.
    assert!(md.contains("[tables.md](tables.md)"));
    assert!(!md.contains("| D+ | 16 | 16×16 | 255 |"));
    assert_eq!(md.matches("**HOLDS**").count(), 20);

    // `host report DIR` rewrites the same report from the stored folder.
    let before = md;
    let again = report::write_folder(&r, &dir).unwrap();
    assert!(again.contains(&dir.join("curve_dynamic_smem.svg")));
    assert_eq!(
        std::fs::read_to_string(dir.join("report.md")).unwrap(),
        before
    );
}

#[test]
fn the_calculators_curves_follow_each_variants_measured_resources() {
    use host::occupancy::Limits;
    let r = fixture();
    let limits = Limits::from_device_info(&r.device);
    let plots = report::curves_for(&r, &limits);
    assert_eq!(plots.len(), 3);
    let rows = &r.occupancy.as_ref().unwrap().rows;
    let regs_plot = &plots[0];
    assert_eq!(regs_plot.file_stem, "curve_registers");
    assert_eq!(regs_plot.series.len(), rows.len());
    for ((name, pts), row) in regs_plot.series.iter().zip(rows) {
        assert_eq!(name, &row.variant);
        // At the row's own register count the curve is the calculator's figure for the row.
        let kernel = host::occupancy::KernelResources {
            threads: row.threads,
            regs_per_thread: row.figures.regs,
            static_smem: kernels_gpu::variants::GemmVariant::SEED_STATIC_SHARED_BYTES,
            dyn_smem: 0,
        };
        let o = host::occupancy::occupancy(&limits, &kernel).unwrap();
        let at = pts
            .iter()
            .find(|p| p.0 == f64::from(row.figures.regs))
            .unwrap();
        assert!((at.1 - o.occupancy * 100.0).abs() < 1e-9, "{}", row.variant);
    }

    let mut none = r.clone();
    none.occupancy = None;
    assert!(report::curves_for(&none, &limits).is_empty());
}

#[test]
fn a_heatmap_labels_every_measured_cell_and_its_axes() {
    use host::figure::Heatmap;
    let dir = out_dir("report_heatmap");
    let h = Heatmap {
        labels: Labels::new("% of copy bandwidth", "Warps per SM", "Bytes per thread"),
        x_ticks: vec!["1".into(), "2".into(), "4".into()],
        y_ticks: vec!["16".into(), "64".into()],
        cells: vec![
            vec![Some(12.5), Some(25.0), None],
            vec![Some(50.0), Some(93.0), Some(96.4)],
        ],
        scale_max: Some(100.0),
        decimals: 1,
    };
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("heat.svg");
    report::plots::heatmap(&h, &path).unwrap();
    let t = svg_texts(&path);
    for cell in ["12.5", "25.0", "50.0", "93.0", "96.4"] {
        assert!(t.iter().any(|x| x == cell), "{cell} missing from {t:?}");
    }
    assert_eq!(t.iter().filter(|x| x.contains('.')).count(), 5, "{t:?}");
    for label in [
        "Warps per SM",
        "Bytes per thread",
        "% of copy bandwidth",
        "64",
        "4",
    ] {
        assert!(has(&t, label), "{label} missing from {t:?}");
    }
}

/// With experiment 4 in the same results, experiment 2's judged verdicts give its reason: the
/// bytes in flight the blog's variants hold against what the model says this GPU needs.
#[test]
fn experiment_2_points_to_experiment_4_when_both_ran() {
    let mut r = fixture();
    let before: Vec<_> = r
        .verdicts()
        .into_iter()
        .filter(|v| v.experiment == 2)
        .collect();
    assert!(before.iter().all(|v| !v.evidence.contains("experiment 4")));
    let timing = serde_json::json!({"samples_ms": [1.0], "median_ms": 1.0, "min_ms": 1.0,
        "max_ms": 1.0, "sm_clock_mhz_before": null, "sm_clock_mhz_after": null});
    let check = serde_json::json!({"passed": true, "error": 0.0, "bound": 0.0, "what": "x"});
    r.inflight = Some(
        serde_json::from_value(serde_json::json!({
            "copy": {"bytes": 1u64 << 27, "gbps": 4200.0, "timing": timing},
            "latency": {"steps": 1000, "buffer_bytes": 1u64 << 30, "cycles_per_step": 1200.0,
                "ns_per_step": 600.0, "implied_clock_mhz": 2000.0, "check": check},
            "model": {"sms": 132, "latency_ns": 600.0, "peak_gbps": 4200.0},
            "rows": [], "skipped": [],
            "headline": {"least_occupancy": [], "bytes_needed": []}
        }))
        .unwrap(),
    );
    let after: Vec<_> = r
        .verdicts()
        .into_iter()
        .filter(|v| v.experiment == 2)
        .collect();
    assert_eq!(after.len(), before.len());
    for v in after.iter().filter(|v| v.holds.is_some()) {
        assert!(
            v.evidence.contains("Why (experiment 4)") && v.evidence.contains("T1 8192 B"),
            "{}",
            v.evidence
        );
    }
    assert!(after.iter().any(|v| v.holds.is_some()));
}

/// A run that ran (or was asked for) only some experiments reports those alone: a run recorded
/// before experiments 4 and 5 existed regenerates without them.
#[test]
fn the_report_is_about_the_experiments_the_run_asked_for() {
    let mut r = fixture();
    r.occupancy = None;
    r.regs = None;
    let dir = out_dir("report_one");
    let written = report::write(&r, &dir).unwrap();
    let md = std::fs::read_to_string(&written[0]).unwrap();
    assert!(md.contains("## Experiment 2"), "{md}");
    assert!(
        !md.contains("## Experiment 1") && !md.contains("## Experiment 4"),
        "{md}"
    );
    assert!(!md.contains("Not run."), "{md}");
    assert!(!md.contains("**NOT JUDGED**"), "{md}");
    r.missing.push(host::results::Missing {
        experiment: "inflight".into(),
        reason: "failed: synthetic".into(),
    });
    let written = report::write(&r, &dir).unwrap();
    let md = std::fs::read_to_string(&written[0]).unwrap();
    assert!(
        md.contains("Missing from this run: failed: synthetic."),
        "{md}"
    );
    assert_eq!(
        md.matches("**NOT JUDGED**").count(),
        10,
        "experiment 4's five claims"
    );
}

/// A run with a tuned row and cuBLAS: the family and tile columns and the ratio column appear,
/// cuBLAS has its reference row (with its version in the title, and the kernel it ran: name,
/// block, registers, occupancy), in the terminal table, Markdown and CSV; the plot draws cuBLAS
/// as a reference line and its kernel as a point; merging keeps the cuBLAS row.
#[test]
fn cublas_and_tuned_rows_render_everywhere_and_merge() {
    use host::experiments::occupancy::Spec;
    use host::experiments::Experiment;
    use host::table::{render, Format};
    let r = with_cublas(4000.0, Some((5000.0, 0.125)), Some(0.125));
    let run = r.occupancy.as_ref().unwrap();
    let t = Spec::table(run, &r.meta);
    let (header, rows) = (t.header(), t.cells());
    for h in [
        "Family",
        "Block tile",
        "Warp tile",
        "Sub-tile TMxTN",
        "Ours/cuBLAS",
    ] {
        assert!(header.iter().any(|x| x == h), "{h} in {header:?}");
    }
    assert!(
        t.title.contains("cuBLAS 13.1.0 (libcublas.so.13)"),
        "{}",
        t.title
    );
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let tuned = rows.iter().find(|row| row[0] == "R").unwrap();
    assert_eq!(tuned[col("Family")], "tuned");
    assert_eq!(tuned[col("Block tile")], "256x128x16");
    assert_eq!(tuned[col("Warp tile")], "64x64");
    assert_eq!(tuned[col("Ours/cuBLAS")], "1.25");
    let seed = rows.iter().find(|row| row[0] == "D").unwrap();
    assert_eq!(
        (
            seed[col("Family")].as_str(),
            seed[col("Block tile")].as_str()
        ),
        ("seed", "64x64x8")
    );
    assert_eq!(seed[col("Warp tile")], "n/a");
    let cublas = rows.last().unwrap();
    assert_eq!(
        cublas[0],
        "cuBLAS 13.1.0: sm90_xmma_gemm_f32f32_f32f32_f32_nn_n"
    );
    assert_eq!(cublas[col("GFLOP/s")], "4000");
    assert_eq!(
        [
            &cublas[col("Threads/block")],
            &cublas[col("Regs/thread")],
            &cublas[col("Theo. occ")],
            &cublas[col("Blocks/SM")]
        ],
        ["256", "200", "12.5%", "1"]
    );
    assert!(
        t.notes
            .iter()
            .any(|n| n.starts_with("cuBLAS's kernel: cuBLAS 13.1.0 ran")),
        "{:?}",
        t.notes
    );
    assert!(!t.notes.iter().any(|n| n.contains("not read by the lab")));
    assert_eq!(cublas[col("Ours/cuBLAS")], "1.00");
    // The tables print the tile joined; a CSV gives each side its own number.
    for (f, tile) in [
        (Format::Table, "256x128x16"),
        (Format::Markdown, "256x128x16"),
        (Format::Csv, ",tuned,256,128,16,64,64,"),
    ] {
        let text = render(&t, f);
        assert!(
            text.contains("cuBLAS 13.1.0") && text.contains("Ours/cuBLAS") && text.contains(tile),
            "{f:?}: {text}"
        );
    }

    // The plot: cuBLAS is a reference line with its figure.
    let dir = out_dir("report_cublas");
    report::write(&r, &dir).unwrap();
    let svg = svg_texts(&dir.join("occupancy.svg"));
    assert!(has(&svg, "cuBLAS 13.1.0: 4,000"), "{svg:?}");
    assert!(has(&svg, "cuBLAS 13.1.0 kernel"), "{svg:?}");

    // Merging: the cuBLAS row is kept above the variants.
    let base = out_dir("report_cublas_merge");
    let (a, b, out) = (base.join("a"), base.join("b"), base.join("out"));
    for (d, run) in [(&a, &r), (&b, &fixture())] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("results.json"), serde_json::to_string(run).unwrap()).unwrap();
    }
    report::merge(&[a, b], &out).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_eq!(
        md_row(&md, &["1", "cuBLAS"])[..5],
        ["1", "cuBLAS", "GFLOP/s", "4000", "-"]
    );
}

/// Without cuBLAS on the machine the run goes on: the ratio column says n/a and the reference row
/// says why; a run without cuBLAS asked for keeps the table it always had.
#[test]
fn a_missing_cublas_is_said_in_the_table_and_nothing_else_changes() {
    use host::experiments::occupancy::{CublasOutcome, Spec};
    use host::experiments::Experiment;
    let plain = fixture();
    let before = Spec::table(plain.occupancy.as_ref().unwrap(), &plain.meta);
    assert!(!before
        .header()
        .iter()
        .any(|h| h == "Ours/cuBLAS" || h == "Family"));
    let mut r = fixture();
    r.occupancy.as_mut().unwrap().cublas = Some(CublasOutcome::Unavailable {
        reason: "cuBLAS not found: none of libcublas.so.13 could be loaded (x)".into(),
    });
    let t = Spec::table(r.occupancy.as_ref().unwrap(), &r.meta);
    let col = t.header().iter().position(|h| h == "Ours/cuBLAS").unwrap();
    assert_eq!(t.header().len(), before.header().len() + 1);
    let (rows, old_rows) = (t.cells(), before.cells());
    assert_eq!(rows.len(), old_rows.len() + 1);
    for (row, old) in rows.iter().zip(&old_rows) {
        assert_eq!(row[col], "n/a");
        let mut without = row.clone();
        without.remove(col);
        assert_eq!(&without, old);
    }
    assert!(rows.last().unwrap()[0].starts_with("cuBLAS not found: none of libcublas.so.13"));
    assert!(t.title.contains("cuBLAS not found"), "{}", t.title);
}

const CAP_HELPS: &str = "cap-helps-without-spills";
const SMEM: &str = "shared-memory-as-fast-as-registers";

#[test]
fn shared_memory_word_rates_that_agree_fail_the_as_fast_as_registers_claim() {
    // B reads 0.375 shared words per FFMA, S 1: at the same shared-memory word rate B runs
    // 1/0.375 times S's GFLOP/s, so shared memory sets their rate.
    let mut r = fixture();
    gemm_mut(&mut r, "S").figures.gflops = 4230.0 * 0.375;
    let v = judge(&r, SMEM);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(
        v.evidence.contains("S 1.000 words/FFMA 1586 GFLOP/s")
            && v.evidence.contains("B over S: GFLOP/s 2.66")
            && v.evidence.contains("shared-memory words/s 1.000 (95% CI"),
        "{}",
        v.evidence
    );
    // S as fast as B with 2.7 times the words: shared memory did not hold it back.
    let mut r = fixture();
    gemm_mut(&mut r, "S").figures.gflops = 4230.0;
    assert_eq!(judge(&r, SMEM).holds, Some(true));
    // No line reads more than 1/4 word per FFMA: nothing to judge.
    let mut r = fixture();
    for v in ["S", "A1", "A", "B"] {
        gemm_mut(&mut r, v).tm = 8;
        gemm_mut(&mut r, v).tn = 8;
    }
    let v = judge(&r, SMEM);
    assert_eq!(v.holds, None);
    assert!(v.evidence.contains("more than 1/4"), "{}", v.evidence);
}
const CLIFF: &str = "register-cliff";

#[test]
fn seed_001_a_spill_free_cap_that_raises_occupancy_against_the_uncapped_build() {
    // Cap 128 (8 blocks/SM, no spills) over the uncapped cap 255 (6 blocks/SM).
    let v = judge(&fixture(), CAP_HELPS);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(
        v.evidence
            .contains("cap 128 (128 regs, 0 spill B) 4233 GFLOP/s at 8 blocks/SM")
            && v.evidence.contains("(95% CI"),
        "{}",
        v.evidence
    );
    let mut r = fixture();
    cap_mut(&mut r, 128).figures.gflops = 3000.0;
    assert_eq!(judge(&r, CAP_HELPS).holds, Some(false));
    // No spill-free cap holds more blocks than the uncapped build: nothing to judge.
    let mut r = fixture();
    cap_mut(&mut r, 128).figures.blocks_per_sm = 6;
    let v = judge(&r, CAP_HELPS);
    assert_eq!(v.holds, None);
    assert!(
        v.evidence.contains("no spill-free cap holds more blocks"),
        "{}",
        v.evidence
    );
}

#[test]
fn seed_002_the_register_cliff_needs_builds_close_either_side_of_a_boundary() {
    // 128 registers (8 blocks/SM) against 136 (6 blocks/SM), 8 registers apart.
    let v = judge(&fixture(), CLIFF);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(v.evidence.contains("(8 registers apart)"), "{}", v.evidence);
    let mut r = fixture();
    cap_mut(&mut r, 160).figures.gflops = 4600.0;
    assert_eq!(judge(&r, CLIFF).holds, Some(false));
    // The nearest build past the boundary 22 registers away: not the cliff.
    let mut r = fixture();
    cap_mut(&mut r, 160).figures.regs = 150;
    let v = judge(&r, CLIFF);
    assert_eq!(v.holds, None);
    assert!(v.evidence.contains("22 registers apart"), "{}", v.evidence);
    assert!(v.evidence.contains("(95% CI"), "{}", v.evidence);
}
