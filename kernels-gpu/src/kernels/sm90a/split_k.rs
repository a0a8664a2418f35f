//! Split-K for the wgmma GEMM: where a problem has too few output tiles to give every SM one,
//! each tile's K is cut into units (`KSplit`), and the units of one tile meet in global memory;
//! so do the pieces of a streamed last wave's tiles (`StreamTail`), a tile's pieces being its
//! units there.
//!
//! Deterministic on purpose: the lab holds every one of its kernels to the same bits on every
//! launch (the race check), so the units do not add into C with atomics, whose order varies.
//! Each consumer warp of each unit writes its partial accumulators to its unit's slot of a
//! scratch buffer (`RingProblem::slot`), then counts itself in on a word of its own (cut tile,
//! warp) with an acquire-release add. The warp that counts last sums every unit's partial, its
//! own included, from the buffer in the units' order (K order), so the sum is the same
//! whichever unit ends last; it resets the word for the
//! next launch and runs the usual epilogue (alpha*sum + beta*C). Nothing waits on another block,
//! so no schedule of the blocks can deadlock.

use crate::gpu;
use crate::kernels::sm90a::tma_ring::{RingProblem, SplitScratch, Unit};

/// One consumer warp's place in a cut tile: the tile, the warp among the tile's warps
/// (`WgemmVariant::tile_warps`: the block's consumer warps, or in ping-pong one warpgroup's),
/// and the lane.
#[derive(Clone, Copy)]
pub struct WarpPart {
    pub tile: u32,
    pub warp: u32,
    pub lane: u32,
}

impl WarpPart {
    /// Index in `partials` of accumulator `r` of this lane in scratch slot `slot` (each
    /// register's 32 lanes side by side, so a warp's stores and loads are whole 128-byte lines).
    /// The slot is worked out once per unit, not per register: a streamed tail's takes 64-bit
    /// divisions, which LLVM did not hoist out of the unrolled loops (ptxas then ran for over
    /// ten minutes on the module).
    #[inline(always)]
    fn at<const ACC: usize>(&self, p: &RingProblem, slot: u32, r: u32) -> u32 {
        let unit_part = slot * p.line.tile_warps() + self.warp;
        (unit_part * ACC as u32 + r) * 32 + self.lane
    }

    /// Writes this warp's partial `d` of `unit` (of this part's tile) and counts it in; true for
    /// the warp that counts last, which then holds every unit's writes (acquired) and has reset
    /// the count.
    ///
    /// # Safety
    /// Every lane of the warp calls it together; `s` is the launch's scratch, sized for `p`
    /// (the kernel's contract), and each (tile, split, warp) is deposited once per launch.
    #[inline(always)]
    pub unsafe fn deposit<const ACC: usize, const STREAMED: bool>(
        &self,
        p: &RingProblem,
        s: SplitScratch,
        unit: &Unit,
        d: &[f32; ACC],
    ) -> bool {
        let slot = p.slot::<STREAMED>(self.tile, unit.split);
        let mut r = 0;
        while r < ACC {
            let at = self.at::<ACC>(p, slot, r as u32);
            // SAFETY: inside `partials` (the contract), written by this lane alone.
            unsafe { gpu::store_global(s.partials, at as isize, d[r]) };
            r += 1;
        }
        // Each lane's writes are released before lane 0's count (the warp barrier orders them
        // before it), as in CUDA's threadfence reduction.
        gpu::fence_gpu();
        gpu::warp_sync();
        let word = p.cut_tile::<STREAMED>(self.tile) * p.line.tile_warps() + self.warp;
        let before = if self.lane == 0 {
            // SAFETY: inside `arrivals` (the contract).
            unsafe { gpu::count_up_gpu(s.arrivals, word) }
        } else {
            0
        };
        let last = gpu::from_lane0(before) == unit.pieces - 1;
        if last {
            // The other units' writes, released before their counts, are acquired by lane 0's
            // count; the fence orders every lane's loads after it.
            gpu::fence_gpu();
            if self.lane == 0 {
                // SAFETY: every unit of this tile has counted in: nothing else touches the word
                // during this launch, and the next launch follows this one's end.
                unsafe { gpu::store_global(s.arrivals, word as isize, 0) };
            }
        }
        last
    }

    /// Sets `d` to the sum of the partials of the tile's `pieces` units, in the units' order
    /// (the last arrival's work, after [`WarpPart::deposit`] said it is last).
    ///
    /// # Safety
    /// Every unit of the tile has deposited, and this warp's deposit returned true.
    #[inline(always)]
    pub unsafe fn gather<const ACC: usize, const STREAMED: bool>(
        &self,
        p: &RingProblem,
        s: SplitScratch,
        pieces: u32,
        d: &mut [f32; ACC],
    ) {
        let slot = p.slot::<STREAMED>(self.tile, 0);
        let mut r = 0;
        while r < ACC {
            // SAFETY: inside `partials`, written before the counts this warp acquired.
            d[r] = unsafe { gpu::load_l2_f32(s.partials, self.at::<ACC>(p, slot, r as u32)) };
            r += 1;
        }
        let mut split = 1;
        while split < pieces {
            let slot = p.slot::<STREAMED>(self.tile, split);
            let mut r = 0;
            while r < ACC {
                // SAFETY: as above.
                d[r] += unsafe { gpu::load_l2_f32(s.partials, self.at::<ACC>(p, slot, r as u32)) };
                r += 1;
            }
            split += 1;
        }
    }
}
