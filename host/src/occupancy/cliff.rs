//! Seed 002's register cliff table, recomputed by the real allocation rules.

use serde::Serialize;

use super::arch::Limits;
use super::calc::{regs_per_warp, warps_by_registers};

/// Registers/thread the seeds tabulate, with the resident warps they print for a 64 K register,
/// 64-warp SM. Seed 002 divides the whole register file by the per-warp charge; seed 003 adds
/// 128 and 255. The sub-partition rounding is missing from both.
pub const SEED_FIGURES: [(u32, u32); 8] = [
    (32, 64),
    (33, 51),
    (40, 51),
    (48, 42),
    (64, 32),
    (96, 21),
    (128, 16),
    (255, 8),
];

/// One row of the cliff table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CliffRow {
    pub regs_per_thread: u32,
    /// Registers charged per warp after rounding to the allocation unit.
    pub regs_per_warp: u32,
    /// Warps the register file holds (before block rounding).
    pub warps: u32,
    pub occupancy: f64,
    /// The seeds' figure, when it differs from the real one on a 64-warp, 64 K register SM.
    pub seed_warps: Option<u32>,
}

/// The cliff table for `limits`: the seeds' register counts plus `extra` ones, sorted.
pub fn cliff_table(limits: &Limits, extra: &[u32]) -> Vec<CliffRow> {
    let mut regs: Vec<u32> = SEED_FIGURES.iter().map(|&(r, _)| r).collect();
    regs.extend(
        extra
            .iter()
            .copied()
            .filter(|&r| r <= limits.max_regs_per_thread),
    );
    regs.sort_unstable();
    regs.dedup();
    let seed_applies = limits.max_warps_per_sm == 64 && limits.regs_per_sm == 64 * 1024;
    regs.into_iter()
        .map(|r| {
            let warps = warps_by_registers(limits, r);
            let seed_warps = SEED_FIGURES
                .iter()
                .find(|&&(sr, _)| sr == r)
                .map(|&(_, w)| w)
                .filter(|&w| seed_applies && w != warps);
            CliffRow {
                regs_per_thread: r,
                regs_per_warp: regs_per_warp(limits, r),
                warps,
                occupancy: f64::from(warps) / f64::from(limits.max_warps_per_sm),
                seed_warps,
            }
        })
        .collect()
}
