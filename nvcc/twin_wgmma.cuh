// The wgmma microbenchmark in CUDA C++: kernels-gpu/src/kernels/sm90a/wgmma.rs (the contract, the operand
// layout and the values: sections/wgmma.rs). One warpgroup per block writes a 64 x 16 A and a 16 x N
// B of small integers (bf16) into its dynamic shared memory, runs `iters` rounds of GROUPS commit
// groups of one m64nNk16 wgmma each on the same accumulators, and writes its 64 x N f32 tile,
// row-major, at out[block * 64 * N ..].
#pragma once

#include "hopper_device.cuh"
#include "lab_device.cuh"
#include "tensor_device.cuh"

namespace lab::wgmma_bench {

constexpr unsigned WARPGROUP_THREADS = 128;
constexpr unsigned WGMMA_M = 64;
constexpr unsigned WGMMA_K = 16;
// sections/wgmma.rs: a core matrix is 8 rows of 16 bytes; the two K halves of an 8-row group lie
// LEADING_BYTES apart, consecutive 8-row groups STRIDE_BYTES apart.
constexpr unsigned CORE_BYTES = 128;
constexpr unsigned LEADING_BYTES = CORE_BYTES;
constexpr unsigned STRIDE_BYTES = 2 * CORE_BYTES;
// sections/wgmma.rs `b_offset`: B follows A's 64 x 16 bf16.
constexpr unsigned B_OFFSET = WGMMA_M * WGMMA_K * 2;

// sections/wgmma.rs `k_major_offset`: byte offset of element (row, k) of a K-major operand without
// swizzle.
__device__ __forceinline__ unsigned k_major_offset(unsigned row, unsigned k) {
    return (row / 8) * STRIDE_BYTES + (k / 8) * LEADING_BYTES + (row % 8) * 16 + (k % 8) * 2;
}

// sections/wgmma.rs `a_value`, `b_value`: the operands' small integers in -1..=1.
__device__ __forceinline__ int a_value(unsigned m, unsigned k) { return int((m * 5 + k * 3 + m * k) % 3) - 1; }
__device__ __forceinline__ int b_value(unsigned k, unsigned n) { return int((n * 7 + k + n / 8 + k * n / 4) % 3) - 1; }

// sections/wgmma.rs `small_bf16`: the bf16 bits of -1, 0 or 1.
__device__ __forceinline__ unsigned short small_bf16(int v) { return v == -1 ? 0xbf80 : v == 1 ? 0x3f80 : 0; }

// sections/wgmma.rs `accumulator_position`: the (row, column) of the 64 x N tile that thread t holds
// in its register r.
struct Position {
    unsigned row, col;
};
__device__ __forceinline__ Position accumulator_position(unsigned t, unsigned r) {
    const unsigned warp = t / 32, lane = t % 32, slice = r / 4, j = r % 4;
    return {16 * warp + lane / 4 + 8 * (j / 2), 8 * slice + 2 * (lane % 4) + j % 2};
}

// wgmma.rs `wgmma_bf16`: launched with blocks of 128 threads and at least the line's operand bytes
// of dynamic shared memory; out holds 64 * N floats per block (N = 2 * ACC).
template <int ACC, int GROUPS>
__device__ __forceinline__ void wgmma_bench(float* out, int iters) {
    constexpr unsigned n = 2 * ACC;
    const unsigned t = threadIdx.x;
    const unsigned base = shared_address(lab_dyn_smem);
    const unsigned b_base = base + B_OFFSET;
    for (unsigned i = t; i < WGMMA_M * WGMMA_K; i += WARPGROUP_THREADS) {
        const unsigned m = i / WGMMA_K, k = i % WGMMA_K;
        hopper::store_shared_u16(base + k_major_offset(m, k), small_bf16(a_value(m, k)));
    }
    for (unsigned i = t; i < n * WGMMA_K; i += WARPGROUP_THREADS) {
        const unsigned col = i / WGMMA_K, k = i % WGMMA_K;
        hopper::store_shared_u16(b_base + k_major_offset(col, k), small_bf16(b_value(k, col)));
    }
    hopper::fence_proxy_async_shared();
    __syncthreads();
    const unsigned long long da = hopper::wgmma_descriptor(base, LEADING_BYTES, STRIDE_BYTES);
    const unsigned long long db = hopper::wgmma_descriptor(b_base, LEADING_BYTES, STRIDE_BYTES);
    float d[ACC];
#pragma unroll
    for (int r = 0; r < ACC; ++r) d[r] = 0.0f;
    // The loop counter through `opaque`, as in wgmma.rs: the rounds are not counted and unrolled.
    for (int r = 0; r < iters; r = int(opaque(unsigned(r + 1)))) {
        hopper::wgmma_fence();
#pragma unroll
        for (int g = 0; g < GROUPS; ++g) {
            hopper::wgmma_m64k16_bf16<0>(d, da, db, 1u);
            hopper::wgmma_commit_group();
        }
        hopper::wgmma_wait_group<0>();
    }
    float* tile = out + (unsigned long long)blockIdx.x * (WGMMA_M * n);
#pragma unroll
    for (int r = 0; r < ACC; ++r) {
        const Position p = accumulator_position(t, r);
        tile[p.row * n + p.col] = d[r];
    }
}

}  // namespace lab::wgmma_bench
