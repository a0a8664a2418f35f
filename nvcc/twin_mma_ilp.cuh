// Tensor-core ILP in CUDA C++: kernels-gpu/src/kernels/mma_ilp.rs (the peer's contract,
// ../shared/peer/README.md). Every warp runs ILP independent m16n8k16 BF16 accumulators through
// `iters` rounds of D_i = A*B + D_i from 0; lane l reads its A fragment from a[4l..4l+4] and its
// B fragment from b[2l..2l+2]; thread g writes out[g], the sum over accumulators, then registers,
// from 0.0. Results are bit-exact against the Rust kernel and the CPU model
// (kernels-gpu/src/models/mma_sync.rs) where the inputs make every sum exact.
#pragma once

#include <climits>

#include "tensor_device.cuh"

namespace lab::mma {

// sections/tensor_core.rs `MmaIlpVariant::MMA_PER_ITERATION` and `rounds_per_iteration`: rounds
// the main loop runs per iteration, as many as fill an iteration with 128 mma, at least one (the
// SASS reason is written there).
constexpr int MMA_PER_ITERATION = 128;
__host__ __device__ constexpr int rounds_per_iteration(int ilp) {
    return ilp <= 0 || ilp >= MMA_PER_ITERATION ? 1 : MMA_PER_ITERATION / ilp;
}

// mma_ilp.rs `mma_bf16_ilp`: launched with whole warps per block; `a` holds 128 words, `b` 64,
// `out` one float per launched thread.
template <int ILP>
__device__ __forceinline__ void mma_bf16_ilp(const unsigned* a, const unsigned* b, float* out, int iters) {
    const unsigned lane = threadIdx.x % 32;
    // 32-bit, as mma_ilp.rs's g.
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned a_frag[4], b_frag[2];
#pragma unroll
    for (unsigned i = 0; i < 4; ++i) a_frag[i] = a[4 * lane + i];
#pragma unroll
    for (unsigned i = 0; i < 2; ++i) b_frag[i] = b[2 * lane + i];
    float d[ILP][4];
#pragma unroll
    for (int i = 0; i < ILP; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) d[i][r] = 0.0f;
    auto round = [&] {
#pragma unroll
        for (int i = 0; i < ILP; ++i) mma_bf16_m16n8k16(d[i], a_frag, b_frag);
    };
    // mma_ilp.rs's loops: the main loop runs PER_ITERATION rounds an iteration, the second loop
    // the rest, one round at a time; the counter passes through `opaque`, as in the Rust kernel,
    // so that neither loop is unrolled again by a factor of the front end's own.
    constexpr int PER_ITERATION = rounds_per_iteration(ILP);
    int r = 0;
    if (PER_ITERATION > 1) {
        // iters.saturating_sub(PER_ITERATION - 1)
        const int last = iters < INT_MIN + (PER_ITERATION - 1) ? INT_MIN : iters - (PER_ITERATION - 1);
        while (r < last) {
#pragma unroll
            for (int q = 0; q < PER_ITERATION; ++q) round();
            r = int(opaque(unsigned(r) + PER_ITERATION));
        }
    }
    while (r < iters) {
        round();
        r = int(opaque(unsigned(r) + 1u));
    }
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < ILP; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q) sum += d[i][q];
    out[g] = sum;
}

}  // namespace lab::mma
