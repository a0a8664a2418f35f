//! Tensor-core ILP: every warp runs ILP independent m16n8k16 BF16 accumulators through `iters`
//! rounds of D_i = A*B + D_i, the peer's `mma_body` (../shared/peer/blog_kernels.cu) written in
//! Rust. Lane l reads its A fragment from `a[4l..4l+4]` and its B fragment from `b[2l..2l+2]`;
//! accumulators start at 0; thread g writes the sum over accumulators, then registers, from 0.0.

use crate::gpu;
use crate::variants::{MmaArgs, MmaIlpVariant};

/// # Safety
/// Launched with whole warps per block; `a` holds 128 words, `b` 64, `out` one float per
/// launched thread (grid x block).
#[inline(always)]
pub unsafe fn mma_bf16_ilp<const ILP: usize>(args: MmaArgs) {
    let MmaArgs { a, b, out, iters } = args;
    // 32-bit, as the peer's `unsigned g`.
    let g = gpu::block_idx_x()
        .wrapping_mul(gpu::block_dim_x())
        .wrapping_add(gpu::thread_idx_x());
    // The fragments' word indices 4 * lane and 2 * lane in 32 bits, in nvcc's front end's form
    // ((tid << 2) & 124, (tid << 1) & 62), and the unrolled loop's bound as nvcc computes it
    // (`unrolled_loop_bound`): written as (tid % 32) * 16 bytes in 64 bits and a saturating
    // subtraction, ptxas ordered the prologue otherwise than nvcc's build, and at 5 warps/SM,
    // where two warps share a scheduler, the prologue sets which of several interleavings the
    // two settle into (docs/design.md, the `mma` experiment).
    let t = gpu::thread_idx_x();
    let (a_word, b_word) = ((t << 2) & 124, (t << 1) & 62);
    // SAFETY: a and b hold a fragment for every lane (the contract above).
    let (a_frag, b_frag): ([u32; 4], [u32; 2]) = unsafe {
        (
            core::array::from_fn(|i| a.add(a_word as usize + i).read()),
            core::array::from_fn(|i| b.add(b_word as usize + i).read()),
        )
    };

    // The accumulators start at zero in the form NVVM's output has them: every register but the
    // last from one zero on both paths into the loops (here an opaque zero, so that LLVM keeps
    // one value for both), the last from the constant, which the main loop's preheader zeroes
    // again. From the constant everywhere, LLVM zeroed every register a second time there; with
    // this form ptxas builds the ILP 1 and 2 entries instruction for instruction as nvcc's
    // (registers apart) up to the final sum, which xtask's twin test holds. At 5 warps/SM, where
    // a scheduler holds two warps, the prologue decides which interleaving they settle into
    // (docs/design.md, the `mma` experiment).
    let mut d: [[f32; 4]; ILP] = core::array::from_fn(|i| {
        core::array::from_fn(|j| {
            if i + 1 == ILP && j == 3 {
                0.0
            } else {
                f32::from_bits(gpu::opaque(0))
            }
        })
    });
    let round = |d: &mut [[f32; 4]; ILP]| {
        for acc in d.iter_mut() {
            // SAFETY: every lane of the warp runs the same number of rounds (iters is uniform).
            *acc = unsafe { gpu::mma_bf16_m16n8k16(*acc, a_frag, b_frag) };
        }
    };
    // The round counter passes through `opaque` so that LLVM cannot count the trips and unroll
    // the loops again at run time by factors of its own (as in fma.rs): the main loop runs
    // `per_iteration` rounds an iteration, the second loop the rest, one round at a time.
    // Each trip of the main loop holds `MmaIlpVariant::MMA_PER_ITERATION` HMMA in the SASS at
    // every ILP, beside one counter add, compare and taken branch: with fewer a trip, nvcc's
    // build of the peer beat this kernel where a warp issues alone on its scheduler
    // (`MmaIlpVariant::rounds_per_iteration` says what was measured). The second loop runs
    // fewer than `per_iteration` rounds (ptxas unrolls it by 4): well under 1% of the rounds a
    // launch of the `mma` experiment runs at its default sizing, so the main loop's trips are
    // what it times.
    let per_iteration = MmaIlpVariant::rounds_per_iteration(ILP as u32) as i32;
    let main_end = gpu::unrolled_loop_bound(iters, per_iteration);
    let mut r = 0i32;
    if per_iteration > 1 {
        while r < main_end {
            for _ in 0..per_iteration {
                round(&mut d);
            }
            r = gpu::opaque(r.wrapping_add(per_iteration) as u32) as i32;
        }
    }
    while r < iters {
        round(&mut d);
        r = gpu::opaque(r.wrapping_add(1) as u32) as i32;
    }
    let mut t = 0.0f32;
    for acc in &d {
        for &x in acc {
            t += x;
        }
    }
    // SAFETY: out holds a float for every launched thread (the contract above).
    unsafe { gpu::store_global(out, g as isize, t) };
}
