//! The columns the GEMM experiments' tables show alike of a row's [`GemmFigures`], in their
//! order: registers, occupancy, GFLOP/s, resident blocks and their limiter, the time per call;
//! and the launch's schedule (tiles, waves or tiles per block, the tail's efficiency), shown
//! only where some row recorded it ([`shown_columns`]); and the block trace's achieved occupancy,
//! clock inside the kernel and FLOP/cycle/SM at that clock, likewise only where some row was
//! traced.

use super::block_trace::{BlockTrace, TraceFigures};
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
/// Work units each tile's K is cut into (split-K; 1 where K is whole).
pub const K_SPLITS: &str = "K splits";
/// Tiles over SMs x blocks/SM (a grid of one block per tile).
pub const WAVES: &str = "Waves";
/// Tiles over the launched blocks (a persistent grid).
pub const TILES_PER_BLOCK: &str = "Tiles/block";
/// Waves over waves rounded up (tiles per block over its rounding, persistent).
pub const TAIL: &str = "Tail eff.";
/// Where the last partial wave was streamed over the grid (stream-K for the tail), the longest
/// run of its K slices a block took.
pub const LAST_WAVE: &str = "Tail run (K slices)";

/// The schedule's columns: tiles and the units each one's K is cut into; waves for a grid of
/// one block per unit, units per block for a persistent one (each empty on the other kind of
/// row); the tail's efficiency.
pub fn wave_columns<R: GemmFiguresRow>() -> [Column<R>; 6] {
    [
        Column::new(TILES, Kind::Count, |r: &R| {
            r.gemm_figures()
                .schedule
                .map_or(Value::NotAvailable, |s| Value::Int(s.tiles))
        }),
        Column::new(K_SPLITS, Kind::Count, |r: &R| {
            r.gemm_figures()
                .schedule
                .map_or(Value::NotAvailable, |s| Value::Int(s.k_splits.into()))
        }),
        Column::new(WAVES, Kind::Ratio, |r| waves_cell(r, false)),
        Column::new(TILES_PER_BLOCK, Kind::Ratio, |r| waves_cell(r, true)),
        Column::new(TAIL, Kind::Percent, |r| {
            r.gemm_figures()
                .waves()
                .map_or(Value::NotAvailable, |w| Value::Float(w.tail_efficiency()))
        }),
        Column::new(LAST_WAVE, Kind::Count, |r| {
            (r.gemm_figures().schedule)
                .and_then(|s| s.streamed_run())
                .map_or(Value::NotAvailable, |run| Value::Int(run.into()))
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

/// Achieved occupancy from the block trace (span-weighted over SMs).
pub const ACHIEVED_OCC: &str = "Achieved occ";
/// The SM clock inside the kernel, the blocks' median.
pub const KERNEL_MHZ: &str = "In-kernel MHz";
/// GFLOP/s per SM per cycle at the in-kernel clock.
pub const FLOP_PER_CYCLE: &str = "FLOP/cycle/SM";
/// What a row whose trace failed shows in the trace's columns.
const TRACE_FAILED: &str = "trace failed";

/// The block trace's columns: achieved occupancy, the in-kernel clock and FLOP/cycle/SM at it.
pub fn trace_columns<R: GemmFiguresRow>() -> [Column<R>; 3] {
    [
        Column::new(
            ACHIEVED_OCC,
            Kind::Percents {
                names: &[ACHIEVED_OCC, "Achieved occ, whole kernel"],
            },
            |r: &R| match &r.gemm_figures().block_trace {
                Some(BlockTrace::Traced(t)) => {
                    Value::Fractions(vec![t.achieved_occupancy, t.kernel_occupancy])
                }
                _ => trace_cell(r, |_| None),
            },
        ),
        Column::new(
            KERNEL_MHZ,
            Kind::Rate {
                unit: "MHz",
                decimals: 0,
            },
            |r| trace_cell(r, |t| Some(t.clock.median)),
        ),
        Column::new(
            FLOP_PER_CYCLE,
            Kind::Rate {
                unit: "FLOP/cycle/SM",
                decimals: 1,
            },
            |r| trace_cell(r, |t| t.flop_per_cycle_per_sm),
        ),
    ]
}

/// A figure of `r`'s trace: n/a where it was not traced, withheld where its trace failed.
fn trace_cell<R: GemmFiguresRow>(r: &R, f: impl Fn(&TraceFigures) -> Option<f64>) -> Value {
    match &r.gemm_figures().block_trace {
        None => Value::NotAvailable,
        Some(BlockTrace::Failed(_)) => Value::Withheld(TRACE_FAILED),
        Some(BlockTrace::Traced(t)) => f(t).map_or(Value::NotAvailable, Value::Float),
    }
}

/// The notes under a table whose rows were traced: what the trace's columns are, and each row
/// whose trace failed, with why (its timed figures stand). None where no row was traced.
pub fn trace_notes<R: GemmFiguresRow>(rows: &[R]) -> Vec<String> {
    if rows.iter().all(|r| r.gemm_figures().block_trace.is_none()) {
        return Vec::new();
    }
    let mut notes = vec![format!(
        "{ACHIEVED_OCC}, {KERNEL_MHZ}: from one untimed launch of each row's traced build (the \
         same kernel storing each block's start and end times, cycles and SM; used only where it \
         needs the shared memory and blocks/SM of the timed build (a register more or fewer is named below) and writes the \
         verified bits). {ACHIEVED_OCC}: per SM, resident warps over its active span over its \
         maximum warps, averaged over SMs weighted by span (the whole-kernel figure, over every \
         SM and the kernel's span, is in the CSV and JSON). {KERNEL_MHZ}: the median block's \
         cycles over its nanoseconds; {FLOP_PER_CYCLE}: GFLOP/s over SMs x that clock."
    )];
    for r in rows {
        match &r.gemm_figures().block_trace {
            Some(BlockTrace::Failed(why)) => notes.push(format!(
                "{}: {TRACE_FAILED} ({why}); its timed figures stand.",
                r.label()
            )),
            Some(BlockTrace::Traced(f)) => notes.extend(f.traced_regs.map(|regs| {
                format!(
                    "{}: its traced build has {regs} registers/thread, not the timed build's {} \
                     (same blocks/SM and shared memory).",
                    r.label(),
                    r.gemm_figures().regs
                )
            })),
            None => {}
        }
    }
    notes
}

/// `columns` without the schedule's where no row of `rows` recorded one (runs before waves
/// were keep their tables), without tiles per block where no grid was persistent, without K
/// splits where no row cut K, and without the trace's where no row was traced.
pub fn shown_columns<R: GemmFiguresRow>(columns: Vec<Column<R>>, rows: &[R]) -> Vec<Column<R>> {
    let traced = rows.iter().any(|r| r.gemm_figures().block_trace.is_some());
    let scheduled = rows.iter().any(|r| r.gemm_figures().schedule.is_some());
    let persistent = (rows.iter())
        .filter_map(|r| r.gemm_figures().schedule)
        .any(|s| s.persistent());
    let cut = (rows.iter())
        .filter_map(|r| r.gemm_figures().schedule)
        .any(|s| s.k_splits > 1);
    let streamed = (rows.iter())
        .filter_map(|r| r.gemm_figures().schedule)
        .any(|s| s.streamed.is_some());
    columns
        .into_iter()
        .filter(|c| match c.header {
            TILES | WAVES | TAIL => scheduled,
            TILES_PER_BLOCK => persistent,
            K_SPLITS => cut,
            LAST_WAVE => streamed,
            ACHIEVED_OCC | KERNEL_MHZ | FLOP_PER_CYCLE => traced,
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
    if schedules.iter().any(|s| s.k_splits > 1) {
        notes.push(format!(
            "{K_SPLITS}: where a wgmma line's tiles would leave many SMs idle, each tile's K is \
             cut into that many units (split-K, the rule in docs/design.md), run by different \
             blocks and summed in a fixed order by the last to finish; {WAVES} and \
             {TILES_PER_BLOCK} count units."
        ));
    }
    if schedules.iter().any(|s| s.streamed.is_some()) {
        notes.push(format!(
            "{LAST_WAVE}: where a wgmma line's tiles past its last whole wave are not dealt a \
             tile per block, their 64-deep K slices are shared out in equal runs over every \
             block (stream-K for the tail, the rule in docs/design.md), a tile's pieces summed \
             in a fixed order by the last to finish: the longest run; {TAIL} counts the \
             busiest block's slices."
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
