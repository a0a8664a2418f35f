// The BF16 tensor-core GEMM family in CUDA C++: kernels-gpu/src/kernels/gemm_mma.rs, C = alpha*A*B +
// beta*C with A (M x K) and B (K x N) row-major bf16, C row-major f32, f32 accumulation, any
// M, N, K >= 1.
//
// A block computes one BM x BN tile of C through a pipeline of STAGES K slices in dynamic shared
// memory, filled with 16-byte cp.async (8 bf16 each, zero-filled outside the matrices) into the
// swizzled layout of twin_mma_shape.cuh while the block computes on an earlier slice. Each warp owns a
// WM x WN part of the tile as (WM/16) x (WN/8) m16n8k16 accumulator tiles; at each k16 step it
// loads its A fragments with ldmatrix.x4 and its B fragments with ldmatrix.x4.trans and issues
// one mma.sync per tile, the next step's fragments loaded while this step's mma run. Where K or
// N is not a multiple of 8 (or A or B not 16-byte aligned) the chunks are staged element by
// element through registers instead.
#pragma once

#include <cstdint>

#include "lab_device.cuh"
#include "twin_gemm_pipeline.cuh"
#include "twin_mma_shape.cuh"
#include "tensor_device.cuh"

namespace lab::mma {

// A warp's fragments of one k16 step: one A fragment per m-tile, one B fragment per n-tile.
template <class S>
struct Fragments {
    unsigned a[S::MI][4];
    unsigned b[S::NI][2];
};

// gemm_epilogue.rs `blend`: alpha*acc + beta*old, with beta*old left out when beta is zero (C may
// hold anything then). The Rust GEMMs share one epilogue; the twins keep one each, because a shared
// C++ version (tried) changes the SASS nvcc builds for these kernels, and the twin is the yardstick.
__device__ __forceinline__ float blend(float alpha, float acc, float beta, float old) {
    return beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * old);
}

// mma_shape.rs `chunks_aligned`: 16-byte copies of a row-major bf16 matrix with `cols` columns
// are possible when every chunk of 8 starting at a multiple of 8 is 16-byte aligned and wholly
// inside or wholly outside the matrix.
__device__ __forceinline__ bool chunks_aligned(unsigned cols, const void* base) {
    return cols % CHUNK_ELEMS == 0 && reinterpret_cast<std::uintptr_t>(base) % CHUNK_BYTES == 0;
}

// gemm_mma.rs `body`: the kernel, staging 16-byte chunks by cp.async (CHUNKED) or element by
// element.
template <class S, bool CHUNKED>
__device__ __forceinline__ void body(const std::uint16_t* __restrict__ a, const std::uint16_t* __restrict__ b,
                                     float* c, unsigned m, unsigned n, unsigned k, float alpha, float beta) {
    const unsigned t = threadIdx.x;
    const unsigned warp = t / WARP, lane = t % WARP;
    const Tile tile = block_tile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y);
    const unsigned row0 = tile.row * S::BM, col0 = tile.col * S::BN;
    const unsigned smem = shared_address(lab_dyn_smem);
    const unsigned slices = (k + S::BK - 1) / S::BK;

    // gemm_mma.rs `copy`: copy j of this thread's share of K slice kt into stage `stage`; copies
    // below A_COPIES are chunks of A, the rest chunks of B.
    auto copy = [&](unsigned stage, unsigned kt, unsigned j) {
        const unsigned base = smem + stage * S::STAGE_BYTES;
        const unsigned k0 = kt * S::BK;
        unsigned dst, row, col, rows, cols;
        const std::uint16_t* src;
        if (j < S::A_COPIES) {
            const ChunkIndex at = S::a_copy(t, j);
            dst = base + S::a_chunk_offset(at.row, at.chunk);
            src = a, row = row0 + at.row, col = k0 + CHUNK_ELEMS * at.chunk, rows = m, cols = k;
        } else {
            const ChunkIndex at = S::b_copy(t, j - S::A_COPIES);
            dst = base + S::b_chunk_offset(at.row, at.chunk);
            src = b, row = k0 + at.row, col = col0 + CHUNK_ELEMS * at.chunk, rows = k, cols = n;
        }
        if (CHUNKED) {
            // chunks_aligned: the chunk is 16-byte aligned and wholly inside or wholly outside.
            cp_async_bf16x8(dst, src, row * cols + col, inside(row, col, rows, cols));
        } else {
            auto elem = [&](unsigned i) -> std::uint16_t {
                return inside(row, col + i, rows, cols) ? load_bf16(src, row * cols + col + i) : std::uint16_t(0);
            };
            unsigned words[4];
#pragma unroll
            for (unsigned w = 0; w < 4; ++w) words[w] = pack_bf16x2(elem(2 * w), elem(2 * w + 1));
            // No thread reads this chunk before the barrier ahead of its slice.
            shared_store4(dst, words);
        }
    };

    // The pipeline's first STAGES-1 slices; a group is committed even when empty so that the
    // waits below always count the same number of groups.
