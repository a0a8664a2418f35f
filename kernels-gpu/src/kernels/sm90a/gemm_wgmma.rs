//! The warp-specialized wgmma BF16 GEMM (sm_90a): a producer warpgroup whose one thread loads
//! slices of A and B by TMA into a ring of shared-memory slots guarded by mbarriers, and one to
//! three consumer warpgroups running `wgmma` on them, over a persistent walk of the output tiles.
//! The contract, the layout of a block's shared memory and the descriptors are in
//! `sections/gemm_wgmma.rs`, which the host shares.
//!
//! Each consumer issues a slot's four k16 MMAs between one `wgmma.fence` and one
//! `commit_group`, then waits until at most that group is in flight (`wait_group 1`) and
//! releases the previous slot, so the tensor cores always have a group queued; it waits for
//! every group (`wait_group 0`) before the epilogue. The accumulators are `inout` operands of
//! the MMA statements only, so nothing LLVM may move reads or writes them while a group is in
//! flight (ptxas would serialize the pipeline otherwise, which the build refuses).

use crate::gpu;
use crate::kernels::gemm_epilogue::Output;
use crate::kernels::sm90a::c_handoff;
use crate::kernels::sm90a::pair_stores::{store_pairs, thread_rows};
use crate::kernels::sm90a::slot_mma::{mma_step, HALF_ACC};
use crate::kernels::sm90a::split_k::WarpPart;
use crate::kernels::sm90a::tma_ring::{Release, Ring, RingProblem, RingStart, SplitScratch, Unit};
use crate::sections::c_staging::C_STORE_PAUSE_NS;
use crate::sections::gemm_wgmma::{RingMma, WgemmVariant, PRODUCER_REGS};
use crate::sections::wgmma::accumulator_position;
use crate::shapes::tma_slot::{SWIZZLE_BYTES, WARPGROUP_WARPS, WGEMM_M, WGEMM_WARPGROUP};
use crate::variants::WgemmArgs;

/// K steps before a tile's last at which a consumer asks L2 for its rows of C (when beta reads
/// C): early enough for the lines to arrive before the epilogue, late enough that A and B's
/// streaming does not evict them first.
const PREFETCH_AHEAD: u32 = 8;

/// # Safety
/// Launched with `line.threads()` threads per block, `line.dynamic_shared_bytes()` of dynamic
/// shared memory and any grid (blocks past the walk's work units, `RingProblem::units`, do
/// nothing), but with a streamed tail the grid whose blocks the tail was shared out over; where
/// `k_slices` cuts the tiles' K (`KSplit`) or `stream_tail` streams the last partial wave after
/// that many tiles (`StreamTail::from`), `partials` and `arrivals` are the scratch `split_k.rs`
/// describes; `a_map` and `b_map` are the addresses of tensor maps of A (dims K, M) and B (dims
/// N, K) in global memory, bf16, 128-byte swizzle, zero fill, boxes of 64 x BM and 64 x 64
/// elements (`host::cuda::tensor_map`); `c` holds M*N floats, 16-byte aligned; K >= 1 (every
/// tile runs at least one K step; the host's maps refuse K = 0).
#[inline(always)]
pub unsafe fn gemm_wgmma<
    const BM: u32,
    const BN: u32,
    const STAGES: u32,
    const CONSUMERS: u32,
    const CLUSTER: u32,
    const TURNS: bool,
    const ACC: usize,
    const REGS: u32,
