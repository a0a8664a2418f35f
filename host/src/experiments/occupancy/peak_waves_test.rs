//! `peak-below-max-occupancy` in a run that recorded its waves: B named from the table before
//! the data, judged against the lines at the highest occupancy at whole waves.

use super::claims::{peak_below_max_occupancy, peak_pair_lines};
use super::row::GemmRow;
use crate::experiments::gemm_figures::GemmFigures;
use crate::experiments::measured::Measured;
use crate::experiments::whole_waves::tests::{figures, DEFAULT};
use crate::experiments::whole_waves::{whole_wave_dims, WholeWave};
use crate::results::GemmDims;

/// A seed line of `threads` threads and a `tm` x `tn` sub-tile at `blocks` blocks/SM (occupancy
/// threads x blocks / 2048): `gflops` at the default size, `whole` at `size`.
fn line(
    label: &str,
    (threads, tm, tn, blocks): (u32, u32, u32, u32),
    gflops: f64,
    whole: Option<(GemmDims, f64)>,
) -> GemmRow {
    let occupancy = f64::from(threads * blocks) / 2048.0;
    let with = |f: GemmFigures| GemmFigures { occupancy, ..f };
    GemmRow {
        variant: label.into(),
        threads,
        tm,
        tn,
        figures: with(figures(DEFAULT, blocks, gflops)),
        measured: Measured::passing(),
        tile: None,
        vs_cublas: None,
        whole_waves: (whole.into_iter())
            .map(|(size, g)| WholeWave {
                size,
                figures: with(figures(size, blocks, g)),
            })
            .collect(),
    }
}

/// The size the run picks for D (32 threads, 8 blocks/SM) against S (1024 threads, 2) and A1
/// (512 threads, 4) on 132 SMs.
fn size() -> GemmDims {
    whole_wave_dims(DEFAULT, (64, 64), &[8, 2, 4], 132).expect("a whole-wave size")
}

/// S and A1 at 100%, A (256 threads) at 50%, D (the most accumulators, 128) at 12.5%; A the
/// fastest below the top at the default size, D `d` at whole waves (None: not timed there).
fn run(d: Option<f64>) -> Vec<GemmRow> {
    let at = |g: Option<f64>| g.map(|g| (size(), g));
    vec![
        line("S", (1024, 2, 2, 2), 1000.0, at(d.map(|_| 1000.0))),
        line("A1", (512, 2, 4, 4), 1500.0, at(d.map(|_| 1500.0))),
        line("A", (256, 4, 4, 4), 9000.0, None),
        line("D", (32, 16, 8, 8), 3000.0, at(d)),
    ]
}

#[test]
fn b_is_named_from_the_table_not_from_the_timings() {
    let rows = run(None);
    let named: Vec<&str> = (peak_pair_lines(&rows).iter())
        .map(|r| r.variant.as_str())
        .collect();
    assert_eq!(
        named,
        ["D", "S", "A1"],
        "D: the most accumulators below 100%"
    );
    // Whichever is fastest.
    let mut slow = run(None);
    slow[3].figures.gflops = 10.0;
    let again: Vec<&str> = (peak_pair_lines(&slow).iter())
        .map(|r| r.variant.as_str())
        .collect();
    assert_eq!(again, named);
    let s = size();
    assert_eq!(s.k, DEFAULT.k);
    for b in [8, 2, 4] {
        assert!(figures(s, b, 1.0).waves().unwrap().whole(), "{s:?} at {b}");
    }
}

#[test]
fn the_claim_is_judged_at_whole_waves() {
    let v = peak_below_max_occupancy(Some(&run(Some(3000.0))));
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(
        v.evidence.starts_with("B, named before the data: D"),
        "{}",
        v.evidence
    );
    assert!(v.rule.contains("named before the data"));
    // D slower than A1 at whole waves: it does not hold.
    let v = peak_below_max_occupancy(Some(&run(Some(1200.0))));
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    // Not timed there: not judged.
    let v = peak_below_max_occupancy(Some(&run(None)));
    assert_eq!(v.holds, None, "{}", v.evidence);
    assert!(v.evidence.contains("not timed"), "{}", v.evidence);
}

#[test]
fn a_run_without_waves_is_judged_as_before() {
    let mut old = run(None);
    for r in &mut old {
        r.figures.schedule = None;
    }
    let v = peak_below_max_occupancy(Some(&old));
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(v
        .evidence
        .starts_with("fastest below the highest occupancy (B): A"));
}
