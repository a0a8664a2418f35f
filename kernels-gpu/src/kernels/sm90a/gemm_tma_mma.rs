//! The BF16 GEMM of `mma.sync` fed by Hopper's TMA (sm_90a): the ring, loads and persistent
//! walk of the wgmma GEMM (`tma_ring.rs`), with consumer warps that read their fragments from a
//! slot by `ldmatrix` and run m16n8k16 `mma.sync` on them, as the `gemm_bf16` family does.
//!
//! Why it exists: the `gemm_bf16` family's warps copy their own slices (`cp.async`) and meet at
//! a block barrier every slice. Here one thread issues each slot's copies (a TMA instruction a
//! box), and each consumer warp waits only for the slot it reads (its full barrier) and
//! releases it alone (its count): a warp that stalls on its fragments holds no other warp back,
//! and no copy instruction or address arithmetic is issued beside the MMAs.
//!
//! There is no producer warp. Thread 0 fills the whole ring first; after that, the last warp
//! to finish reading a slot loads the slot's next fill itself: each warp, done with a slot,
//! adds one to the slot's count (acquire-release), and the warp that sees the others' adds
//! knows they are done with it and issues the TMA at once. No thread waits for a free slot, and
//! a slot is refilled the moment it is free. A ninth, producer warp would cost every warp its
//! 64 x 64 tile: the register file is split between the SM's four schedulers, so a block of 9
//! warps gets the registers of 12 per thread (168, where 8 warps get 255), and `setmaxnreg`
//! cannot lift a warp past what ptxas compiled the entry for.
//!
//! Fragments are double-buffered across k16 steps and across slots: a slot's last step loads
//! the next slot's first fragments (after its full barrier) while its own MMAs run, and the
//! slot is released before them, its fragments being in registers. What it measured against the
//! cp.async family, and why `mma.sync` stays near 70% of its ceiling in both, is in
//! `docs/design.md`.

use crate::gpu;
use crate::kernels::gemm_epilogue::Output;
use crate::kernels::sm90a::tma_ring::{Fill, Release, Ring, RingProblem, RingStart};
use crate::sections::gemm_wgmma::{tile_of, RingMma, WgemmVariant};
use crate::shapes::mma_layout::warp_tile_accumulator;
use crate::shapes::tma_mma_shape::{SyncWarps, SYNC_K_STEPS, SYNC_M_TILES};
use crate::variants::WgemmArgs;

/// The kernel of an `mma_sync` line of the `gemm_wgmma` section: block tile BM x BN, STAGES
/// ring slots, CONSUMERS warpgroups of 4 warps, NI m16n8 tiles across each warp's columns.
///
/// # Safety
/// As `gemm_wgmma` (`gemm_wgmma.rs`): launched with `line.threads()` threads per block,
/// `line.dynamic_shared_bytes()` of dynamic shared memory and at most one block per output
/// tile; `a_map` and `b_map` are the addresses of tensor maps of A (dims K, M) and B (dims N,
/// K) in global memory, bf16, 128-byte swizzle, zero fill, boxes of 64 x BM and 64 x 64
/// elements; `c` holds M*N floats; N is even (`WgemmVariant::takes_odd_n`); K >= 1.
#[inline(always)]
pub unsafe fn gemm_tma_mma<
    const BM: u32,
    const BN: u32,
    const STAGES: u32,
    const CONSUMERS: u32,
    const NI: usize,
>(
    args: WgemmArgs,
) {
    let line = WgemmVariant::kernel_line((BM, BN), STAGES, (CONSUMERS, false), 1, RingMma::Sync);
    // SAFETY: every thread runs it, with the line's dynamic shared memory (the contract).
    let RingStart { p, maps, out, .. } = unsafe { RingProblem::start(args, line, Release::Count) };
    let t = gpu::thread_idx_x();
    // SAFETY: the caller's contract, the maps' included.
    unsafe { consume::<NI>(p, (t / 32, t % 32), maps, out) };
}

