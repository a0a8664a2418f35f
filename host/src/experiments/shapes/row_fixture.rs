//! A synthetic row of the sweep for the CPU tests of its table, claim and figure.

use super::row::{Family, ShapeRow};
use crate::experiments::gemm_cublas::tests::cublas_row;
use crate::experiments::gemm_cublas::CublasOutcome;
use crate::experiments::gemm_figures::{GemmFigures, Schedule};
use crate::experiments::line_choice::Choice;
use crate::results::{GemmDims, Timing};

/// A row of `family` at `dims`: ours over cuBLAS `x`, cuBLAS's call `cublas_ms` long (its kernel
/// read: 132 blocks at 18.75%), ours launching `blocks` blocks at `occupancy`, one block/SM.
pub fn row(
    family: Family,
    dims: GemmDims,
    x: f64,
    cublas_ms: f64,
    (blocks, occupancy): (u64, f64),
) -> ShapeRow {
    let cublas = cublas_row(1000.0, vec![cublas_ms; 5], Some("nvjet_sm90_tst_64x8"));
    ShapeRow {
        family,
        dims,
        choice: Choice {
            label: Some("W3".into()),
            why: "under one wave".into(),
        },
        line: "W3".into(),
        figures: GemmFigures {
            regs: 168,
            blocks_per_sm: 1,
            occupancy,
            limiter: "shared memory".into(),
            timing: Timing {
                median_ms: cublas_ms / x,
                ..Timing::default()
            },
            gflops: 1000.0 * x,
            schedule: Some(Schedule {
                tiles: blocks,
                blocks,
                sms: 132,
                k_splits: 1,
                streamed: None,
            }),
            block_trace: None,
        },
        cublas: Some(CublasOutcome::Measured(Box::new(cublas))),
        vs_cublas: Some(x),
        measured: crate::experiments::measured::Measured::passing(),
        reading_c: None,
    }
}
