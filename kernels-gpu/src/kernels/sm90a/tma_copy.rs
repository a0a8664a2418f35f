//! The copy through shared memory by Hopper's bulk copies (sm_90a): lane 0 of each warp moves
//! its ring's stages with one `cp.async.bulk` in and one bulk store out each, the loads
//! completed on an mbarrier a slot. The contract and the ring are in `sections/smem_copy.rs`.

use crate::gpu;
use crate::sections::smem_copy::{whole_vectors, COPY_LANES, MBARRIER_BYTES};
use crate::variants::SmemCopyArgs;

/// # Safety
/// Launched with THREADS threads per block and at least `THREADS / 32 x STAGES x (STAGE_BYTES +
/// 8)` bytes of dynamic shared memory; `src` and `dst` hold `n` floats, are 16-byte aligned and
/// do not overlap.
#[inline(always)]
pub unsafe fn tma_copy<const THREADS: u32, const STAGE_BYTES: u32, const STAGES: u32>(
    args: SmemCopyArgs,
) {
    let SmemCopyArgs { src, dst, n } = args;
    let warps = THREADS / COPY_LANES;
    let warp = gpu::thread_idx_x() / COPY_LANES;
    if gpu::lane_id() != 0 {
        return;
    }
    let grid_warps = u64::from(gpu::grid_dim_x()) * u64::from(warps);
    let first = u64::from(gpu::block_idx_x()) * u64::from(warps) + u64::from(warp);
    let vectors = whole_vectors(n);
    let tile_vectors = u64::from(STAGE_BYTES / 16);
    let tiles = vectors.div_ceil(tile_vectors);
    let base = gpu::dynamic_shared_base();
    let ring = base + warp * STAGES * STAGE_BYTES;
    let bars = base + warps * STAGES * STAGE_BYTES + warp * STAGES * MBARRIER_BYTES;
    let slot = |s: u32| ring + s * STAGE_BYTES;
    let bar = |s: u32| bars + s * MBARRIER_BYTES;
    // The whole vectors of tile t (the last tile may be short), in bytes: a multiple of 16.
    let tile_bytes = |t: u64| ((vectors - t * tile_vectors).min(tile_vectors) * 16) as u32;
    for s in 0..STAGES {
        // SAFETY: the slot's barrier, 8-byte aligned after the rings; fenced below before use.
        unsafe { gpu::mbarrier_init(bar(s), 1) };
    }
    // The initialisations visible to the bulk copies that complete on these barriers; the one
    // thread that initialised them is the only one that waits on them.
    gpu::fence_proxy_async_shared();
    // Tile t into the stage whose slot and barrier are at `slot_at` and `bar_at`; past the last
    // tile nothing is issued (and nothing waits on it). The refill takes the addresses the
    // stage's wait used rather than recomputing them from the stage index: with the index
    // recomputed, ptxas 13.0 gave the refill's UBLKCP the current stage's slot (the one the
    // store still reads) and the previous stage's barrier, so every tile after a warp's first
    // ring was stored from a stale slot (SASS in docs/shared-memory-and-wgmma.md).
    let fill = |t: u64, slot_at: u32, bar_at: u32| {
        if t < tiles {
            let bytes = tile_bytes(t);
            // SAFETY: the tile's whole vectors lie inside `src`, 16-byte aligned; the slot holds
            // a stage; its barrier expects exactly these bytes in its current phase.
            unsafe {
                gpu::mbarrier_arrive_expect_tx(bar_at, bytes);
                gpu::bulk_load(slot_at, src, t * tile_vectors * 4, bytes, bar_at);
            }
        }
    };
    for s in 0..STAGES {
        fill(first + u64::from(s) * grid_warps, slot(s), bar(s));
    }
    // Bit s: the parity of stage s's next phase to complete.
    let mut parity = 0u32;
    let (mut tile, mut s, mut previous) = (first, 0u32, None);
    while tile < tiles {
        let (slot_at, bar_at) = (gpu::opaque(slot(s)), gpu::opaque(bar(s)));
        // SAFETY: an initialised barrier of this warp's ring.
        unsafe { gpu::mbarrier_wait(bar_at, (parity >> s) & 1) };
        parity ^= 1 << s;
        gpu::fence_proxy_async_shared();
        // SAFETY: the tile's whole vectors lie inside `dst`; the slot holds them (its load's
        // phase has completed); the slot is refilled only after this store has read it.
        unsafe { gpu::bulk_store(dst, tile * tile_vectors * 4, slot_at, tile_bytes(tile)) };
        gpu::bulk_commit();
        // The store issued one tile ago has read its stage: refill that stage.
        if let Some((prev_tile, prev_slot, prev_bar)) = previous {
            gpu::bulk_wait_read_pending(1);
            fill(
                prev_tile + u64::from(STAGES) * grid_warps,
                prev_slot,
                prev_bar,
            );
        }
        previous = Some((tile, slot_at, bar_at));
        tile += grid_warps;
        s = if s + 1 == STAGES { 0 } else { s + 1 };
    }
    gpu::bulk_wait_all();
}
