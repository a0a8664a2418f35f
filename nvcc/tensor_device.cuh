// The twin's tensor-core plumbing: kernels-gpu/src/gpu/tensor.rs in CUDA C++, the same
// instructions under the same names. Inline PTX where CUDA C++ has no spelling that pins the
// instruction (ldmatrix, mma.sync, a 16-byte cp.async with a zero-fill predicate, a 128-bit
// store to a 32-bit shared address); each asm carries the constraints of the Rust asm it mirrors,
// so that nvcc may move it exactly as far as LLVM may move the Rust one.
//
// A classic include guard, not #pragma once: the CPU check of the twin (nvcc/cpu/) provides these
// functions itself (cpu/tensor_on_cpu.h) and defines the guard, so that the kernel headers take its
// versions.
#ifndef LAB_TENSOR_DEVICE_CUH
#define LAB_TENSOR_DEVICE_CUH

#include <cstdint>

#include "lab_device.cuh"

namespace lab {

// gpu.rs `opaque`: x, opaque to the optimizer (a volatile register move, as the Rust asm without
// `pure`). A loop counter passed through it keeps the loop's trip count unknown to the front end,
// so nvcc leaves the loop as written, as LLVM does the Rust one; what ptxas then does with the
// loop it does to both builds alike (a `#pragma unroll 1` would instead reach ptxas as
// `.pragma "nounroll"`, a constraint the Rust build does not have).
__device__ __forceinline__ unsigned opaque(unsigned x) {
    unsigned y;
    asm volatile("mov.u32 %0, %1;" : "=r"(y) : "r"(x));
    return y;
}

// tensor.rs `ldmatrix_x4`: four 8 x 8 matrices of b16, lane 8j + i giving the shared address of
// row i of matrix j. Volatile (the whole warp must issue it together, and it must stay after the
// barrier and the cp.async wait that make its rows visible) but without a memory clobber: like
// the Rust asm's `readonly`, it reads memory and writes none.
__device__ __forceinline__ void ldmatrix_x4(unsigned addr, unsigned (&r)[4]) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// tensor.rs `ldmatrix_x4_trans`: each matrix handed out transposed, which turns rows of a
// row-major K x N slice of B into the mma's column-major B fragments.
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned addr, unsigned (&r)[4]) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// tensor.rs `mma_bf16_m16n8k16`: D = A*B + D over the warp, this lane's four accumulators in and
// out. Volatile, as the Rust asm is not `pure`: the microbenchmark's accumulators start equal and
// see the same fragments, and every one of their mma must be issued. No memory clobber (`nomem`).
__device__ __forceinline__ void mma_bf16_m16n8k16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// tensor.rs `cp_async_bf16x8`: eight bf16 (16-byte aligned) bypassing L1 (.cg), or 16 zero
// bytes (lab_device.cuh's LAB_CP_ASYNC_OR_ZEROS).
LAB_CP_ASYNC_OR_ZEROS(cp_async_bf16x8, std::uint16_t, "cg", 16)

// tensor.rs `load_bf16`: the bf16 p[index] from global memory.
__device__ __forceinline__ std::uint16_t load_bf16(const std::uint16_t* p, unsigned index) { return p[index]; }

// tensor.rs `pack_bf16x2`: two bf16 in one word, `lo` in the low half (a fragment register's
// order, and memory's).
__device__ __forceinline__ unsigned pack_bf16x2(std::uint16_t lo, std::uint16_t hi) {
    return unsigned(lo) | (unsigned(hi) << 16);
}

// tensor.rs `shared_store4`: four words to shared address `addr` (16-byte aligned) in one 128-bit
// store.
__device__ __forceinline__ void shared_store4(unsigned addr, const unsigned (&v)[4]) {
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3])
                 : "memory");
}

}  // namespace lab

#endif  // LAB_TENSOR_DEVICE_CUH
