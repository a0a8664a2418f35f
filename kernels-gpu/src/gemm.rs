//! Tiled SGEMM, C = alpha*A*B + beta*C (row-major f32), after the seed blog's appendix kernel.
//!
//! A block computes one BM x BN tile of C. Per K slice of depth BK, the block stages
//! As[BM][BK+1] and Bs[BK][BN+1] in shared memory (one pad column against bank conflicts), then
//! each thread accumulates its TM x TN sub-tile in registers with fused multiply-adds.

use crate::gpu::{self, SharedF32};
use crate::variants::{BK, BM, BN};

const AS_STRIDE: u32 = BK + 1;
const BS_STRIDE: u32 = BN + 1;
const AS_LEN: usize = (BM * AS_STRIDE) as usize;
const BS_LEN: usize = (BK * BS_STRIDE) as usize;

/// # Safety
/// Launched with `BM*BN/(TM*TN)` threads per block and grid (N/BN, M/BM); `a`, `b`, `c` hold
/// M*K, K*N and M*N floats; `a` and `b` are not written during the kernel.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm<const TM: usize, const TN: usize>(
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    m: i32,
    n: i32,
    k: i32,
    alpha: f32,
    beta: f32,
) {
    let threads = BM * BN / (TM * TN) as u32;
    let cols = BN / TN as u32;
    let tx = gpu::thread_idx_x();
    let (tile_col, tile_row) = (gpu::block_idx_x() * BN, gpu::block_idx_y() * BM);
    let (tr, tc) = (tx / cols, tx % cols);

    let a_tile = SharedF32::<AS_LEN>::new();
    let b_tile = SharedF32::<BS_LEN>::new();
    let mut acc = [[0.0f32; TN]; TM];

    let mut kk = 0;
    while kk < k {
        // Stage the K slice: A[tile_row.., kk..kk+BK] and B[kk..kk+BK, tile_col..], the block's
        // threads striding over each tile.
        let mut i = tx;
        while i < BM * BK {
            let (r, col) = (i / BK, i % BK);
            let src = (tile_row + r) as i32 * k + kk + col as i32;
            a_tile.store(r * AS_STRIDE + col, unsafe { gpu::load_global_nc(a, src) });
            i += threads;
        }
        let mut i = tx;
        while i < BK * BN {
            let (r, col) = (i / BN, i % BN);
            let src = (kk + r as i32) * n + (tile_col + col) as i32;
            b_tile.store(r * BS_STRIDE + col, unsafe { gpu::load_global_nc(b, src) });
            i += threads;
        }
        gpu::sync_threads();

        // This thread's rows of As and columns of Bs.
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
                unsafe { gpu::store_global(c, at, alpha * acc_val + beta * old) };
            }
        }
    }
}
