// The twin's sm_90a module run on the CPU (hopper_on_cpu.h), for every line of the generated
// sm_90a table (../variants_sm90a.h): each wgmma line (`gemm_wgmma_twin`) and each mma.sync line
// (`gemm_tma_mma_twin`) against an exact product of small integers, at sizes that take its paths:
// tiles cut by C's edges (and, in a cluster of two, a pair's lower tile past C), tiles wholly
// inside C with beta 0 (where a line stages C, its storer warps' path), an odd N (B's rows padded
// for TMA, as the host pads them), several tiles a block, and, on the lines that take them,
// split-K and a streamed last wave; each wgmma microbenchmark line against its exact tile; each
// bulk-copy line against its source. Every element is compared, the guard words after C (or the
// copy) must stay untouched, and split-K's arrival words must be zero again. Two checks of the
// model come first: a read of a slot before its mbarrier completes sees NaN, and a wait no one
// ends is reported as a deadlock.
//
// This checks the CUDA C++ algorithm of the ring, the walk, the turns, the clusters, split-K and the
// epilogues, with TMA landing and wgmma reading as late as their contracts allow; not nvcc's code,
// nor the hardware's timing.
//
// Output: one line per check, `ok ENTRY CASE` or `FAIL ENTRY CASE: ...`; exit status 1 when a check
// failed.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cuda_on_cpu.h"
#include "fibers_on_cpu.h"
#include "hopper_on_cpu.h"
#include "tensor_on_cpu.h"

#include "../twin_gemm_tma_mma.cuh"
#include "../twin_gemm_wgmma.cuh"
#include "../twin_tma_copy.cuh"
#include "../twin_wgmma.cuh"

