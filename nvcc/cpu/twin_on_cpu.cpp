// The twin's kernels run on the CPU (cuda_on_cpu.h), for every line of the generated variant
// table (../variants.h): each GEMM line against an f64 product at sizes that take each of its
// paths, each point of the copy grid and each persistent copy against the source, each BF16 GEMM
// line against an exact product (tensor_checks.h), and each FMA and mma line's results printed
// for the Rust test
// (xtask/tests/twin_cpu.rs) to compare bit for bit with the lab's CPU reference and mma model.
// This checks the CUDA C++ algorithm (indices, edges, the pipeline's order of copies, waits and
// barriers), not nvcc's code: that is for the GPU run (nvcc/check_on_gpu.sh).
//
// Output: one line per check, `ok ...` or `FAIL ...`, `fma ILP G A B ITERS OUT` and
// `fma_control OP ILP G A B ITERS OUT` lines (floats as their bits), and the `mma_ilp` and
// `mma_op` lines tensor_checks.h describes; the exit status is 1 when a check failed.

#include "cuda_on_cpu.h"
#include "tensor_checks.h"

#include <algorithm>
#include <limits>
#include <random>
#include <string_view>
#include <thread>

#include "../twin_chase.cuh"
#include "../twin_fma_ilp.cuh"
#include "../twin_gemm_seed.cuh"
#include "../twin_gemm_tuned.cuh"
#include "../twin_memcpy.cuh"
#include "../twin_read.cuh"
#include "fibers_on_cpu.h"

namespace {

// Runs `kernel` over a (gx, gy) grid of `threads`-thread blocks, one block at a time: each thread
// an OS thread (for kernels with barriers) or a call in turn.
template <class Kernel>
void launch(unsigned gx, unsigned gy, unsigned threads, bool barriers, Kernel kernel) {
    gridDim = {gx, gy, 1};
    blockDim = {threads, 1, 1};
    for (unsigned by = 0; by < gy; ++by)
        for (unsigned bx = 0; bx < gx; ++bx) {
            std::fill(std::begin(lab_dyn_smem), std::end(lab_dyn_smem), std::numeric_limits<float>::quiet_NaN());
            auto thread = [&, bx, by](unsigned t) {
                threadIdx = {t, 0, 0};
                blockIdx = {bx, by, 0};
                kernel();
                lab::check_no_copies_in_flight();
            };
            if (!barriers) {
                for (unsigned t = 0; t < threads; ++t) thread(t);
                continue;
            }
            std::barrier<> barrier(threads);
            block_barrier = &barrier;
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < threads; ++t) pool.emplace_back(thread, t);
            for (auto& t : pool) t.join();
        }
}

struct Gemm {
    unsigned m, n, k;
    float alpha, beta;
    // B one float past a 16-byte boundary: the one-float staging path even when 4 divides N.
    bool b_misaligned;
};

// Runs `run(a, b, c)` on random matrices and compares C with alpha*A*B + beta*C in f64.
template <class Run>
bool check_gemm(const char* entry, const Gemm& g, Run run) {
    std::mt19937 rng(g.m * 131 + g.n * 17 + g.k);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> a(std::size_t(g.m) * g.k), b_store(std::size_t(g.k) * g.n + 4), c(std::size_t(g.m) * g.n);
    float* b = b_store.data() + (g.b_misaligned ? 1 : 0);
    for (auto& x : a) x = uniform(rng);
    for (std::size_t i = 0; i < std::size_t(g.k) * g.n; ++i) b[i] = uniform(rng);
    for (auto& x : c) x = uniform(rng);
    const std::vector<float> c0 = c;
    run(a.data(), b, c.data());
    double worst = 0;
    for (unsigned i = 0; i < g.m; ++i)
        for (unsigned j = 0; j < g.n; ++j) {
            double sum = 0;
            for (unsigned q = 0; q < g.k; ++q) sum += double(a[std::size_t(i) * g.k + q]) * b[std::size_t(q) * g.n + j];
            const double old = g.beta == 0.0f ? 0.0 : double(g.beta) * c0[std::size_t(i) * g.n + j];
            const double err = std::fabs(double(g.alpha) * sum + old - c[std::size_t(i) * g.n + j]);
            worst = std::isnan(err) ? std::numeric_limits<double>::infinity() : std::max(worst, err);
        }
    // f32 accumulation of k products of magnitude <= 1: far below any misplaced or missing term.
    const double tolerance = 1e-5 + 2e-6 * g.k;
    const bool ok = worst <= tolerance;
    std::printf("%s %s %ux%ux%u alpha %g beta %g%s: worst error %.3g (tolerance %.3g)\n", ok ? "ok" : "FAIL", entry,
                g.m, g.n, g.k, g.alpha, g.beta, g.b_misaligned ? ", B misaligned" : "", worst, tolerance);
    return ok;
}

