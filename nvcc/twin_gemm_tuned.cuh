// The tuned GEMM family in CUDA C++: kernels-gpu/src/kernels/gemm_tuned.rs, C = alpha*A*B + beta*C
// (row-major f32), any M, N, K >= 1.
//
// A block computes one BM x BN tile of C through a pipeline of STAGES K slices in dynamic shared
// memory, filled with cp.async while the block computes on an earlier slice: A is copied one
// float at a time into a transposed (k-major) slice, B four floats at a time where its rows allow
// (else one at a time). Copies outside the matrices are zero-filled, so edge tiles and a K that
// BK does not divide need no other case. Each warp owns a WM x WN part of the tile, each lane
// TM x TN accumulators in 4 x 4 blocks read as 128-bit fragments (twin_tuned_shape.cuh).
#pragma once

#include "lab_device.cuh"
#include "twin_gemm_pipeline.cuh"
#include "twin_tuned_shape.cuh"

namespace lab::tuned {

// A thread's register fragments of one depth of a slice: TM rows of A, TN columns of B.
template <class S>
struct Fragments {
    float a[S::TM];
    float b[S::TN];
};

// gemm_epilogue.rs `blend`: alpha*acc + beta*old, with beta*old left out when beta is zero (C may
// hold anything then). The Rust GEMMs share one epilogue; the twins keep one each, because a shared
// C++ version (tried) changes the SASS nvcc builds for these kernels, and the twin is the yardstick.
__device__ __forceinline__ float blend(float alpha, float acc, float beta, float old) {
    return beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * old);
}

