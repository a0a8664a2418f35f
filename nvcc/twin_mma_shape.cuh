// The BF16 tensor-core GEMM family's index arithmetic: kernels-gpu/src/shapes/mma_shape.rs in CUDA C++,
// the same functions under the same names, so that the twin copies, swizzles, loads and stores
// exactly the chunks and elements the Rust kernel does.
//
// Layout of one block (BM x BN output tile, K slices of depth BK, bf16 in, f32 out):
// - a pipeline stage holds the A slice (BM rows of BK bf16), then the B slice (BK rows of BN
//   bf16), both row-major in 16-byte chunks of 8 bf16 (one cp.async, one ldmatrix row);
// - in every 128-byte line the chunk index is XORed with a phase taken from the row (`swizzle`),
//   so that the 8 rows an ldmatrix phase reads, and the 8 chunks a quarter-warp of copies
//   writes, fall in 8 different 16-byte bank groups;
// - warps tile the block in a (BM/WM) x (BN/WN) grid, each warp's tile is (WM/16) x (WN/8)
//   m16n8k16 tiles: one ldmatrix.x4 per 16 rows of A, one ldmatrix.x4.trans per 16 columns of B.
#pragma once

namespace lab::mma {

// mma_layout.rs `LANES` (the warp), mma_shape.rs `CHUNK_BYTES`, `CHUNK_ELEMS`, `BF16_BYTES`, `LINE_CHUNKS`, and
// mma_layout.rs's m16n8k16 dimensions.
constexpr unsigned WARP = 32;
constexpr unsigned CHUNK_BYTES = 16;
constexpr unsigned CHUNK_ELEMS = 8;
constexpr unsigned BF16_BYTES = 2;
constexpr unsigned LINE_CHUNKS = 8;
constexpr unsigned MMA_M = 16, MMA_N = 8, MMA_K = 16;

// mma_shape.rs `ChunkIndex`: (row, chunk) inside a slice of A or B.
struct ChunkIndex {
    unsigned row, chunk;
};
// mma_layout.rs `Element`: (row, column) in a matrix or tile.
struct Element {
    unsigned row, col;
};
// What mma_layout.rs `ldmatrix_address_of` gives: (matrix, row of it).
struct LdmatrixRow {
    unsigned matrix, row;
};

// mma_shape.rs `swizzle`: the physical chunk of logical chunk `chunk` of row `row`, in a tile of
// `per_row` chunks a row: the chunk's index in its 128-byte line XORed with the line's phase
// (the row for rows of at least one line, the line number for 4-chunk rows).
__host__ __device__ constexpr unsigned swizzle(unsigned row, unsigned chunk, unsigned per_row) {
    const unsigned q = row * per_row + chunk;
    const unsigned line_of_phase = per_row > LINE_CHUNKS ? per_row : LINE_CHUNKS;
    return q ^ ((q / line_of_phase) % LINE_CHUNKS);
}

// block_order.rs `block_tile`: the C tile (row, column) block (bx, by) of a gx x gy grid computes,
// consecutive blocks walking down columns of RASTER_ROWS tile rows so that the resident wave
// shares rows of A and columns of B in L2.
constexpr unsigned RASTER_ROWS = 8;
struct Tile {
    unsigned row, col;
};
__host__ __device__ constexpr Tile block_tile(unsigned bx, unsigned by, unsigned gx, unsigned gy) {
    const unsigned id = by * gx + bx;
    const unsigned group_blocks = RASTER_ROWS * gx;
    const unsigned first_row = id / group_blocks * RASTER_ROWS;
    const unsigned rows = gy - first_row < RASTER_ROWS ? gy - first_row : RASTER_ROWS;
    const unsigned within = id % group_blocks;
    return {first_row + within % rows, within / rows};
}

// mma_layout.rs `ldmatrix_address_of`: lane l gives the address of row l % 8 of matrix l / 8.
__host__ __device__ constexpr LdmatrixRow ldmatrix_address_of(unsigned lane) { return {lane / 8, lane % 8}; }

// mma_layout.rs `d_element`: the (row, col) of accumulator register `reg` of `lane` in its
// 16 x 8 tile.
__host__ __device__ constexpr Element d_element(unsigned lane, unsigned reg) {
    return {lane / 4 + 8 * (reg / 2), 2 * (lane % 4) + reg % 2};
}

// mma_shape.rs `MmaShape` for one table line, with the checks of sections/tensor_core.rs
// `mma_shape_fits` as static assertions: a line the Rust table rejects does not compile here
// either.
template <unsigned BM_, unsigned BN_, unsigned BK_, unsigned WM_, unsigned WN_, unsigned STAGES_>
struct Shape {
    static constexpr unsigned BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;

