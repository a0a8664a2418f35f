//! Tiled SGEMM, C = alpha*A*B + beta*C (row-major f32), after the seed blog's appendix kernel.
//!
//! A block computes one BM x BN tile of C. Per K slice of depth BK, the block stages
//! As[BM][BK+1] and Bs[BK][BN+1] in shared memory (one pad column against bank conflicts), then
//! each thread accumulates its TM x TN sub-tile in registers with fused multiply-adds.

use crate::gpu::{self, GlobalTile, SharedF32};
use crate::variants::{GemmArgs, BK, BM, BN};

const AS_STRIDE: u32 = BK + 1;
const BS_STRIDE: u32 = BN + 1;
const AS_LEN: usize = (BM * AS_STRIDE) as usize;
const BS_LEN: usize = (BK * BS_STRIDE) as usize;
/// Tile-staging loads issued together (see `stage`).
const STAGE_GROUP: u32 = 4;

/// # Safety
/// Launched with `BM*BN/(TM*TN)` threads per block and grid (N/BN, M/BM); `a`, `b`, `c` hold
/// M*K, K*N and M*N floats; `a` and `b` are not written during the kernel.
#[inline(always)]
pub unsafe fn gemm<const TM: usize, const TN: usize>(args: GemmArgs) {
    let GemmArgs {
        a,
        b,
        c,
        m,
        n,
        k,
        alpha,
        beta,
    } = args;
    let threads = BM * BN / (TM * TN) as u32;
    let cols = BN / TN as u32;
    let tx = gpu::thread_idx_x();
    let (tile_col, tile_row) = (gpu::block_idx_x() * BN, gpu::block_idx_y() * BM);
    // Thread `tx`'s row and column in the block's grid of TM x TN sub-tiles.
    let sub_tile = |tx: u32| (tx / cols, tx % cols);
    let (tr, tc) = sub_tile(tx);

    let a_tile = SharedF32::<AS_LEN>::new();
    let b_tile = SharedF32::<BS_LEN>::new();
    let mut acc = [[0.0f32; TN]; TM];

    let mut kk = 0;
    while kk < k {
        // Stage the K slice: A[tile_row.., kk..kk+BK] and B[kk..kk+BK, tile_col..].
        let a_slice = unsafe { GlobalTile::new(a, k, tile_row as i32, kk) };
        let b_slice = unsafe { GlobalTile::new(b, n, kk, tile_col as i32) };
        stage::<AS_LEN>(a_slice, a_tile, BM, BK, AS_STRIDE, tx, threads);
        stage::<BS_LEN>(b_slice, b_tile, BK, BN, BS_STRIDE, tx, threads);
        gpu::sync_threads();

        // This thread's rows of As and columns of Bs. The thread's row and column are derived
        // again from an opaque thread index on every K slice, so that the compiler recomputes
        // these two offsets instead of keeping them live across the K loop: under a register cap
        // that frees registers for the accumulators (variant C at cap 48 stores 1688 spill bytes
        // instead of 1856, and issues 324 local loads per K slice instead of 381).
        let (tr, tc) = sub_tile(gpu::opaque(gpu::thread_idx_x()));
        let a_rows = a_tile.view(tr * TM as u32 * AS_STRIDE);
        let b_cols = b_tile.view(tc * TN as u32);
        for kq in 0..BK {
            let a_frag: [f32; TM] =
                core::array::from_fn(|i| a_rows.load(i as u32 * AS_STRIDE + kq));
            let b_frag: [f32; TN] =
                core::array::from_fn(|j| b_cols.load(kq * BS_STRIDE + j as u32));
            for (acc_row, &a_val) in acc.iter_mut().zip(&a_frag) {
                for (acc_val, &b_val) in acc_row.iter_mut().zip(&b_frag) {
                    *acc_val = gpu::fma(a_val, b_val, *acc_val);
                }
            }
        }
        gpu::sync_threads();
        kk += BK as i32;
    }

    // Epilogue with edge checks.
    for (i, acc_row) in acc.iter().enumerate() {
        let row = (tile_row + tr * TM as u32 + i as u32) as i32;
        for (j, &acc_val) in acc_row.iter().enumerate() {
            let col = (tile_col + tc * TN as u32 + j as u32) as i32;
            if row < m && col < n {
                let at = (row * n + col) as isize;
                let old = unsafe { gpu::load_global(c, at) };
                unsafe { gpu::store_global(c, at, gpu::fma(alpha, acc_val, beta * old)) };
            }
        }
    }
}

/// Copies the `rows` x `cols` tile at `src`'s origin into `dst` (row pitch `pitch`), the block's
/// `threads` threads taking elements `tx`, `tx + threads`, ... in row-major order.
///
/// With power-of-two shapes (the table's checks guarantee them) element `tx + pass*threads` is
/// this thread's own (row, col) plus an offset that depends on `pass` alone. Passes go in groups
/// of [`STAGE_GROUP`] independent loads, as nvcc unrolls this loop: all of a slice's loads in
/// flight at once were as fast without a register cap, but under one they cost extra spill slots.
#[inline(always)]
fn stage<const N: usize>(
    src: GlobalTile,
    dst: SharedF32<N>,
    rows: u32,
    cols: u32,
    pitch: u32,
    tx: u32,
    threads: u32,
) {
    let elements = rows * cols;
    if tx >= elements {
        return; // more threads than elements: the first `elements` threads copy one each
    }
    let (row, col) = (tx / cols, tx % cols);
    let (src, dst) = (src.offset(row, col), dst.view(row * pitch + col));
    let passes = elements.div_ceil(threads);
    let copy = |pass: u32| {
        let (dr, dc) = (pass * threads / cols, pass * threads % cols);
        dst.store(dr * pitch + dc, src.load(dr, dc));
    };
    if passes <= STAGE_GROUP {
        (0..passes).for_each(copy);
    } else {
        // The group count is hidden from LLVM so that it keeps this loop rolled.
        for group in 0..gpu::opaque(passes / STAGE_GROUP) {
            (0..STAGE_GROUP).for_each(|q| copy(group * STAGE_GROUP + q));
        }
    }
}