#pragma unroll
    for (unsigned kt = 0; kt < S::STAGES - 1; ++kt) {
        if (kt < slices) {
#pragma unroll
            for (unsigned j = 0; j < S::COPIES_PER_SLICE; ++j) copy(kt, kt, j);
        }
        cp_async_commit();
    }

    // gemm_mma.rs `fragments`: the warp's A fragments (one ldmatrix.x4 per m-tile) and B
    // fragments (one ldmatrix.x4.trans per pair of n-tiles) at k16 step kk of the slice in
    // `stage`; the lane's part of each address plus a part that is constant per tile and step.
    auto fragments = [&](unsigned stage, unsigned kk) {
        const unsigned at = smem + stage * S::STAGE_BYTES;
        const unsigned a_at = at + S::a_lane_offset(warp, lane, kk);
        Fragments<S> f;
#pragma unroll
        for (unsigned mi = 0; mi < S::MI; ++mi) ldmatrix_x4(a_at + S::a_tile_step(mi), f.a[mi]);
#pragma unroll
        for (unsigned nj = 0; nj < S::N_PAIRS; ++nj) {
            unsigned v[4];
            ldmatrix_x4_trans(at + S::b_lane_offset(warp, lane, nj) + S::b_step(kk), v);
            f.b[2 * nj][0] = v[0], f.b[2 * nj][1] = v[1];
            f.b[2 * nj + 1][0] = v[2], f.b[2 * nj + 1][1] = v[3];
        }
        return f;
    };

    // Slice 0 has landed (this thread's copies; after the barrier, every thread's).
    cp_async_wait<S::STAGES - 2>();
    __syncthreads();
    float acc[S::MI][S::NI][4];
#pragma unroll
    for (unsigned mi = 0; mi < S::MI; ++mi)
#pragma unroll
        for (unsigned ni = 0; ni < S::NI; ++ni)
#pragma unroll
            for (unsigned r = 0; r < 4; ++r) acc[mi][ni][r] = 0.0f;
    unsigned stage = 0;
    // As gemm_mma.rs: the barrier that hands the block the next slice sits before the last
    // k-step's mma, whose fragments are already in registers, so the next slice's first fragment
    // loads overlap them; the refill of the stage slice kt-1 used is spread over the k-steps.
    // No unroll directive on the slice loop, as the Rust kernel has none: its trip count is
    // unknown, and nvcc, like LLVM, keeps it rolled.
    Fragments<S> current = fragments(stage, 0);
    for (unsigned kt = 0; kt < slices; ++kt) {
        const unsigned refill = kt + S::STAGES - 1;
        const unsigned refill_stage = stage == 0 ? S::STAGES - 1 : stage - 1;
#pragma unroll
        for (unsigned kk = 0; kk < S::K_STEPS; ++kk) {
            if (refill < slices) {
#pragma unroll
                for (unsigned j = 0; j < S::COPIES_PER_SLICE; ++j)
                    if (S::copy_step(j) == kk) copy(refill_stage, refill, j);
            }
            if (kk + 1 == S::K_STEPS) cp_async_commit();
            Fragments<S> next;
            if (kk + 1 < S::K_STEPS) {
                next = fragments(stage, kk + 1);
            } else {
                stage = next_stage<S::STAGES>(stage);
                next = fragments(stage, 0);
            }
#pragma unroll
            for (unsigned mi = 0; mi < S::MI; ++mi)
#pragma unroll
                for (unsigned ni = 0; ni < S::NI; ++ni) mma_bf16_m16n8k16(acc[mi][ni], current.a[mi], current.b[ni]);
            current = next;
        }
    }
    cp_async_wait<0>();

    // Epilogue: each accumulator register pair is two neighbouring columns of one row, stored as
    // one 8-byte access where C's rows allow (N even, C 8-byte aligned: the pair, starting at an
    // even column, is then wholly inside or outside), else one float at a time. C is read only
    // when beta is not zero.
    const bool pairs = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % 8 == 0;
    const bool read_c = beta != 0.0f;
#pragma unroll
    for (unsigned mi = 0; mi < S::MI; ++mi) {
#pragma unroll
        for (unsigned ni = 0; ni < S::NI; ++ni) {
#pragma unroll
            for (unsigned half = 0; half < 2; ++half) {
                const Element at_tile = S::accumulator(warp, lane, mi, ni, 2 * half);
                const unsigned row = row0 + at_tile.row, col = col0 + at_tile.col;
                const unsigned at = row * n + col;
                const float vals[2] = {acc[mi][ni][2 * half], acc[mi][ni][2 * half + 1]};
                if (pairs) {
                    if (inside(row, col, m, n)) {
                        float2* to = reinterpret_cast<float2*>(c + at);
                        const float2 old = read_c ? *to : float2{0.0f, 0.0f};
                        *to = float2{blend(alpha, vals[0], beta, old.x), blend(alpha, vals[1], beta, old.y)};
                    }
                } else {
#pragma unroll
                    for (unsigned i = 0; i < 2; ++i) {
                        if (inside(row, col + i, m, n)) {
                            const float old = read_c ? c[at + i] : 0.0f;
                            c[at + i] = blend(alpha, vals[i], beta, old);
                        }
                    }
                }
            }
        }
    }
}

// gemm_mma.rs `gemm_mma`: two copies of the kernel, one per way of staging, chosen once per
// launch (chosen per copy inside the K loop, both ways' instructions would be issued every slice,
// one predicated off).
template <class S>
__device__ __forceinline__ void gemm(const std::uint16_t* __restrict__ a, const std::uint16_t* __restrict__ b,
                                     float* c, int m, int n, int k, float alpha, float beta) {
    if (chunks_aligned(unsigned(k), a) && chunks_aligned(unsigned(n), b))
        body<S, true>(a, b, c, m, n, k, alpha, beta);
    else
        body<S, false>(a, b, c, m, n, k, alpha, beta);
}

}  // namespace lab::mma