    static constexpr unsigned WARPS = (BM / WM) * (BN / WN);
    static constexpr unsigned THREADS = WARPS * WARP;
    // m16n8 tiles of a warp along M and N, 16-column pairs of them, k16 steps of a slice.
    static constexpr unsigned MI = WM / MMA_M, NI = WN / MMA_N, N_PAIRS = WN / (2 * MMA_N);
    static constexpr unsigned K_STEPS = BK / MMA_K;
    static constexpr unsigned A_ROW_CHUNKS = BK / CHUNK_ELEMS, B_ROW_CHUNKS = BN / CHUNK_ELEMS;
    static constexpr unsigned A_SLICE_BYTES = BM * BK * BF16_BYTES, B_SLICE_BYTES = BK * BN * BF16_BYTES;
    static constexpr unsigned STAGE_BYTES = A_SLICE_BYTES + B_SLICE_BYTES;
    static constexpr unsigned SHARED_BYTES = STAGES * STAGE_BYTES;
    static constexpr unsigned A_COPIES = BM * A_ROW_CHUNKS / THREADS, B_COPIES = BK * B_ROW_CHUNKS / THREADS;
    static constexpr unsigned COPIES_PER_SLICE = A_COPIES + B_COPIES;

    static_assert(WM > 0 && WM % 16 == 0 && WN >= 16 && (WN & (WN - 1)) == 0,
                  "warp tile: a multiple of 16 rows, a power of two of at least 16 columns");
    static_assert(BM % WM == 0 && BN % WN == 0, "block tile: whole warp tiles");
    static_assert(THREADS <= 1024, "at most 1024 threads");
    static_assert(MI * NI * 4 <= 128, "at most 128 accumulators per thread");
    static_assert(BK == 32 || (BK > 0 && BK % 64 == 0), "BK: 32 or a multiple of 64 (the swizzle's rows)");
    static_assert(BN % 64 == 0, "BN: a multiple of 64");
    static_assert((BM * A_ROW_CHUNKS) % THREADS == 0 && (BK * B_ROW_CHUNKS) % THREADS == 0,
                  "staging: every thread copies whole shares of both slices");
    static_assert(STAGES >= 2 && STAGES <= 8, "2 to 8 pipeline stages");
    static_assert(SHARED_BYTES <= 227 * 1024, "shared memory within the 227 KB opt-in");

