//! Arithmetic ILP: each thread runs ILP independent chains of fused multiply-adds, the peer's
//! `fma_body` (../shared/peer/blog_kernels.cu) written in Rust: chain i starts at
//! `((g & 4095) + i) as f32`, every round applies `x_i = fma(x_i, a, b)` to each chain, and the
//! thread writes the chains' sum, in chain order, to `out[g]`.

use crate::gpu;
use crate::variants::{FmaArgs, FMA_UNROLL};

/// # Safety
/// `out` holds one float per launched thread (grid x block); `iters <= i32::MAX - 15`.
#[inline(always)]
pub unsafe fn fma_ilp<const ILP: usize>(args: FmaArgs) {
    let FmaArgs { out, a, b, iters } = args;
    // 32-bit, as the peer's `unsigned g`.
    let g = gpu::block_idx_x()
        .wrapping_mul(gpu::block_dim_x())
        .wrapping_add(gpu::thread_idx_x());
    let mut x: [f32; ILP] = core::array::from_fn(|i| ((g & 4095) + i as u32) as f32);
    let mut round = 0i32;
    while round < iters {
        for _ in 0..FMA_UNROLL {
            for xi in x.iter_mut() {
                *xi = gpu::fma(*xi, a, b);
            }
        }
        // The round counter passes through `opaque` so that LLVM cannot count the trips: it
        // would otherwise unroll this loop again at run time (NVPTX enables runtime unrolling),
        // and the loop body would no longer be the peer's 16 x ILP fmas.
        round = gpu::opaque(round.wrapping_add(FMA_UNROLL as i32) as u32) as i32;
    }
    let mut sum = x[0];
    for &xi in &x[1..] {
        sum += xi;
    }
    // SAFETY: out holds a float for every launched thread (the contract above).
    unsafe { gpu::store_global(out, g as isize, sum) };
}
