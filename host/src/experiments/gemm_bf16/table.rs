//! The `gemm_bf16` experiment's columns and table (its rows, cuBLAS's row with the kernel it ran,
//! the check's note, the TMA ring's notes), and the dense BF16 peak its plot draws.

use super::{Bf16Row, Bf16Run, TensorPath};
use crate::cuda::tensor_peak::peak_bf16_dense_gflops;
use crate::experiments::bf16_tolerance;
use crate::experiments::cells::{self, BLOCK_TILE_KIND, WARP_TILE_KIND};
use crate::experiments::contract::GFLOPS;
use crate::experiments::gemm_cublas::{gemm_table, VS_CUBLAS};
use crate::experiments::gemm_figure_columns::{
    figure_columns, schedule_notes, shown_columns, trace_columns, trace_notes, wave_columns,
};
use crate::experiments::line_choice::auto_note;
use crate::results::DeviceInfo;
use crate::table::{Column, Kind, TableData, Value};

/// How cuBLAS's BF16 GEMM is called and timed, for the table's note.
const CUBLAS_CALL: &str = "cublasGemmEx with BF16 A and B, FP32 compute and C, default \
algorithm (row-major through C^T = B^T A^T), on the same inputs; its samples are interleaved \
with each line's and pooled in its row; Ours/cuBLAS compares the samples taken together.";

pub fn columns() -> Vec<Column<Bf16Row>> {
    let mut c: Vec<Column<Bf16Row>> = vec![
        Column::new("Variant", Kind::Text, |r| Value::Text(r.variant.clone())),
        Column::new("Threads/block", Kind::Count, |r| {
            Value::Int(r.threads.into())
        }),
        Column::new("Block tile", BLOCK_TILE_KIND, |r| {
            let (m, n, k) = r.block;
            Value::Dims(vec![m.into(), n.into(), k.into()])
        }),
        Column::new("Warp tile", WARP_TILE_KIND, |r| {
            Value::pair(r.warp.0.into(), r.warp.1.into())
        }),
        Column::new("Stages", Kind::Count, |r| Value::Int(r.stages.into())),
        Column::new("Smem/block", Kind::Bytes, |r| Value::Int(r.dyn_smem.into())),
    ];
    c.extend(figure_columns());
    c.extend(wave_columns());
    c.extend(trace_columns());
    c.extend([
        Column::new("Verified", Kind::Check, |r: &Bf16Row| {
            cells::check(&r.measured.check)
        }),
        Column::new(VS_CUBLAS, Kind::Ratio, |r| {
            r.vs_cublas.map_or(Value::NotAvailable, Value::Float)
        }),
    ]);
    c.extend(GFLOPS.compared_columns());
    c
}

/// The rows, cuBLAS's row (with the kernel it ran) where it was asked for, the check's note.
pub fn table(output: &Bf16Run, title: &str) -> TableData {
    let mut t = gemm_table(
        output,
        title.to_owned(),
        shown_columns(columns(), &output.rows),
        CUBLAS_CALL,
        bf16_tolerance::rule,
    );
    t.notes.extend(wgmma_notes(output));
    t.notes.extend(output.auto.as_ref().map(auto_note));
    let cublas_ran = output
        .cublas
        .as_ref()
        .is_some_and(|c| c.measured().is_some());
    t.notes.extend(schedule_notes(&output.rows, cublas_ran));
    t.notes.extend(trace_notes(&output.rows));
    t
}

/// What the TMA ring's rows are (wgmma, then mma.sync), where the run has any, and each line
/// that did not run with why.
fn wgmma_notes(output: &Bf16Run) -> Vec<String> {
    let ran = |path: TensorPath| {
        let labels: Vec<&str> = (output.rows.iter())
            .filter(|r| r.path == path)
            .map(|r| r.variant.as_str())
            .collect();
        (!labels.is_empty()).then(|| labels.join(", "))
    };
    // Who else built these lines: nobody, or the compared module's sm_90a companion (a run
    // recorded before the twin had one says the former).
    let builders = |path: TensorPath| {
        let compared = (output.rows.iter())
            .filter(|r| r.path == path)
            .any(|r| r.measured.compare.is_some());
        if compared {
            "the compared module's sm_90a companion builds these lines too"
        } else {
            "no compared module builds these lines"
        }
    };
    let wgmma = ran(TensorPath::Wgmma).map(|l| {
        format!(
            "{l}: wgmma (sm_90a) from a shared-memory ring that TMA fills, one producer \
             warpgroup and the consumer warpgroups the threads leave, a persistent grid of one \
             block per SM; the warp tile is one warp's share of its warpgroup's tile, and {}.",
            builders(TensorPath::Wgmma)
        )
    });
    let sync = ran(TensorPath::MmaSyncTma).map(|l| {
        format!(
            "{l}: mma.sync m16n8k16 (sm_90a for its data movement) fed by ldmatrix from the \
             same TMA ring, each slot refilled by its last reader; each warp waits \
             for and releases its slots alone (no block barrier in the K loop); a persistent \
             grid of one block per SM, and {}.",
            builders(TensorPath::MmaSyncTma)
        )
    });
    let not_run = output
        .not_run
        .iter()
        .map(|n| format!("{} did not run: {}.", n.variant, n.why));
    wgmma.into_iter().chain(sync).chain(not_run).collect()
}

/// The dense BF16 spec peak of a run's device, where the lab knows its rate.
pub fn bf16_peak(device: &DeviceInfo) -> Option<f64> {
    peak_bf16_dense_gflops(
        device.compute_capability,
        device.sm_count,
        device.sm_clock_khz,
    )
}

#[cfg(test)]
mod tests {
    use super::super::row::tests::run;
    use super::*;
    use crate::table::{to_csv, to_markdown};

