// The twin's traced entries (kernels-gpu/src/kernels/block_trace.rs and gpu/block_trace.rs): a
// GEMM line's `_traced` entry runs the line's kernel function between two stamps that write the
// block trace, laid out as kernels-gpu/src/sections/block_trace.rs says (xtask's twin tests hold
// the constants below to it). Neither stamp keeps a value live across the body: each reads the
// block and thread index afresh (volatile asm, never merged with the body's reads), so that ptxas
// gives the traced entry the timed entry's registers, spills and shared memory.
//
// The entry macros (twin.cu, twin_sm90a.cu) take LAB_TIMED or LAB_TRACED as their TRACE argument,
// which variants.h picks per entry; LAB_TIMED leaves the body as the timed entry always had it.
#pragma once

#include "lab_device.cuh"

namespace lab::trace {
// sections/block_trace.rs: TRACE_BLOCKS, WORDS_PER_BLOCK and each word of a block's record.
constexpr unsigned long long TRACE_BLOCKS = 1ull << 16;
constexpr unsigned WORDS_PER_BLOCK = 6;
constexpr unsigned START_NS = 0;
constexpr unsigned END_NS = 1;
constexpr unsigned START_CYCLES = 2;
constexpr unsigned END_CYCLES = 3;
constexpr unsigned SM = 4;
constexpr unsigned WARPS_DONE = 5;
}  // namespace lab::trace

// The module global the host finds by name (sections/block_trace.rs TRACE_SYMBOL): C linkage, so
// that the name is not mangled.
extern "C" {
__device__ unsigned long long lab_block_trace[lab::trace::TRACE_BLOCKS * lab::trace::WORDS_PER_BLOCK];
}

namespace lab::trace {

// gpu/block_trace.rs `trace_block_index`: x + grid_x * (y + grid_y * z), 64 bits.
__device__ __forceinline__ unsigned long long block_index() {
    unsigned x, y, z, nx, ny;
    asm volatile("mov.u32 %0, %%ctaid.x; mov.u32 %1, %%ctaid.y; mov.u32 %2, %%ctaid.z;"
                 "mov.u32 %3, %%nctaid.x; mov.u32 %4, %%nctaid.y;"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(nx), "=r"(ny));
    return (static_cast<unsigned long long>(ny) * z + y) * nx + x;
}

// gpu/block_trace.rs `trace_thread_index`: x + block_x * (y + block_y * z).
__device__ __forceinline__ unsigned thread_index() {
    unsigned x, y, z, nx, ny;
    asm volatile("mov.u32 %0, %%tid.x; mov.u32 %1, %%tid.y; mov.u32 %2, %%tid.z;"
                 "mov.u32 %3, %%ntid.x; mov.u32 %4, %%ntid.y;"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(nx), "=r"(ny));
    return (ny * z + y) * nx + x;
}

// This block's record, or nullptr past TRACE_BLOCKS (such a block records nothing).
__device__ __forceinline__ unsigned long long* record() {
    unsigned long long b = block_index();
    return b < TRACE_BLOCKS ? lab_block_trace + b * WORDS_PER_BLOCK : nullptr;
}

// kernels/block_trace.rs `before_body`: thread 0 stores the timer, the clock and the SM.
__device__ __forceinline__ void before_body() {
    if (thread_index() != 0) return;
    unsigned long long* r = record();
    if (r == nullptr) return;
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    store_word(r + START_NS, global_timer_ns());
    store_word(r + START_CYCLES, clock_cycles());
    store_word(r + SM, sm);
}

// gpu/block_trace.rs `red_max_u64`: *p = max(*p, v), no old value back.
__device__ __forceinline__ void red_max(unsigned long long* p, unsigned long long v) {
    asm volatile("{ .reg .u64 g; cvta.to.global.u64 g, %0; red.global.max.u64 [g], %1; }" ::"l"(p), "l"(v) : "memory");
}

// kernels/block_trace.rs `after_body`: once the lanes of its warp that exist have all left the
// body, lane 0 raises the end time and clock and counts its warp done (no barrier across warps).
__device__ __forceinline__ void after_body() {
    unsigned t = thread_index();
    unsigned nx, ny, nz;
    asm volatile("mov.u32 %0, %%ntid.x; mov.u32 %1, %%ntid.y; mov.u32 %2, %%ntid.z;"
                 : "=r"(nx), "=r"(ny), "=r"(nz));
    unsigned left = nx * ny * nz - (t & ~31u);
    __syncwarp(left >= 32 ? 0xffffffffu : (1u << left) - 1);
    if (t % 32 != 0) return;
    unsigned long long* r = record();
    if (r == nullptr) return;
    red_max(r + END_NS, global_timer_ns());
    red_max(r + END_CYCLES, clock_cycles());
    asm volatile("{ .reg .u64 g; cvta.to.global.u64 g, %0; red.global.add.u64 [g], 1; }" ::"l"(r + WARPS_DONE)
                 : "memory");
}

}  // namespace lab::trace

// An entry macro's TRACE argument: the body as is (a timed entry), or between the stamps.
#define LAB_TIMED(...) __VA_ARGS__
#define LAB_TRACED(...)           \
    lab::trace::before_body();    \
    __VA_ARGS__;                  \
    lab::trace::after_body()