>(
    args: WgemmArgs,
) {
    let line = WgemmVariant::kernel_line(
        (BM, BN),
        STAGES,
        (CONSUMERS, TURNS),
        CLUSTER,
        RingMma::Wgmma,
    );
    let release = Release::Barrier(line.slot_readers());
    // SAFETY: every thread runs it, with the line's dynamic shared memory (the contract).
    let RingStart {
        p,
        maps: (a_map, b_map),
        out,
        scratch,
    } = unsafe { RingProblem::start(args, line, release) };
    let t = gpu::thread_idx_x();
    let warpgroup = t / WGEMM_WARPGROUP;
    if warpgroup == 0 {
        // SAFETY: the whole producer warpgroup runs it; it keeps only counters and addresses.
        unsafe { gpu::setmaxnreg_dec::<PRODUCER_REGS>() };
        if t == 0 {
            // SAFETY: the caller's contract on the maps; the barriers were initialized above.
            unsafe { p.produce(a_map, b_map) };
            if line.stages_c() && C_STORE_PAUSE_NS > 0 {
                // SAFETY: the loads-done word (`c_loads_done`), which the storer warps read
                // relaxed as well: no load is left, so they stop pausing.
                unsafe { gpu::shared_store_relaxed_u32(p.ring + line.c_loads_done(), 1) };
            }
        } else if line.stages_c() && t >= 32 {
            // SAFETY: warps 1..4 of the producer warpgroup, each whole; the handoffs were
            // initialized above and every consumer warp ends its walk with one marked done.
            unsafe { c_handoff::store_staged(&p, &out, t / 32 - 1, t % 32) };
        }
    } else {
        // SAFETY: the whole consumer warpgroup runs it; REGS comes from the line
        // (`consumer_regs`), whose requests fit the register file with the producer's.
        unsafe { gpu::setmaxnreg_inc::<REGS>() };
        // `which` through lane 0 (CUTLASS's canonical warpgroup index): ptxas then knows it, and
        // every slot address and descriptor made from it, to be warp-uniform, and computes them
        // on the uniform datapath. From `t / 128` directly it cannot tell, and W9's K loop built
        // each descriptor in vector registers with an R2UR per word (71 R2URs in the entry
        // against 18; 124 instructions a slot against 94).
        let (which, tid) = (gpu::from_lane0(warpgroup - 1), t % WGEMM_WARPGROUP);
        // Two builds of the loop, a streamed tail's code kept out of the other's (`units_of`):
        // the whole waves' tiles (every unit where nothing is streamed) in the plain one, then
        // the tail's pieces, from the ring position the first left.
        let walk = (which, tid, (out, scratch));
        let (whole, tail) = match p.tail {
            Some(t) => (t.from, Some(t.from + p.walker())),
            None => (p.units_of::<false>(), None),
        };
        if line.ping_pong() {
            // SAFETY: the caller's contract; the producer fills every unit's slices in the
            // walk's order, and the two consumers take its units in turn: the whole waves'
            // tiles, then the tail's pieces, the turns running on.
            unsafe {
                let go_on = consume_in_turn::<ACC, false>(
                    p,
                    walk,
                    (p.walker(), whole, tail.is_some()),
                    (Ring::START, 0),
                );
                if let Some(first) = tail {
                    consume_in_turn::<ACC, true>(
                        p,
                        walk,
                        (first, p.units_of::<true>(), false),
                        go_on,
                    );
                }
            }
        } else {
            // SAFETY: the caller's contract; the producer fills what the consumers wait for,
            // in the walk's order: these units, then the tail's.
            // Handoffs of this warp's staged rows to the storer warps so far (`write_staged`).
            let mut handoffs = 0;
            let at = unsafe {
                consume::<ACC, false>(p, walk, (p.walker(), whole), (Ring::START, &mut handoffs))
            };
            if let Some(first) = tail {
                // SAFETY: as above.
                unsafe {
                    consume::<ACC, true>(
                        p,
                        walk,
                        (first, p.units_of::<true>()),
                        (at, &mut handoffs),
                    )
                };
            }
            if line.stages_c() {
                // SAFETY: the whole warpgroup, once, after its last unit.
                unsafe {
                    c_handoff::end_handoffs(&p, which * WARPGROUP_WARPS + tid / 32, handoffs)
                };
            }
        }
    }
    // SAFETY: every thread reaches it once, after its part of the walk.
    unsafe { p.finish() };
}

/// Named barriers of the ping-pong consumers: consumer `which` waits at `TURN + which` for
/// the other to have issued its tile's last MMAs.
const TURN: u32 = 1;

/// Waits, in consumer `which`, for the other consumer to pass the turn ([`pass_turn`]).
///
/// # Safety
/// Every thread of consumer warpgroup `which` runs it together, as often as the other passes.
#[inline(always)]
unsafe fn wait_turn(which: u32) {
    // SAFETY: the caller's contract; both warpgroups (256 threads) meet at the barrier.
    unsafe {
        if which == 0 {
            gpu::named_barrier_sync::<TURN, 256>();
        } else {
            gpu::named_barrier_sync::<{ TURN + 1 }, 256>();
        }
    }
}

