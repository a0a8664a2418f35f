//! The sweep's summary, misses and claim on synthetic rows (no GPU).

use super::*;
use crate::experiments::gemm_sides_reading_c::ReadingC;
use crate::experiments::shapes::claims::{case, claims};
use crate::experiments::shapes::row::Miss;
use crate::experiments::shapes::row_fixture::row;
use crate::results::Timing;
use crate::table::to_csv;

/// BF16 at 7x9000x13 missed, for `why`.
fn odd_miss(why: &str) -> Miss {
    let dims = GemmDims {
        m: 7,
        n: 9000,
        k: 13,
    };
    let family = Family::Bf16;
    let why = why.to_owned();
    Miss { family, dims, why }
}

fn run(rows: Vec<ShapeRow>, misses: Vec<Miss>) -> ShapesRun {
    ShapesRun {
        rows,
        misses,
        samples: Some(5),
    }
}

#[test]
fn the_summary_counts_shapes_from_20_us_and_every_miss() {
    let sq = GemmDims::square;
    let rows = vec![
        row(Family::Bf16, sq(4096), 0.97, 0.2, (128, 0.1875)),
        row(Family::Bf16, sq(8192), 1.05, 1.5, (128, 0.1875)),
        // Launch-bound: cuBLAS under 20 µs, not counted.
        row(
            Family::Bf16,
            GemmDims {
                m: 1,
                n: 4096,
                k: 4096,
            },
            0.5,
            0.010,
            (16, 0.1875),
        ),
        row(Family::Bf16, sq(2048), 0.80, 0.05, (128, 0.1875)),
    ];
    let misses = vec![odd_miss("no line can run the shape")];
    let s = summary(&run(rows, misses)).join("\n");
    assert!(s.contains("4096³ 0.97 (target >= 1.03, missed)"), "{s}");
    assert!(s.contains("8192³ 1.05 (target >= 1.03, met)"), "{s}");
    let g = geomean(&[0.97, 1.05, 0.80]).unwrap();
    assert!(s.contains(&format!("geometric mean {g:.2}")), "{s}");
    assert!(
        s.contains("2 of 3 at >= 0.90 (below: 2048x2048x2048 0.80)"),
        "{s}"
    );
    assert!(s.contains("1 miss(es)"), "{s}");
    assert!(!s.contains("FP32"), "no FP32 row, no FP32 summary: {s}");
}

#[test]
fn fp32_is_held_to_its_bar_on_the_squares_from_1024_and_the_transformer_shapes() {
    let rows = vec![
        row(Family::Fp32, GemmDims::square(512), 0.5, 0.05, (16, 0.5)),
        row(Family::Fp32, GemmDims::square(4096), 0.99, 3.0, (512, 0.5)),
        row(Family::Fp32, GemmDims::square(2048), 0.90, 0.4, (128, 0.5)),
        row(
            Family::Fp32,
            GemmDims {
                m: 4096,
                n: 14336,
                k: 4096,
            },
            0.96,
            20.0,
            (512, 0.5),
        ),
        row(
            Family::Fp32,
            GemmDims {
                m: 16,
                n: 4096,
                k: 4096,
            },
            0.2,
            0.1,
            (64, 0.5),
        ),
    ];
    let s = summary(&run(rows, vec![])).join("\n");
    assert!(s.contains("4096³ 0.99 (target >= 1.00, missed)"), "{s}");
    assert!(s.contains("8192³ not measured"), "{s}");
    assert!(
        s.contains("2 of 3 at >= 0.95 (below: 2048x2048x2048 0.90)"),
        "{s}"
    );
}

/// A figure reading C: ours `ms`, cuBLAS `cublas_ms`, ours passing or not.
fn reading_c(ms: f64, cublas_ms: f64, passed: bool) -> ReadingC {
    let t = |median_ms| Timing {
        median_ms,
        ..Timing::default()
    };
    let check = |passed| crate::results::Check {
        passed,
        error: 0.1,
        bound: 1.0,
        what: "one launch checked.".into(),
        hashes: None,
    };
    ReadingC {
        alpha: 1.5,
        beta: 0.5,
        timing: t(ms),
        check: check(passed),
        cublas: Some((t(cublas_ms), check(true))),
    }
}

