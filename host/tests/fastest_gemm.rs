//! `fastest-gemm-at-low-occupancy`, "the fastest GEMM of the run, ours or cuBLAS, runs at <= 12.5% theoretical
//! occupancy", on the hand-made fixture with cuBLAS added: judged at the occupancy of the kernel
//! cuBLAS ran (read through CUPTI), and not judged when cuBLAS wins and its kernel is unknown.
//! No GPU needed.

mod cublas_fixture;

use std::path::Path;

use cublas_fixture::with_cublas;
use host::claim::Verdict;
use host::experiments::RunResults;
use host::report;

const FASTEST: &str = "fastest-gemm-at-low-occupancy";

fn judge(r: &RunResults, key: &str) -> Verdict {
    r.verdicts()
        .into_iter()
        .find(|v| v.key == key)
        .unwrap_or_else(|| panic!("no verdict {key}"))
}

fn fixture() -> RunResults {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_fixture");
    report::merge::load(&dir).expect("fixture loads")
}

#[test]
fn the_fastest_gemm_at_low_occupancy_holds_when_ours_wins_there() {
    // cuBLAS slower than ours: judged on ours whether or not its kernel was read.
    for kernel in [None, Some(0.5)] {
        let v = judge(&with_cublas(4000.0, Some((5000.0, 0.125)), kernel), FASTEST);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        assert!(
            v.evidence.contains("fastest: R 5000 GFLOP/s"),
            "{}",
            v.evidence
        );
    }
    // The blog's claims still look at the seed rows only: the tuned row changes none of them.
    let plain = fixture().verdicts();
    for (a, b) in plain
        .iter()
        .zip(with_cublas(4000.0, Some((5000.0, 0.125)), None).verdicts())
        .filter(|(a, _)| a.key != FASTEST)
    {
        assert_eq!(a.evidence, b.evidence, "{}", a.key);
    }
}

#[test]
fn cublas_winning_is_judged_at_the_occupancy_of_the_kernel_it_ran() {
    // cuBLAS fastest, its kernel at 12.5%: faster than every GEMM above 12.5% (B, 41.7%).
    let v = judge(&with_cublas(9000.0, None, Some(0.125)), FASTEST);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(
        v.evidence
            .contains("fastest: cuBLAS 13.1.0 (sm90_xmma_gemm")
            && v.evidence.contains("9000 GFLOP/s at 12.5% (200 regs)"),
        "{}",
        v.evidence
    );
    // Its kernel at 25%, faster than the fastest GEMM at <= 12.5% (R): the claim fails.
    let v = judge(
        &with_cublas(9000.0, Some((5000.0, 0.125)), Some(0.25)),
        FASTEST,
    );
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(
        v.evidence.contains("fastest at or below 12.5%: R"),
        "{}",
        v.evidence
    );
    // Its kernel at 25%, level with R at 12.5% (within the samples' noise): not judged.
    let v = judge(
        &with_cublas(5005.0, Some((5000.0, 0.125)), Some(0.25)),
        FASTEST,
    );
    assert_eq!(v.holds, None, "{}", v.evidence);
    assert!(v.evidence.contains("95% CI"), "{}", v.evidence);
}

#[test]
fn cublas_winning_with_its_kernel_unread_leaves_the_claim_not_judged() {
    // cuBLAS fastest and the kernel it ran unknown: no occupancy is assumed for it.
    let v = judge(&with_cublas(9000.0, Some((5000.0, 0.125)), None), FASTEST);
    assert_eq!(v.holds, None, "{}", v.evidence);
    assert!(
        v.evidence.contains("cuBLAS 13.1.0 at 9000 GFLOP/s")
            && v.evidence.contains("its occupancy is unknown")
            && v.evidence.contains("CUPTI not found"),
        "{}",
        v.evidence
    );
    // Level with ours: not judged either.
    let v = judge(&with_cublas(5005.0, Some((5000.0, 0.125)), None), FASTEST);
    assert_eq!(v.holds, None, "{}", v.evidence);
}

#[test]
fn ours_fastest_above_low_occupancy_fails_the_fastest_gemm_claim() {
    // Ours beats cuBLAS, and the fastest of ours (B, 41.7%) beats every variant at <= 12.5%.
    let v = judge(&with_cublas(2000.0, None, None), FASTEST);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(v.evidence.contains("fastest: B"), "{}", v.evidence);
}
