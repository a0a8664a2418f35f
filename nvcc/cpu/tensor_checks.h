// The tensor-core lines of the twin on the CPU, for twin_on_cpu.cpp: each BF16 GEMM line against
// an exact product at sizes that take each of its paths, and what the mma kernels write printed
// for the Rust test (xtask/tests/twin_cpu.rs) to compare bit for bit with the lab's CPU model
// (kernels-gpu/src/models/mma_sync.rs). The blocks run as fibers (fibers_on_cpu.h), the warp-wide
// instructions as tensor_on_cpu.h models them.
//
// Every input is a small integer in bf16 and every sum stays far inside 2^24, so each result has
// one right f32 value whatever the order of the sums: the GEMM is compared exactly, element by
// element, and an element misplaced, missed, read before its copy landed (shared memory starts
// as NaN) or read outside A or B (NaN guards on both sides) fails.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "fibers_on_cpu.h"
#include "tensor_on_cpu.h"

#include "../twin_gemm_mma.cuh"
#include "../twin_mma_ilp.cuh"

namespace tensor_checks {

using lab::cpu::bf16_of_int;

inline std::uint32_t bits_of(float x) {
    std::uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
}

constexpr std::uint16_t BF16_NAN = 0x7fc0;
// A value no element of C takes: it marks C's guards, and C's elements when beta is 0 (C is not
// to be read then, nor can what it holds reach the result).
constexpr float C_GUARD = 1.0e30f;
constexpr std::size_t GUARD = 64;

// `count` elements at a 16-byte aligned address `offset` elements into `store`, with at least
// GUARD elements of `fill` on either side.
template <class T>
T* guarded(std::vector<T>& store, std::size_t count, std::size_t offset, T fill) {
    store.assign(count + 2 * GUARD + 16 / sizeof(T) + offset, fill);
    const std::size_t misalign = reinterpret_cast<std::uintptr_t>(store.data() + GUARD) % 16 / sizeof(T);
    return store.data() + GUARD + (misalign == 0 ? 0 : 16 / sizeof(T) - misalign) + offset;
}

struct Bf16Gemm {
    unsigned m, n, k;
    float alpha, beta;
    // Offsets in elements from a 16-byte boundary: B off by one bf16 takes the element-by-element
    // staging, C off by one float the one-float epilogue.
    unsigned b_offset, c_offset;
};

template <class S>
bool check_bf16_gemm_at(const char* entry, const Bf16Gemm& g) {
    std::mt19937 rng(g.m * 131 + g.n * 17 + g.k);
    std::uniform_int_distribution<int> element(-4, 4), old(-8, 8);
    std::vector<std::uint16_t> a_store, b_store;
    std::vector<float> c_store;
    std::uint16_t* a = guarded(a_store, std::size_t(g.m) * g.k, 0, BF16_NAN);
    std::uint16_t* b = guarded(b_store, std::size_t(g.k) * g.n, g.b_offset, BF16_NAN);
    float* c = guarded(c_store, std::size_t(g.m) * g.n, g.c_offset, C_GUARD);
    std::vector<int> ai(std::size_t(g.m) * g.k), bi(std::size_t(g.k) * g.n), ci(std::size_t(g.m) * g.n);
    for (std::size_t i = 0; i < ai.size(); ++i) a[i] = bf16_of_int(ai[i] = element(rng));
    for (std::size_t i = 0; i < bi.size(); ++i) b[i] = bf16_of_int(bi[i] = element(rng));
    for (std::size_t i = 0; i < ci.size(); ++i) {
        ci[i] = old(rng);
        if (g.beta != 0.0f) c[i] = float(ci[i]);
    }
    lab::cpu::launch_fibers((g.n + S::BN - 1) / S::BN, (g.m + S::BM - 1) / S::BM, S::THREADS, [&] {
        lab::mma::gemm<S>(a, b, c, int(g.m), int(g.n), int(g.k), g.alpha, g.beta);
    });
    unsigned long long wrong = 0;
    for (unsigned i = 0; i < g.m; ++i)
        for (unsigned j = 0; j < g.n; ++j) {
            long long dot = 0;
            for (unsigned q = 0; q < g.k; ++q) dot += ai[std::size_t(i) * g.k + q] * bi[std::size_t(q) * g.n + j];
            const double c0 = g.beta == 0.0f ? 0.0 : ci[std::size_t(i) * g.n + j];
            const double want = double(g.alpha) * double(dot) + double(g.beta) * c0;
            wrong += double(c[std::size_t(i) * g.n + j]) != want;
        }
    // Nothing written outside C.
    const float* c_end = c + std::size_t(g.m) * g.n;
    for (const float* p = c_store.data(); p < c_store.data() + c_store.size(); ++p)
        wrong += (p < c || p >= c_end) && *p != C_GUARD;
    const bool ok = wrong == 0;
    std::printf("%s %s %ux%ux%u alpha %g beta %g%s%s: %llu elements wrong\n", ok ? "ok" : "FAIL", entry, g.m, g.n,
                g.k, g.alpha, g.beta, g.b_offset ? ", B misaligned" : "", g.c_offset ? ", C misaligned" : "", wrong);
    return ok;
}

// A BF16 GEMM line (a lab::mma::Shape) at five sizes.
template <class S>
bool check_bf16_gemm(const char* entry) {
    bool ok = true;
    // Two blocks at most per size: the emulated warps cost a context switch per lane at every
    // ldmatrix and mma.
    for (const Bf16Gemm& g : {
             // Edge tiles both ways (a partial row of tiles, a second column of tiles), K and N
             // odd (element-by-element staging, one-float stores), a partial last slice.
             Bf16Gemm{S::BM - 3, S::BN + 5, 2 * S::BK + 3, 1.5f, 0.5f, 0, 0},
             // 16-byte staging with chunks outside A (rows) and B (columns) zero-filled, paired
             // stores, beta 0 (C not read), a partial last slice.
             Bf16Gemm{S::BM - 9, S::BN + 8, 3 * S::BK + 8, 1.0f, 0.0f, 0, 0},
             // Whole tiles, more slices than stages: B misaligned (element-by-element staging
             // at a K and N that 8 divides), C misaligned (one-float stores at an even N).
             Bf16Gemm{S::BM, S::BN, (S::STAGES + 1) * S::BK, 1.5f, 0.5f, 1, 1},
             // 16-byte staging in two rows of tiles over twice as many slices as stages (every
             // stage refilled), C read.
             Bf16Gemm{S::BM + 16, S::BN, 2 * S::STAGES * S::BK, 1.5f, 0.5f, 0, 0},
             // Smaller than one tile and one slice.
             Bf16Gemm{3, 5, 1, 1.5f, 0.5f, 0, 0},
         })
        ok &= check_bf16_gemm_at<S>(entry, g);
    return ok;
}

// A warp's fragments of small integers, each bf16 in -3..=3: any words are fragments of some A
// and B, so no layout is needed to make them.
inline void small_integer_words(std::mt19937& rng, unsigned* words, unsigned count) {
    std::uniform_int_distribution<int> element(-3, 3);
    for (unsigned i = 0; i < count; ++i) {
        const std::uint16_t lo = bf16_of_int(element(rng)), hi = bf16_of_int(element(rng));
        words[i] = unsigned(lo) | (unsigned(hi) << 16);
    }
}

inline void print_words(const char* label, const unsigned* words, unsigned count) {
    std::printf(" %s", label);
    for (unsigned i = 0; i < count; ++i) std::printf(" %u", words[i]);
}

// Prints what mma_bf16_ilp<ILP> writes for every thread of two 64-thread blocks, at iteration
// counts that take the main loop, the remainder loop, both, and neither:
// `mma_ilp ILP ITERS a <128 words> b <64 words> out <128 floats as bits>`.
template <int ILP>
void print_mma_ilp(const char*) {
    std::mt19937 rng(1000 + ILP);
    unsigned a[128], b[64];
    small_integer_words(rng, a, 128);
    small_integer_words(rng, b, 64);
    // R rounds a main-loop iteration: none (0, -2), the remainder loop alone (1, R - 1), the
    // main loop alone (R), both (2R + 3).
    constexpr int R = lab::mma::rounds_per_iteration(ILP);
    for (int iters : {0, 1, R - 1, R, 2 * R + 3, -2}) {
        std::vector<float> out(128, C_GUARD);
        lab::cpu::launch_fibers(2, 1, 64, [&] { lab::mma::mma_bf16_ilp<ILP>(a, b, out.data(), iters); });
        std::printf("mma_ilp %d %d", ILP, iters);
        print_words("a", a, 128);
        print_words("b", b, 64);
        std::printf(" out");
        for (float x : out) std::printf(" %u", bits_of(x));
        std::printf("\n");
    }
}

// Prints one m16n8k16 mma of the model, C not zero:
// `mma_op a <128 words> b <64 words> c <128 floats as bits> d <128 floats as bits>`, lane-major.
inline void print_mma_instruction() {
    std::mt19937 rng(7);
    unsigned a[128], b[64];
    small_integer_words(rng, a, 128);
    small_integer_words(rng, b, 64);
    std::uniform_int_distribution<int> old(-100, 100);
    float c[32][4], d[32][4];
    for (auto& lane : c)
        for (float& x : lane) x = float(old(rng));
    lab::cpu::launch_fibers(1, 1, 32, [&] {
        const unsigned l = threadIdx.x;
        float acc[4] = {c[l][0], c[l][1], c[l][2], c[l][3]};
        const unsigned af[4] = {a[4 * l], a[4 * l + 1], a[4 * l + 2], a[4 * l + 3]};
        const unsigned bf[2] = {b[2 * l], b[2 * l + 1]};
        lab::mma_bf16_m16n8k16(acc, af, bf);
        std::memcpy(d[l], acc, sizeof acc);
    });
    std::printf("mma_op");
    print_words("a", a, 128);
    print_words("b", b, 64);
    std::printf(" c");
    for (auto& lane : c)
        for (float x : lane) std::printf(" %u", bits_of(x));
    std::printf(" d");
    for (auto& lane : d)
        for (float x : lane) std::printf(" %u", bits_of(x));
    std::printf("\n");
}

}  // namespace tensor_checks
