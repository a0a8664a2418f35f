// Just enough of CUDA to run the twin's kernel headers on the CPU, for twin_on_cpu.cpp: each GPU
// thread of a block is a std::thread (or, for kernels without barriers, a call in turn), the
// block's barrier a std::barrier, and lab_device.cuh's plumbing is replaced (this file defines its
// include guard).
//
// cp.async is emulated as asynchronous: a thread's copies are queued in groups and land only
// when the thread waits for their group (cp_async_wait), and shared memory starts as NaN. So a
// kernel that reads a stage before waiting for it, or before the barrier after every thread's
// wait, reads stale data or NaN and fails its check, as it could on the GPU.
#pragma once

#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#define __device__
#define __host__
#define __forceinline__ inline
// Static shared arrays: one per kernel function, shared by the block's threads (one block runs at
// a time).
#define __shared__ static

struct dim3 {
    unsigned x = 0, y = 0, z = 0;
};
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

inline std::barrier<>* block_barrier = nullptr;
// Set while a block runs as fibers (fibers_on_cpu.h): their block barrier instead.
inline void (*fiber_sync_threads)() = nullptr;
inline void __syncthreads() {
    if (fiber_sync_threads)
        fiber_sync_threads();
    else
        block_barrier->arrive_and_wait();
}

// The FMA controls' intrinsics: round-to-nearest add and multiply (built with -ffp-contract=off,
// so nothing fuses them), and a shuffle of a value every lane holds alike, which is the value.
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __shfl_sync(unsigned, float v, int) { return v; }

struct float2 {
    float x, y;
};
struct alignas(16) float4 {
    float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline unsigned __float_as_uint(float x) {
    unsigned b;
    std::memcpy(&b, &x, 4);
    return b;
}
template <class T>
T __ldg(const T* p) {
    return *p;
}
template <class T>
T __ldcg(const T* p) {
    return *p;
}

// lab_device.cuh, on the CPU.
#define LAB_DEVICE_CUH
constexpr std::size_t LAB_DYN_SMEM_FLOATS = 227 * 1024 / 4;
alignas(16) inline float lab_dyn_smem[LAB_DYN_SMEM_FLOATS];

namespace lab {

inline unsigned shared_address(const void* p) {
    return static_cast<unsigned>(static_cast<const char*>(p) - reinterpret_cast<const char*>(lab_dyn_smem));
}

// One queued asynchronous copy: `bytes` of `data` (zeros where the source size was 0) to `dst`.
struct PendingCopy {
    unsigned dst;
    unsigned bytes;
    float data[4];
};
inline thread_local std::vector<PendingCopy> open_group;
inline thread_local std::deque<std::vector<PendingCopy>> committed;

inline void fail(const char* what) {
    std::fprintf(stderr, "twin_on_cpu: %s\n", what);
    std::abort();
}

inline void queue_copy(unsigned dst, const float* src, unsigned floats, bool inside) {
    const unsigned bytes = 4 * floats;
    if (dst % bytes != 0 || dst + bytes > sizeof lab_dyn_smem) fail("cp.async: shared destination misaligned or out of range");
    if (inside && reinterpret_cast<std::uintptr_t>(src) % bytes != 0) fail("cp.async: global source misaligned");
    PendingCopy c{dst, bytes, {0, 0, 0, 0}};
    if (inside) std::memcpy(c.data, src, bytes);
    open_group.push_back(c);
}

inline void cp_async_f32(unsigned dst, const float* src, unsigned index, bool inside) {
    queue_copy(dst, src + (inside ? index : 0u), 1, inside);
}
inline void cp_async_f32x4(unsigned dst, const float* src, unsigned index, bool inside) {
    queue_copy(dst, src + (inside ? index : 0u), 4, inside);
}
inline void cp_async_commit() {
    committed.push_back(std::move(open_group));
    open_group.clear();
}
template <int PENDING>
void cp_async_wait() {
    while (committed.size() > PENDING) {
        for (const PendingCopy& c : committed.front())
            std::memcpy(reinterpret_cast<char*>(lab_dyn_smem) + c.dst, c.data, c.bytes);
        committed.pop_front();
    }
}
// A thread must not end with copies in flight.
inline void check_no_copies_in_flight() {
    if (!open_group.empty() || !committed.empty()) fail("a thread ended with asynchronous copies in flight");
}

inline unsigned long long clock_cycles() { return 0; }
inline void store_word(unsigned long long* p, unsigned long long v) { *p = v; }
inline unsigned long long load_word(const unsigned long long* p) { return *p; }
inline unsigned long long global_timer_ns() { return 0; }

inline bool inside(unsigned row, unsigned col, unsigned rows, unsigned cols) { return row < rows && col < cols; }
inline bool rows_vectorizable(unsigned cols, const void* base) {
    return cols % 4u == 0u && reinterpret_cast<std::uintptr_t>(base) % 16u == 0u;
}

}  // namespace lab
