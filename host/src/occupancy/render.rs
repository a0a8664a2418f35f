//! Text tables for the calculator's answers.

use std::fmt::Write as _;

use crate::table::{csv_text, grid, markdown_grid, percent as pct, Format, Grid};

use super::arch::Limits;
use super::block_size::BlockSizeSuggestion;
use super::calc::{limiter_names, KernelResources, Limiter, Occupancy};
use super::cliff::CliffRow;
use super::curves::Curve;

/// A table in `format` (`psql` style for the terminal).
fn table(format: Format, header: &[&str], rows: Vec<Vec<String>>) -> String {
    match format {
        Format::Table => grid(header, &rows, Grid::Psql),
        Format::Markdown => markdown_grid(header, &rows),
        Format::Csv | Format::Json => csv_text(header, &rows),
    }
}

fn limit(n: u32) -> String {
    if n == u32::MAX {
        "unlimited".to_string()
    } else {
        n.to_string()
    }
}

/// The kernel in one line.
pub fn kernel_line(limits: &Limits, k: &KernelResources) -> String {
    format!(
        "{}: {} threads/block ({} warps), {} registers/thread, {} B static + {} B dynamic shared memory",
        limits.name,
        k.threads,
        limits.warps_per_block(k.threads),
        k.regs_per_thread,
        k.static_smem,
        k.dyn_smem
    )
}

/// The main answer: Nsight Compute's block-limit rows and the resulting occupancy.
pub fn occupancy_report(
    format: Format,
    limits: &Limits,
    k: &KernelResources,
    o: &Occupancy,
) -> String {
    let mut s = kernel_line(limits, k);
    s.push('\n');
    let _ = writeln!(
        s,
        "allocated: {} registers/warp, {} B shared memory/block ({} B reserved, {} B unit); SM shared memory config {} B",
        o.regs_per_warp,
        o.smem_per_block,
        limits.reserved_smem_per_block,
        limits.smem_alloc_unit,
        o.smem_config
    );
    let rows = [
        (Limiter::Registers, "Block Limit Registers"),
        (Limiter::SharedMemory, "Block Limit Shared Mem"),
        (Limiter::Warps, "Block Limit Warps"),
        (Limiter::Blocks, "Block Limit SM"),
    ]
    .into_iter()
    .map(|(l, label)| {
        vec![
            label.to_string(),
            limit(o.block_limits.of(l)),
            if o.binding.contains(&l) {
                "binding".to_string()
            } else {
                String::new()
            },
        ]
    })
    .collect();
    s.push_str(&table(format, &["limit", "blocks/SM", ""], rows));
    let _ = write!(
        s,
        "\nresident per SM: {} blocks, {} of {} warps -> occupancy {} (limited by {})\n",
        o.blocks_per_sm,
        o.warps_per_sm,
        o.max_warps_per_sm,
        pct(o.occupancy),
        limiter_names(&o.binding)
    );
    s
}

/// The suggested block size.
pub fn block_size_report(b: &BlockSizeSuggestion) -> String {
    let grid = match b.min_grid_size {
        Some(g) => format!("minimum grid {g} blocks"),
        None => format!(
            "minimum grid {} blocks × SM count (give --sms or --device)",
            b.blocks_per_sm
        ),
    };
    format!(
        "max potential block size: {} threads -> {} blocks/SM, {} warps, occupancy {}; {}\n",
        b.block_size,
        b.blocks_per_sm,
        b.warps_per_sm,
        pct(b.occupancy),
        grid
    )
}

/// The register cliff table.
pub fn cliff_report(format: Format, limits: &Limits, rows: &[CliffRow]) -> String {
    let body = rows
        .iter()
        .map(|r| {
            vec![
                r.regs_per_thread.to_string(),
                r.regs_per_warp.to_string(),
                r.warps.to_string(),
                pct(r.occupancy),
                r.seed_warps
                    .map(|w| format!("seed says {w}: it ignores the per-sub-partition split"))
                    .unwrap_or_default(),
            ]
        })
        .collect();
    format!(
        "register cliff on {} ({} registers/SM in {} sub-partitions, {}-register allocation unit per warp, {} warps max)\n{}\n",
        limits.name,
        limits.regs_per_sm,
        limits.sub_partitions,
        limits.reg_alloc_unit,
        limits.max_warps_per_sm,
        table(
            format,
            &["regs/thread", "allocated/warp", "resident warps", "occupancy", "note"],
            body
        )
    )
}

/// A curve as a table, keeping only the points where the result changes (and the ends).
pub fn curve_report(format: Format, c: &Curve) -> String {
    let mut rows = Vec::new();
    let n = c.points.len();
    for (i, p) in c.points.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| &c.points[j]);
        let changed = prev.is_none_or(|q| {
            q.blocks_per_sm != p.blocks_per_sm || q.binding != p.binding || q.error != p.error
        });
        if changed || i + 1 == n {
            rows.push(vec![
                p.x.to_string(),
                p.blocks_per_sm.to_string(),
                p.warps_per_sm.to_string(),
                pct(p.occupancy),
                match &p.error {
                    Some(e) => format!("cannot launch: {e}"),
                    None => limiter_names(&p.binding),
                },
            ]);
        }
    }
    format!(
        "occupancy vs {} on {} ({} points; rows where the result changes)\n{}\n",
        c.axis.label(),
        c.arch,
        n,
        table(
            format,
            &[
                c.axis.label(),
                "blocks/SM",
                "warps/SM",
                "occupancy",
                "limited by"
            ],
            rows
        )
    )
}
