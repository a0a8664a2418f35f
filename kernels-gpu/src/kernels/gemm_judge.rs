//! The GEMM check: every element of an f32 C judged against the f64 reference
//! (`gemm_tolerance::judge`), the verdicts tallied per thread over a grid-stride loop, merged
//! across the warp by shuffles and added into the three words of `out` by one lane per warp
//! with atomics. Only those 24 bytes go back to the host.

use crate::gpu;
use crate::models::gemm_tolerance::{judge, Reference, Tally};
use crate::variants::GemmCheckArgs;

/// # Safety
/// `c` and `c0` hold `len` floats, `dot` and `spread` `len` doubles (the reference kernel's
/// output for the same problem), `out` [`Tally::WORDS`] words, zeroed before the launch;
/// `len` < 2^32; launched with whole warps (threads per block a multiple of 32), any grid.
#[inline(always)]
pub unsafe fn gemm_check(args: GemmCheckArgs) {
    let GemmCheckArgs {
        c,
        c0,
        dot,
        spread,
        len,
        alpha,
        beta,
        out,
    } = args;
    let threads = gpu::block_dim_x();
    let stride = u64::from(gpu::grid_dim_x()) * u64::from(threads);
    let mut tally = Tally::default();
    let mut i = gpu::global_thread_idx_x(threads);
    while i < len {
        let at = i as isize;
        // SAFETY: i < len, inside every buffer.
        let (c_val, c0_val, r) = unsafe {
            (
                gpu::load_global(c, at),
                gpu::load_global(c0, at),
                Reference {
                    dot: gpu::load_global(dot, at),
                    spread: gpu::load_global(spread, at),
                },
            )
        };
        tally.add(i as u32, c_val, judge(c_val, c0_val, r, alpha, beta));
        i += stride;
    }
    // Every lane reaches the shuffles: the loop above is the only divergence.
    let mut mask = 16;
    while mask > 0 {
        tally = tally.merge(Tally {
            over: gpu::shuffle_xor_u64(tally.over, mask),
            non_finite: gpu::shuffle_xor_u64(tally.non_finite, mask),
            worst: gpu::shuffle_xor_u64(tally.worst, mask),
        });
        mask /= 2;
    }
    if gpu::lane_id() == 0 {
        let [over, non_finite, worst] = tally.to_words();
        // SAFETY: `out` holds the tally's words.
        unsafe {
            gpu::atomic_add_u64(out, 0, over);
            gpu::atomic_add_u64(out, 1, non_finite);
            gpu::atomic_max_u64(out, 2, worst);
        }
    }
}
