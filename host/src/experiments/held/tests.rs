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

/// A row of `binary` at `blocks` blocks/SM with GFLOP/s `gflops` (samples ±0.1%).
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