namespace {

namespace sm90 = lab::cpu::sm90;
using lab::ring::WGEMM_BK;

bool all_passed = true;

void report(bool ok, const std::string& what, const std::string& why) {
    if (ok) {
        std::printf("ok %s\n", what.c_str());
    } else {
        std::printf("FAIL %s: %s\n", what.c_str(), why.c_str());
        all_passed = false;
    }
    std::fflush(stdout);
}

// A tensor map of a row-major bf16 matrix of `rows` x `cols` whose rows are `stride` elements apart,
// with boxes of `box_cols` x `box_rows` and the 128-byte swizzle.
struct Map {
    alignas(128) unsigned long long words[16];
    Map(const std::vector<std::uint16_t>& m, unsigned rows, unsigned cols, unsigned stride, unsigned box_cols,
        unsigned box_rows) {
        const sm90::TensorMap t{m.data(), {cols, rows}, 2ull * stride, {box_cols, box_rows}, 128};
        std::memset(words, 0, sizeof words);
        std::memcpy(words, &t, sizeof t);
    }
};

struct Case {
    const char* label;
    unsigned m, n, k;
    float alpha, beta;
    unsigned walkers;
    unsigned k_slices;  // 0: K whole
    bool tail;          // stream the last partial wave
};

constexpr float GUARD = 12345.0f;
constexpr unsigned GUARD_WORDS = 64;

// The problem of one case: A, B (rows padded to 8 elements, as the host pads them for TMA), C with
// guard words after it, and the exact reference.
struct Problem {
    unsigned m, n, k, a_stride, b_stride;
    std::vector<std::uint16_t> a, b;
    std::vector<float> c, want;
    Problem(const Case& cs, unsigned seed) : m(cs.m), n(cs.n), k(cs.k) {
        a_stride = (k + 7) / 8 * 8;
        b_stride = (n + 7) / 8 * 8;
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> small(-2, 2), start(-3, 3);
        std::vector<int> ai(size_t(m) * k), bi(size_t(k) * n);
        a.assign(size_t(m) * a_stride, 0);
        b.assign(size_t(k) * b_stride, 0);
        for (unsigned i = 0; i < m; ++i)
            for (unsigned j = 0; j < k; ++j) a[size_t(i) * a_stride + j] = lab::cpu::bf16_of_int(ai[size_t(i) * k + j] = small(rng));
        for (unsigned i = 0; i < k; ++i)
            for (unsigned j = 0; j < n; ++j) b[size_t(i) * b_stride + j] = lab::cpu::bf16_of_int(bi[size_t(i) * n + j] = small(rng));
        c.assign(size_t(m) * n + GUARD_WORDS, GUARD);
        want.assign(size_t(m) * n, 0);
        for (unsigned i = 0; i < m; ++i)
            for (unsigned j = 0; j < n; ++j) {
                const float old = float(start(rng));
                c[size_t(i) * n + j] = old;
                long long sum = 0;
                for (unsigned l = 0; l < k; ++l) sum += (long long)ai[size_t(i) * k + l] * bi[size_t(l) * n + j];
                want[size_t(i) * n + j] = float(double(cs.alpha) * double(sum) + double(cs.beta) * old);
            }
    }
    // The tensor maps the host encodes for a line of BM-row tiles: A (dims K, M) in boxes of 64 x BM,
    // B (dims N, K) in boxes of 64 x 64.
    Map a_map(unsigned bm) const { return Map(a, m, k, a_stride, WGEMM_BK, bm); }
    Map b_map() const { return Map(b, k, n, b_stride, lab::ring::B_BOX_COLS, WGEMM_BK); }
    std::string compare() const {
        for (unsigned i = 0; i < m; ++i)
            for (unsigned j = 0; j < n; ++j) {
                const float got = c[size_t(i) * n + j], w = want[size_t(i) * n + j];
                if (!(got == w))
                    return "C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(got) +
                           ", want " + std::to_string(w);
            }
        for (unsigned g = 0; g < GUARD_WORDS; ++g)
            if (c[size_t(m) * n + g] != GUARD) return "a word past C was written";
        return "";
    }
};

// The cases every ring line takes: tiles cut by C's edges (both settings' alpha and beta), and tiles
// wholly inside C with beta 0.
std::vector<Case> ring_cases(unsigned bm, unsigned bn) {
    return {
        {"edges", 3 * bm - 7, bn + 24, 3 * WGEMM_BK + 16, 1.5f, 0.5f, 2, 0, false},
        {"inside", 2 * bm, 2 * bn, 2 * WGEMM_BK, 1.0f, 0.0f, 2, 0, false},
    };
}

template <unsigned BM, unsigned BN, unsigned STAGES, unsigned CONSUMERS, unsigned CLUSTER, bool TURNS, int ACC,
          unsigned REGS>
void check_wgemm(const char* name, unsigned threads) {
    using L = lab::ring::Line<BM, BN, STAGES, CONSUMERS, CLUSTER, TURNS>;
    // tma_ring.rs `start`: the lines that cut K and those that stream a tail.
    constexpr bool cuts = CLUSTER == 1 && !TURNS, streams = CLUSTER == 1;
    std::vector<Case> cases = ring_cases(BM, BN);
    cases.push_back({"odd_n", BM + 3, BN - 3, WGEMM_BK + 8, 1.0f, 0.5f, 1, 0, false});
    // Several units a block (a consumer of turns takes some and passes over the other's), the ring
    // wrapping within units.
    cases.push_back({"many_tiles", 4 * BM, 3 * BN, 3 * WGEMM_BK, 1.0f, 0.5f, 2, 0, false});
    if (cuts) cases.push_back({"split_k", BM + 9, BN, 5 * WGEMM_BK - 8, 1.0f, 0.5f, 4, 2, false});
    if (streams) cases.push_back({"streamed_tail", 5 * BM - 3, BN, 5 * WGEMM_BK, 1.0f, 0.5f, 3, 0, true});
    unsigned seed = 1;
    for (const Case& cs : cases) {
        Problem p(cs, seed++);
        const Map a_map = p.a_map(BM), b_map = p.b_map();
        const unsigned rows = (cs.m + BM - 1) / BM, cols = (cs.n + BN - 1) / BN, tiles = rows * cols;
        const unsigned grid = cs.walkers * CLUSTER;
        // The scratch split_k.rs describes: a BM x BN slot per unit of a cut tile (per block and piece of a
        // streamed tail), and a zeroed word per cut tile and warp of the tile.
        unsigned stream = 0, slots = 0, words = 0;
        if (cs.k_slices != 0) {
            const unsigned k_steps = (cs.k + WGEMM_BK - 1) / WGEMM_BK;
            slots = tiles * ((k_steps + cs.k_slices - 1) / cs.k_slices);
            words = tiles * L::TILE_WARPS;
        }
        if (cs.tail) {
            stream = tiles / grid * grid;
            slots = grid * lab::ring::TAIL_PIECES;
            words = (tiles - stream) * L::TILE_WARPS;
        }
        std::vector<float> partials(size_t(slots) * BM * BN + 1, 0.0f);
        std::vector<unsigned> arrivals(words + 1, 0);
        sm90::launch(grid, CLUSTER, threads, [&] {
            lab::ring::gemm_wgmma_twin<BM, BN, STAGES, CONSUMERS, CLUSTER, TURNS, ACC, REGS>(
                a_map.words, b_map.words, p.c.data(), int(cs.m), int(cs.n), int(cs.k), cs.alpha, cs.beta,
                int(cs.k_slices), int(stream), partials.data(), arrivals.data());
        });
        std::string why = p.compare();
        for (unsigned w = 0; w < words && why.empty(); ++w)
            if (arrivals[w] != 0) why = "an arrival word was left at " + std::to_string(arrivals[w]);
        report(why.empty(), std::string(name) + " " + cs.label, why);
    }
}

template <unsigned BM, unsigned BN, unsigned STAGES, unsigned CONSUMERS>
void check_tma_mma(const char* name, unsigned threads) {
    const std::vector<Case> cases = ring_cases(BM, BN);
    unsigned seed = 100;
    for (const Case& cs : cases) {
        Problem p(cs, seed++);
        const Map a_map = p.a_map(BM), b_map = p.b_map();
        lab::cpu::warp_exchanges.clear();
        sm90::launch(cs.walkers, 1, threads, [&] {
            lab::ring::gemm_tma_mma_twin<BM, BN, STAGES, CONSUMERS, BN / 32>(
                a_map.words, b_map.words, p.c.data(), int(cs.m), int(cs.n), int(cs.k), cs.alpha, cs.beta);
        });
        const std::string why = p.compare();
        report(why.empty(), std::string(name) + " " + cs.label, why);
    }
}

// A wgmma microbenchmark line: `iters` rounds of GROUPS groups of one m64nNk16 on sections/wgmma.rs's
// operands, so each element is iters x GROUPS times the product's.
template <int N, int GROUPS>
void check_wgmma_bench(const char* name) {
    constexpr int iters = 3;
    std::vector<float> out(64 * N, 0.0f);
    sm90::launch(1, 1, sm90::WARPGROUP, [&] { lab::wgmma_bench::wgmma_bench<N / 2, GROUPS>(out.data(), iters); });
    std::string why;
    for (unsigned r = 0; r < 64 && why.empty(); ++r)
        for (unsigned col = 0; col < unsigned(N) && why.empty(); ++col) {
            int sum = 0;
            for (unsigned k = 0; k < 16; ++k)
                sum += lab::wgmma_bench::a_value(r, k) * lab::wgmma_bench::b_value(k, col);
            if (out[r * N + col] != float(iters * GROUPS * sum))
                why = "element (" + std::to_string(r) + ", " + std::to_string(col) + ")";
        }
    report(why.empty(), std::string(name) + " tile", why);
}

// A bulk-copy line: two blocks copy a buffer of a few rounds of every warp's ring and a short last
// tile; every float must arrive, nothing past the end.
template <unsigned THREADS, unsigned STAGE_BYTES, unsigned STAGES>
void check_tma_copy(const char* name) {
    constexpr unsigned grid = 2, warps = THREADS / 32, tile_floats = STAGE_BYTES / 4;
    const unsigned long long n = (unsigned long long)tile_floats * (grid * warps * STAGES * 2 + 3) + 20;
    std::vector<float> src(n), dst(n + GUARD_WORDS, GUARD);
    for (unsigned long long i = 0; i < n; ++i) src[i] = float(i % 100003);
    sm90::launch(grid, 1, THREADS, [&] { lab::bulk::bulk_ring_copy<THREADS, STAGE_BYTES, STAGES>(src.data(), dst.data(), n); });
    std::string why;
    for (unsigned long long i = 0; i < n && why.empty(); ++i)
        if (dst[i] != src[i]) why = "float " + std::to_string(i) + " not copied";
    for (unsigned g = 0; g < GUARD_WORDS && why.empty(); ++g)
        if (dst[n + g] != GUARD) why = "a float past the end was written";
    report(why.empty(), std::string(name) + " copy", why);
}

std::vector<std::function<void()>>& checks() {
    static std::vector<std::function<void()>> all;
    return all;
}

// The model's own checks. A slot read before its mbarrier completes must see NaN (TMA lands late);
// a wait no arrival ends must be reported as a deadlock (run in a child process, which aborts).
void check_the_model() {
    std::vector<std::uint16_t> ones(64 * 64, lab::cpu::bf16_of_int(1));
    const Map map(ones, 64, 64, 64, 64, 64);
    float early = 0, late = 0;
    sm90::launch(1, 1, sm90::WARPGROUP, [&] {
        if (threadIdx.x == 0) {
            lab::hopper::mbarrier_init(1024 * 16, 1);
            lab::hopper::mbarrier_arrive_expect_tx(1024 * 16, 64 * 64 * 2);
            lab::hopper::tma_load_2d(0, map.words, 0, 0, 1024 * 16);
            early = sm90::bf16_value(sm90::shared_at(0, 0, 2, "the check's read"));
            lab::hopper::mbarrier_wait(1024 * 16, 0);
            late = sm90::bf16_value(sm90::shared_at(0, 0, 2, "the check's read"));
        }
    });
    report(std::isnan(early) && late == 1.0f, "model tma_lands_at_its_barrier",
           "read " + std::to_string(early) + " before the wait and " + std::to_string(late) + " after");
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        std::freopen("/dev/null", "w", stderr);
        sm90::launch(1, 1, sm90::WARPGROUP, [&] {
            if (threadIdx.x == 0) lab::hopper::mbarrier_init(1024 * 16, 2);
            __syncthreads();
            if (threadIdx.x == 0) lab::hopper::mbarrier_arrive(1024 * 16);
            lab::hopper::mbarrier_wait(1024 * 16, 0);
        });
        std::_Exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    report(WIFSIGNALED(status), "model a_lost_arrival_is_a_deadlock", "the run ended without a deadlock");
}

}  // namespace