/// Passes the turn from consumer `which` to the other, which waits in [`wait_turn`].
///
/// # Safety
/// Every thread of consumer warpgroup `which` runs it together, once per turn the other waits
/// for.
#[inline(always)]
unsafe fn pass_turn(which: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        if which == 0 {
            gpu::named_barrier_arrive::<{ TURN + 1 }, 256>();
        } else {
            gpu::named_barrier_arrive::<TURN, 256>();
        }
    }
}

/// One of two consumer warpgroups that take the block's units in turn (ping-pong: a line of
/// turns, `WgemmVariant::ping_pong`, whose tiles are 64 or 128 rows): consumer `which` computes the
/// block's units `first`, `first` + walkers, ... below `end` (a streamed tail's pieces where
/// `STREAMED`) whose turn, counted on from `turn`, has its parity, and passes over the other's
/// fills in the ring from `start`. Its epilogue runs while the other's MMAs keep the tensor
/// cores busy, the reason for the schedule. A consumer starts a unit's waits only once the
/// other has issued its previous unit's last MMA (named barriers `TURN`, `TURN` + 1): every
/// fill before this unit's has then landed, and a slot's full barrier is at most one phase
/// behind what this consumer waits for (a parity wait cannot tell two phases apart). `more`:
/// whether units follow `end` (the tail's, after the whole waves). Returns the ring position
/// and the turn after the last unit, where the next pass goes on.
///
/// # Safety
/// As [`gemm_wgmma`]; run by every thread of both consumer warpgroups.
#[inline(always)]
unsafe fn consume_in_turn<const ACC: usize, const STREAMED: bool>(
    p: RingProblem,
    (which, tid, (out, scratch)): (u32, u32, (Output, SplitScratch)),
    (first, end, more): (u32, u32, bool),
    (start, mut turn): (Ring, u32),
) -> (Ring, u32) {
    let line = p.line;
    let mut at = start;
    let mut d = [0.0f32; ACC];
    let mut unit = first;
    while unit < end {
        let u = p.unit_of::<STREAMED>(unit);
        // Some of a streamed tail's places are empty (a run of one piece); none are otherwise.
        if STREAMED && u.steps == 0 {
            break;
        }
        let next = unit + p.walkers();
        // Whether the other consumer takes a unit after this one (it waits for this one's MMAs).
        let last = if next < end {
            STREAMED && p.unit_of::<STREAMED>(next).steps == 0
        } else {
            !more
        };
        if turn % 2 != which {
            at = at.advance(u.steps, line.stages);
        } else {
            if turn > 0 {
                // SAFETY: the other consumer passed the turn after its unit's MMAs.
                unsafe { wait_turn(which) };
            }
            let (tr, tc) = p.tile_at(u.tile);
            let (row0, col0) = (tr * line.bm, tc * line.bn);
            let prefetch_at = if out.beta != 0.0 && !p.cuts::<STREAMED>(&u) {
                u.steps.saturating_sub(PREFETCH_AHEAD)
            } else {
                u32::MAX
            };
            // SAFETY: the caller's contract; this warpgroup alone reads these fills.
            let (held, after) = unsafe {
                k_loop(
                    &p,
                    (at, at),
                    (0, u.steps),
                    &mut d,
                    (&out, (row0, col0), prefetch_at, tid),
                )
            };
            at = after;
            if !last {
                // SAFETY: the other consumer takes the next unit and waits for this turn.
                unsafe { pass_turn(which) };
            }
            // SAFETY: the whole warpgroup runs it once per unit (a tile, or a piece of a tail
            // tile: the warp index is among the tile's one warpgroup).
            unsafe {
                end_unit::<ACC, STREAMED>(
                    &p,
                    (&out, scratch),
                    (&u, held),
                    (tid / 32, tid),
                    (row0, col0),
                    (&mut d, &mut 0),
                )
            };
        }
        unit = next;
        turn += 1;
    }
    (at, turn)
}

