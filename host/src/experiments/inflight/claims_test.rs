//! Tests of the `inflight` claims (a child of `claims.rs`, so that they reach its private items).

use super::*;
use crate::experiments::ilp_sweep::tests::grid;
use crate::experiments::inflight::grid::{tests::default_points, Point, SmemRing};
use crate::experiments::inflight::model::tests::H200_LIKE;
use crate::experiments::inflight::row::tests::{copy, row, spilling};
use crate::experiments::verdict_check::says;

/// The rows with every sample spread by +-`noise` (a fraction) around its median.
fn noisy(mut rows: Vec<InflightRow>, noise: f64) -> Vec<InflightRow> {
    for r in &mut rows {
        let m = r.timing.median_ms;
        let samples: Vec<f64> = (0..9)
            .map(|i| m * (1.0 + noise * (f64::from((i * 5) % 9) / 4.0 - 1.0)))
            .collect();
        r.timing = crate::sampling::summarize(samples, None, None);
    }
    rows
}

/// Synthetic rows over several occupancies and bytes per thread each, at the fraction of the
/// copy `fraction(threads x blocks, bytes per thread)` gives.
fn over_the_grid(fraction: impl Fn(u32, u32) -> f64) -> Vec<InflightRow> {
    let residencies = [(32, 1), (128, 1), (512, 1), (1024, 2)];
    grid(&residencies, &[4, 16, 64, 256, 512], |(t, b), bytes| {
        row(t, b, bytes, fraction(t * b, bytes))
    })
}

/// Synthetic rows where the fraction of the copy depends only on bytes in flight per SM
/// (a Little's-law curve with a knee at 16 KiB), over several occupancies each.
fn bytes_driven() -> Vec<InflightRow> {
    over_the_grid(|resident, bytes| (f64::from(resident * bytes) / 16384.0).min(0.98))
}

/// Rows exactly on Little's law over the default sweep, each off by a deterministic
/// 0-15% shortfall, as a real GPU's noise and detail might put them.
fn littles_law_over_the_default_grid() -> Vec<InflightRow> {
    let model = H200_LIKE;
    let on_the_law = |(i, p): (usize, &Point)| {
        let bytes = p.shape.bytes_per_thread();
        let bif = f64::from(p.shape.threads * p.blocks_per_sm * bytes);
        let shortfall = 0.15 * ((i * 7) % 16) as f64 / 15.0;
        let fraction = model.predicted_gbps(bif) / model.peak_gbps * (1.0 - shortfall);
        let mut r = row(p.shape.threads, p.blocks_per_sm, bytes, fraction);
        r.point = *p;
        r
    };
    default_points()
        .iter()
        .enumerate()
        .map(on_the_law)
        .collect()
}

#[test]
fn bytes_not_occupancy_holds_on_bytes_driven_data_only() {
    // (rows, outcome): on Little's law, with noise; bytes-driven; occupancy-driven; too
    // few groups; bytes-driven but +-40% noisy (the spreads' intervals widen past the
    // thresholds: noise can only take a judgement away) or barely noisy.
    let cases = [
        (littles_law_over_the_default_grid(), Some(true)),
        (bytes_driven(), Some(true)),
        (
            over_the_grid(|resident, _| f64::from(resident) / 2048.0),
            Some(false),
        ),
        (bytes_driven()[..3].to_vec(), None),
        (noisy(bytes_driven(), 0.4), None),
        (noisy(bytes_driven(), 0.001), Some(true)),
    ];
    for (i, (rows, holds)) in cases.into_iter().enumerate() {
        let v = bytes_not_occupancy(&rows, &copy());
        assert_eq!(v.holds, holds, "case {i}: {}", v.evidence);
    }
    let v = bytes_not_occupancy(&bytes_driven(), &copy());
    says(&v, "S_bytes = ");
    says(&v, "95% CI");
    let v = few_threads_match_many(&littles_law_over_the_default_grid());
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
}

#[test]
fn spilling_points_are_left_out_of_the_claims() {
    // The fastest few-thread point spills: the claim falls to the next one, which is short.
    let spills = spilling(row(128, 1, 512, 0.99), 368, 376);
    let rows = [spills, row(256, 1, 256, 0.80), row(1024, 2, 8, 0.98)];
    let v = few_threads_match_many(&rows);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    says(&v, "memcpy_t256_l64_w1");
    says(
        &v,
        "left out: 1 spilling points (spills: not all loads in flight)",
    );
}

