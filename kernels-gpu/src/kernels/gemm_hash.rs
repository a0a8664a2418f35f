//! The hash of a GEMM output on the GPU (`output_hash`): every element's term summed per thread
//! over a grid-stride loop, the sums merged across the warp by shuffles and added into one word
//! by one lane per warp with a 64-bit atomic. Sums modulo 2^64 in any order are the same word,
//! so the hash is bit-stable however the warps are scheduled. Only the word goes back.

use crate::gpu;
use crate::models::output_hash::mix;
use crate::variants::GemmHashArgs;

/// # Safety
/// `c` holds `len` floats, `out` one word, zeroed before the launch; `len` < 2^32; launched
/// with whole warps (threads per block a multiple of 32), any grid.
#[inline(always)]
pub unsafe fn gemm_hash(args: GemmHashArgs) {
    let GemmHashArgs { c, len, out } = args;
    let threads = gpu::block_dim_x();
    let stride = u64::from(gpu::grid_dim_x()) * u64::from(threads);
    let mut sum = 0u64;
    let mut i = gpu::global_thread_idx_x(threads);
    while i < len {
        // SAFETY: i < len, inside `c`.
        let v: f32 = unsafe { gpu::load_global(c, i as isize) };
        sum = sum.wrapping_add(mix(i as u32, v.to_bits()));
        i += stride;
    }
    // Every lane reaches the shuffles: the loop above is the only divergence.
    let mut mask = 16;
    while mask > 0 {
        sum = sum.wrapping_add(gpu::shuffle_xor_u64(sum, mask));
        mask /= 2;
    }
    if gpu::lane_id() == 0 {
        // SAFETY: `out` holds one word.
        unsafe { gpu::atomic_add_u64(out, 0, sum) };
    }
}