template <int TM, int TN>
bool check_seed(const char* entry, unsigned threads) {
    using namespace lab::seed;
    bool ok = true;
    for (const Gemm& g : {Gemm{2 * BM, BN, 2 * BM, 1.5f, 0.5f, false}, Gemm{BM, 2 * BN, BM, 1.0f, 0.0f, false}})
        ok &= check_gemm(entry, g, [&](const float* a, const float* b, float* c) {
            launch(g.n / BN, g.m / BM, threads, true,
                   [&] { gemm<TM, TN>(a, b, c, g.m, g.n, g.k, g.alpha, g.beta); });
        });
    return ok;
}

template <class S>
bool check_tuned(const char* entry) {
    bool ok = true;
    for (const Gemm& g : {
             // Edge tiles in both directions, N not a multiple of 4 (B and C one float at a
             // time), K not a multiple of BK.
             Gemm{S::BM + 1, S::BN + 5, 2 * S::BK + 3, 1.5f, 0.5f, false},
             // 16-byte staging of B and stores of C, beta 0 (C not read), a partial last slice.
             Gemm{S::BM + 7, S::BN + 4, 3 * S::BK + 1, 1.0f, 0.0f, false},
             // Whole tiles, more slices than stages, B misaligned.
             Gemm{S::BM, S::BN, 4 * S::BK * S::STAGES, 1.5f, 0.5f, true},
             // Smaller than one tile and one slice.
             Gemm{3, 5, 1, 1.5f, 0.5f, false},
         })
        ok &= check_gemm(entry, g, [&](const float* a, const float* b, float* c) {
            launch((g.n + S::BN - 1) / S::BN, (g.m + S::BM - 1) / S::BM, S::THREADS, true,
                   [&] { lab::tuned::gemm<S>(a, b, c, g.m, g.n, g.k, g.alpha, g.beta); });
        });
    return ok;
}

// The copy over n floats (two blocks and a ragged tail): whole vectors copied, the rest untouched.
template <unsigned THREADS, int LOADS, int WIDTH>
bool check_copy(const char* entry) {
    const unsigned long long per_block = 1ull * THREADS * LOADS * WIDTH;
    const unsigned long long n = 2 * per_block + 3;
    std::vector<float> src_store(n + 4), dst_store(n + 4, -1.0f);
    // 16-byte aligned, as the host's buffers are.
    float* src = src_store.data() + (4 - reinterpret_cast<std::uintptr_t>(src_store.data()) / 4 % 4) % 4;
    float* dst = dst_store.data() + (4 - reinterpret_cast<std::uintptr_t>(dst_store.data()) / 4 % 4) % 4;
    for (unsigned long long i = 0; i < n; ++i) src[i] = float(i);
    launch(unsigned((n + per_block - 1) / per_block), 1, THREADS, false,
           [&] { lab::copy::memcpy<THREADS, LOADS, WIDTH>(src, dst, n); });
    const unsigned long long whole = n / WIDTH * WIDTH;
    unsigned long long wrong = 0;
    for (unsigned long long i = 0; i < n; ++i) wrong += dst[i] != (i < whole ? src[i] : -1.0f);
    std::printf("%s %s n=%llu: %llu floats wrong\n", wrong == 0 ? "ok" : "FAIL", entry, n, wrong);
    return wrong == 0;
}