#[test]
fn few_threads_match_many_by_the_ratio_of_bests() {
    let many = || row(1024, 2, 8, 0.98);
    let few = |fraction| few_threads_match_many(&[row(256, 1, 256, fraction), many()]);
    assert_eq!(few(0.96).holds, Some(true), "{}", few(0.96).evidence);
    assert_eq!(few(0.80).holds, Some(false));
    assert_eq!(few(0.91).holds, None);
    // 0.96 against 0.98 holds on quiet figures; +-10% noise puts the interval across 0.95.
    let quiet = noisy(vec![row(256, 1, 256, 0.96), many()], 0.001);
    assert_eq!(few_threads_match_many(&quiet).holds, Some(true));
    let v = few_threads_match_many(&noisy(vec![row(256, 1, 256, 0.96), many()], 0.1));
    assert_eq!(v.holds, None, "{}", v.evidence);
    says(&v, "95% CI");
    let missing = few_threads_match_many(&[many()]);
    assert_eq!(missing.holds, None);
    assert!(missing.evidence.contains("low"));
    // A failed copy does not count.
    let mut fast_but_wrong = row(256, 1, 256, 0.99);
    fast_but_wrong.measured.check.passed = false;
    let v = few_threads_match_many(&[fast_but_wrong, many()]);
    assert_eq!(v.holds, None, "{}", v.evidence);
}

/// A shared-memory row: one 32-thread block per SM with a ring of `stages` x 4 KiB.
fn ring_row(blocks: u32, stages: u32, fraction: f64) -> InflightRow {
    let mut r = row(32, blocks, 128 * stages, fraction);
    r.point.shape.ring = Some(SmemRing {
        stage_bytes: 4096,
        stages,
        bulk: false,
    });
    r.entry = format!("cp_async_copy_t32_b4096_s{stages}");
    r
}

fn one_warp(rows: Vec<InflightRow>) -> Verdict {
    one_warp_from_shared_memory(&rows, &copy())
}

#[test]
fn the_best_one_warp_ring_decides() {
    let v = one_warp(vec![
        ring_row(1, 8, 0.7),
        ring_row(1, 16, 0.95),
        ring_row(2, 16, 0.99),
    ]);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    says(&v, "cp_async_copy_t32_b4096_s16");
    assert!(v.evidence.contains("(95% CI "), "{}", v.evidence);
    // Two warps per SM at 99% do not count; one at 80% fails.
    let v = one_warp(vec![ring_row(1, 8, 0.8), ring_row(2, 16, 0.99)]);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
}

#[test]
fn register_rows_failed_checks_and_no_rows_leave_it_unjudged() {
    let v = one_warp(vec![row(32, 1, 512, 0.99)]);
    assert_eq!(v.holds, None);
    says(&v, "no usable shared-memory copy");
    let mut wrong = ring_row(1, 16, 0.99);
    wrong.measured.check.passed = false;
    let v = one_warp(vec![wrong, ring_row(1, 4, 0.5)]);
    assert_eq!(
        v.holds,
        Some(false),
        "the failed row is left out: {}",
        v.evidence
    );
    // At the threshold the interval straddles it.
    let v = one_warp(vec![ring_row(1, 16, ONE_WARP_SHARE)]);
    assert_eq!(v.holds, None, "{}", v.evidence);
}

#[test]
fn picked_bests_are_read_on_corrected_intervals_under_the_rules_that_fix_choices() {
    let fixed = Rules::FixedInAdvance;
    let many = || row(1024, 2, 8, 0.98);
    let few = |fraction| {
        let rows = [row(256, 1, 256, fraction), row(128, 1, 128, 0.5), many()];
        few_threads_match_many_under(&rows, fixed)
    };
    assert_eq!(few(0.96).holds, Some(true), "{}", few(0.96).evidence);
    says(&few(0.96), "(98.3% CI ");
    assert!(few(0.96)
        .rule
        .contains("Bonferroni-corrected 98.3% interval (95% over the 3"));
    assert_eq!(few(0.80).holds, Some(false));
    assert_eq!(few(0.91).holds, None);
    let rows = [row(256, 1, 256, 0.96), many()];
    assert_eq!(
        few_threads_match_many_under(&rows, Rules::AsPublished),
        few_threads_match_many(&rows)
    );
    let rings = |best| {
        let rows = vec![
            ring_row(1, 8, 0.7),
            ring_row(1, 16, best),
            ring_row(2, 16, 0.99),
        ];
        one_warp_from_shared_memory_under(&rows, &copy(), fixed)
    };
    let v = rings(0.95);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    says(&v, "(97.5% CI ");
    assert!(v
        .rule
        .contains("Bonferroni-corrected 97.5% interval (95% over the 2 rows"));
    assert_eq!(rings(0.8).holds, Some(false));
    assert_eq!(rings(ONE_WARP_SHARE).holds, None);
    let published = vec![ring_row(1, 8, 0.7), ring_row(1, 16, 0.95)];
    assert_eq!(
        one_warp_from_shared_memory_under(&published, &copy(), Rules::AsPublished),
        one_warp(published)
    );
}
