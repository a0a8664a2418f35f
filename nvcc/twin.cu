// nvcc's twin of the lab's kernels: every entry the Rust module exports (kernels-gpu), with the
// same names, parameter lists, launch bounds and results, written in CUDA C++ so that the lab can
// compare rustc's build of its kernels with nvcc's build of the same algorithms.
//
// The entries come from variants.h, which `cargo xtask build --nvcc` generates from the variant
// table (kernels-gpu/src/variants.rs): one macro invocation per entry, each macro defined below.
// A table line of a family this file has no macro for stops the build with an #error.
//
// Builds (nvcc/build.sh, the lab's one recipe; `cargo xtask build --nvcc` runs it):
//   the main module: launch bounds as the Rust main module has them;
//   -DNO_LAUNCH_BOUNDS -maxrregcount=N: no bounds, so that the register cap binds (ptxas ignores
//   -maxrregcount on an entry with bounds); with -DLAB_REGS_ONLY, only the register experiment's
//   GEMM entry and its traced twin, as the Rust capped modules hold only those.

#include "twin_block_trace.cuh"
#include "twin_chase.cuh"
#include "twin_copy_samples.cuh"
#include "twin_fma_ilp.cuh"
#include "twin_gemm_mma.cuh"
#include "twin_gemm_seed.cuh"
#include "twin_gemm_tuned.cuh"
#include "twin_memcpy.cuh"
#include "twin_mma_ilp.cuh"
#include "twin_read.cuh"
#include "twin_smem_copy.cuh"

// The launch bound of an entry whose table line fixes its block size (`.maxntid`, and
// `.minnctapersm` where min_blocks is not 0), as xtask's `with_launch_bounds` gives the Rust entry.
#ifdef NO_LAUNCH_BOUNDS
#define LAB_BOUNDS(threads, min_blocks)
#else
#define LAB_BOUNDS(threads, min_blocks) __launch_bounds__(threads, min_blocks)
#endif

// The GEMM ABI (variants.rs `abi:` gemm): (a, b, c, m, n, k, alpha, beta).
#define LAB_GEMM_PARAMS \
    const float *__restrict__ a, const float *__restrict__ b, float *c, int m, int n, int k, float alpha, float beta