/// One consumer warpgroup (`which`, thread `tid` of it): its 64 rows of the walk's units
/// `first`, `first` + walkers, ... below `end` (a streamed tail's pieces where `STREAMED`), from
/// ring position `start`, accumulated slot by slot, then written: at once for a tile's whole K,
/// by the last of a cut tile's units to arrive for part of it (`split_k.rs`). Returns the ring
/// position after its last slot.
///
/// # Safety
/// As [`gemm_wgmma`]; run by every thread of a consumer warpgroup.
#[inline(always)]
unsafe fn consume<const ACC: usize, const STREAMED: bool>(
    p: RingProblem,
    (which, tid, (out, scratch)): (u32, u32, (Output, SplitScratch)),
    (first, end): (u32, u32),
    (start, handoffs): (Ring, &mut u32),
) -> Ring {
    let line = p.line;
    let mut at = start;
    let mut unit = first;
    // Zeroed once, before any MMA: each unit's first MMA overwrites them (scale-d 0) rather
    // than instructions zeroing them again between pipelined groups.
    let mut d = [0.0f32; ACC];
    while unit < end {
        let u = p.unit_of::<STREAMED>(unit);
        // Some of a streamed tail's places are empty (a run of one piece); none are otherwise.
        if STREAMED && u.steps == 0 {
            break;
        }
        let Unit { tile, steps, .. } = u;
        let cut = p.cuts::<STREAMED>(&u);
        let (tr, tc) = p.tile_at(tile);
        // The slot whose MMAs are still in flight, released once the next slot's are issued.
        let held = at;
        let row0 = tr * line.bm + which * WGEMM_M;
        let col0 = tc * line.bn;
        // A cut tile's units do not know which of them writes C: none prefetches it.
        let prefetch_at = if out.beta != 0.0 && !cut {
            steps.saturating_sub(PREFETCH_AHEAD)
        } else {
            u32::MAX
        };
        let a_rows = which * WGEMM_M * SWIZZLE_BYTES;
        // SAFETY: the caller's contract; the whole warpgroup runs it.
        let (held, next) = unsafe {
            k_loop(
                &p,
                (at, held),
                (a_rows, steps),
                &mut d,
                (&out, (row0, col0), prefetch_at, tid),
            )
        };
        at = next;
        let warp = which * WARPGROUP_WARPS + tid / 32;
        // SAFETY: the whole warpgroup runs it, once per unit.
        unsafe {
            end_unit::<ACC, STREAMED>(
                &p,
                (&out, scratch),
                (&u, held),
                (warp, tid),
                (row0, col0),
                (&mut d, handoffs),
            )
        };
        unit += p.walkers();
    }
    at
}

/// A consumer warpgroup's end of unit `u` (thread `tid`, warp `warp` among the tile's warps),
/// its accumulators `d` of rows `row0..` and columns `col0..` of C: its last MMA group retired
/// and that slot (`held`) released; then written at once where the unit is its tile's whole K;
/// where K is cut (split-K, or a streamed tail's piece), deposited, and, by the warp whose unit
/// is the tile's last to arrive, summed with every unit's and written (`split_k.rs`).
///
/// # Safety
/// Run by every thread of the warpgroup (uniform control flow) once per unit, after its K loop
/// (`held` its last slot); each element of C belongs to one thread of one tile (the walk is a
/// bijection); the scratch is the launch's (the contract).
#[inline(always)]
unsafe fn end_unit<const ACC: usize, const STREAMED: bool>(
    p: &RingProblem,
    (out, scratch): (&Output, SplitScratch),
    (u, held): (&Unit, Ring),
    (warp, tid): (u32, u32),
    (row0, col0): (u32, u32),
    (d, handoffs): (&mut [f32; ACC], &mut u32),
) {
    // SAFETY: the whole warpgroup retires its last group, then releases its slot.
    unsafe {
        gpu::wgmma_wait_group::<0>();
        if tid % 32 == 0 {
            p.release(held.slot);
        }
    }
    let write = if p.cuts::<STREAMED>(u) {
        let part = WarpPart {
            tile: u.tile,
            warp,
            lane: tid % 32,
        };
        // SAFETY: the caller's contract.
        let last = unsafe { part.deposit::<ACC, STREAMED>(p, scratch, u, d) };
        if last {
            // SAFETY: the deposit says every unit of the tile is in.
            unsafe { part.gather::<ACC, STREAMED>(p, scratch, u.pieces, d) };
        }
        last
    } else {
        true
    };
    if write && p.line.row_blocks() == 2 {
        // A tile of turns of 128 rows: its halves are written as two 64-row parts.
        if let Some(top) = d.first_chunk::<HALF_ACC>() {
            // SAFETY: the caller's contract; the tile's top 64 rows.
            unsafe { write_part(out, (row0, col0), p.line.bn, tid, top) };
        }
        if let Some(bottom) = d.last_chunk::<HALF_ACC>() {
            // SAFETY: the caller's contract; the tile's bottom 64 rows.
            unsafe { write_part(out, (row0 + WGEMM_M, col0), p.line.bn, tid, bottom) };
        }
    } else if write {
        let line = p.line;
        // Staged only whole parts with beta 0 and rows of whole 16-byte pieces (N a multiple of
        // 4): the storer warps' 16-byte stores neither clip at C's edge nor read C.
        let staged = line.stages_c()
            && out.beta == 0.0
            && out.n.is_multiple_of(4)
            && row0 + WGEMM_M <= out.m
            && col0 + line.bn <= out.n;
        if staged {
            // SAFETY: the caller's contract; the part lies inside C, whose rows are whole
            // 16-byte pieces (N % 4 == 0, C 16-byte aligned: the contract); the whole
            // warpgroup runs it, `warp` among the consumer warps.
            unsafe { c_handoff::write_staged(p, out, (row0, col0), (warp, tid), d, handoffs) };
        } else {
            // SAFETY: the caller's contract; of a cut tile's units only the last writes.
            unsafe { write_part(out, (row0, col0), line.bn, tid, d) };
        }
    }
}