// gemm_tuned.rs `body`: the kernel, with B staged 4 floats per copy (B_VECTOR) or one, and every
// copy known to lie inside A and B (INTERIOR) or tested.
template <class S, bool B_VECTOR, bool INTERIOR>
__device__ __forceinline__ void body(const float* __restrict__ a, const float* __restrict__ b, float* c, unsigned m,
                                     unsigned n, unsigned k, float alpha, float beta) {
    const unsigned t = threadIdx.x;
    const unsigned row0 = blockIdx.y * S::BM, col0 = blockIdx.x * S::BN;
    const unsigned smem = shared_address(lab_dyn_smem);
    constexpr unsigned STAGE_BYTES = 4 * S::STAGE_FLOATS;
    const unsigned slices = (k + S::BK - 1) / S::BK;

    // An interior block's copies: this thread's first element of A and of B at slice 0; each
    // further copy lies whole rows below it.
    const SliceIndex a0 = S::a_load(t, 0), b0 = S::b_load(t, 0);
    const float* a_thread = a + ((row0 + a0.row) * k + a0.col);
    const float* b_thread = b + (b0.row * n + col0 + b0.col);

    // gemm_tuned.rs `copy`: copy j of this thread's share of K slice kt into stage `stage`;
    // copies below A_LOADS are floats of A, the rest 4-float groups of B.
    auto copy = [&](unsigned stage, unsigned kt, unsigned j) {
        const unsigned k0 = kt * S::BK;
        const unsigned stage_base = smem + stage * STAGE_BYTES;
        if (INTERIOR) {
            if (j < S::A_LOADS) {
                const SliceIndex at = S::a_load(t, j);
                cp_async_f32(stage_base + 4 * (at.col * S::A_PITCH + at.row), a_thread + k0, j * S::A_ROW_STEP * k,
                             true);
            } else {
                const unsigned e = j - S::A_LOADS;
                const SliceIndex at = S::b_load(t, e);
                const unsigned dst = stage_base + 4 * (S::B_OFFSET + at.row * S::BN + at.col);
                cp_async_f32x4(dst, b_thread + k0 * n, e * S::B_ROW_STEP * n, true);
            }
            return;
        }
        if (j < S::A_LOADS) {
            const SliceIndex at = S::a_load(t, j);
            const unsigned row = row0 + at.row, col = k0 + at.col;
            cp_async_f32(stage_base + 4 * (at.col * S::A_PITCH + at.row), a, row * k + col, inside(row, col, m, k));
            return;
        }
        const SliceIndex at = S::b_load(t, j - S::A_LOADS);
        const unsigned row = k0 + at.row, col = col0 + at.col;
        const unsigned dst = stage_base + 4 * (S::B_OFFSET + at.row * S::BN + at.col);
        if (B_VECTOR) {
            // rows_vectorizable: the group is 16-byte aligned and wholly inside B or wholly outside.
            cp_async_f32x4(dst, b, row * n + col, inside(row, col, k, n));
        } else {
#pragma unroll
            for (unsigned i = 0; i < VEC; ++i) cp_async_f32(dst + 4 * i, b, row * n + col + i, inside(row, col + i, k, n));
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

    // gemm_tuned.rs `fragments`: a thread's TM rows of A and TN columns of B at depth kq of the
    // slice in `stage`.
    const SliceIndex origin = S::thread_origin(t);
    auto fragments = [&](unsigned stage, unsigned kq) {
        const float* slice = lab_dyn_smem + stage * S::STAGE_FLOATS;
        const float* a_frags = slice + origin.row + kq * S::A_PITCH;
        const float* b_frags = slice + S::B_OFFSET + origin.col + kq * S::BN;
        Fragments<S> f;
#pragma unroll
        for (unsigned i = 0; i < S::TM / VEC; ++i) {
            const float4 v = *reinterpret_cast<const float4*>(a_frags + S::accumulator_row(VEC * i));
            f.a[VEC * i] = v.x, f.a[VEC * i + 1] = v.y, f.a[VEC * i + 2] = v.z, f.a[VEC * i + 3] = v.w;
        }
#pragma unroll
        for (unsigned j = 0; j < S::TN / VEC; ++j) {
            const float4 v = *reinterpret_cast<const float4*>(b_frags + S::accumulator_col(VEC * j));
            f.b[VEC * j] = v.x, f.b[VEC * j + 1] = v.y, f.b[VEC * j + 2] = v.z, f.b[VEC * j + 3] = v.w;
        }
        return f;
    };

    // Slice 0 has landed (this thread's copies; after the barrier, every thread's).
    cp_async_wait<S::STAGES - 2>();
    __syncthreads();
    float acc[S::TM][S::TN];
#pragma unroll
    for (unsigned i = 0; i < S::TM; ++i)
#pragma unroll
        for (unsigned j = 0; j < S::TN; ++j) acc[i][j] = 0.0f;
    unsigned stage = 0;
    // Register fragments are double-buffered: those of depth kq+1 are read while the products of
    // depth kq are summed, and across slices too: the barrier that hands the block the next slice
    // sits before the last depth's products, whose fragments are already in registers.
    Fragments<S> current = fragments(stage, 0);
#pragma unroll 1
    for (unsigned kt = 0; kt < slices; ++kt) {
        // Refill the stage that slice kt-1 used (every thread finished reading it before the
        // barrier at the end of slice kt-1) with slice kt+STAGES-1, its copies spread over the
        // depths of this slice (copy_step).
        const unsigned refill = kt + S::STAGES - 1;
        const unsigned refill_stage = stage == 0 ? S::STAGES - 1 : stage - 1;
#pragma unroll
        for (unsigned kq = 0; kq < S::BK; ++kq) {
            if (refill < slices) {
#pragma unroll
                for (unsigned j = 0; j < S::COPIES_PER_SLICE; ++j)
                    if (S::copy_step(j) == kq) copy(refill_stage, refill, j);
            }
            if (kq + 1 == S::BK) cp_async_commit();
            Fragments<S> next;
            if (kq + 1 < S::BK) {
                next = fragments(stage, kq + 1);
            } else {
                stage = next_stage<S::STAGES>(stage);
                next = fragments(stage, 0);
            }
#pragma unroll
            for (unsigned i = 0; i < S::TM; ++i)
#pragma unroll
                for (unsigned j = 0; j < S::TN; ++j) acc[i][j] = fmaf(current.a[i], current.b[j], acc[i][j]);
            current = next;
        }
    }
    cp_async_wait<0>();

    // Epilogue: 4-float groups where C's rows allow, else one float at a time; C is read only
    // when beta is not zero.
    const bool c_vector = rows_vectorizable(n, c);
    const bool read_c = beta != 0.0f;
#pragma unroll
    for (unsigned r = 0; r < S::TM; ++r) {
#pragma unroll
        for (unsigned jg = 0; jg < S::TN / VEC; ++jg) {
            const unsigned row = row0 + origin.row + S::accumulator_row(r);
            const unsigned col = col0 + origin.col + S::accumulator_col(VEC * jg);
            const unsigned at = row * n + col;
            const float* vals = &acc[r][VEC * jg];
            if (c_vector) {
                if (inside(row, col, m, n)) {
                    float4* to = reinterpret_cast<float4*>(c + at);
                    const float4 old = read_c ? *to : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                    *to = make_float4(blend(alpha, vals[0], beta, old.x), blend(alpha, vals[1], beta, old.y),
                                      blend(alpha, vals[2], beta, old.z), blend(alpha, vals[3], beta, old.w));
                }
            } else {
#pragma unroll
                for (unsigned j = 0; j < VEC; ++j) {
                    if (inside(row, col + j, m, n)) {
                        const float old = read_c ? c[at + j] : 0.0f;
                        c[at + j] = blend(alpha, vals[j], beta, old);
                    }
                }
            }
        }
    }
}

// gemm_tuned.rs `gemm_tuned`: three copies of the kernel, one per way of staging B and, with
// 16-byte copies of B, one for blocks whose every copy lies inside A and B, chosen once per block
// (the Rust kernel does the same so that no copy's address arithmetic or bounds test runs
// predicated off inside the K loop).
template <class S>
__device__ __forceinline__ void gemm(const float* __restrict__ a, const float* __restrict__ b, float* c, int m, int n,
                                     int k, float alpha, float beta) {
    const bool interior = (blockIdx.y + 1) * S::BM <= unsigned(m) && (blockIdx.x + 1) * S::BN <= unsigned(n) &&
                          unsigned(k) % S::BK == 0;
    if (rows_vectorizable(n, b)) {
        if (interior)
            body<S, true, true>(a, b, c, m, n, k, alpha, beta);
        else
            body<S, true, false>(a, b, c, m, n, k, alpha, beta);
    } else {
        body<S, false, false>(a, b, c, m, n, k, alpha, beta);
    }
}

}  // namespace lab::tuned
