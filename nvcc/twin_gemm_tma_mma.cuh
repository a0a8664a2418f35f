// The BF16 GEMM of mma.sync fed by Hopper's TMA in CUDA C++: kernels-gpu/src/kernels/sm90a/gemm_tma_mma.rs (a
// warp's fragment addresses in a slot: tma_mma_shape.rs). The ring and persistent walk of the
// wgmma GEMM (twin_tma_ring.cuh) with no producer warp: thread 0 fills the whole ring first, and
// after that the last warp to finish reading a slot (one acquire-release count per slot) loads the
// slot's next fill itself. Each consumer warp owns 64 rows x BN/4 columns of its warpgroup's share
// as 4 x NI m16n8 tiles, reads its fragments from the swizzled slot by ldmatrix and runs m16n8k16
// mma.sync, fragments double-buffered across k16 steps and across slots.
#pragma once

#include "hopper_device.cuh"
#include "tensor_device.cuh"
#include "twin_tma_ring.cuh"

namespace lab::ring {

// tma_mma_shape.rs: m16 tiles down a warp's 64 rows, k16 steps of a slot, the mma's shape.
constexpr unsigned SYNC_M_TILES = 4;
constexpr unsigned SYNC_K_STEPS = 4;
constexpr unsigned MMA_M = 16, MMA_N = 8, MMA_K = 16;
constexpr unsigned CHUNK_ELEMS = 8;
constexpr unsigned BOX_BYTES = WGEMM_BK * SWIZZLE_BYTES;

// tma_mma_shape.rs `swizzled`: byte offset of 16-byte chunk `chunk` of row `row` (TMA's 128-byte
// swizzle, from a 1024-byte-aligned start).
__host__ __device__ constexpr unsigned swizzled(unsigned row, unsigned chunk) {
    return row * SWIZZLE_BYTES + 16 * (chunk ^ (row % 8));
}

// tma_mma_shape.rs `SyncWarps`: the fragment addressing of the consumer warps of a BN-wide line.
template <unsigned BN>
struct SyncWarps {
    static constexpr unsigned WARP_COLS = BN / WARPGROUP_WARPS;
    __device__ static constexpr unsigned origin_row(unsigned warp) { return (warp / WARPGROUP_WARPS) * WGEMM_M; }
    __device__ static constexpr unsigned origin_col(unsigned warp) { return (warp % WARPGROUP_WARPS) * WARP_COLS; }
    // `a_lane_offset`: lane's A address at k-step kk, m-tile 0 (matrix j = lane / 8, row lane % 8).
    __device__ static constexpr unsigned a_lane_offset(unsigned warp, unsigned lane, unsigned kk) {
        const unsigned j = lane / 8, r = lane % 8;
        return swizzled(origin_row(warp) + r + 8 * (j % 2), 2 * kk + j / 2);
    }
    // `a_tile_step`: what m-tile mi adds to it.
    __device__ static constexpr unsigned a_tile_step(unsigned mi) { return MMA_M * mi * SWIZZLE_BYTES; }
    // `b_lane_offset`: lane's B address for n-tile pair nj at k-step 0: its column's box, then the
    // row and chunk in it.
    __device__ static constexpr unsigned b_lane_offset(unsigned warp, unsigned lane, unsigned nj) {
        const unsigned j = lane / 8, r = lane % 8;
        const unsigned col = origin_col(warp) + 2 * MMA_N * nj + MMA_N * (j / 2);
        const unsigned k = r + 8 * (j % 2);
        return (col / B_BOX_COLS) * BOX_BYTES + swizzled(k, (col % B_BOX_COLS) / CHUNK_ELEMS);
    }
    // `b_step`: what k-step kk adds to it.
    __device__ static constexpr unsigned b_step(unsigned kk) { return MMA_K * kk * SWIZZLE_BYTES; }
};

// A warp's fragments of one k16 step.
template <int NI>
struct SyncFragments {
    unsigned a[SYNC_M_TILES][4];
    unsigned b[NI][2];
};

// gemm_tma_mma.rs `consume`: consumer warp `warp` (lane `lane`), its 64 x BN/4 part of every tile.
template <class L, int NI>
__device__ __forceinline__ void consume_sync(const Problem<L>& p, unsigned warp, unsigned lane,
                                             const unsigned long long* a_map, const unsigned long long* b_map,
                                             float* c, unsigned m, unsigned n, float alpha, float beta) {
    using S = SyncWarps<L::BN>;
    constexpr unsigned consumer_warps = L::CONSUMER_WARPS;
    unsigned a_lane[SYNC_K_STEPS];
#pragma unroll
    for (unsigned kk = 0; kk < SYNC_K_STEPS; ++kk) a_lane[kk] = S::a_lane_offset(warp, lane, kk);
    unsigned b_lane[4];
#pragma unroll
    for (unsigned nj = 0; nj < 4; ++nj) b_lane[nj] = nj < NI / 2 ? S::b_lane_offset(warp, lane, nj) : 0;
    auto load = [&](const Fill& f) {
        if (p.has(f)) p.load(f, a_map, b_map);
    };
    Fill refill = p.first_fill();
    if (warp == 0 && lane == 0) {
        hopper::prefetch_tensor_map(a_map);
        hopper::prefetch_tensor_map(b_map);
    }
    for (unsigned s = 0; s < L::STAGES; ++s) {
        if (warp == 0 && lane == 0) load(refill);
        refill = p.after(refill);
    }
    auto fragments = [&](unsigned slot, unsigned kk) {
        SyncFragments<NI> f;
        const unsigned a_at = p.ring + L::a_slot(slot) + a_lane[kk];
#pragma unroll
        for (unsigned mi = 0; mi < SYNC_M_TILES; ++mi) ldmatrix_x4(a_at + S::a_tile_step(mi), f.a[mi]);
        const unsigned b_at = p.ring + L::b_slot(slot) + S::b_step(kk);
#pragma unroll
        for (int nj = 0; nj < NI / 2; ++nj) {
            unsigned v[4];
            ldmatrix_x4_trans(b_at + b_lane[nj], v);
            f.b[2 * nj][0] = v[0];
            f.b[2 * nj][1] = v[1];
            f.b[2 * nj + 1][0] = v[2];
            f.b[2 * nj + 1][1] = v[3];
        }
        return f;
    };

    const unsigned tiles = p.rows * p.cols;
    unsigned tile = blockIdx.x;
    if (tile >= tiles) return;
    Position at{0, 0};
    hopper::mbarrier_wait(p.full(at.slot), at.phase);
    SyncFragments<NI> current = fragments(at.slot, 0);
    while (tile < tiles) {
        const TileAt tt = tile_of(tile, p.rows, p.cols);
        const bool last_tile = tile + gridDim.x >= tiles;
        float acc[SYNC_M_TILES][NI][4];
#pragma unroll
        for (unsigned mi = 0; mi < SYNC_M_TILES; ++mi)
#pragma unroll
            for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                for (int r = 0; r < 4; ++r) acc[mi][ni][r] = 0.0f;
        for (unsigned ks = 0; ks < p.k_steps; ++ks) {
#pragma unroll
            for (unsigned kk = 0; kk < SYNC_K_STEPS; ++kk) {
                SyncFragments<NI> next;
                if (kk + 1 < SYNC_K_STEPS) {
                    next = fragments(at.slot, kk + 1);
                } else {
                    // The slot's last fragments are in registers: release it (the last warp to
                    // count refills it), then wait for the next slot and load its first fragments
                    // while this step's mma run.
                    hopper::warp_sync();
                    if (lane == 0) {
                        const unsigned before = hopper::shared_count_up(p.empty(at.slot));
                        if (before % consumer_warps == consumer_warps - 1) {
                            hopper::fence_proxy_async_shared();
                            load(refill);
                        }
                    }
                    refill = p.after(refill);
                    at = at.template next<L::STAGES>();
                    if (ks + 1 < p.k_steps || !last_tile) {
                        hopper::mbarrier_wait(p.full(at.slot), at.phase);
                        next = fragments(at.slot, 0);
                    } else {
                        next = current;
                    }
                }
#pragma unroll
                for (unsigned mi = 0; mi < SYNC_M_TILES; ++mi)
#pragma unroll
                    for (int ni = 0; ni < NI; ++ni) mma_bf16_m16n8k16(acc[mi][ni], current.a[mi], current.b[ni]);
                current = next;
            }
        }
        const unsigned row0 = tt.row * L::BM, col0 = tt.col * L::BN;
        // mma_layout.rs `warp_tile_accumulator`: register 2*half of tile (mi, ni) at row
        // lane/4 + 8*half, column 2*(lane%4) of the tile, the pair's second one column right.
#pragma unroll
        for (unsigned mi = 0; mi < SYNC_M_TILES; ++mi)
#pragma unroll
            for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                for (unsigned half = 0; half < 2; ++half) {
                    const unsigned r = S::origin_row(warp) + MMA_M * mi + lane / 4 + 8 * half;
                    const unsigned cc = S::origin_col(warp) + MMA_N * ni + 2 * (lane % 4);
                    store_pair(c, m, n, alpha, beta, row0 + r, col0 + cc, acc[mi][ni][2 * half],
                               acc[mi][ni][2 * half + 1]);
                }
        tile += gridDim.x;
    }
}

// gemm_tma_mma.rs `gemm_tma_mma`: launched with CONSUMERS x 128 threads, the line's dynamic shared
// memory and at most one block per output tile; the tensor maps as gemm_wgmma_twin's.
template <unsigned BM, unsigned BN, unsigned STAGES, unsigned CONSUMERS, int NI>
__device__ __forceinline__ void gemm_tma_mma_twin(const unsigned long long* a_map, const unsigned long long* b_map,
                                                  float* c, int m, int n, int k, float alpha, float beta) {
    using L = Line<BM, BN, STAGES, CONSUMERS>;
    // tma_ring.rs `start`: the mma.sync lines take K whole (k_slices 0).
    const Problem<L> p = Problem<L>::template set_up<true>(unsigned(m), unsigned(n), unsigned(k), 0u, false);
    const unsigned t = threadIdx.x;
    consume_sync<L, NI>(p, t / 32, t % 32, a_map, b_map, c, unsigned(m), unsigned(n), alpha, beta);
}

}  // namespace lab::ring