    // mma_shape.rs `a_copy`, `b_copy`: copy e of thread t of the A (B) slice, (row, chunk).
    // Consecutive threads take consecutive chunks of a row.
    __host__ __device__ static constexpr ChunkIndex a_copy(unsigned t, unsigned e) {
        const unsigned q = t + e * THREADS;
        return {q / A_ROW_CHUNKS, q % A_ROW_CHUNKS};
    }
    __host__ __device__ static constexpr ChunkIndex b_copy(unsigned t, unsigned e) {
        const unsigned q = t + e * THREADS;
        return {q / B_ROW_CHUNKS, q % B_ROW_CHUNKS};
    }
    // mma_shape.rs `copy_step`: the k16 step of the current slice at which copy j of a later
    // slice is issued.
    __host__ __device__ static constexpr unsigned copy_step(unsigned j) { return j * K_STEPS / COPIES_PER_SLICE; }
    // mma_shape.rs `a_chunk_offset`, `b_chunk_offset`: byte offsets in a stage.
    __host__ __device__ static constexpr unsigned a_chunk_offset(unsigned row, unsigned chunk) {
        return CHUNK_BYTES * swizzle(row, chunk, A_ROW_CHUNKS);
    }
    __host__ __device__ static constexpr unsigned b_chunk_offset(unsigned row, unsigned chunk) {
        return A_SLICE_BYTES + CHUNK_BYTES * swizzle(row, chunk, B_ROW_CHUNKS);
    }
    // mma_shape.rs `warp_origin`: warp `warp`'s first output element in the block tile.
    __host__ __device__ static constexpr Element warp_origin(unsigned warp) {
        constexpr unsigned WARPS_N = BN / WN;
        return {(warp / WARPS_N) * WM, (warp % WARPS_N) * WN};
    }
    // mma_shape.rs `a_fragment_chunk`: the A (row, chunk) whose address `lane` hands ldmatrix.x4
    // for m-tile mi at k-step kk (matrix j: rows 8*(j%2).., columns 8*(j/2).. of the tile).
    __host__ __device__ static constexpr ChunkIndex a_fragment_chunk(unsigned warp, unsigned lane, unsigned mi,
                                                                     unsigned kk) {
        const LdmatrixRow at = ldmatrix_address_of(lane);
        return {warp_origin(warp).row + MMA_M * mi + at.row + 8 * (at.matrix % 2), 2 * kk + at.matrix / 2};
    }
    // mma_shape.rs `b_fragment_chunk`: the B (k row, chunk) for n-tile pair nj at k-step kk
    // (matrix j: k rows 8*(j%2).., n columns 8*(j/2).. of the pair).
    __host__ __device__ static constexpr ChunkIndex b_fragment_chunk(unsigned warp, unsigned lane, unsigned nj,
                                                                     unsigned kk) {
        const LdmatrixRow at = ldmatrix_address_of(lane);
        const unsigned col = warp_origin(warp).col + 2 * MMA_N * nj + MMA_N * (at.matrix / 2);
        return {MMA_K * kk + at.row + 8 * (at.matrix % 2), col / CHUNK_ELEMS};
    }
    __host__ __device__ static constexpr unsigned b_fragment_offset(unsigned warp, unsigned lane, unsigned nj,
                                                                    unsigned kk) {
        const ChunkIndex at = b_fragment_chunk(warp, lane, nj, kk);
        return b_chunk_offset(at.row, at.chunk);
    }
    // The kernel's split of each ldmatrix address: a lane part, and a part that is the same for
    // every lane (a constant in the unrolled loops).
    // mma_shape.rs `a_lane_offset`: lane's part of its A address at k-step kk (with the warp's
    // row offset).
    __host__ __device__ static constexpr unsigned a_lane_offset(unsigned warp, unsigned lane, unsigned kk) {
        const ChunkIndex at = a_fragment_chunk(0, lane, 0, kk);
        return warp_origin(warp).row * BK * BF16_BYTES + CHUNK_BYTES * swizzle(at.row, at.chunk, A_ROW_CHUNKS);
    }
    // mma_shape.rs `a_tile_step`: what m-tile mi adds to it.
    __host__ __device__ static constexpr unsigned a_tile_step(unsigned mi) { return MMA_M * mi * BK * BF16_BYTES; }
    // mma_shape.rs `b_lane_offset`: lane's part of its B address for n-tile pair nj.
    __host__ __device__ static constexpr unsigned b_lane_offset(unsigned warp, unsigned lane, unsigned nj) {
        return b_fragment_offset(warp, lane, nj, 0);
    }
    // mma_shape.rs `b_step`: what k-step kk adds to it.
    __host__ __device__ static constexpr unsigned b_step(unsigned kk) { return MMA_K * kk * BN * BF16_BYTES; }
    // mma_shape.rs `accumulator`: register `reg` of m16n8 tile (mi, ni) of `lane` in `warp`, its
    // (row, col) in the block's output tile.
    __host__ __device__ static constexpr Element accumulator(unsigned warp, unsigned lane, unsigned mi, unsigned ni,
                                                             unsigned reg) {
        const Element w = warp_origin(warp), d = d_element(lane, reg);
        return {w.row + MMA_M * mi + d.row, w.col + MMA_N * ni + d.col};
    }
};

}  // namespace lab::mma
