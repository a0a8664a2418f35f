// The seed GEMM family in CUDA C++: kernels-gpu/src/kernels/gemm.rs, C = alpha*A*B + beta*C (row-major
// f32), the seed blog's 64x64x8 block tile with a TM x TN accumulator tile per thread.
//
// A block computes one 64 x 64 tile of C. Per K slice of depth 8 it stages As[64][8+1] and
// Bs[8][64+1] in shared memory (one pad column against bank conflicts), then each thread
// accumulates its TM x TN sub-tile with fused multiply-adds. Sizes must be multiples of 64
// (the host checks them before launching).
#pragma once

namespace lab::seed {

// variants.rs `BM`, `BN`, `BK`.
constexpr int BM = 64;
constexpr int BN = 64;
constexpr int BK = 8;
constexpr int AS_PITCH = BK + 1;
constexpr int BS_PITCH = BN + 1;
// gemm.rs `STAGE_GROUP`: staging loads issued together.
constexpr int STAGE_GROUP = 4;

// gemm.rs `stage`: copies the ROWS x COLS tile whose top-left element is src[origin] (row pitch
// `ld` floats) into dst (row pitch PITCH), the block's THREADS threads taking elements
// tx, tx + THREADS, ... in row-major order. Element tx + pass*THREADS is this thread's own
// (row, col) plus an offset that depends on `pass` alone. The passes go in groups of
// STAGE_GROUP loads, as in gemm.rs.
template <int ROWS, int COLS, int PITCH, int THREADS>
__device__ __forceinline__ void stage(const float* __restrict__ src, int origin, int ld, float* dst, unsigned tx) {
    constexpr unsigned ELEMENTS = ROWS * COLS;
    constexpr unsigned PASSES = (ELEMENTS + THREADS - 1) / THREADS;
    if (tx >= ELEMENTS) return;  // more threads than elements: the first ELEMENTS copy one each
    const int row = tx / COLS, col = tx % COLS;
    const int from = origin + row * ld + col;
    float* to = dst + row * PITCH + col;
#pragma unroll STAGE_GROUP
    for (unsigned pass = 0; pass < PASSES; ++pass) {
        const int dr = pass * THREADS / COLS, dc = pass * THREADS % COLS;
        // __ldg: the read-only path, as gemm.rs's GlobalTile loads (ld.global.nc).
        to[dr * PITCH + dc] = __ldg(&src[from + dr * ld + dc]);
    }
}

// gemm.rs `gemm`: launched with BM*BN/(TM*TN) threads per block and grid (N/BN, M/BM).
template <int TM, int TN>
__device__ __forceinline__ void gemm(const float* __restrict__ a, const float* __restrict__ b, float* c, int m, int n,
                                     int k, float alpha, float beta) {
    constexpr int THREADS = BM * BN / (TM * TN);
    constexpr int COLS = BN / TN;
    const unsigned tx = threadIdx.x;
    const int tile_col = blockIdx.x * BN, tile_row = blockIdx.y * BM;
    // Thread tx's row and column in the block's grid of TM x TN sub-tiles.
    const int tr = tx / COLS, tc = tx % COLS;

    __shared__ float a_tile[BM * AS_PITCH];
    __shared__ float b_tile[BK * BS_PITCH];
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

#pragma unroll 1
    for (int kk = 0; kk < k; kk += BK) {
        // Stage the K slice: A[tile_row.., kk..kk+BK] and B[kk..kk+BK, tile_col..].
        stage<BM, BK, AS_PITCH, THREADS>(a, tile_row * k + kk, k, a_tile, tx);
        stage<BK, BN, BS_PITCH, THREADS>(b, kk * n + tile_col, n, b_tile, tx);
        __syncthreads();

        // This thread's rows of As and columns of Bs. (gemm.rs derives tr and tc again here from
        // an opaque thread index to keep LLVM from holding two offsets across the loop; nvcc
        // makes that choice by itself.)
        const float* a_rows = a_tile + tr * TM * AS_PITCH;
        const float* b_cols = b_tile + tc * TN;
#pragma unroll
        for (int kq = 0; kq < BK; ++kq) {
            float a_frag[TM], b_frag[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a_frag[i] = a_rows[i * AS_PITCH + kq];
#pragma unroll
            for (int j = 0; j < TN; ++j) b_frag[j] = b_cols[kq * BS_PITCH + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
        }
        __syncthreads();
    }

    // Epilogue with edge checks.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = tile_row + tr * TM + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int col = tile_col + tc * TN + j;
            if (row < m && col < n) {
                const int at = row * n + col;
                c[at] = fmaf(alpha, acc[i][j], beta * c[at]);
            }
        }
    }
}

}  // namespace lab::seed
