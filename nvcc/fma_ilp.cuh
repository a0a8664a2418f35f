// Arithmetic ILP in CUDA C++: kernels-gpu/src/fma.rs. Each thread runs ILP independent chains of
// fused multiply-adds: chain i starts at ((g & 4095) + i) as a float, every round applies
// x_i = fma(x_i, a, b) to each chain, and the thread writes the chains' sum, in chain order, to
// out[g]. Rounds come in trips of 16 (variants.rs `FMA_UNROLL`): `iters` rounded up to a
// multiple of 16. Results are bit-exact against the Rust kernel and the CPU reference.
#pragma once

namespace lab::fma {

// variants.rs `FMA_UNROLL`.
constexpr int UNROLL = 16;

// fma.rs `fma_ilp`: `out` holds one float per launched thread (any block size).
template <int ILP>
__device__ __forceinline__ void fma_ilp(float* out, float a, float b, int iters) {
    // 32-bit, as fma.rs's g.
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    float x[ILP];
#pragma unroll
    for (int i = 0; i < ILP; ++i) x[i] = (float)((g & 4095u) + i);
    // fma.rs unrolls several trips per iteration by hand (`trips_per_iteration`) because that is
    // what nvcc does with this loop on its own; here nvcc is left to it.
    for (int round = 0; round < iters; round += UNROLL) {
#pragma unroll
        for (int r = 0; r < UNROLL; ++r) {
#pragma unroll
            for (int i = 0; i < ILP; ++i) x[i] = fmaf(x[i], a, b);
        }
    }
    float sum = x[0];
#pragma unroll
    for (int i = 1; i < ILP; ++i) sum += x[i];
    out[g] = sum;
}

}  // namespace lab::fma
