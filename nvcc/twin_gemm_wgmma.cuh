// The warp-specialized wgmma BF16 GEMM in CUDA C++: kernels-gpu/src/kernels/sm90a/gemm_wgmma.rs. C = alpha*A*B +
// beta*C, A (M x K) and B (K x N) row-major bf16 read through tensor maps, C row-major f32. One
// producer warpgroup (its thread 0 loads the ring by TMA, twin_tma_ring.cuh) and CONSUMERS
// consumer warpgroups of 64 rows each, over a persistent walk of the output tiles. Each consumer
// issues a slot's four k16 wgmma between one fence and one commit, waits until at most that group
// is in flight, then releases the previous slot; it retires every group before the epilogue. The
// accumulators are in-out operands of the wgmma asm only, so nothing touches them while a group is
// in flight (ptxas would serialize the pipeline otherwise).
#pragma once

#include "hopper_device.cuh"
#include "twin_split_k.cuh"
#include "twin_tma_ring.cuh"

namespace lab::ring {

// gemm_wgmma.rs `PREFETCH_AHEAD`: K steps before a tile's last at which C's rows are asked of L2.
constexpr unsigned PREFETCH_AHEAD = 8;

// sections/gemm_wgmma.rs `a_descriptor` / `b_descriptor`: 128-byte-swizzled K-major A, MN-major B.
constexpr unsigned long long SWIZZLE_128B_LAYOUT = 1ull << 62;
__device__ __forceinline__ unsigned long long a_descriptor(unsigned addr) {
    return hopper::wgmma_descriptor(addr, 16, SWIZZLE_ATOM) | SWIZZLE_128B_LAYOUT;
}
__device__ __forceinline__ unsigned long long b_descriptor(unsigned addr) {
    return hopper::wgmma_descriptor(addr, WGEMM_BK * SWIZZLE_BYTES, SWIZZLE_ATOM) | SWIZZLE_128B_LAYOUT;
}

// sections/gemm_wgmma.rs `descriptor_advanced`: `desc` moved `bytes` along shared memory, the low word alone.
__device__ __forceinline__ unsigned long long descriptor_advanced(unsigned long long desc, unsigned bytes) {
    const unsigned low = static_cast<unsigned>(desc) + (bytes >> 4);
    return (desc & ~0xffffffffull) | low;
}

// slot_mma.rs `mma_k16`: the step-th k16 wgmma of a 64-deep slot, accumulating or not, the slot's descriptors
// moved by the step.
template <int ACC>
__device__ __forceinline__ void mma_k16(float (&d)[ACC], unsigned long long da, unsigned long long db, unsigned step,
                                        bool accumulate) {
    da = descriptor_advanced(da, step * WGEMM_K * 2);
    db = descriptor_advanced(db, step * WGEMM_K * SWIZZLE_BYTES);
    hopper::wgmma_m64k16_bf16<1>(d, da, db, accumulate ? 1u : 0u);
}

// gemm_wgmma.rs `prefetch_c`: the lines of C thread `tid` of a consumer reads in its epilogue.
__device__ __forceinline__ void prefetch_c(const float* c, unsigned m, unsigned n, unsigned row0, unsigned col0,
                                           unsigned bn, unsigned tid) {
    const unsigned warp = tid / 32, lane = tid % 32;
    constexpr unsigned LINE = 32;
    for (unsigned half = 0; half < 2; ++half) {
        const unsigned row = row0 + 16 * warp + lane / 4 + 8 * half;
        for (unsigned line = lane % 4; line < bn / LINE; line += 4) {
            const unsigned col = col0 + line * LINE;
            if (row < m && col < n) hopper::prefetch_l2(c + (row * n + col));
        }
    }
}

// pair_stores.rs `thread_rows`: thread `tid`'s two rows of a consumer's part of a tile at (row0, col0) of C, at
// the thread's first column.
struct ThreadRows {
    float* at[2];
};
__device__ __forceinline__ ThreadRows thread_rows(float* c, unsigned n, unsigned row0, unsigned col0, unsigned tid) {
    const unsigned warp = tid / 32, lane = tid % 32;
    float* const top = c + (size_t(row0 + 16 * warp + lane / 4) * n + (col0 + 2 * (lane % 4)));
    return ThreadRows{{top, top + size_t(8) * n}};
}

// pair_stores.rs `store_pairs`: registers from..ACC of d, times alpha, pair by pair at their places from `rows`.
template <int ACC>
__device__ __forceinline__ void store_pairs(const ThreadRows& rows, float alpha, const float (&d)[ACC], int from) {
#pragma unroll
    for (int r = from; r < ACC; r += 2) {
        float2* to = reinterpret_cast<float2*>(rows.at[(r % 4) / 2] + 8 * (r / 4));
        *to = float2{alpha * d[r], alpha * d[r + 1]};
    }
}

// gemm_wgmma.rs `write_inside`: thread `tid`'s pairs of a consumer's 64 x BN part of a tile wholly inside C (N
// even), each at a constant offset from one of two row pointers, beta tested once.
template <int ACC>
__device__ __forceinline__ void write_inside(float* c, unsigned n, float alpha, float beta, unsigned row0,
                                             unsigned col0, unsigned tid, const float (&d)[ACC]) {
    const ThreadRows t = thread_rows(c, n, row0, col0, tid);
    float* const* rows = t.at;
    if (beta == 0.0f) {
        store_pairs<ACC>(t, alpha, d, 0);
    } else {
        // C's pairs read a group at a time before any of the group is written.
        constexpr int GROUP = 16;
#pragma unroll
        for (int r = 0; r < ACC; r += 2 * GROUP) {
            float2 old[GROUP];
#pragma unroll
            for (int g = 0; g < GROUP && r + 2 * g < ACC; ++g)
                old[g] = *reinterpret_cast<const float2*>(rows[((r + 2 * g) % 4) / 2] + 8 * ((r + 2 * g) / 4));
#pragma unroll
            for (int g = 0; g < GROUP && r + 2 * g < ACC; ++g) {
                const int i = r + 2 * g;
                float2* to = reinterpret_cast<float2*>(rows[(i % 4) / 2] + 8 * (i / 4));
                *to = float2{fmaf(alpha, d[i], beta * old[g].x), fmaf(alpha, d[i + 1], beta * old[g].y)};
            }
        }
    }
}

// gemm_wgmma.rs `write_part`: thread `tid`'s accumulators of a consumer's 64 x bn part of a tile, from two row
// pointers where it lies inside C (N even), else pair by pair with bounds tested.
template <int ACC>
__device__ __forceinline__ void write_part(float* c, unsigned m, unsigned n, float alpha, float beta, unsigned row0,
                                           unsigned col0, unsigned bn, unsigned tid, const float (&d)[ACC]) {
    if (n % 2 == 0 && row0 + WGEMM_M <= m && col0 + bn <= n) {
        write_inside<ACC>(c, n, alpha, beta, row0, col0, tid, d);
    } else {
#pragma unroll
        for (int r = 0; r < ACC; r += 2) {
            const unsigned warp = tid / 32, lane = tid % 32, slice = unsigned(r) / 4, j = unsigned(r) % 4;
            // sections/wgmma.rs `accumulator_position` of register r (r even: j is 0 or 2).
            const unsigned row = 16 * warp + lane / 4 + 8 * (j / 2);
            const unsigned col = 8 * slice + 2 * (lane % 4);
            store_pair_or_singles(c, m, n, alpha, beta, row0 + row, col0 + col, d[r], d[r + 1]);
        }
    }
}

// c_handoff.rs `write_staged`: thread `tid`'s accumulators of a consumer's 64 x BN part of a tile wholly inside
// C (N % 4 == 0, beta 0): the columns past the staged chunk by this thread's own stores, then the staged chunk
// into consumer warp `warp`'s buffer, handed to its storer warp (once the storer has read the last handoff).
template <class L, int ACC>
__device__ __forceinline__ void write_staged(const Problem<L>& p, float* c, unsigned n, float alpha, unsigned row0,
                                             unsigned col0, unsigned warp, unsigned tid, const float (&d)[ACC],
                                             unsigned& handoffs) {
    const unsigned lane = tid % 32;
    constexpr int CHUNK_REGS = C_STAGE_COLS / 2;
    constexpr int STAGED_REGS = C_STAGED_CHUNKS * CHUNK_REGS;
    store_pairs<ACC>(thread_rows(c, n, row0, col0, tid), alpha, d, STAGED_REGS);
    const unsigned handoff = p.ring + L::c_handoff(warp), buffer = p.ring + L::c_stage(warp, 0);
    hopper::mbarrier_wait(handoff + C_HANDOFF_EMPTY, (handoffs & 1) ^ 1);
#pragma unroll
    for (int r = 0; r < STAGED_REGS; r += 2) {
        // sections/wgmma.rs `accumulator_position` of register r (r even).
        const unsigned j = unsigned(r) % 4, row = lane / 4 + 8 * (j / 2);
        const unsigned col = 8 * (unsigned(r) / 4) + 2 * (lane % 4);
        hopper::shared_store2(buffer + row * C_STAGE_ROW_BYTES + (col % C_STAGE_COLS) * 4, alpha * d[r],
                              alpha * d[r + 1]);
    }
    if (lane == 0) {
        hopper::shared_store_u32(handoff + C_HANDOFF_ROW, row0 + 16 * (tid / 32));
        hopper::shared_store_u32(handoff + C_HANDOFF_COL, col0);
    }
    hopper::warp_sync();
    if (lane == 0) hopper::mbarrier_arrive(handoff);
    handoffs += 1;
}

// c_handoff.rs `end_handoffs`: consumer warp `warp`'s last handoff, marked done.
template <class L>
__device__ __forceinline__ void end_handoffs(const Problem<L>& p, unsigned warp, unsigned handoffs) {
    const unsigned handoff = p.ring + L::c_handoff(warp);
    hopper::mbarrier_wait(handoff + C_HANDOFF_EMPTY, (handoffs & 1) ^ 1);
    if (threadIdx.x % 32 == 0) {
        hopper::shared_store_u32(handoff + C_HANDOFF_ROW, C_HANDOFF_DONE);
        hopper::mbarrier_arrive(handoff);
    }
}

// c_handoff.rs `store_staged`: storer warp `storer` (1..4 of the producer warpgroup, less one) stores the staged
// rows of consumer warps storer, storer + 3, ... as each hands them over, 16 bytes a lane, and hands each buffer
// back, until each marks its walk done.
template <class L>
__device__ __forceinline__ void store_staged(const Problem<L>& p, float* c, unsigned n, unsigned storer,
                                             unsigned lane) {
    constexpr unsigned STORERS = WARPGROUP_WARPS - 1;
    static_assert(C_WARPS_PER_STORER == 3, "the round below is written out for three consumer warps a storer");
    unsigned taken[3] = {0, 0, 0};
    bool open[3];
    for (unsigned k = 0; k < 3; ++k) open[k] = storer + STORERS * k < L::CONSUMER_WARPS;
    while (open[0] || open[1] || open[2]) {
        for (unsigned k = 0; k < 3; ++k) {
            if (!open[k]) continue;
            const unsigned warp = storer + STORERS * k, handoff = p.ring + L::c_handoff(warp);
            hopper::mbarrier_wait(handoff, taken[k] & 1);
            const unsigned top = hopper::shared_load_u32(handoff + C_HANDOFF_ROW);
            if (top == C_HANDOFF_DONE) {
                open[k] = false;
            } else {
                const unsigned col0 = hopper::shared_load_u32(handoff + C_HANDOFF_COL);
                const unsigned buffer = p.ring + L::c_stage(warp, 0);
                for (unsigned row = 0; row < 16; ++row) {
                    const float4 v = hopper::shared_load4(buffer + row * C_STAGE_ROW_BYTES + lane * 16);
                    *reinterpret_cast<float4*>(c + (size_t(top + row) * n + col0 + lane * 4)) = v;
                    if constexpr (C_STORE_PAUSE_NS > 0)
                        if (hopper::shared_load_relaxed_u32(p.ring + L::C_LOADS_DONE) == 0) __nanosleep(C_STORE_PAUSE_NS);
                }
                hopper::warp_sync();
                if (lane == 0) hopper::mbarrier_arrive(handoff + C_HANDOFF_EMPTY);
            }
            taken[k] += 1;
        }
    }
}

// slot_mma.rs `HALF_ACC`, `mma_halves` and `mma_step`: on a line of turns with 128-row tiles
// (ROW_BLOCKS 2), a consumer's accumulators are the two 64-row halves' (top first), and each k16 step issues the
// top and the bottom half's wgmma on the same slice of B, A's bottom half 64 rows of 128 bytes after its top.
constexpr int HALF_ACC = 64;
template <int ACC>
__device__ __forceinline__ float (&top_half(float (&d)[ACC]))[HALF_ACC] {
    return *reinterpret_cast<float(*)[HALF_ACC]>(d);
}
template <int ACC>
__device__ __forceinline__ float (&bottom_half(float (&d)[ACC]))[HALF_ACC] {
    return *reinterpret_cast<float(*)[HALF_ACC]>(d + HALF_ACC);
}
template <int ACC>
__device__ __forceinline__ void mma_halves(float (&d)[ACC], unsigned long long da, unsigned long long db, unsigned step,
                                           bool accumulate) {
    static_assert(ACC == 2 * HALF_ACC, "two m64n128 halves");
    mma_k16(top_half(d), da, db, step, accumulate);
    mma_k16(bottom_half(d), descriptor_advanced(da, WGEMM_M * SWIZZLE_BYTES), db, step, accumulate);
}
// The slot's descriptors built once for its steps, each MMA advancing them (slot_mma.rs `mma_step`).
template <bool HALVES, int ACC>
__device__ __forceinline__ void mma_step(float (&d)[ACC], unsigned a, unsigned b, unsigned step, bool accumulate) {
    const unsigned long long da = a_descriptor(a), db = b_descriptor(b);
    if constexpr (HALVES)
        mma_halves(d, da, db, step, accumulate);
    else
        mma_k16(d, da, db, step, accumulate);
}

// gemm_wgmma.rs `k_loop`: a unit's `steps` >= 1 slots from ring position `at` (`held`: the position a first
// wait_group would retire), each slot's four k16 steps (`mma_step`) into d (A's rows `a_rows` bytes into the slot), the
// previous slot released once its group retires, C prefetched at step `prefetch_at`. Leaves `held` at the last
// slot, whose group may still be in flight, and `at` after it.
template <class L, int ACC>
__device__ __forceinline__ void k_loop(const Problem<L>& p, Position& at, Position& held, unsigned a_rows,
                                       unsigned steps, float (&d)[ACC], const float* c, unsigned m, unsigned n,
                                       unsigned row0, unsigned col0, unsigned prefetch_at, unsigned tid) {
    for (unsigned ks = 0;;) {
        const unsigned a = p.ring + L::a_slot(at.slot) + a_rows;
        const unsigned b = p.ring + L::b_slot(at.slot);
        hopper::mbarrier_wait(p.full(at.slot), at.phase);
        hopper::wgmma_fence();
        constexpr bool HALVES = L::ROW_BLOCKS == 2;
        mma_step<HALVES>(d, a, b, 0, ks != 0);
        mma_step<HALVES>(d, a, b, 1, true);
        mma_step<HALVES>(d, a, b, 2, true);
        mma_step<HALVES>(d, a, b, 3, true);
        hopper::wgmma_commit_group();
        if (ks == prefetch_at) {
            prefetch_c(c, m, n, row0, col0, L::BN, tid);
            if constexpr (HALVES) prefetch_c(c, m, n, row0 + WGEMM_M, col0, L::BN, tid);
        }
        hopper::wgmma_wait_group<1>();
        if (ks > 0 && tid % 32 == 0) p.release(held.slot);
        held = at;
        at = at.template next<L::STAGES>();
        ks += 1;
        if (ks >= steps) break;
    }
}

// gemm_wgmma.rs `end_unit`: a consumer warpgroup's end of unit w (warp `warp` among the tile's): its last group
// retired and slot `held` released; then written at once where it is its tile's whole K, else deposited, and
// summed and written by the tile's last unit to arrive.
template <class L, int ACC, bool STREAMED>
__device__ __forceinline__ void end_unit(const Problem<L>& p, float* c, unsigned m, unsigned n, float alpha,
                                         float beta, float* partials, unsigned* arrivals, const Unit& w,
                                         Position held, unsigned warp, unsigned tid, unsigned row0, unsigned col0,
                                         float (&d)[ACC], unsigned& handoffs) {
    hopper::wgmma_wait_group<0>();
    if (tid % 32 == 0) p.release(held.slot);
    bool write = true;
    if (p.template cuts<STREAMED>(w)) {
        const WarpPart<L, ACC> part{w.tile, warp, tid % 32};
        write = part.template deposit<STREAMED>(p, partials, arrivals, w, d);
        if (write) part.template gather<STREAMED>(p, partials, w.pieces, d);
    }
    if (!write) return;
    if constexpr (L::ROW_BLOCKS == 2) {
        // A tile of turns of 128 rows: its halves are written as two 64-row parts.
        write_part<HALF_ACC>(c, m, n, alpha, beta, row0, col0, L::BN, tid, top_half(d));
        write_part<HALF_ACC>(c, m, n, alpha, beta, row0 + WGEMM_M, col0, L::BN, tid, bottom_half(d));
        return;
    }
    if (L::STAGES_C && beta == 0.0f && n % 4 == 0 && row0 + WGEMM_M <= m && col0 + L::BN <= n)
        write_staged<L, ACC>(p, c, n, alpha, row0, col0, warp, tid, d, handoffs);
    else
        write_part<ACC>(c, m, n, alpha, beta, row0, col0, L::BN, tid, d);
}

// gemm_wgmma.rs `consume`: consumer warpgroup `which` (thread `tid` of it), its 64 rows of the walk's
// units first, first + walkers, ... below `end` (a streamed tail's pieces where STREAMED), from ring
// position `at`, written at once (K whole) or by the last of a cut tile's units (twin_split_k.cuh);
// returns the ring position after its last slot.
template <class L, int ACC, bool STREAMED>
__device__ __forceinline__ Position consume_wgmma(const Problem<L>& p, unsigned which, unsigned tid, float* c,
                                                  unsigned m, unsigned n, float alpha, float beta, float* partials,
                                                  unsigned* arrivals, unsigned first, unsigned end, Position at,
                                                  unsigned& handoffs) {
    unsigned unit = first;
    // Zeroed once: each unit's first wgmma overwrites them (scale-d 0).
    float d[ACC];
#pragma unroll
    for (int r = 0; r < ACC; ++r) d[r] = 0.0f;
    while (unit < end) {
        const Unit w = p.template unit_of<STREAMED>(unit);
        if (STREAMED && w.steps == 0) break;
        const bool cut = p.template cuts<STREAMED>(w);
        const TileAt tt = p.tile_at(w.tile);
        Position held = at;
        const unsigned row0 = tt.row * L::BM + which * WGEMM_M;
        const unsigned col0 = tt.col * L::BN;
        const unsigned prefetch_at =
            beta != 0.0f && !cut ? (w.steps > PREFETCH_AHEAD ? w.steps - PREFETCH_AHEAD : 0u) : 0xffffffffu;
        k_loop<L, ACC>(p, at, held, which * WGEMM_M * SWIZZLE_BYTES, w.steps, d, c, m, n, row0, col0, prefetch_at, tid);
        end_unit<L, ACC, STREAMED>(p, c, m, n, alpha, beta, partials, arrivals, w, held,
                                   which * WARPGROUP_WARPS + tid / 32, tid, row0, col0, d, handoffs);
        unit += p.walkers();
    }
    return at;
}

// gemm_wgmma.rs `wait_turn` and `pass_turn`: consumer `which` waits at named barrier 1 + which for the other to
// pass the turn, and passes it at the other's (256 threads: both warpgroups).
constexpr unsigned TURN = 1;
__device__ __forceinline__ void wait_turn(unsigned which) {
    if (which == 0) hopper::named_barrier_sync<TURN, 256>();
    else hopper::named_barrier_sync<TURN + 1, 256>();
}
__device__ __forceinline__ void pass_turn(unsigned which) {
    if (which == 0) hopper::named_barrier_arrive<TURN + 1, 256>();
    else hopper::named_barrier_arrive<TURN, 256>();
}

// gemm_wgmma.rs `consume_in_turn`: two consumer warpgroups taking the block's one-warpgroup units in turn
// (ping-pong), from ring position `at` and turn `turn` on, each passing over the other's fills; a consumer starts
// a unit's waits once the other has issued its previous unit's last wgmma (named barriers 1 and 2, 256 threads).
// `more`: whether units follow `end` (the tail's). Returns the position and turn after the last unit.
struct Turn {
    Position at;
    unsigned turn;
};
template <class L, int ACC, bool STREAMED>
__device__ __forceinline__ Turn consume_in_turn(const Problem<L>& p, unsigned which, unsigned tid, float* c,
                                                unsigned m, unsigned n, float alpha, float beta, float* partials,
                                                unsigned* arrivals, unsigned first, unsigned end, bool more,
                                                Turn go) {
    Position at = go.at;
    unsigned turn = go.turn;
    float d[ACC];
#pragma unroll
    for (int r = 0; r < ACC; ++r) d[r] = 0.0f;
    for (unsigned unit = first; unit < end; unit += p.walkers(), ++turn) {
        const Unit w = p.template unit_of<STREAMED>(unit);
        if (STREAMED && w.steps == 0) break;
        const unsigned next = unit + p.walkers();
        const bool last = next < end ? STREAMED && p.template unit_of<STREAMED>(next).steps == 0 : !more;
        if (turn % 2 != which) {
            at = at.template advance<L::STAGES>(w.steps);
            continue;
        }
        if (turn > 0) wait_turn(which);
        const TileAt tt = p.tile_at(w.tile);
        const unsigned row0 = tt.row * L::BM, col0 = tt.col * L::BN;
        const unsigned prefetch_at = beta != 0.0f && !p.template cuts<STREAMED>(w)
                                         ? (w.steps > PREFETCH_AHEAD ? w.steps - PREFETCH_AHEAD : 0u)
                                         : 0xffffffffu;
        Position held = at;
        k_loop<L, ACC>(p, at, held, 0u, w.steps, d, c, m, n, row0, col0, prefetch_at, tid);
        if (!last) pass_turn(which);
        unsigned none = 0;  // ping-pong lines never stage C
        end_unit<L, ACC, STREAMED>(p, c, m, n, alpha, beta, partials, arrivals, w, held, tid / 32, tid, row0, col0, d,
                                   none);
    }
    return {at, turn};
}

// gemm_wgmma.rs `gemm_wgmma`: launched with (CONSUMERS + 1) x 128 threads, the line's dynamic shared
// memory and any grid (blocks past the walk's work units do nothing); a_map and b_map are the
// global addresses of the tensor maps of A (dims K, M) and B (dims N, K) (bf16, 128-byte swizzle,
// boxes 64 x BM and 64 x 64); any N (an odd one stored a float at a time); K >= 1.
template <unsigned BM, unsigned BN, unsigned STAGES, unsigned CONSUMERS, unsigned CLUSTER, bool TURNS, int ACC,
          unsigned REGS>
__device__ __forceinline__ void gemm_wgmma_twin(const unsigned long long* a_map, const unsigned long long* b_map,
                                                float* c, int m, int n, int k, float alpha, float beta,
                                                int k_slices, int stream_tail, float* partials,
                                                unsigned* arrivals) {
    using L = Line<BM, BN, STAGES, CONSUMERS, CLUSTER, TURNS>;
    // tma_ring.rs `start`: only the lines that can cut K (clusters of one, not ping-pong) take k_slices, and
    // only those that stream a tail (clusters of one) stream_tail, which, where not 0, is the tail's first
    // tile (StreamTail::of's `from`).
    const bool cuts = CLUSTER == 1 && !L::PING_PONG, streams = CLUSTER == 1;
    const Problem<L> p = Problem<L>::template set_up<false>(unsigned(m), unsigned(n), unsigned(k),
                                                            cuts ? unsigned(k_slices) : 0u,
                                                            streams ? unsigned(stream_tail) : 0u);
    const unsigned t = threadIdx.x;
    const unsigned warpgroup = t / WGEMM_WARPGROUP;
    if (warpgroup == 0) {
        hopper::setmaxnreg_dec<PRODUCER_REGS>();
        if (t == 0) {
            p.produce(a_map, b_map);
            if constexpr (L::STAGES_C && C_STORE_PAUSE_NS > 0)
                hopper::shared_store_relaxed_u32(p.ring + L::C_LOADS_DONE, 1);
        } else if constexpr (L::STAGES_C)
            if (t >= 32) store_staged<L>(p, c, unsigned(n), t / 32 - 1, t % 32);
    } else {
        hopper::setmaxnreg_inc<REGS>();
        // gemm_wgmma.rs: the whole waves' tiles in the plain build of the loop, then the tail's pieces.
        // gemm_wgmma.rs: `which` through lane 0, so that ptxas knows it warp-uniform.
        const unsigned which = hopper::from_lane0(warpgroup - 1), tid = t % WGEMM_WARPGROUP;
        const unsigned whole = p.streamed ? p.tail.from : p.template units_of<false>();
        if constexpr (L::PING_PONG) {
            // The whole waves' tiles, then the tail's pieces, the turns running on.
            const Turn go = consume_in_turn<L, ACC, false>(p, which, tid, c, unsigned(m), unsigned(n), alpha, beta,
                                                           partials, arrivals, p.walker(), whole, p.streamed,
                                                           Turn{Position{0, 0}, 0});
            if (p.streamed)
                consume_in_turn<L, ACC, true>(p, which, tid, c, unsigned(m), unsigned(n), alpha, beta, partials,
                                              arrivals, p.tail.from + p.walker(), p.template units_of<true>(), false,
                                              go);
            p.finish();
            return;
        }
        unsigned handoffs = 0;
        const Position at = consume_wgmma<L, ACC, false>(p, which, tid, c, unsigned(m), unsigned(n), alpha, beta,
                                                         partials, arrivals, p.walker(), whole, Position{0, 0},
                                                         handoffs);
        if (p.streamed)
            consume_wgmma<L, ACC, true>(p, which, tid, c, unsigned(m), unsigned(n), alpha, beta, partials, arrivals,
                                        p.tail.from + p.walker(), p.template units_of<true>(), at, handoffs);
        if constexpr (L::STAGES_C) end_handoffs<L>(p, which * WARPGROUP_WARPS + tid / 32, handoffs);
    }
    p.finish();
}

}  // namespace lab::ring