// A seed GEMM line: 64x64x8 block tile, tm x tn per thread; the table's block size is checked
// against the tile's own. TRACE (every GEMM line's macro takes it): LAB_TIMED for the line's
// entry, LAB_TRACED for its traced twin (twin_block_trace.cuh).
#define LAB_GEMM_SEED(NAME, TRACE, threads, min_blocks, tm, tn)                                   \
    static_assert((threads) == lab::seed::BM * lab::seed::BN / ((tm) * (tn)), #NAME ": threads"); \
    extern "C" __global__ void LAB_BOUNDS(threads, min_blocks) NAME(LAB_GEMM_PARAMS) {             \
        TRACE(lab::seed::gemm<tm, tn>(a, b, c, m, n, k, alpha, beta));                            \
    }

// A tuned GEMM line: block, warp and thread tiles and pipeline stages. The table's block size and
// dynamic shared memory (what the host launches it with) are checked against the shape's own.
#define LAB_GEMM_TUNED(NAME, TRACE, threads, min_blocks, shared_bytes, bm, bn, bk, wm, wn, tm, tn, stages) \
    using NAME##_shape = lab::tuned::Shape<bm, bn, bk, wm, wn, tm, tn, stages>;                       \
    static_assert(NAME##_shape::THREADS == (threads), #NAME ": threads");                             \
    static_assert(NAME##_shape::SHARED_BYTES == (shared_bytes), #NAME ": dynamic shared memory");     \
    extern "C" __global__ void LAB_BOUNDS(threads, min_blocks) NAME(LAB_GEMM_PARAMS) {                \
        TRACE(lab::tuned::gemm<NAME##_shape>(a, b, c, m, n, k, alpha, beta));                         \
    }

// A point of the memcpy grid (variants.rs `abi:` memcpy: src, dst, n).
#define LAB_MEMCPY(NAME, threads, loads, width)                                                          \
    extern "C" __global__ void LAB_BOUNDS(threads, 0) NAME(const float* src, float* dst, unsigned long long n) { \
        lab::copy::memcpy<threads, loads, width>(src, dst, n);                                                \
    }

// An FMA line (variants.rs `abi:` fma_ilp: out, a, b, iters); launched with many block sizes, so
// no launch bound, as the Rust entry.
#define LAB_FMA_ILP(NAME, ilp) \
    extern "C" __global__ void NAME(float* out, float a, float b, int iters) { lab::fma::fma_ilp<ilp>(out, a, b, iters); }

// A control of the FMA line (variants.rs fma_controls: the fma_ilp parameters), OP its function
// in twin_fma_ilp.cuh; no launch bound either.
#define LAB_FMA_CONTROL(NAME, OP, ilp) \
    extern "C" __global__ void NAME(float* out, float a, float b, int iters) { lab::fma::OP<ilp>(out, a, b, iters); }

// The chase line (variants.rs `abi:` chase: next, start, steps, out); one thread, no bound.
#define LAB_CHASE(NAME)                                                                                 \
    extern "C" __global__ void NAME(const unsigned* next, unsigned start, unsigned steps, unsigned long long* out) { \
        lab::chase::chase(next, start, steps, out);                                                     \
    }

// A BF16 tensor-core GEMM line (variants.rs `abi:` gemm_bf16: GEMM's parameters with bf16 A and
// B): block tile, warp tile and pipeline stages (the mma shape is m16n8k16, the only one the table
// takes). The table's block size and dynamic shared memory are checked against the shape's own.
#define LAB_GEMM_BF16(NAME, TRACE, threads, shared_bytes, bm, bn, bk, wm, wn, stages)               \
    using NAME##_shape = lab::mma::Shape<bm, bn, bk, wm, wn, stages>;                               \
    static_assert(NAME##_shape::THREADS == (threads), #NAME ": threads");                           \
    static_assert(NAME##_shape::SHARED_BYTES == (shared_bytes), #NAME ": dynamic shared memory");   \
    extern "C" __global__ void LAB_BOUNDS(threads, 0)                                               \
        NAME(const std::uint16_t* __restrict__ a, const std::uint16_t* __restrict__ b, float* c, int m, int n, \
             int k, float alpha, float beta) {                                                      \
        TRACE(lab::mma::gemm<NAME##_shape>(a, b, c, m, n, k, alpha, beta));                         \
    }

// An mma line (variants.rs `abi:` mma_bf16_ilp: a, b, out, iters); launched with any whole
// number of warps per block, so no launch bound, as the Rust entry. The rounds its main loop runs
// per iteration are the table's (`MmaIlpVariant::rounds_per_iteration`), checked against the
// twin's own.
#define LAB_MMA_ILP(NAME, ilp, rounds)                                                               \
    static_assert(lab::mma::rounds_per_iteration(ilp) == (rounds), #NAME ": rounds per iteration"); \
    extern "C" __global__ void NAME(const unsigned* a, const unsigned* b, float* out, int iters) {  \
        lab::mma::mma_bf16_ilp<ilp>(a, b, out, iters);                                              \
    }

// A read line (variants.rs `abi:` read: src, n, out): the copy's loads, one sum per warp.
#define LAB_READ(NAME, threads, loads, width)                                                          \
    extern "C" __global__ void LAB_BOUNDS(threads, 0) NAME(const float* src, unsigned long long n,      \
                                                          unsigned long long* out) {                 \
        lab::read::read<threads, loads, width>(src, n, out);                                         \
    }

// A copy through shared memory (variants.rs `smem_copy`, parameters as memcpy's: src, dst, n):
// threads per block, 16-byte chunks a lane moves per stage, stages of each warp's ring.
#define LAB_SMEM_COPY(NAME, threads, chunks, stages)                                                    \
    extern "C" __global__ void LAB_BOUNDS(threads, 0) NAME(const float* src, float* dst, unsigned long long n) { \
        lab::smem_copy::cp_async_copy<threads, chunks, stages>(src, dst, n);                                  \
    }

// A persistent copy (variants.rs `persistent_copy`, parameters as memcpy's: src, dst, n): the
// memcpy grid's copy looped over the buffer by one wave of blocks.
#define LAB_PERSISTENT_COPY(NAME, threads, loads, width)                                                 \
    extern "C" __global__ void LAB_BOUNDS(threads, 0) NAME(const float* src, float* dst, unsigned long long n) { \
        lab::copy::persistent_copy<threads, loads, width>(src, dst, n);                                       \
    }

// A persistent copy's sampled build (kernels-gpu/src/sections/copy_samples.rs): the same copy,
// warp 0 of each block stamping its rounds into lab_copy_samples; never timed.
#define LAB_PERSISTENT_COPY_SAMPLED(NAME, threads, loads, width)                                         \
    extern "C" __global__ void LAB_BOUNDS(threads, 0) NAME(const float* src, float* dst, unsigned long long n) { \
        lab::copy::sampled_copy<threads, loads, width>(src, dst, n);                                          \
    }

#include "variants.h"

// twin_copy_samples.cuh's module global, defined after every kernel: defined above them, it made
// nvcc's front end emit different code for a tuned GEMM line that never touches it.
__device__ unsigned long long lab_copy_samples[lab::copy_samples::SAMPLE_BLOCKS *
                                               lab::copy_samples::WORDS_PER_BLOCK];
