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
    let mut i = 0;
    while i < gemm.len() {
        let mut j = i + 1;
        while j < gemm.len() {
            if str_eq(gemm[i].entry, gemm[j].entry) || str_eq(gemm[i].label, gemm[j].label) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    let mut i = 0;
    while i < memcpy.len() {
        let mut j = i + 1;
        while j < memcpy.len() {
            if str_eq(memcpy[i].point.entry, memcpy[j].point.entry)
                || str_eq(memcpy[i].label, memcpy[j].label)
            {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// No (op, ILP) pair twice among the FMA controls.
pub(crate) const fn controls_unique(controls: &[FmaVariant]) -> bool {
    let mut i = 0;
    while i < controls.len() {
        let mut j = i + 1;
        while j < controls.len() {
            if controls[i].op as u8 == controls[j].op as u8 && controls[i].ilp == controls[j].ilp {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}
