//! The copy whose bytes in flight live in shared memory (`cp.async` into a ring per warp, then
//! stores from registers). The contract, the ring and where each chunk goes are in
//! `sections/smem_copy.rs`, which the host's check shares.

use crate::gpu::{self, Vector};
use crate::sections::smem_copy::{chunk_float, whole_vectors, CHUNK_BYTES, COPY_LANES, STAGE_UNIT};
use crate::variants::SmemCopyArgs;

/// # Safety
/// Launched with THREADS threads per block and at least `THREADS / 32 x STAGES x CHUNKS x 512`
/// bytes of dynamic shared memory; `src` and `dst` hold `n` floats, are 16-byte aligned and do
/// not overlap.
#[inline(always)]
pub unsafe fn cp_async_copy<const THREADS: u32, const CHUNKS: u32, const STAGES: u32>(
    args: SmemCopyArgs,
) {
    let SmemCopyArgs { src, dst, n } = args;
    let lane = gpu::lane_id();
    let warps = THREADS / COPY_LANES;
    let warp = gpu::thread_idx_x() / COPY_LANES;
    let grid_warps = u64::from(gpu::grid_dim_x()) * u64::from(warps);
    let first = u64::from(gpu::block_idx_x()) * u64::from(warps) + u64::from(warp);
    let vectors = whole_vectors(n);
    let tiles = vectors.div_ceil(u64::from(CHUNKS * COPY_LANES));
    let stage = CHUNKS * STAGE_UNIT;
    let ring = gpu::dynamic_shared_base() + warp * STAGES * stage;
    let slot = |s: u32, j: u32| ring + s * stage + (j * COPY_LANES + lane) * CHUNK_BYTES;
    // The lane's chunks of `tile` into stage `s`; past the last vector nothing is issued, and
    // the (empty) commit group that follows keeps every lane's group count in step.
    let fill = |tile: u64, s: u32| {
        for j in 0..CHUNKS {
            let f = chunk_float(tile, CHUNKS, j, lane);
            if f / 4 < vectors {
                // SAFETY: a whole vector inside `src`; the slot lies in this warp's ring, inside
                // the launch's shared memory, 16-byte aligned.
                unsafe { gpu::cp_async_16(slot(s, j), src, f) };
            }
        }
        gpu::cp_async_commit();
    };
    let mut next = first;
    for s in 0..STAGES {
        fill(next, s);
        next += grid_warps;
    }
    let (mut tile, mut s) = (first, 0);
    while tile < tiles {
        // The oldest of the STAGES groups in flight, this stage's, has landed.
        gpu::cp_async_wait_pending(STAGES - 1);
        for j in 0..CHUNKS {
            let f = chunk_float(tile, CHUNKS, j, lane);
            if f / 4 < vectors {
                let v = gpu::shared_load4(slot(s, j), 0);
                // SAFETY: a whole vector inside `dst`, which `src` does not overlap.
                unsafe { Vector::<4>(v).store(dst, f / 4) };
            }
        }
        // The stores above took the stage's bytes out of registers, so the refill cannot
        // overwrite them before they are read.
        fill(next, s);
        next += grid_warps;
        tile += grid_warps;
        s = if s + 1 == STAGES { 0 } else { s + 1 };
    }
    gpu::cp_async_wait_pending(0);
}
