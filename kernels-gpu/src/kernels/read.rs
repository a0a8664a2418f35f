//! Read-only twin of the strided copy (`memcpy.rs`): thread g loads vectors g + i*grid_stride
//! (i < LOADS) of WIDTH floats each, all before it uses any, and adds their bit patterns as
//! integers, so the sum is exact and the loads cannot be dropped. The warp's 32 sums are added by
//! shuffles and lane 0 writes the warp's total: one 8-byte word per warp (written twice, see the
//! fence below) is all the kernel writes, so its traffic is the copy's reads alone.

use crate::gpu::{self, Vector};
use crate::kernels::strided::Strided;
use crate::variants::ReadArgs;

/// # Safety
/// Launched with THREADS threads per block (a multiple of 32, so that every lane of every warp
/// reaches the shuffles); `src` holds `n` floats and is `4*WIDTH`-byte aligned; `out` holds one
/// `u64` per warp of the grid (grid blocks * THREADS / 32).
#[inline(always)]
pub unsafe fn read<const THREADS: u32, const LOADS: usize, const WIDTH: usize>(args: ReadArgs) {
    let ReadArgs { src, n, out } = args;
    let at = Strided::<THREADS, WIDTH>::new(n);
    let mut staged = [Vector::<WIDTH>([0.0; WIDTH]); LOADS];
    for (i, slot) in staged.iter_mut().enumerate() {
        let v = at.vector(i);
        if at.in_range(v) {
            *slot = unsafe { Vector::load(src, v) };
        }
    }
    // ptxas would add each value as it arrives, to stay near 32 registers, and a thread would
    // keep only a few loads in flight (as it sinks a copy's `.nc` loads, memcpy.rs). So the sum
    // starts from this warp's output word as reloaded after lane 0 stores to it: the loads may
    // alias that store, so they are all issued above it, and every add waits for the reload
    // below it. The reloaded value is masked to zero by `n >> 63` (n < 2^63 floats), which ptxas
    // cannot fold.
    let warp = (at.first / 32) as isize;
    if gpu::lane_id() == 0 {
        // SAFETY: the caller's contract: `out` has a word for every warp of the grid, and
        // `first / 32` is this warp's index in it (THREADS is a multiple of 32).
        unsafe { gpu::store_word(out, warp, 0) };
    }
    // SAFETY: as above.
    let mut sum = unsafe { gpu::load_word(out, warp) } & (n >> 63);
    for slot in &staged {
        sum += slot.bits_sum();
    }
    let mut mask = 16;
    while mask > 0 {
        sum += gpu::shuffle_xor_u64(sum, mask);
        mask >>= 1;
    }
    if gpu::lane_id() == 0 {
        // SAFETY: as above.
        unsafe { gpu::store_word(out, warp, sum) };
    }
}
