//! The report: verdict rules on hand-made result sets (each claim holding and failing), plots
//! written and well-formed from the stored hand-made fixture, and runs merged side by side.
//! No GPU needed.

mod report_kit;
use report_kit::*;

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

#[test]
fn cublas_unavailable_leaves_the_claim_not_judged_and_says_why() {
    use host::experiments::gemm_cublas::CublasOutcome;
    let mut r = fixture();
    r.occupancy.as_mut().unwrap().cublas = Some(CublasOutcome::Unavailable {
        reason: "cuBLAS not found: none of libcublas.so.13 could be loaded".into(),
    });
    let v = judge(&r, FASTEST);
    assert_eq!(v.holds, None);
    assert!(v.evidence.contains("cuBLAS not found"), "{}", v.evidence);
}

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
