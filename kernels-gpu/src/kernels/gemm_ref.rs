//! The GEMM check's f64 reference: one thread per element of C accumulates the products of its
//! row of A and column of B in natural k order, in f64 (`gemm_tolerance::Accumulator`), and
//! writes the dot product and the spread of its partial sums. Not a variant: never timed, and
//! computed once per problem (inputs and size); alpha, beta and C0 enter only at the check.
//!
//! A block owns a TILE x TILE tile of C; per K slice of depth TILE it stages the slices of A and
//! B in shared memory as f64 (widened once there, not once per use), so that each input is read
//! from global memory once per block, and loads the next slice while it sums this one.

use crate::gpu::{self, SharedF64};
use crate::models::gemm_tolerance::Accumulator;
use crate::variants::GemmRefArgs;

/// # Safety
/// Launched with TILE*TILE threads per block (TILE*TILE <= 1024, `SLICE` = TILE*TILE) and grid
/// (ceil(N/TILE), ceil(M/TILE)); `a` holds M*K floats, `b` K*N, `dot` and `spread` M*N doubles;
/// M*K, K*N and M*N are below 2^32.
#[inline(always)]
pub unsafe fn gemm_ref<const TILE: u32, const SLICE: usize>(args: GemmRefArgs) {
    let (m, n, k) = (args.m as u32, args.n as u32, args.k as u32);
    let tx = gpu::thread_idx_x();
    // This thread's row and column in the tile, and the tile's origin in C.
    let (tr, tc) = (tx / TILE, tx % TILE);
    let (row0, col0) = (gpu::block_idx_y() * TILE, gpu::block_idx_x() * TILE);
    let (row, col) = (row0 + tr, col0 + tc);

    // Thread (tr, tc) stages A[row, k0 + tc] and B[k0 + tr, col] of each slice; outside the
    // matrices, 0.
    let fetch = |k0: u32| -> (f32, f32) {
        let (a_k, b_k) = (k0 + tc, k0 + tr);
        let a_val = if row < m && a_k < k {
            // SAFETY: inside A (row < M, a_k < K).
            unsafe { gpu::load_global(args.a, (row * k + a_k) as isize) }
        } else {
            0.0
        };
        let b_val = if b_k < k && col < n {
            // SAFETY: inside B (b_k < K, col < N).
            unsafe { gpu::load_global(args.b, (b_k * n + col) as isize) }
        } else {
            0.0
        };
        (a_val, b_val)
    };
    let a_slice = SharedF64::<SLICE>::new();
    let b_slice = SharedF64::<SLICE>::new();
    let mut acc = Accumulator::new();
    let mut staged = fetch(0);
    let mut k0 = 0;
    while k0 < k {
        a_slice.store(tr * TILE + tc, f64::from(staged.0));
        b_slice.store(tr * TILE + tc, f64::from(staged.1));
        gpu::sync_threads();
        // The next slice's loads are in flight while this one is summed.
        if k0 + TILE < k {
            staged = fetch(k0 + TILE);
        }

        // Only the slice's real k terms: a zero term would still add a partial sum (the same
        // one again) to the spread.
        let depth = TILE.min(k - k0);
        let term = |acc: &mut Accumulator, kk: u32| {
            acc.add(a_slice.load(tr * TILE + kk), b_slice.load(kk * TILE + tc));
        };
        if depth == TILE {
            for kk in 0..TILE {
                term(&mut acc, kk);
            }
        } else {
            for kk in 0..depth {
                term(&mut acc, kk);
            }
        }
        gpu::sync_threads();
        k0 += TILE;
    }

    if row < m && col < n {
        let r = acc.finish(k);
        let at = (row * n + col) as isize;
        // SAFETY: inside C's M*N elements.
        unsafe {
            gpu::store_global(args.dot, at, r.dot);
            gpu::store_global(args.spread, at, r.spread);
        }
    }
}
