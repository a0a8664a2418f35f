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
    let at = Strided::<THREADS, WIDTH>::new(n);
    let mut staged = [Vector::<WIDTH>([0.0; WIDTH]); LOADS];
    for (i, slot) in staged.iter_mut().enumerate() {
        let v = at.vector(i);
        if at.in_range(v) {
            *slot = unsafe { Vector::load(src, v) };
        }
    }
    for (i, slot) in staged.iter().enumerate() {
        let v = at.vector(i);
        if at.in_range(v) {
            unsafe { slot.store(dst, v) };
        }
    }
}