/// A unit's K loop, from ring position `at` (`held`: the position whose group a first
/// `wait_group` would retire, `at` itself at a unit's start): each slot's four k16 steps
/// ([`mma_step`]) into
/// `d` (A's rows `a_rows` bytes into the slot), the previous slot released once its group
/// retires, C prefetched at step `prefetch_at`. Returns the last slot's position, whose group
/// may still be in flight, and the position after it.
///
/// # Safety
/// As [`consume`]: run by every thread of a consumer warpgroup, `steps` >= 1 fills of the walk
/// from `at` on, in the producer's order.
#[inline(always)]
unsafe fn k_loop<const ACC: usize>(
    p: &RingProblem,
    (mut at, mut held): (Ring, Ring),
    (a_rows, steps): (u32, u32),
    d: &mut [f32; ACC],
    (out, (row0, col0), prefetch_at, tid): (&Output, (u32, u32), u32, u32),
) -> (Ring, Ring) {
    let line = p.line;
    // A 128-row tile of turns: each k16 step is two MMAs, one per 64-row half (`mma_step`).
    let halves = line.row_blocks() == 2;
    // At least one K step (K >= 1, and no unit is empty), so the loop runs once before it
    // tests: no path skips it, and LLVM keeps one set of accumulator registers through it.
    let mut ks = 0;
    loop {
        let a = p.ring + line.a_slot(at.slot) + a_rows;
        let b = p.ring + line.b_slot(at.slot);
        // SAFETY: the slot's full barrier says TMA's bytes have landed (acquire); the whole
        // warpgroup issues the four MMAs of the 64-deep slice between one fence and one
        // commit; `wait_group 1` retires the previous slot's group before that slot is
        // released, so one group stays queued behind the tensor cores while this thread
        // waits; the accumulators are touched by nothing else until `wait_group 0`.
        unsafe {
            gpu::mbarrier_wait(p.full(at.slot), at.phase);
            gpu::wgmma_fence();
            mma_step(d, (a, b), halves, 0, ks != 0);
            mma_step(d, (a, b), halves, 1, true);
            mma_step(d, (a, b), halves, 2, true);
            mma_step(d, (a, b), halves, 3, true);
            gpu::wgmma_commit_group();
            if ks == prefetch_at {
                prefetch_c(out, (row0, col0), line.bn, tid);
                if halves {
                    prefetch_c(out, (row0 + WGEMM_M, col0), line.bn, tid);
                }
            }
            gpu::wgmma_wait_group::<1>();
            if ks > 0 && tid % 32 == 0 {
                p.release(held.slot);
            }
        }
        held = at;
        at = at.next(line.stages);
        ks += 1;
        if ks >= steps {
            break;
        }
    }
    (held, at)
}