    #[test]
    fn the_table_has_every_line_and_cublas_with_its_kernel() {
        let r = run();
        let t = table(&r, "t");
        let title = &t.title;
        assert!(title.contains("cuBLAS 13.1.0 (libcublas.so.13)"), "{title}");
        let csv = to_csv(&t);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4, "{csv}");
        for (i, start) in [
            (0, "Variant,Threads/block,Block tile M"),
            (1, "M1,128,128,128,32,64,64,4,65536,232,12.5"),
            (
                3,
                "cuBLAS 13.1.0: nvjet_tst_bf16,384,,,,,,,,168,18.75,650000",
            ),
        ] {
            assert!(lines[i].starts_with(start), "line {i}: {csv}");
        }
        let md = to_markdown(&t);
        assert!(md.contains("cublasGemmEx"), "{md}");
        assert!(md.contains("F(K) = 1 + sqrt(ceil(K/8))/4"), "{md}");
        assert!(md.contains("clusters of 2x1x1"), "{md}");
    }

    /// A wgmma row sits beside the mma.sync rows with its own note; a line that did not run
    /// says why in the notes, and a run without either has neither note.
    #[test]
    fn wgmma_rows_and_lines_that_did_not_run_are_noted() {
        let plain = table(&run(), "t");
        assert!(!plain
            .notes
            .iter()
            .any(|n| n.contains("wgmma") || n.contains("did not run")));
        let mut r = run();
        let mut w = r.rows[0].clone();
        w.variant = "W1".into();
        w.path = super::super::TensorPath::Wgmma;
        r.rows.push(w.clone());
        w.variant = "MT1".into();
        w.path = super::super::TensorPath::MmaSyncTma;
        r.rows.push(w);
        r.not_run.push(super::super::NotRun {
            variant: "W2".into(),
            why: "needs sm_90a (a compute capability 9.0 device)".into(),
        });
        let t = table(&r, "t");
        let csv = to_csv(&t);
        assert!(csv.lines().any(|l| l.starts_with("W1,")), "{csv}");
        // Each note by its start, the last one whole.
        for (wanted, whole) in [
            ("W1: wgmma (sm_90a)", false),
            ("MT1: mma.sync m16n8k16", false),
            (
                "W2 did not run: needs sm_90a (a compute capability 9.0 device).",
                true,
            ),
        ] {
            let found = (t.notes.iter()).any(|n| n == wanted || !whole && n.starts_with(wanted));
            assert!(found, "{wanted}: {:?}", t.notes);
        }
    }

    #[test]
    fn without_cublas_there_is_no_ratio_column() {
        let mut r = run();
        r.cublas = None;
        let csv = to_csv(&table(&r, "t"));
        assert!(
            !csv.contains("Ours/cuBLAS") && !csv.contains("cuBLAS 13"),
            "{csv}"
        );
    }

    /// A run that recorded its schedule shows tiles, waves for the grid of one block per tile,
    /// tiles per block for the persistent ring line, the tail for both, and notes saying what
    /// they are and why cuBLAS's row is blank there; a run before shows none of it.
    #[test]
    fn the_schedule_columns_show_waves_or_tiles_per_block() {
        use crate::cuda::LaunchShape;
        use crate::experiments::gemm_figures::Schedule;
        let headers = |t: &TableData| t.header();
        let plain = table(&run(), "t");
        for h in ["Tiles", "Waves", "Tiles/block", "Tail eff."] {
            assert!(!headers(&plain).iter().any(|x| x == h), "{h}");
        }
        assert!(!plain.notes.iter().any(|n| n.contains("Tail eff.")));
        let mut r = run();
        // M1 over 4096²: 32 x 32 tiles of 128 x 128, one block each, 2 blocks/SM on 132 SMs.
        let grid = LaunchShape {
            grid: (32, 32),
            threads: 128,
            dyn_smem: 0,
        };
        r.rows[0] = r.rows[0]
            .clone()
            .scheduled(Schedule::one_block_per_tile(&grid, 132));
        // A persistent line: the same 1024 tiles walked by 132 blocks.
        let mut w = r.rows[1].clone();
        w.variant = "W1".into();
        w.path = super::super::TensorPath::Wgmma;
        w.figures.blocks_per_sm = 1;
        let persistent = LaunchShape {
            grid: (132, 1),
            ..grid
        };
        r.rows
            .push(w.scheduled(Schedule::of_launch(1024, &persistent, 132)));
        let t = table(&r, "t");
        for h in ["Tiles", "Waves", "Tiles/block", "Tail eff."] {
            assert!(headers(&t).iter().any(|x| x == h), "{h}: {:?}", headers(&t));
        }
        // M1: 1024 / 264 = 3.879 waves; W1: 1024 / 132 = 7.758 tiles a block, tail 97.0%.
        assert_eq!(t.cell(0, "Waves").unwrap(), "3.879");
        assert_eq!(t.cell(0, "Tiles/block").unwrap(), "");
        assert_eq!(t.cell(2, "Tiles/block").unwrap(), "7.758");
        assert_eq!(t.cell(2, "Waves").unwrap(), "");
        assert_eq!(t.cell(2, "Tail eff.").unwrap(), "97.0%");
        // M4 was recorded without a schedule: n/a, not a figure.
        assert_eq!(t.cell(1, "Tiles").unwrap(), "n/a");
        // cuBLAS's row (the last) leaves them blank, and a note says why.
        assert_eq!(t.cell(3, "Waves").unwrap(), "");
        assert!(t
            .notes
            .iter()
            .any(|n| n.starts_with("cuBLAS's row leaves tiles")));
        assert!(t
            .notes
            .iter()
            .any(|n| n.starts_with("Tiles/block: a persistent")));
    }
}
