// The tuned GEMM family's index arithmetic: kernels-gpu/src/shapes/tuned_shape.rs in CUDA C++, the same
// functions under the same names, so that the twin stages, computes and stores exactly the
// elements the Rust kernel does.
//
// Layout of one block (BM x BN output tile, K slices of depth BK):
// - shared memory holds STAGES slices; a slice is A transposed, As[BK][BM + A_PAD], then
//   Bs[BK][BN];
// - warps tile the block in a (BM/WM) x (BN/WN) grid; the 32 lanes of a warp tile its WM x WN
//   tile in a (WM/TM) x (WN/TN) grid, and a lane's TM x TN accumulators are (TM/4) x (TN/4)
//   blocks of 4 x 4 spaced one lane grid apart, each 4-float fragment one 128-bit shared load.
#pragma once

namespace lab::tuned {

// tuned_shape.rs `A_PAD`, `VEC`; the warp is mma_layout.rs `LANES`.
constexpr unsigned A_PAD = 4;
constexpr unsigned WARP = 32;
constexpr unsigned VEC = 4;

// A (row, col) pair inside a block's slice or tile.
struct SliceIndex {
    unsigned row, col;
};

// tuned_shape.rs `TunedShape`, with the checks of variants.rs `tuned_shape_fits` as static
// assertions: a shape the Rust table would reject does not compile here either.
template <unsigned BM_, unsigned BN_, unsigned BK_, unsigned WM_, unsigned WN_, unsigned TM_, unsigned TN_,
          unsigned STAGES_>
struct Shape {
    static constexpr unsigned BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
    static constexpr unsigned STAGES = STAGES_;

    static constexpr unsigned THREADS = (BM / WM) * (BN / WN) * WARP;
    static constexpr unsigned LANES_M = WM / TM;
    static constexpr unsigned LANES_N = WN / TN;
    static constexpr unsigned A_PITCH = BM + A_PAD;
    static constexpr unsigned STAGE_FLOATS = BK * A_PITCH + BK * BN;
    static constexpr unsigned B_OFFSET = BK * A_PITCH;
    static constexpr unsigned SHARED_BYTES = 4 * STAGES * STAGE_FLOATS;
    static constexpr unsigned A_LOADS = BM * BK / THREADS;
    static constexpr unsigned B_LOADS = BK * BN / VEC / THREADS;
    static constexpr unsigned COPIES_PER_SLICE = A_LOADS + B_LOADS;

    static_assert(TM % VEC == 0 && TN % VEC == 0 && TM > 0 && TN > 0, "thread tile: whole 4x4 blocks");
    static_assert(WM % TM == 0 && WN % TN == 0 && (WM / TM) * (WN / TN) == WARP, "warp tile: 32 lanes");
    static_assert(BM % WM == 0 && BN % WN == 0, "block tile: whole warp tiles");
    static_assert(THREADS <= 1024, "at most 1024 threads");
    static_assert(BK > 0 && THREADS % BK == 0 && (BM * BK) % THREADS == 0 && THREADS % (BN / VEC) == 0 &&
                      (BK * (BN / VEC)) % THREADS == 0,
                  "staging: every thread copies whole shares of both slices");
    static_assert(STAGES >= 2 && STAGES <= 8, "2 to 8 pipeline stages");
    static_assert(SHARED_BYTES <= 227 * 1024, "shared memory within the 227 KB opt-in");

    // Copy e of thread t of the A slice: (row in BM, column in BK). Consecutive threads take
    // consecutive k of a row; copies step down by THREADS/BK rows.
    static __device__ __forceinline__ SliceIndex a_load(unsigned t, unsigned e) {
        return {t / BK + e * A_ROW_STEP, t % BK};
    }
    // Rows of A between one copy of a thread and its next (same column).
    static constexpr unsigned A_ROW_STEP = THREADS / BK;
    // Rows of B between one group of a thread and its next (same columns).
    static constexpr unsigned B_ROW_STEP = THREADS / (BN / VEC);
    // Group e of thread t of the B slice: (row in BK, first column in BN).
    static __device__ __forceinline__ SliceIndex b_load(unsigned t, unsigned e) {
        constexpr unsigned GROUPS = BN / VEC;
        return {t / GROUPS + e * B_ROW_STEP, VEC * (t % GROUPS)};
    }
    // The depth of the current slice at which copy j of the next slice is issued.
    __host__ __device__ static constexpr unsigned copy_step(unsigned j) { return j * BK / COPIES_PER_SLICE; }
    // Thread t's first accumulator in the block's output tile.
    static __device__ __forceinline__ SliceIndex thread_origin(unsigned t) {
        const unsigned warp = t / WARP, lane = t % WARP;
        constexpr unsigned WARPS_N = BN / WN;
        const unsigned wr = warp / WARPS_N, wc = warp % WARPS_N;
        const unsigned lr = lane / LANES_N, lc = lane % LANES_N;
        return {wr * WM + lr * VEC, wc * WN + lc * VEC};
    }
    // Offset of accumulator (r, c) (r < TM, c < TN) from the thread's origin.
    __host__ __device__ static constexpr unsigned accumulator_row(unsigned r) { return (r / VEC) * LANES_M * VEC + r % VEC; }
    __host__ __device__ static constexpr unsigned accumulator_col(unsigned c) { return (c / VEC) * LANES_N * VEC + c % VEC; }
};

}  // namespace lab::tuned
