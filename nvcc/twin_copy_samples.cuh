// The sampled persistent copies in CUDA C++: kernels-gpu/src/kernels/persistent_copy.rs's
// `Sampled` recorder and `sampled_copy`, with the layout of kernels-gpu/src/sections/copy_samples.rs
// (xtask's tests check these constants against it). GPU only: the stamps are clock readings.
#pragma once

#include "twin_memcpy.cuh"

namespace lab::copy_samples {
constexpr unsigned SAMPLE_BLOCKS = 1024;
constexpr unsigned ROUND_SLOTS = 128;
constexpr unsigned HEADER_WORDS = 6;
constexpr unsigned WORDS_PER_ROUND = 3;
constexpr unsigned WORDS_PER_BLOCK = HEADER_WORDS + ROUND_SLOTS * WORDS_PER_ROUND;
// A block's header words, then each round's.
enum : unsigned { START_NS = 0, END_NS = 1, START_CYCLES = 2, END_CYCLES = 3, SM = 4, ROUNDS = 5 };
enum : unsigned { ISSUE = 0, RETURNED = 1, END = 2 };
}  // namespace lab::copy_samples

// gpu/stamps.rs's module global (a global-namespace variable: its name is not mangled), defined
// at the end of twin.cu.
extern __device__ unsigned long long lab_copy_samples[];

namespace lab::copy {

// gpu.rs `clock64` / `globaltimer` and gpu/stamps.rs `smid`: the clocks volatile and ordered with
// memory (the Rust asm is not `nomem`), the SM id pure.
__device__ __forceinline__ unsigned long long stamp_clock() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}
__device__ __forceinline__ unsigned long long stamp_globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}
__device__ __forceinline__ unsigned stamp_smid() {
    unsigned s;
    asm("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

// persistent_copy.rs `Sampled`: every thread reads the clocks at the same points, lane 0 of warp 0
// of a block below SAMPLE_BLOCKS stores them into its block's words.
struct Sampled {
    unsigned long long* words;
    unsigned round;
    unsigned long long issue_, returned_;

    __device__ __forceinline__ void put(unsigned i, unsigned long long v) const {
        if (words) *(volatile unsigned long long*)(words + i) = v;
    }
    __device__ __forceinline__ static Sampled start() {
        using namespace lab::copy_samples;
        const unsigned block = blockIdx.x;
        const bool records = threadIdx.x == 0 && block < SAMPLE_BLOCKS;
        Sampled s{records ? lab_copy_samples + (unsigned long long)block * WORDS_PER_BLOCK : nullptr, 0,
                  0, 0};
        s.put(START_NS, stamp_globaltimer());
        s.put(START_CYCLES, stamp_clock());
        s.put(SM, stamp_smid());
        return s;
    }
    __device__ __forceinline__ void issue() { issue_ = stamp_clock(); }
    __device__ __forceinline__ void returned() { returned_ = stamp_clock(); }
    __device__ __forceinline__ void end() {
        using namespace lab::copy_samples;
        const unsigned long long t = stamp_clock();
        if (round < ROUND_SLOTS) {
            const unsigned at = HEADER_WORDS + round * WORDS_PER_ROUND;
            put(at + ISSUE, issue_);
            put(at + RETURNED, returned_);
            put(at + END, t);
        }
        ++round;
    }
    __device__ __forceinline__ void finish(unsigned long long rounds) const {
        using namespace lab::copy_samples;
        put(END_NS, stamp_globaltimer());
        put(END_CYCLES, stamp_clock());
        put(ROUNDS, rounds);
    }
};

// persistent_copy.rs `sampled_copy`: the persistent copy with its rounds stamped.
template <unsigned THREADS, int LOADS, int WIDTH>
__device__ __forceinline__ void sampled_copy(const float* src, float* dst, unsigned long long n) {
    recorded_copy<THREADS, LOADS, WIDTH, Sampled>(src, dst, n);
}

}  // namespace lab::copy
