// The copy's read-only twin in CUDA C++: kernels-gpu/src/kernels/read.rs. Thread g loads vectors
// g + i*grid_stride (i < LOADS) of WIDTH floats, all before it uses any, and adds their bit
// patterns as integers (exact); the warp's sums are added by shuffles and lane 0 writes the
// warp's total, so the kernel writes one word per warp.
//
// The loads are coherent, as the copy's (twin_memcpy.cuh): the two kernels differ only in what follows
// the loads. Each warp's word is written twice (the fence, then the sum).
#pragma once

#include "lab_device.cuh"
#include "twin_memcpy.cuh"

namespace lab::read {

// read.rs `read`: launched with THREADS threads per block (whole warps); src holds n floats and
// is 4*WIDTH-byte aligned; out holds one word per warp of the grid.
template <unsigned THREADS, int LOADS, int WIDTH>
__device__ __forceinline__ void read(const float* src, unsigned long long n, unsigned long long* out) {
    static_assert(THREADS % 32 == 0, "whole warps: every lane reaches the shuffles");
    using V = typename lab::copy::Vector<WIDTH>::type;
    const unsigned long long grid_stride = (unsigned long long)gridDim.x * THREADS;
    const unsigned long long first = (unsigned long long)blockIdx.x * THREADS + threadIdx.x;
    auto in_range = [n](unsigned long long v) { return v * WIDTH + (WIDTH - 1) < n; };
    const V* from = reinterpret_cast<const V*>(src);

    V staged[LOADS];
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
        const unsigned long long v = first + i * grid_stride;
        staged[i] = in_range(v) ? from[v] : V{};
    }
    // read.rs's fence: the sum starts from this warp's word as reloaded after lane 0 stores to
    // it, so that every load is issued above the store (they may alias it) and every add waits
    // below the reload; `n >> 63` (zero) masks the value and cannot be folded.
    unsigned long long* word = out + first / 32;
    if (threadIdx.x % 32 == 0) store_word(word, 0);
    unsigned long long sum = load_word(word) & (n >> 63);
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
        const float* x = reinterpret_cast<const float*>(&staged[i]);
#pragma unroll
        for (int k = 0; k < WIDTH; ++k) sum += __float_as_uint(x[k]);
    }
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, mask);
    if (threadIdx.x % 32 == 0) store_word(word, sum);
}

}  // namespace lab::read
