// Arithmetic ILP in CUDA C++: kernels-gpu/src/kernels/fma.rs and fma_controls.rs. Each thread runs ILP
// independent chains: chain i starts at ((g & 4095) + i) as a float, every round applies the op
// (fma_ilp: x_i = fma(x_i, a, b); its controls, below, other FP32 instructions) to each chain, and
// the thread writes the chains' sum, in chain order, to out[g]. Rounds come in trips of 16 (variants.rs `FMA_UNROLL`): `iters` rounded up to a
// multiple of 16. Results are bit-exact against the Rust kernel and the CPU reference.
#pragma once

namespace lab::fma {

// variants.rs `FMA_UNROLL`.
constexpr int UNROLL = 16;

// fma.rs `fma_ilp`: `out` holds one float per launched thread (any block size).
// fma.rs `chains`: ILP chains from the thread's start values, `step` applied to each every round.
template <int ILP, class Step>
__device__ __forceinline__ void chains(float* out, int iters, Step step) {
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
            for (int i = 0; i < ILP; ++i) x[i] = step(x[i]);
        }
    }
    float sum = x[0];
#pragma unroll
    for (int i = 1; i < ILP; ++i) sum += x[i];
    out[g] = sum;
}

// fma.rs `fma_ilp`: `out` holds one float per launched thread (any block size).
template <int ILP>
__device__ __forceinline__ void fma_ilp(float* out, float a, float b, int iters) {
    chains<ILP>(out, iters, [=](float x) { return fmaf(x, a, b); });
}

// The controls, fma_controls.rs. Add and multiply go through the _rn intrinsics so that nvcc
// does not contract them into fused multiply-adds (the Rust kernels' add.rn and mul.rn);
// __shfl_sync puts `a` in a register that ptxas cannot trace back to the parameter's
// constant-bank slot, as gpu::in_register does. Whole warps only.
template <int ILP>
__device__ __forceinline__ void fadd(float* out, float a, float, int iters) {
    const float ar = __shfl_sync(0xffffffffu, a, 0);
    chains<ILP>(out, iters, [=](float x) { return __fadd_rn(x, ar); });
}

template <int ILP>
__device__ __forceinline__ void fmul(float* out, float a, float, int iters) {
    const float ar = __shfl_sync(0xffffffffu, a, 0);
    chains<ILP>(out, iters, [=](float x) { return __fmul_rn(x, ar); });
}

// sections/probes.rs FFMA_IMM, -2^-20.
constexpr float FFMA_IMM = -1.0f / 1048576.0f;

template <int ILP>
__device__ __forceinline__ void ffma_imm(float* out, float, float, int iters) {
    chains<ILP>(out, iters, [=](float x) { return fmaf(x, FFMA_IMM, x); });
}

template <int ILP>
__device__ __forceinline__ void ffma_const(float* out, float a, float, int iters) {
    chains<ILP>(out, iters, [=](float x) { return fmaf(x, a, x); });
}

}  // namespace lab::fma
