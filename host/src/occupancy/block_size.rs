//! The block size with the highest occupancy, as `cudaOccupancyMaxPotentialBlockSize` picks it.

use serde::Serialize;
use thiserror::Error;

use super::arch::Limits;
use super::calc::{occupancy, KernelResources};

/// The suggested launch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockSizeSuggestion {
    pub block_size: u32,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    pub occupancy: f64,
    /// Blocks for one full wave (`blocks_per_sm × SMs`), when the SM count is known.
    pub min_grid_size: Option<u64>,
}

/// No block size lets the kernel launch.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "no block size up to {limit} can launch a kernel with {regs} registers/thread, \
     {static_smem} B static and {dyn_smem} B dynamic shared memory"
)]
pub struct NoBlockSize {
    pub limit: u32,
    pub regs: u32,
    pub static_smem: u32,
    pub dyn_smem: u32,
}

/// Tries every block size from the largest multiple of the warp size down (the first candidate, the
/// largest, is capped at `block_size_limit`), keeps the one with the most resident threads; a tie
/// keeps the larger block, and the search stops once the SM is full. `threads` in `kernel` is
/// ignored.
pub fn max_potential_block_size(
    limits: &Limits,
    kernel: &KernelResources,
    block_size_limit: Option<u32>,
) -> Result<BlockSizeSuggestion, NoBlockSize> {
    let limit = block_size_limit
        .filter(|&l| l > 0)
        .map_or(limits.max_threads_per_block, |l| {
            l.min(limits.max_threads_per_block)
        });
    let warp = limits.warp_size;
    let full = u64::from(limits.max_warps_per_sm) * u64::from(warp);
    let mut best: Option<BlockSizeSuggestion> = None;
    let mut best_threads = 0;
    let mut aligned = limit.next_multiple_of(warp);
    while aligned > 0 {
        let threads = aligned.min(limit);
        let candidate = KernelResources { threads, ..*kernel };
        if let Ok(occ) = occupancy(limits, &candidate) {
            let resident = u64::from(threads) * u64::from(occ.blocks_per_sm);
            if resident > best_threads {
                best_threads = resident;
                best = Some(BlockSizeSuggestion {
                    block_size: threads,
                    blocks_per_sm: occ.blocks_per_sm,
                    warps_per_sm: occ.warps_per_sm,
                    occupancy: occ.occupancy,
                    min_grid_size: limits
                        .sm_count
                        .map(|n| u64::from(n) * u64::from(occ.blocks_per_sm)),
                });
            }
        }
        if best_threads == full {
            break;
        }
        aligned -= warp;
    }
    best.ok_or(NoBlockSize {
        limit,
        regs: kernel.regs_per_thread,
        static_smem: kernel.static_smem,
        dyn_smem: kernel.dyn_smem,
    })
}
