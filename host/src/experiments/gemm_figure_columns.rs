//! The columns the GEMM experiments' tables show alike of a row's [`GemmFigures`], in their
//! order: registers, occupancy, GFLOP/s, resident blocks and their limiter, the time per call;
//! and the launch's schedule (tiles, waves or tiles per block, the tail's efficiency), shown
//! only where some row recorded it ([`shown_columns`]).

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

/// Output tiles of the launch.
pub const TILES: &str = "Tiles";
/// Tiles over SMs x blocks/SM (a grid of one block per tile).
pub const WAVES: &str = "Waves";
/// Tiles over the launched blocks (a persistent grid).
pub const TILES_PER_BLOCK: &str = "Tiles/block";
/// Waves over waves rounded up (tiles per block over its rounding, persistent).
pub const TAIL: &str = "Tail eff.";

/// The schedule's columns: tiles; waves for a grid of one block per tile, tiles per block for
/// a persistent one (each empty on the other kind of row); the tail's efficiency.
pub fn wave_columns<R: GemmFiguresRow>() -> [Column<R>; 4] {
    [
        Column::new(TILES, Kind::Count, |r: &R| {
            r.gemm_figures()
                .schedule
                .map_or(Value::NotAvailable, |s| Value::Int(s.tiles))
        }),
        Column::new(WAVES, Kind::Ratio, |r| waves_cell(r, false)),
        Column::new(TILES_PER_BLOCK, Kind::Ratio, |r| waves_cell(r, true)),
        Column::new(TAIL, Kind::Percent, |r| {
            r.gemm_figures()
                .waves()
                .map_or(Value::NotAvailable, |w| Value::Float(w.tail_efficiency()))
        }),
    ]
}

/// Waves (`persistent` false) or tiles per block (true): empty on a row of the other kind.
fn waves_cell<R: GemmFiguresRow>(r: &R, persistent: bool) -> Value {
    let f = r.gemm_figures();
    match (f.schedule, f.waves()) {
        (Some(s), Some(w)) if s.persistent() == persistent => Value::Float(w.waves()),
        (Some(_), _) => Value::Empty,
        _ => Value::NotAvailable,
    }
}

/// `columns` without the schedule's where no row of `rows` recorded one (runs before waves
/// were keep their tables), and without tiles per block where no grid was persistent.
pub fn shown_columns<R: GemmFiguresRow>(columns: Vec<Column<R>>, rows: &[R]) -> Vec<Column<R>> {
    let scheduled = rows.iter().any(|r| r.gemm_figures().schedule.is_some());
    let persistent = (rows.iter())
        .filter_map(|r| r.gemm_figures().schedule)
        .any(|s| s.persistent());
    columns
        .into_iter()
        .filter(|c| match c.header {
            TILES | WAVES | TAIL => scheduled,
            TILES_PER_BLOCK => persistent,
            _ => true,
        })
        .collect()
}

/// The notes under a table whose rows show their schedule: what waves and the tail are, tiles
/// per block where a grid is persistent, and (`cublas_ran`) why cuBLAS's row leaves them blank.
/// None for runs before the schedule was recorded.
pub fn schedule_notes<R: GemmFiguresRow>(rows: &[R], cublas_ran: bool) -> Vec<String> {
    let schedules: Vec<_> = rows
        .iter()
        .filter_map(|r| r.gemm_figures().schedule)
        .collect();
    if schedules.is_empty() {
        return Vec::new();
    }
    let mut notes = vec![format!(
        "{WAVES}: output tiles over SMs ({}) x blocks/SM; {TAIL}: waves over waves rounded up \
         (100%: every wave full; below, the last wave leaves slots idle).",
        schedules[0].sms
    )];
    if schedules.iter().any(|s| s.persistent()) {
        notes.push(format!(
            "{TILES_PER_BLOCK}: a persistent grid's tiles over the blocks it launched, in place \
             of waves; its {TAIL} is the share of the last round's blocks that have a tile."
        ));
    }
    if cublas_ran {
        notes.push(
            "cuBLAS's row leaves tiles, waves and tail blank: its grid is its own kernel's \
             (CUPTI records the blocks it launched, not the tiles each covers nor whether it is \
             persistent or splits K)."
                .to_owned(),
        );
    }
    notes
}