/// Writes thread `tid`'s accumulators of a consumer's 64 x `bn` part of a tile at (`row0`,
/// `col0`) of C: from two row pointers where the part lies inside C, else pair by pair with
/// bounds tested.
///
/// # Safety
/// Each element written belongs to this thread alone (the caller's walk); run by every thread
/// of the consumer warpgroup.
#[inline(always)]
unsafe fn write_part<const ACC: usize>(
    out: &Output,
    (row0, col0): (u32, u32),
    bn: u32,
    tid: u32,
    d: &[f32; ACC],
) {
    if out.vector && row0 + WGEMM_M <= out.m && col0 + bn <= out.n {
        // SAFETY: the consumer's 64 x BN part of the tile lies inside C, N is even; each
        // element belongs to this thread alone.
        unsafe { write_inside(out, (row0, col0), tid, d) };
    } else {
        let mut r = 0;
        while r < ACC {
            let (row, col) = accumulator_position(tid, r as u32);
            // SAFETY: the caller's contract; pairs start at even columns
            // (`RingProblem::start` sets `vector` only where N is even: the wgmma lines take
            // an odd N).
            unsafe { out.store::<2>(row0 + row, col0 + col, [d[r], d[r + 1]]) };
            r += 2;
        }
    }
}

/// Writes thread `tid`'s accumulators of a consumer's 64 x BN part of a tile that lies wholly
/// inside C: every pair at a constant offset from one of two row pointers set once (a register's
/// position is the thread's first plus the register's own, `accumulator_position`), and beta's
/// test made once. The general path tests bounds, alignment and beta and forms the address for
/// every pair: ~20 instructions with branches each in its SASS, which Nsight Compute counted as
/// twice cuBLAS's instructions at a short K (results/2026-12-03-h200-s17a); here each pair is an
/// 8-byte store (where beta reads C, after a load issued with its group's).
///
/// # Safety
/// Rows `row0..row0 + 64` and columns `col0..col0 + 2 * ACC` (BN) lie inside C, N is even
/// and C is 8-byte aligned; run by every thread of the consumer warpgroup.
#[inline(always)]
unsafe fn write_inside<const ACC: usize>(
    out: &Output,
    (row0, col0): (u32, u32),
    tid: u32,
    d: &[f32; ACC],
) {
    let rows = thread_rows(out, (row0, col0), tid);
    let (alpha, beta) = (out.alpha, out.beta);
    // Register r's row pointer and column offset: constants once the loops unroll.
    let place = |r: usize| {
        let (down, across) = accumulator_position(0, r as u32);
        (rows[(down / 8) as usize], across)
    };
    // Two loops rather than beta's test per pair, which LLVM leaves in place once unrolled.
    if beta == 0.0 {
        // SAFETY: the part lies inside C, N even (the contract); each pair is this thread's.
        unsafe { store_pairs(rows, alpha, d, 0) };
    } else {
        // C's pairs are read a group at a time before any of the group is written: the loads
        // and stores are `asm!` with memory effects, kept in program order, so one load per
        // store waited out L2's latency pair after pair.
        const GROUP: usize = 16;
        let mut r = 0;
        while r < ACC {
            let mut old = [[0.0f32; 2]; GROUP];
            let mut g = 0;
            while g < GROUP && r + 2 * g < ACC {
                let (at, across) = place(r + 2 * g);
                // SAFETY: as above; C is read where it is written, by this thread alone.
                old[g] = unsafe { gpu::load_global2(at, across) };
                g += 1;
            }
            let mut g = 0;
            while g < GROUP && r + 2 * g < ACC {
                let (at, across) = place(r + 2 * g);
                let i = r + 2 * g;
                let v = [
                    gpu::fma(alpha, d[i], beta * old[g][0]),
                    gpu::fma(alpha, d[i + 1], beta * old[g][1]),
                ];
                // SAFETY: as above.
                unsafe { gpu::store_global2(at, across, v) };
                g += 1;
            }
            r += 2 * GROUP;
        }
    }
}

/// Asks L2 for the lines of C that thread `tid` of a consumer reads in its epilogue: its two
/// rows of the consumer's 64 (the accumulator layout's), each row's 128-byte lines shared out
/// over the four threads of a lane quad, which hold the same rows.
#[inline(always)]
fn prefetch_c(out: &Output, (row0, col0): (u32, u32), bn: u32, tid: u32) {
    let (warp, lane) = (tid / 32, tid % 32);
    // Floats in one 128-byte line.
    const LINE: u32 = 32;
    let mut half = 0;
    while half < 2 {
        let row = row0 + 16 * warp + lane / 4 + 8 * half;
        let mut line = lane % 4;
        while line < bn / LINE {
            let col = col0 + line * LINE;
            if row < out.m && col < out.n {
                // SAFETY: (row, col) is inside C, which holds M*N floats.
                unsafe { gpu::prefetch_l2(out.c.wrapping_add((row * out.n + col) as usize)) };
            }
            line += 4;
        }
        half += 1;
    }
}
