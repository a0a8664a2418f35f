//! Seed 001's and seed 002's verdicts in a run that recorded its waves: the pair named from
//! registers, spills and blocks/SM, judged at its whole-wave size with the default beside.

use super::row::RegsRow;
use super::wave_claims::{cap_helps_without_spills, compared_pairs, register_cliff};
use crate::experiments::gemm_figures::GemmFigures;
use crate::experiments::measured::Measured;
use crate::experiments::whole_waves::tests::{figures, DEFAULT, WHOLE};
use crate::experiments::whole_waves::WholeWave;

/// Cap `cap` building `regs` registers at `blocks` blocks/SM: `gflops` at the default size and,
/// where given, `whole` at the whole-wave size.
fn row(cap: u32, regs: u32, blocks: u32, gflops: f64, whole: Option<f64>) -> RegsRow {
    let with_regs = |f: GemmFigures| GemmFigures { regs, ..f };
    RegsRow {
        cap,
        figures: with_regs(figures(DEFAULT, blocks, gflops)),
        spill_stores: 0,
        spill_loads: 0,
        spills_unknown: false,
        stack_frame: 0,
        measured: Measured::passing(),
        whole_waves: whole
            .map(|g| WholeWave {
                size: WHOLE,
                figures: with_regs(figures(WHOLE, blocks, g)),
            })
            .into_iter()
            .collect(),
    }
}

/// Line C's builds: cap 128 at 8 blocks/SM, cap 144 (139 registers) and the uncapped (156) at
/// 6; the cap-128 build 15% faster at the default size, `whole` times the uncapped at whole
/// waves (None: not timed there).
fn line_c(whole: Option<f64>) -> Vec<RegsRow> {
    vec![
        row(128, 128, 8, 1150.0, whole),
        row(144, 139, 6, 1000.0, whole.map(|_| 1000.0)),
        row(255, 156, 6, 1000.0, whole.map(|_| 1000.0)),
    ]
}

#[test]
fn the_pairs_are_named_from_registers_and_blocks() {
    // Seed 001: cap 128 against the uncapped; seed 002: cap 128 against cap 144 (11 apart).
    assert_eq!(compared_pairs(&line_c(None)), [(128, 255), (128, 144)]);
    // The timings do not enter: the same pairs whichever build is faster.
    let mut slow = line_c(None);
    slow[0].figures.gflops = 500.0;
    assert_eq!(compared_pairs(&slow), compared_pairs(&line_c(None)));
    // A failed check leaves a build out of every pair.
    let mut failed = line_c(None);
    failed[0].measured.check.passed = false;
    assert_eq!(compared_pairs(&failed), []);
}

#[test]
fn seed_001_holds_or_fails_at_whole_waves_whatever_the_default_size_says() {
    let holds = cap_helps_without_spills(Some(&line_c(Some(1050.0))));
    assert_eq!(holds.holds, Some(true), "{}", holds.evidence);
    assert!(holds.rule.contains("whole waves"), "{}", holds.rule);
    assert!(
        holds.evidence.contains("at 3072x4224x4096"),
        "{}",
        holds.evidence
    );
    assert!(
        holds.evidence.contains("1.150"),
        "default beside: {}",
        holds.evidence
    );
    // 15% faster at the default size, slower at whole waves: the tail, not the occupancy.
    let fails = cap_helps_without_spills(Some(&line_c(Some(950.0))));
    assert_eq!(fails.holds, Some(false), "{}", fails.evidence);
}

#[test]
fn seed_001_and_002_are_not_judged_without_the_whole_wave_timing() {
    for v in [
        cap_helps_without_spills(Some(&line_c(None))),
        register_cliff(Some(&line_c(None))),
    ] {
        assert_eq!(v.holds, None, "{}", v.evidence);
        assert!(v.evidence.contains("not timed"), "{}", v.evidence);
    }
}

#[test]
fn the_register_cliff_is_judged_at_whole_waves() {
    let v = register_cliff(Some(&line_c(Some(1050.0))));
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(v.evidence.contains("cap 128") && v.evidence.contains("cap 144"));
    let v = register_cliff(Some(&line_c(Some(950.0))));
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
}

#[test]
fn a_run_without_waves_keeps_its_old_verdict() {
    let mut old = line_c(None);
    for r in &mut old {
        r.figures.schedule = None;
    }
    let v = cap_helps_without_spills(Some(&old));
    assert_eq!(
        v.holds,
        Some(true),
        "judged at the default size: {}",
        v.evidence
    );
    assert!(!v.rule.contains("whole waves"));
}

#[test]
fn the_notes_say_what_was_timed_again_at_whole_waves() {
    use super::Spec;
    use crate::experiments::contract::Report;
    let notes = Spec::notes(&line_c(Some(1050.0)));
    let whole = (notes.iter())
        .find(|n| n.starts_with("Timed again at 3072x4224x4096"))
        .unwrap_or_else(|| panic!("{notes:?}"));
    assert!(
        whole.contains("cap 128 1050 GFLOP/s, 3.00 waves (default size: 1150 GFLOP/s, 3.88 waves)")
    );
    assert!(
        whole.contains("cap 255 1000 GFLOP/s, 4.00 waves"),
        "{whole}"
    );
    assert!(notes
        .iter()
        .any(|n| n.starts_with("Waves: output tiles over SMs (132)")));
    // A run before waves were: neither note.
    let mut old = line_c(None);
    for r in &mut old {
        r.figures.schedule = None;
    }
    let notes = Spec::notes(&old);
    assert!(
        !notes
            .iter()
            .any(|n| n.contains("waves") || n.contains("Waves")),
        "{notes:?}"
    );
}