#define LAB_WGEMM_LAB_TIMED(NAME, threads, shared_bytes, bm, bn, stages, consumers, cluster, turns, acc, regs) \
    static const bool NAME##_on_cpu = (checks().push_back([] {                                                 \
        check_wgemm<bm, bn, stages, consumers, cluster, turns, acc, regs>(#NAME, threads);                        \
    }),                                                                                                          \
                                       true);
#define LAB_WGEMM_LAB_TRACED(...)
#define LAB_WGEMM(NAME, TRACE, ...) LAB_WGEMM_##TRACE(NAME, __VA_ARGS__)
#define LAB_TMA_MMA_LAB_TIMED(NAME, threads, shared_bytes, bm, bn, stages, consumers) \
    static const bool NAME##_on_cpu =                                                 \
        (checks().push_back([] { check_tma_mma<bm, bn, stages, consumers>(#NAME, threads); }), true);
#define LAB_TMA_MMA_LAB_TRACED(...)
#define LAB_TMA_MMA(NAME, TRACE, ...) LAB_TMA_MMA_##TRACE(NAME, __VA_ARGS__)
#define LAB_WGMMA_BF16(NAME, n, groups) \
    static const bool NAME##_on_cpu = (checks().push_back([] { check_wgmma_bench<n, groups>(#NAME); }), true);
#define LAB_TMA_COPY(NAME, threads, stage_bytes, stages) \
    static const bool NAME##_on_cpu =                     \
        (checks().push_back([] { check_tma_copy<threads, stage_bytes, stages>(#NAME); }), true);

#include "../variants_sm90a.h"

int main() {
    check_the_model();
    for (const auto& check : checks()) check();
    return all_passed ? 0 : 1;
}
