//! C's handoff from the wgmma GEMM's consumer warps to the producer warpgroup's idle warps, on
//! lines that stage C (`WgemmVariant::stages_c`): a consumer warp stores part of its rows itself
//! and passes the rest through a buffer of its own in shared memory, with a "full" and an
//! "empty" mbarrier (`WgemmVariant::c_handoff`), to a storer warp, which stores them while the
//! consumers run the next tile's MMAs.

use crate::gpu;
use crate::kernels::gemm_epilogue::Output;
use crate::kernels::sm90a::pair_stores::{store_pairs, thread_rows};
use crate::kernels::sm90a::tma_ring::RingProblem;
use crate::sections::c_staging::{
    C_HANDOFF_COL, C_HANDOFF_DONE, C_HANDOFF_EMPTY, C_HANDOFF_ROW, C_STAGED_CHUNKS, C_STAGE_COLS,
    C_STAGE_ROW_BYTES, C_STORE_PAUSE_NS, C_WARPS_PER_STORER,
};
use crate::sections::wgmma::accumulator_position;
use crate::shapes::tma_slot::WARPGROUP_WARPS;

/// Writes thread `tid`'s accumulators of a consumer's 64 x BN part of a tile at (`row0`,
/// `col0`) of C: the columns past the staged chunk (`C_STAGED_CHUNKS`) by this thread's own
/// stores, then the staged chunk into consumer warp `warp`'s buffer in shared memory, handed to
/// its storer warp (`store_staged`) once the storer has read the last one. The warp then runs
/// its next tile's MMAs while the storer stores the chunk. Where each thread stores all of its
/// pairs itself, the tensor cores idle for thousands of cycles a tile while every SM's stores
/// issue at once (results/2026-12-04-h200-s25); through TMA's bulk stores the producer's loads
/// waited behind them (S25d, S25f).
///
/// # Safety
/// The part lies inside C, N is a multiple of 4 and C 16-byte aligned, beta is 0; run by every
/// thread of the consumer warpgroup (uniform control flow), `warp` this thread's warp among
/// the consumer warps, `handoffs` its handoffs so far; each element written belongs to this
/// warp alone.
#[inline(always)]
pub(crate) unsafe fn write_staged<const ACC: usize>(
    p: &RingProblem,
    out: &Output,
    (row0, col0): (u32, u32),
    (warp, tid): (u32, u32),
    d: &[f32; ACC],
    handoffs: &mut u32,
) {
    let lane = tid % 32;
    // Registers of a chunk: four 8-column slices of four registers.
    const CHUNK_REGS: usize = (C_STAGE_COLS / 2) as usize;
    // The chunks past the staged one first, each pair by this thread's own store (as
    // `write_inside`); then the staged chunk, handed to the storer warps, which store it while
    // this warp runs its next tile's MMAs.
    let staged_regs = C_STAGED_CHUNKS as usize * CHUNK_REGS;
    // SAFETY: the part lies inside C, N a multiple of 4 (the contract); each pair is this
    // thread's alone.
    unsafe {
        store_pairs(
            thread_rows(out, (row0, col0), tid),
            out.alpha,
            d,
            staged_regs,
        )
    };
    let handoff = p.ring + p.line.c_handoff(warp);
    let buffer = p.ring + p.line.c_stage(warp, 0);
    // SAFETY: the storer warp arrives on "empty" once it has read the buffer's last handoff (a
    // fresh barrier passes the first wait: parity 1).
    unsafe { gpu::mbarrier_wait(handoff + C_HANDOFF_EMPTY, (*handoffs & 1) ^ 1) };
    let mut i = 0;
    while i < staged_regs {
        let (row, col) = accumulator_position(tid, i as u32);
        let at = buffer + (row % 16) * C_STAGE_ROW_BYTES + (col % C_STAGE_COLS) * 4;
        // SAFETY: inside this warp's buffer, 8-byte aligned (an even column); the storer has
        // read it (the wait above).
        unsafe { gpu::shared_store2(at, [out.alpha * d[i], out.alpha * d[i + 1]]) };
        i += 2;
    }
    if lane == 0 {
        // SAFETY: the handoff's words, read by the storer only after "full" below.
        unsafe {
            gpu::shared_store_u32(handoff + C_HANDOFF_ROW, row0 + 16 * (tid / 32));
            gpu::shared_store_u32(handoff + C_HANDOFF_COL, col0);
        }
    }
    gpu::warp_sync();
    if lane == 0 {
        // SAFETY: one arrival per handoff, after the warp's writes (the warp sync orders them;
        // the arrival releases them to the storer's wait).
        unsafe { gpu::mbarrier_arrive(handoff) };
    }
    *handoffs += 1;
}