/// One consumer warp (`warp`, lane `lane`): its 64 x BN/4 part of every tile of the walk,
/// accumulated slot by slot, then written.
///
/// Thread 0 loads the ring's first fills and each slot's last reader its next, through the
/// tensor maps `maps` (A's, B's).
///
/// # Safety
/// As [`gemm_tma_mma`]; run by every lane of a consumer warp together.
#[inline(always)]
unsafe fn consume<const NI: usize>(
    p: RingProblem,
    (warp, lane): (u32, u32),
    (a_map, b_map): (*const u64, *const u64),
    out: Output,
) {
    let line = p.line;
    let s = SyncWarps { bn: line.bn };
    let consumer_warps = line.consumer_warps();
    // The lane's parts of its fragment addresses (`tma_mma_shape.rs`): per k-step for A, per
    // n-tile pair for B; the rest is a constant of the unrolled loops.
    let a_lane: [u32; SYNC_K_STEPS as usize] =
        core::array::from_fn(|kk| s.a_lane_offset(warp, lane, kk as u32));
    let b_lane: [u32; 4] = core::array::from_fn(|nj| {
        if nj < NI / 2 {
            s.b_lane_offset(warp, lane, nj as u32)
        } else {
            0
        }
    });
    let load = |f: Fill| {
        if p.has(&f) {
            // SAFETY: the slot is free (a fresh ring's, or its readers all counted out), and this
            // fill is loaded by this thread alone (thread 0's first fills; then the slot's last
            // reader, which one count decides); the maps are the contract's.
            unsafe { p.load(f, a_map, b_map) };
        }
    };
    // The fill that takes a slot's place after the one being read: `stages` fills ahead.
    let mut refill = p.first_fill();
    if warp == 0 && lane == 0 {
        // SAFETY: the maps are in global memory (the contract).
        unsafe {
            gpu::prefetch_tensor_map(a_map);
            gpu::prefetch_tensor_map(b_map);
        }
    }
    for _ in 0..line.stages {
        if warp == 0 && lane == 0 {
            load(refill);
        }
        refill = p.after(refill);
    }
    // The warp's A fragments (one ldmatrix.x4 per m-tile) and B fragments (one
    // ldmatrix.x4.trans per n-tile pair) at k16 step `kk` of slot `slot`.
    let fragments = |slot: u32, kk: u32| {
        let a_at = p.ring + line.a_slot(slot) + a_lane[kk as usize];
        // SAFETY: the whole warp loads (uniform control flow), after the slot's full barrier;
        // addresses inside the slot.
        let a: [[u32; 4]; SYNC_M_TILES] = core::array::from_fn(|mi| unsafe {
            gpu::ldmatrix_x4(a_at + SyncWarps::a_tile_step(mi as u32))
        });
        let b_at = p.ring + line.b_slot(slot) + SyncWarps::b_step(kk);
        let mut b = [[0u32; 2]; NI];
        for nj in 0..NI / 2 {
            // SAFETY: as above.
            let v = unsafe { gpu::ldmatrix_x4_trans(b_at + b_lane[nj]) };
            b[2 * nj] = [v[0], v[1]];
            b[2 * nj + 1] = [v[2], v[3]];
        }
        (a, b)
    };

    let tiles = p.rows * p.cols;
    let mut tile = gpu::block_idx_x();
    if tile >= tiles {
        return;
    }
    let mut at = Ring::START;
    // SAFETY: the first slot's full barrier says TMA's bytes have landed (acquire).
    unsafe { gpu::mbarrier_wait(p.full(at.slot), at.phase) };
    let mut current = fragments(at.slot, 0);
    while tile < tiles {
        let (tr, tc) = tile_of(tile, p.rows, p.cols);
        let last_tile = tile + gpu::grid_dim_x() >= tiles;
        let mut acc = [[[0.0f32; 4]; NI]; SYNC_M_TILES];
        let mut ks = 0;
        while ks < p.k_steps {
            for kk in 0..SYNC_K_STEPS {
                let next = if kk + 1 < SYNC_K_STEPS {
                    fragments(at.slot, kk + 1)
                } else {
                    // The slot's last fragments are in registers: release it, then wait for the
                    // next slot (the next tile's first when this is the tile's last), if the
                    // walk has one, and load its first fragments while this step's MMAs run.
                    // Every lane's reads of the slot are done (the warp barrier orders them
                    // before lane 0's count, which releases them); the last warp to count
                    // refills it.
                    gpu::warp_sync();
                    if lane == 0 {
                        // SAFETY: the slot's count word, only ever counted up.
                        let before = unsafe { gpu::shared_count_up(p.empty(at.slot)) };
                        if before % consumer_warps == consumer_warps - 1 {
                            // The other warps' reads (acquired by the count) are ordered before
                            // TMA's writes, which are the async proxy's.
                            gpu::fence_proxy_async_shared();
                            load(refill);
                        }
                    }
                    refill = p.after(refill);
                    at = at.next(line.stages);
                    if ks + 1 < p.k_steps || !last_tile {
                        // SAFETY: as the first wait; every fill of the walk is loaded
                        // (thread 0's first ones, then each by its slot's last reader).
                        unsafe { gpu::mbarrier_wait(p.full(at.slot), at.phase) };
                        fragments(at.slot, 0)
                    } else {
                        current
                    }
                };
                let (a, b) = current;
                for (acc_row, a_tile) in acc.iter_mut().zip(&a) {
                    for (acc_tile, b_tile) in acc_row.iter_mut().zip(&b) {
                        // SAFETY: the whole warp runs every k-step (uniform control flow).
                        *acc_tile = unsafe { gpu::mma_bf16_m16n8k16(*acc_tile, *a_tile, *b_tile) };
                    }
                }
                current = next;
            }
            ks += 1;
        }
        let (row0, col0) = (tr * line.bm, tc * line.bn);
        for (mi, acc_row) in acc.iter().enumerate() {
            for (ni, acc_tile) in acc_row.iter().enumerate() {
                for half in 0..2 {
                    let (r, cc) = warp_tile_accumulator(
                        s.warp_origin(warp),
                        lane,
                        (mi as u32, ni as u32),
                        2 * half,
                    );
                    let vals = [acc_tile[2 * half as usize], acc_tile[2 * half as usize + 1]];
                    // SAFETY: each element of C belongs to one thread of one tile (the walk is
                    // a bijection); pairs start at even columns (N even, the contract).
                    unsafe { out.store::<2>(row0 + r, col0 + cc, vals) };
                }
            }
        }
        tile += gpu::grid_dim_x();
    }
}