#[test]
fn the_figure_reading_c_shows_where_timed_and_its_failure_fails_the_run() {
    use crate::experiments::contract::Output;
    let sq = GemmDims::square;
    let plain = || row(Family::Bf16, sq(8192), 1.0, 1.5, (132, 0.1875));
    // A run without the figure keeps its table and words (committed runs re-render as they were).
    let before = table(&run(vec![plain()], vec![]), "t");
    assert!(!to_csv(&before).contains("C read"), "{}", to_csv(&before));
    assert!(!before.notes.iter().any(|n| n.contains("beta = 0.5")));
    let mut timed = plain();
    timed.reading_c = Some(reading_c(1.6, 1.52, true));
    let out = run(vec![timed], vec![]);
    let t = table(&out, "t");
    let csv = to_csv(&t);
    assert!(
        csv.lines().next().unwrap().contains("Ours/cuBLAS, C read"),
        "{csv}"
    );
    assert!(csv.lines().nth(1).unwrap().contains(",0.95,"), "{csv}");
    let s = summary(&out).join("\n");
    assert!(
        s.contains("beta = 0.5 at 8192³ 0.95 (target >= 0.95, met)"),
        "{s}"
    );
    assert!(
        t.notes
            .iter()
            .any(|n| n.contains("alpha=1.5, beta=0.5") && n.contains("1.600 ms")),
        "{:?}",
        t.notes
    );
    assert!(out.other_failures().is_empty());
    let mut failed = plain();
    failed.reading_c = Some(reading_c(1.6, 1.52, false));
    let f = run(vec![failed], vec![]).other_failures();
    assert!(f.len() == 1 && f[0].contains("reading C"), "{f:?}");
}

#[test]
fn a_miss_is_a_row_of_the_table_with_its_reason() {
    let misses = vec![odd_miss("W1: needs K and N to be multiples of 8")];
    let t = table(
        &run(
            vec![row(
                Family::Bf16,
                GemmDims::square(4096),
                1.0,
                0.2,
                (128, 0.1875),
            )],
            misses,
        ),
        "t",
    );
    let csv = to_csv(&t);
    let last = csv.lines().last().unwrap();
    assert!(last.starts_with("BF16,7x9000x13,miss"), "{csv}");
    assert!(last.contains("multiples of 8"), "{csv}");
    assert!(
        t.notes.iter().any(|n| n.contains("took 5 samples")),
        "{:?}",
        t.notes
    );
}

#[test]
fn the_claim_holds_fails_or_is_not_judged_from_the_cases() {
    let d = |m| GemmDims {
        m,
        n: 4096,
        k: 4096,
    };
    // Under one wave (16 tiles, 132 slots at 1 block/SM for a grid of one block per tile).
    // cuBLAS faster with 132 blocks at 18.75% against ours 16 blocks at 25%: holds.
    let holds = row(Family::Bf16, d(16), 0.8, 0.1, (16, 0.25));
    assert!(case(&holds).unwrap().0);
    // Ours faster with fewer blocks: fails.
    let fails = row(Family::Bf16, d(64), 1.2, 0.1, (16, 0.25));
    assert!(!case(&fails).unwrap().0);
    // Within 3%: not judged; over a wave: not a case.
    assert!(case(&row(Family::Bf16, d(1), 1.01, 0.1, (16, 0.25))).is_err());
    assert!(case(&row(Family::Bf16, d(4096), 0.8, 0.1, (1024, 0.25))).is_err());
    let verdict = |rows| claims(&run(rows, vec![])).remove(0);
    let three = vec![holds.clone(), holds.clone(), holds.clone()];
    assert_eq!(verdict(three).holds, Some(true));
    let three = vec![fails.clone(), fails.clone(), holds.clone()];
    let v = verdict(three);
    assert_eq!(v.holds, None, "one of three: neither share");
    let four = vec![fails.clone(), fails.clone(), fails.clone(), holds.clone()];
    assert_eq!(verdict(four).holds, Some(false));
    let two = verdict(vec![holds.clone(), holds]);
    assert_eq!(two.holds, None);
    assert!(
        two.evidence.contains("2 case(s) judged, 3 needed"),
        "{}",
        two.evidence
    );
}