// The persistent copy over n floats with a grid of two blocks: three full rounds, a partial one
// and a ragged tail; whole vectors copied, the rest untouched.
template <unsigned THREADS, int LOADS, int WIDTH>
bool check_persistent_copy(const char* entry) {
    const unsigned blocks = 2;
    const unsigned long long per_round = 1ull * blocks * THREADS * LOADS * WIDTH;
    const unsigned long long n = 3 * per_round + per_round / 3 + 3;
    std::vector<float> src_store(n + 4), dst_store(n + 4, -1.0f);
    float* src = src_store.data() + (4 - reinterpret_cast<std::uintptr_t>(src_store.data()) / 4 % 4) % 4;
    float* dst = dst_store.data() + (4 - reinterpret_cast<std::uintptr_t>(dst_store.data()) / 4 % 4) % 4;
    for (unsigned long long i = 0; i < n; ++i) src[i] = float(i);
    launch(blocks, 1, THREADS, false, [&] { lab::copy::persistent_copy<THREADS, LOADS, WIDTH>(src, dst, n); });
    const unsigned long long whole = n / WIDTH * WIDTH;
    unsigned long long wrong = 0;
    for (unsigned long long i = 0; i < n; ++i) wrong += dst[i] != (i < whole ? src[i] : -1.0f);
    std::printf("%s %s n=%llu: %llu floats wrong\n", wrong == 0 ? "ok" : "FAIL", entry, n, wrong);
    return wrong == 0;
}

// The read over n floats (two blocks and a ragged tail): each warp's word is the sum of the bit
// patterns of the whole vectors its lanes own (vector v belongs to thread v mod the grid's
// threads), computed here from the same layout.
template <unsigned THREADS, int LOADS, int WIDTH>
bool check_read(const char* entry) {
    const unsigned long long per_block = 1ull * THREADS * LOADS * WIDTH;
    const unsigned long long n = 2 * per_block + 3;
    const unsigned blocks = unsigned((n + per_block - 1) / per_block);
    std::vector<float> src_store(n + 4);
    float* src = src_store.data() + (4 - reinterpret_cast<std::uintptr_t>(src_store.data()) / 4 % 4) % 4;
    for (unsigned long long i = 0; i < n; ++i) src[i] = float(i) + 0.25f;
    std::vector<unsigned long long> out(blocks * THREADS / 32, ~0ull), want(out.size(), 0);
    const unsigned long long threads = 1ull * blocks * THREADS;
    for (unsigned long long i = 0; i < n / WIDTH * WIDTH; ++i) want[(i / WIDTH) % threads / 32] += __float_as_uint(src[i]);
    lab::cpu::launch_fibers(blocks, 1, THREADS, [&] { lab::read::read<THREADS, LOADS, WIDTH>(src, n, out.data()); });
    unsigned long long wrong = 0;
    for (std::size_t w = 0; w < out.size(); ++w) wrong += out[w] != want[w];
    std::printf("%s %s n=%llu: %llu warp sums wrong\n", wrong == 0 ? "ok" : "FAIL", entry, n, wrong);
    return wrong == 0;
}

std::uint32_t bits(float x) {
    std::uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
}

// Runs `kernel` (an FMA line's: out, a, b, iters) as thread g of 256-thread blocks, for a few
// threads and two iteration counts, and hands `print` each thread's result.
template <class Kernel, class Print>
void for_fma_threads(Kernel kernel, float a, float b, Print print) {
    for (int iters : {0, 20}) {
        for (unsigned g : {0u, 1u, 4095u, 4096u, 70001u}) {
            std::vector<float> out(g + 1);
            gridDim = {g / 256 + 1, 1, 1};
            blockDim = {256, 1, 1};
            blockIdx = {g / 256, 0, 0};
            threadIdx = {g % 256, 0, 0};
            kernel(out.data(), a, b, iters);
            print(g, iters, out[g]);
        }
    }
}

