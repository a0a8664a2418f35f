//! Strided copy: thread g moves vectors g + i*grid_stride (i < LOADS) of WIDTH floats each.
//! All LOADS loads are issued before the first store, so a thread keeps LOADS*WIDTH*4 bytes in
//! flight: the loads are coherent (`Vector::load`), so ptxas cannot sink them between the stores.

use crate::gpu::Vector;
use crate::kernels::strided::Strided;
use crate::variants::MemcpyArgs;

/// # Safety
/// Launched with THREADS threads per block; `src` and `dst` hold `n` floats, are `4*WIDTH`-byte
/// aligned and do not overlap.
#[inline(always)]
pub unsafe fn memcpy<const THREADS: u32, const LOADS: usize, const WIDTH: usize>(args: MemcpyArgs) {
    let MemcpyArgs { src, dst, n } = args;
    // SAFETY: the contract above.
    unsafe { copy_round::<THREADS, LOADS, WIDTH>(Strided::new(n), (src, dst), 0) };
}

/// One round of the strided copy from `at`'s vector `first` on: the LOADS vectors
/// `first + i` (i < LOADS) loaded, every one before the first store, then stored; vectors out of
/// range untouched. The memcpy grid runs one round, the persistent copy (`persistent_copy.rs`)
/// one after another.
///
/// # Safety
/// `src` and `dst` hold the `n` floats `at` was made for, are `4*WIDTH`-byte aligned and do not
/// overlap.
#[inline(always)]
pub unsafe fn copy_round<const THREADS: u32, const LOADS: usize, const WIDTH: usize>(
    at: Strided<THREADS, WIDTH>,
    (src, dst): (*const f32, *mut f32),
    first: usize,
) {
    let mut staged = [Vector::<WIDTH>([0.0; WIDTH]); LOADS];
    for (i, slot) in staged.iter_mut().enumerate() {
        let v = at.vector(first + i);
        if at.in_range(v) {
            *slot = unsafe { Vector::load(src, v) };
        }
    }
    for (i, slot) in staged.iter().enumerate() {
        let v = at.vector(first + i);
        if at.in_range(v) {
            unsafe { slot.store(dst, v) };
        }
    }
}
