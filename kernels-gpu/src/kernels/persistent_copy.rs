//! Persistent strided copy: the memcpy grid's copy (`memcpy.rs`) looped over the whole buffer by
//! one wave of blocks (`sections/persistent_copy.rs`). Each round, thread g loads vectors
//! g + (round + i)*grid_stride (i < LOADS) of WIDTH floats, all before its first store, stores
//! them, and moves on by LOADS grid strides; so it keeps LOADS*WIDTH*4 bytes in flight through
//! the whole copy. The loads are coherent (`Vector::load`), so ptxas cannot sink them between the
//! stores, nor hoist the next round's above this round's stores.

use crate::kernels::memcpy::copy_round;
use crate::kernels::strided::Strided;
use crate::variants::PersistentCopyArgs;

/// # Safety
/// Launched with THREADS threads per block; `src` and `dst` hold `n` floats, are `4*WIDTH`-byte
/// aligned and do not overlap. Any grid copies every whole vector (one wave is what makes its
/// bytes in flight sustained).
#[inline(always)]
pub unsafe fn persistent_copy<const THREADS: u32, const LOADS: usize, const WIDTH: usize>(
    args: PersistentCopyArgs,
) {
    let PersistentCopyArgs { src, dst, n } = args;
    let at = Strided::<THREADS, WIDTH>::new(n);
    // A round's vectors ascend, and so do the rounds': the first round whose first vector is out
    // of range ends the thread's pass.
    let mut round = 0;
    while at.in_range(at.vector(round)) {
        // SAFETY: the contract above.
        unsafe { copy_round::<THREADS, LOADS, WIDTH>(at, (src, dst), round) };
        round += LOADS;
    }
}
