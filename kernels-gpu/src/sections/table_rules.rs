//! The compile-time rules the variant table's lines are held to (const fns: no allocation, no
//! iterators), besides each family's own shape rules.

use crate::sections::gemm::GemmVariant;
use crate::sections::memcpy::{MemcpyPoint, MemcpyVariant};
use crate::sections::probes::FmaVariant;
use crate::sections::text_rules::str_eq;

pub(crate) const fn grid_has(grid: &[MemcpyPoint], threads: u32, loads: u32, width: u32) -> bool {
    let mut i = 0;
    while i < grid.len() {
        let p = &grid[i];
        if p.threads == threads && p.loads == loads && p.width == width {
            return true;
        }
        i += 1;
    }
    false
}

pub(crate) const fn entries_unique(gemm: &[GemmVariant], memcpy: &[MemcpyVariant]) -> bool {
    no_two_alike!(gemm, |a, b| str_eq(a.entry, b.entry)
        || str_eq(a.label, b.label))
        && no_two_alike!(memcpy, |a, b| str_eq(a.point.entry, b.point.entry)
            || str_eq(a.label, b.label))
}

/// No (op, ILP) pair twice among the FMA controls.
pub(crate) const fn controls_unique(controls: &[FmaVariant]) -> bool {
    no_two_alike!(controls, |a, b| a.op as u8 == b.op as u8 && a.ilp == b.ilp)
}
