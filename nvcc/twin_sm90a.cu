// nvcc's twin of the lab's sm_90a module (kernels_sm90a.ptx): every entry of the variant table's
// sm_90a sections (the wgmma microbenchmark, the TMA-fed GEMM lines, the bulk copies) with the same
// names, parameter lists, launch bounds and results as the Rust entries, in CUDA C++. Built for
// sm_90a only, whatever the main twin's architecture (nvcc/build.sh builds it beside twin.cu), as
// xtask builds the Rust sm_90a module beside the main one.
//
// The entries come from variants_sm90a.h, which `cargo xtask build --nvcc` generates from the
// variant table: one macro invocation per entry, each macro defined below. A table line of a
// family this file has no macro for stops the build with an #error.

#include "twin_block_trace.cuh"
#include "twin_gemm_tma_mma.cuh"
#include "twin_gemm_wgmma.cuh"
#include "twin_tma_copy.cuh"
#include "twin_wgmma.cuh"

// A wgmma microbenchmark line (variants.rs `wgmma_bf16`, `abi:` (out, iters)): one warpgroup per
// block (`.maxntid 128`, as xtask's hopper.rs bounds the Rust entry), N of m64nNk16 and the commit
// groups in flight.
#define LAB_WGMMA_BF16(NAME, n, groups)                                                    \
    extern "C" __global__ void __launch_bounds__(128) NAME(float* out, int iters) {        \
        lab::wgmma_bench::wgmma_bench<(n) / 2, groups>(out, iters);                        \
    }

// The `gemm_wgmma` section's `abi:` (a_map, b_map, c, m, n, k, alpha, beta, k_slices, stream_tail, partials,
// arrivals).
#define LAB_WGEMM_PARAMS                                                                          \
    const unsigned long long *a_map, const unsigned long long *b_map, float *c, int m, int n, int k, \
        float alpha, float beta, int k_slices, int stream_tail, float *partials, unsigned *arrivals

// A wgmma line of the `gemm_wgmma` section: its threads and one block per SM as its launch bound
// (as hopper.rs gives the Rust entry), its cluster where it has one (LAB_CLUSTER_1 adds nothing),
// its dynamic shared memory and the registers its consumers ask for checked against the twin's own.
// TRACE: LAB_TIMED for the line's entry, LAB_TRACED for its traced twin (twin_block_trace.cuh), as in
// twin.cu.
#define LAB_CLUSTER_1
#define LAB_CLUSTER_2 __cluster_dims__(2, 1, 1)
#define LAB_WGEMM(NAME, TRACE, threads, shared_bytes, bm, bn, stages, consumers, cluster, turns, acc, regs)  \
    static_assert((threads) == ((consumers) + 1) * lab::ring::WGEMM_WARPGROUP, #NAME ": threads");          \
    static_assert(lab::ring::Line<bm, bn, stages, consumers, cluster, turns>::SHARED_BYTES == (shared_bytes), \
                  #NAME ": dynamic shared memory");                                                        \
    static_assert(lab::ring::Line<bm, bn, stages, consumers, cluster, turns>::ROW_BLOCKS * (bn) / 2 == (acc), \
                  #NAME ": accumulators");                                                                 \
    static_assert(lab::ring::consumer_regs(consumers) == (regs), #NAME ": consumer registers");             \
    extern "C" __global__ void __launch_bounds__(threads, 1) LAB_CLUSTER_##cluster NAME(LAB_WGEMM_PARAMS) {  \
        TRACE(lab::ring::gemm_wgmma_twin<bm, bn, stages, consumers, cluster, turns, acc, regs>(               \
            a_map, b_map, c, m, n, k, alpha, beta, k_slices, stream_tail, partials, arrivals));             \
    }

// An mma_sync line of the `gemm_wgmma` section: the same ring and bounds, consumers only.
#define LAB_TMA_MMA(NAME, TRACE, threads, shared_bytes, bm, bn, stages, consumers)                          \
    static_assert((threads) == (consumers) * lab::ring::WGEMM_WARPGROUP, #NAME ": threads");               \
    static_assert(lab::ring::Line<bm, bn, stages, consumers>::SHARED_BYTES == (shared_bytes),               \
                  #NAME ": dynamic shared memory");                                                        \
    extern "C" __global__ void __launch_bounds__(threads, 1) NAME(LAB_WGEMM_PARAMS) {                        \
        TRACE(lab::ring::gemm_tma_mma_twin<bm, bn, stages, consumers, (bn) / 32>(a_map, b_map, c, m, n, k,      \
                                                                                alpha, beta));             \
    }

// A bulk-copy line (variants.rs `tma_copy`, parameters as memcpy's: src, dst, n): threads per
// block (its launch bound), bytes of a stage, stages of each warp's ring.
#define LAB_TMA_COPY(NAME, threads, stage_bytes, stages)                                                      \
    extern "C" __global__ void __launch_bounds__(threads) NAME(const float* src, float* dst, unsigned long long n) { \
        lab::bulk::bulk_ring_copy<threads, stage_bytes, stages>(src, dst, n);                                 \
    }

#include "variants_sm90a.h"
