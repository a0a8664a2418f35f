//! `held` on the CPU: its flags and plan, its table and its verdict on synthetic rows.

use super::*;
use crate::experiments::contract::Plan as _;
use crate::experiments::gemm_figures::GemmFigures;
use crate::experiments::measured::Measured;
use crate::experiments::verdict_check::says;
use crate::flag_values::parse_flags;
use crate::flags::CliError;
use crate::results::Timing;
use crate::table::columns_table;

fn plan(args: &[&str]) -> Result<Plan, CliError> {
    Plan::new(&parse_flags::<Args>(args).expect("flags parse"))
}

#[test]
fn the_plan_runs_every_binary_by_default_and_refuses_unknown_ones() {
    let p = plan(&[]).unwrap();
    let labels: Vec<&str> = p.binaries.iter().map(|b| b.label).collect();
    assert_eq!(labels, ["C", "D", "R4", "C@128"]);
    assert_eq!(p.binaries[3].cap, Some(128));
    let p = plan(&["--variants", "R4,C@128"]).unwrap();
    assert_eq!(p.binaries.len(), 2);
    let e = plan(&["--variants", "Q"]).unwrap_err().to_string();
    assert!(e.contains("`Q`") && e.contains("C@128"), "{e}");
    // The seed lines need sizes they tile.
    let e = plan(&["--size", "1000"]).unwrap_err().to_string();
    assert!(e.contains("1000 does not tile"), "{e}");
    assert!(plan(&["--variants", "R4", "--size", "1000"]).is_ok());
}

/// A row of `binary` at `blocks` blocks/SM with GFLOP/s `gflops` (nine samples, ±0.4%).
fn row(binary: &str, blocks: u32, gflops: f64) -> HeldRow {
    let ms = 1000.0 / gflops;
    let samples: Vec<f64> = (0..9)
        .map(|i| ms * (1.0 + 0.001 * f64::from(i - 4)))
        .collect();
    let timing: Timing = crate::sampling::summarize(samples, None, None);
    HeldRow {
        binary: binary.into(),
        dyn_smem: 1024 * (8 - blocks),
        figures: GemmFigures {
            schedule: None,
            block_trace: None,
            regs: 128,
            blocks_per_sm: blocks,
            occupancy: f64::from(blocks) / 8.0,
            limiter: "shared memory".into(),
            timing,
            gflops,
        },
        measured: Measured::passing(),
        whole_waves: vec![],
    }
}

#[test]
fn a_row_fills_every_column() {
    let r = row("C@128", 2, 9000.0);
    let t = columns_table("t", &Spec::columns(), std::slice::from_ref(&r));
    assert_eq!(t.rows[0].cells.len(), t.columns.len());
    for (head, shown) in [
        ("Binary", "C@128"),
        ("Blocks/SM", "2"),
        ("Dyn smem B", "6144"),
        ("Theo. occ", "25.0%"),
        ("Verified", "ok, err 1.0e-7"),
    ] {
        assert_eq!(t.cell(0, head).unwrap(), shown, "{head}");
    }
}

#[test]
fn the_verdict_reads_each_binarys_curve() {
    let judge = |rows: Vec<HeldRow>| claims::verdicts(Some(&rows)).remove(0);
    // Flat past two blocks for both binaries: the highest occupancy is not needed.
    let flat = vec![
        row("C", 1, 5000.0),
        row("C", 2, 8000.0),
        row("C", 3, 8000.0),
        row("R4", 1, 9000.0),
        row("R4", 2, 9010.0),
    ];
    let v = judge(flat);
    assert_eq!(v.outcome(), "HOLDS", "{}", v.evidence);
    says(&v, "C: 3 blocks/SM over 2");
    // One binary still gains at its highest occupancy: it does not hold.
    let rising = vec![row("C", 1, 5000.0), row("C", 2, 8000.0)];
    assert_eq!(judge(rising).outcome(), "DOES NOT HOLD");
    // One residency per binary: nothing to compare.
    assert_eq!(judge(vec![row("D", 1, 5000.0)]).outcome(), "NOT JUDGED");
    assert_eq!(claims::verdicts(None)[0].outcome(), "NOT JUDGED");
}

/// A row of `binary` at `blocks` blocks/SM in a run that recorded waves: `gflops` at the default
/// size and, where given, `whole` at the whole-wave size of C's 8-against-6 pair.
fn waved(binary: &str, blocks: u32, gflops: f64, whole: Option<f64>) -> HeldRow {
    use crate::experiments::whole_waves::tests::{figures, DEFAULT, WHOLE};
    use crate::experiments::whole_waves::WholeWave;
    HeldRow {
        binary: binary.into(),
        dyn_smem: 1024 * (8 - blocks),
        figures: figures(DEFAULT, blocks, gflops),
        measured: Measured::passing(),
        whole_waves: whole
            .map(|g| WholeWave {
                size: WHOLE,
                figures: figures(WHOLE, blocks, g),
            })
            .into_iter()
            .collect(),
    }
}

#[test]
fn the_pair_is_fixed_before_the_data() {
    let pairs: Vec<Option<u32>> = (1..=8).map(claims::compared_residency).collect();
    assert_eq!(
        pairs,
        [
            None,
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(5),
            Some(6),
            Some(6)
        ]
    );
}