/// Consumer warp `warp`'s last handoff, after `handoffs` of staged rows: marked done, so that
/// its storer warp stops waiting for it.
///
/// # Safety
/// Every thread of the consumer warp runs it, once, after its walk (`write_staged`'s handoffs).
#[inline(always)]
pub(crate) unsafe fn end_handoffs(p: &RingProblem, warp: u32, handoffs: u32) {
    let handoff = p.ring + p.line.c_handoff(warp);
    // SAFETY: the storer has read the last handoff's words once it arrives on "empty".
    unsafe { gpu::mbarrier_wait(handoff + C_HANDOFF_EMPTY, (handoffs & 1) ^ 1) };
    if gpu::lane_id() == 0 {
        // SAFETY: as `write_staged`'s handoff.
        unsafe {
            gpu::shared_store_u32(handoff + C_HANDOFF_ROW, C_HANDOFF_DONE);
            gpu::mbarrier_arrive(handoff);
        }
    }
}

/// A storer warp (`storer` of the producer warpgroup's warps 1..4, lane `lane`): stores the
/// staged rows of consumer warps `storer`, `storer` + 3, ... as each hands them over, 512
/// bytes of a row at a time (four whole lines a store), and hands each buffer back; stops
/// once each of its consumer warps marks its walk done. Its stores leave the consumers'
/// warps and TMA's queue alike: the consumers run their next tile's MMAs meanwhile, and the
/// producer's loads do not wait behind them.
///
/// # Safety
/// Run by every lane of the warp, with the line staging C (`stages_c`) and the handoffs
/// initialized; every staged row's place lies inside C, 16-byte aligned (`write_staged`'s
/// contract).
#[inline(always)]
pub(crate) unsafe fn store_staged(p: &RingProblem, out: &Output, storer: u32, lane: u32) {
    const STORERS: u32 = WARPGROUP_WARPS - 1;
    // The round below is written out for three consumer warps a storer, the most `stages_c`
    // lets a line have.
    const _: () = assert!(C_WARPS_PER_STORER == 3);
    let line = p.line;
    // Handoffs taken from each of this warp's consumer warps.
    let mut taken = [0u32; 3];
    let mut open = [false; 3];
    let mut k = 0;
    while k < 3 {
        open[k] = storer + STORERS * (k as u32) < line.consumer_warps();
        k += 1;
    }
    while open[0] || open[1] || open[2] {
        let mut k = 0;
        while k < 3 {
            if open[k] {
                let warp = storer + STORERS * k as u32;
                let handoff = p.ring + line.c_handoff(warp);
                // SAFETY: the consumer warp arrives on "full" once per handoff.
                unsafe { gpu::mbarrier_wait(handoff, taken[k] & 1) };
                let top = gpu::shared_load_u32(handoff + C_HANDOFF_ROW);
                if top == C_HANDOFF_DONE {
                    open[k] = false;
                } else {
                    let col0 = gpu::shared_load_u32(handoff + C_HANDOFF_COL);
                    let buffer = p.ring + line.c_stage(warp, 0);
                    let mut row = 0;
                    while row < 16 {
                        let v = gpu::shared_load4(buffer + row * C_STAGE_ROW_BYTES, lane * 16);
                        let at = (top + row) * out.n + col0 + lane * 4;
                        // SAFETY: the row's 128 columns lie inside C, 16-byte aligned (the
                        // contract); this warp alone stores them.
                        unsafe { gpu::store_global4(out.c, at, v) };
                        if C_STORE_PAUSE_NS > 0
                            && gpu::shared_load_relaxed_u32(p.ring + line.c_loads_done()) == 0
                        {
                            gpu::nanosleep(C_STORE_PAUSE_NS);
                        }
                        row += 1;
                    }
                    gpu::warp_sync();
                    if lane == 0 {
                        // SAFETY: every lane has read the buffer (the warp sync above).
                        unsafe { gpu::mbarrier_arrive(handoff + C_HANDOFF_EMPTY) };
                    }
                }
                taken[k] += 1;
            }
            k += 1;
        }
    }
}
