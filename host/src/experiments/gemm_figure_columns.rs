//! The columns the GEMM experiments' tables show alike of a row's [`GemmFigures`], in their
//! order: registers, occupancy, GFLOP/s, resident blocks and their limiter, the time per call.

use super::cells;
use super::contract::{Row, GFLOPS};
use super::gemm_figures::GemmFigures;
use crate::table::{Column, Kind, Value};

/// A row of one timed GEMM build.
pub trait GemmFiguresRow: Row {
    fn gemm_figures(&self) -> &GemmFigures;
}

/// The [`GemmFigures`] columns, from registers to the time per call.
pub fn figure_columns<R: GemmFiguresRow>() -> [Column<R>; 6] {
    [
        Column::new("Regs/thread", Kind::Count, |r: &R| {
            Value::Int(r.gemm_figures().regs.into())
        }),
        Column::new("Theo. occ", Kind::Percent, |r| {
            Value::Float(r.gemm_figures().occupancy)
        }),
        Column::new("GFLOP/s", GFLOPS.kind(), |r| {
            cells::rate(r.gemm_figures().gflops, &r.measured().flags)
        }),
        Column::new("Blocks/SM", Kind::Count, |r| {
            Value::Int(r.gemm_figures().blocks_per_sm.into())
        }),
        Column::new("Limiter", Kind::Text, |r| {
            Value::Text(r.gemm_figures().limiter.clone())
        }),
        Column::new("ms/call", Kind::Duration, |r| {
            cells::timing(&r.gemm_figures().timing)
        }),
    ]
}