// Prints what fma_ilp<ILP> writes for a few threads, for the Rust test to compare with the lab's
// CPU reference.
template <int ILP>
void print_fma(const char*) {
    const float a = 0.999f, b = 0.5f;
    for_fma_threads(lab::fma::fma_ilp<ILP>, a, b, [&](unsigned g, int iters, float out) {
        std::printf("fma %d %u %u %u %d %u\n", ILP, g, bits(a), bits(b), iters, bits(out));
    });
}

// Prints what a control of the FMA line (twin_fma_ilp.cuh's OP<ILP>) writes for a few threads,
// launched with `a` and `b` as the host launches that op (sections/probes.rs `FmaOp::launch_args`
// of the sweep's a = 1 - 2^-20 and b = 1: the constant FFMA takes a - 1).
template <int ILP, class Kernel>
void print_control(const char* name, Kernel kernel, float a, float b) {
    for_fma_threads(kernel, a, b, [&](unsigned g, int iters, float out) {
        std::printf("fma_control %s %d %u %u %u %d %u\n", name, ILP, g, bits(a), bits(b), iters, bits(out));
    });
}

constexpr float SWEEP_A = 1.0f - 1.0f / 1048576.0f;

}  // namespace

int main() {
    bool ok = true;
    // One check per table line (the generated header's invocations). A GEMM line's traced twin
    // writes what its timed entry writes, plus block stamps that only the GPU has: the CPU checks
    // the timed entry (host/src/experiments/gemm_sides_trace.rs holds the twin to it on the GPU).
#define LAB_TIMED(...) __VA_ARGS__
#define LAB_TRACED(...)
#define LAB_GEMM_SEED(NAME, TRACE, threads, min_blocks, tm, tn) TRACE(ok &= check_seed<tm, tn>(#NAME, threads);)
#define LAB_GEMM_TUNED(NAME, TRACE, threads, min_blocks, shared_bytes, bm, bn, bk, wm, wn, tm, tn, stages) \
    TRACE(ok &= check_tuned<lab::tuned::Shape<bm, bn, bk, wm, wn, tm, tn, stages>>(#NAME);)
#define LAB_MEMCPY(NAME, threads, loads, width) ok &= check_copy<threads, loads, width>(#NAME);
#define LAB_FMA_ILP(NAME, ilp) print_fma<ilp>(#NAME);
#define LAB_READ(NAME, threads, loads, width) ok &= check_read<threads, loads, width>(#NAME);
#define LAB_FMA_CONTROL(NAME, OP, ilp)                                                          \
    print_control<ilp>(#OP, lab::fma::OP<ilp>,                                                  \
                       std::string_view(#OP) == "ffma_const" ? SWEEP_A - 1.0f : SWEEP_A, 1.0f);
// The chase's result is one thread's walk of a ring; it is checked on the GPU only.
#define LAB_CHASE(NAME)
// The copies through shared memory are cp.async and shared loads in inline PTX, with no CPU
// model here; every byte they copy is checked on the GPU (host/tests/smem_copy_gpu.rs).
#define LAB_SMEM_COPY(NAME, threads, chunks, stages)
#define LAB_PERSISTENT_COPY(NAME, threads, loads, width) \
    ok &= check_persistent_copy<threads, loads, width>(#NAME);
// A sampled build copies as its line does (checked above); its stamps are clock readings, which
// only the GPU has (host/tests/copy_samples_gpu.rs checks both).
#define LAB_PERSISTENT_COPY_SAMPLED(NAME, threads, loads, width)
#define LAB_GEMM_BF16(NAME, TRACE, threads, shared_bytes, bm, bn, bk, wm, wn, stages) \
    TRACE(ok &= tensor_checks::check_bf16_gemm<lab::mma::Shape<bm, bn, bk, wm, wn, stages>>(#NAME);)
#define LAB_MMA_ILP(NAME, ilp, rounds) tensor_checks::print_mma_ilp<ilp>(#NAME);
#include "../variants.h"
    // The model of one mma itself, which every tensor-core line above runs on.
    tensor_checks::print_mma_instruction();
    std::printf("%s\n", ok ? "twin_on_cpu: every check passed" : "twin_on_cpu: some checks FAILED");
    return ok ? 0 : 1;
}