/// C's curve, 1 to 8 blocks/SM: 8 over 6 blocks/SM is 15% faster at 4096², `at8` over 1000 at
/// whole waves (None: not timed there); 7 blocks/SM the fastest at the default size, which a
/// verdict picking the best lower row would have compared instead.
fn curve_c(at8: Option<f64>) -> Vec<HeldRow> {
    (1..=8)
        .map(|b| match b {
            8 => waved("C", 8, 1150.0, at8),
            6 => waved("C", 6, 1000.0, at8.map(|_| 1000.0)),
            7 => waved("C", 7, 1200.0, None),
            _ => waved("C", b, 500.0 + 50.0 * f64::from(b), None),
        })
        .collect()
}

#[test]
fn the_verdict_compares_the_fixed_pair_at_whole_waves() {
    let judge = |rows: Vec<HeldRow>| claims::verdicts(Some(&rows)).remove(0);
    // 1.15x at the default size, 1.01x at whole waves: within the band, it holds.
    let v = judge(curve_c(Some(1010.0)));
    assert_eq!(v.outcome(), "HOLDS", "{}", v.evidence);
    says(
        &v,
        "C: at 3072x4224x4096 (whole waves: 8 blocks/SM 3.00 waves",
    );
    says(
        &v,
        "at the default size 8 blocks/SM over 6 blocks/SM: 1.150",
    );
    assert!(v.rule.contains("fixed before the data"), "{}", v.rule);
    // Still 8% faster at whole waves: the highest occupancy is needed.
    let v = judge(curve_c(Some(1080.0)));
    assert_eq!(v.outcome(), "DOES NOT HOLD", "{}", v.evidence);
    // Not timed at whole waves: not judged, the default size's figures shown.
    let v = judge(curve_c(None));
    assert_eq!(v.outcome(), "NOT JUDGED", "{}", v.evidence);
    says(&v, "C: not judged: the pair was not timed");
}

#[test]
fn the_wave_columns_show_only_where_the_run_recorded_them() {
    use crate::experiments::gemm_figure_columns::shown_columns;
    let table = |rows: &[HeldRow]| columns_table("t", &shown_columns(Spec::columns(), rows), rows);
    let headers = |rows: &[HeldRow]| table(rows).header();
    let old = headers(&[row("C", 1, 5000.0)]);
    assert!(!old
        .iter()
        .any(|h| h == "Waves" || h == "Tiles" || h == "Tail eff."));
    let rows = curve_c(None);
    let new = headers(&rows);
    for h in ["Tiles", "Waves", "Tail eff."] {
        assert!(new.iter().any(|x| x == h), "{h}: {new:?}");
    }
    // No persistent grid among them: no tiles-per-block column.
    assert!(!new.iter().any(|h| h == "Tiles/block"));
    // 4096 tiles at 8 blocks/SM on 132 SMs: 3.879 waves, the last 88% full (tail 97.0%).
    let t = table(&rows);
    assert_eq!(rows[7].figures.blocks_per_sm, 8);
    assert_eq!(t.cell(7, "Tiles").unwrap(), "4096");
    assert_eq!(t.cell(7, "Waves").unwrap(), "3.879");
    assert_eq!(t.cell(7, "Tail eff.").unwrap(), "97.0%");
}

#[test]
fn the_trace_columns_show_only_where_a_row_was_traced_and_a_failed_trace_says_so() {
    use crate::experiments::block_trace::{BlockTrace, ClockMhz, TraceFigures};
    use crate::experiments::gemm_figure_columns::{shown_columns, trace_notes};
    let table = |rows: &[HeldRow]| columns_table("t", &shown_columns(Spec::columns(), rows), rows);
    let trace_heads = ["Achieved occ", "In-kernel MHz", "FLOP/cycle/SM"];
    // Runs before traces were: no such columns, no notes.
    let old = [row("C", 8, 5000.0)];
    assert!(!table(&old)
        .header()
        .iter()
        .any(|h| trace_heads.contains(&h.as_str())));
    assert!(trace_notes(&old).is_empty());
    let mut traced = row("C", 8, 5000.0);
    traced.figures.block_trace = Some(BlockTrace::Traced(TraceFigures {
        blocks: 4096,
        sms_used: 132,
        achieved_occupancy: 0.45,
        kernel_occupancy: 0.4,
        span_ns: 1_000_000,
        clock: ClockMhz {
            median: 1755.0,
            min: 1740.0,
            max: 1770.0,
        },
        flop_per_cycle_per_sm: Some(180.26),
        of_peak_at_clock: Some(0.7),
        traced_regs: None,
    }));
    let mut failed = row("D", 6, 4000.0);
    failed.figures.block_trace = Some(BlockTrace::Failed("the traced entry differs".into()));
    let rows = [traced, failed, row("R4", 4, 3000.0)];
    let t = table(&rows);
    for h in trace_heads {
        assert!(t.header().iter().any(|x| x == h), "{h}");
    }
    assert_eq!(t.cell(0, "Achieved occ").unwrap(), "45.0%");
    assert_eq!(t.cell(0, "In-kernel MHz").unwrap(), "1755");
    assert_eq!(t.cell(0, "FLOP/cycle/SM").unwrap(), "180.3");
    assert_eq!(t.cell(1, "In-kernel MHz").unwrap(), "trace failed");
    assert_eq!(t.cell(2, "Achieved occ").unwrap(), "n/a");
    let notes = trace_notes(&rows);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[1].starts_with("D at 6 blocks/SM: trace failed (the traced entry differs)")
            && notes[1].ends_with("its timed figures stand."),
        "{notes:?}"
    );
}
