// The twin's GPU plumbing: what kernels-gpu/src/gpu.rs gives the Rust kernels, in CUDA C++.
//
// Most of gpu.rs exists to steer LLVM (32-bit shared addresses, address arithmetic kept inside
// the accesses, opaque values); nvcc does those things by itself, so the twin writes plain
// indexing there. What stays here is what CUDA C++ has no plain spelling for: asynchronous copies
// with a zero-fill predicate, the global nanosecond timer, and cycle-counter reads that keep
// their place among the memory accesses.
//
// A classic include guard, not #pragma once: the CPU check of the twin (nvcc/cpu/) provides these
// functions itself and defines the guard, so that the family headers take its versions.
#ifndef LAB_DEVICE_CUH
#define LAB_DEVICE_CUH

#include <cstdint>

// The block's dynamic shared memory, sized at launch (gpu.rs `dynamic_shared_base`).
extern __shared__ __align__(16) float lab_dyn_smem[];

namespace lab {

// The 32-bit shared-space address of a shared-memory pointer, as cp.async wants it.
__device__ __forceinline__ unsigned shared_address(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// gpu.rs `cp_async_or_zeros!` (async_copy.rs): NAME copies BYTES bytes of T, src[index..]
// (global), to shared `dst` through cache option CACHE, or BYTES zeros when `inside` is false. A
// false predicate makes the source size 0 (nothing is read) and the index 0 (no out-of-range
// address is even formed). The staging copies (cp_async_f32, cp_async_f32x4 and
// tensor_device.cuh's cp_async_bf16x8) differ only in these.
#define LAB_CP_ASYNC_OR_ZEROS(NAME, T, CACHE, BYTES)                                                    \
    __device__ __forceinline__ void NAME(unsigned dst, const T* src, unsigned index, bool inside) {   \
        const T* from = src + (inside ? index : 0u);                                                  \
        const unsigned bytes = inside ? BYTES##u : 0u;                                                \
        asm volatile("{ .reg .u64 g; cvta.to.global.u64 g, %1; cp.async." CACHE ".shared.global [%0], [g], " #BYTES \
                     ", %2; }"                                                                        \
                     :                                                                                \
                     : "r"(dst), "l"(from), "r"(bytes)                                                \
                     : "memory");                                                                     \
    }

// gpu.rs `cp_async_f32`: one float through L1 (.ca, the only cache option of a 4-byte copy).
LAB_CP_ASYNC_OR_ZEROS(cp_async_f32, float, "ca", 4)

// gpu.rs `cp_async_f32x4`: four floats (16-byte aligned on both sides), bypassing L1 (.cg).
LAB_CP_ASYNC_OR_ZEROS(cp_async_f32x4, float, "cg", 16)

// gpu.rs `cp_async_commit`: closes this thread's current group of copies.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// gpu.rs `cp_async_wait`: waits until at most PENDING of this thread's groups are in flight.
template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
}

// gpu.rs `clock64`: the SM's cycle counter. Volatile with a memory clobber, so that the read
// stays in program order with the loads and stores around it (the chase times its loads by it).
__device__ __forceinline__ unsigned long long clock_cycles() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

// gpu.rs `store_word` / `load_word`: one global word written and read in asm statements, so that
// the compiler neither forwards the store to the load nor moves other memory accesses across them
// (twin_read.cuh's fence between its loads and its adds).
__device__ __forceinline__ void store_word(unsigned long long* p, unsigned long long v) {
    asm volatile("{ .reg .u64 g; cvta.to.global.u64 g, %0; st.global.u64 [g], %1; }" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long load_word(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("{ .reg .u64 g; cvta.to.global.u64 g, %1; ld.global.u64 %0, [g]; }" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// gpu.rs `globaltimer`: the global nanosecond timer, ordered like clock_cycles().
__device__ __forceinline__ unsigned long long global_timer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

// tuned_shape.rs `inside`: whether (row, col) lies inside a rows x cols matrix.
__device__ __forceinline__ bool inside(unsigned row, unsigned col, unsigned rows, unsigned cols) {
    return row < rows && col < cols;
}

// tuned_shape.rs `rows_vectorizable`: 16-byte copies of a row-major matrix are possible when its
// rows hold whole 4-float groups and its base is 16-byte aligned.
__device__ __forceinline__ bool rows_vectorizable(unsigned cols, const void* base) {
    return cols % 4u == 0u && reinterpret_cast<std::uintptr_t>(base) % 16u == 0u;
}

}  // namespace lab

#endif  // LAB_DEVICE_CUH
