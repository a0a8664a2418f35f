//! DRAM latency: one thread follows a pointer ring, each load's address the previous load's
//! value, so that exactly one load is in flight at a time and the time per hop is the latency.

use crate::gpu;
use crate::variants::ChaseArgs;

/// # Safety
/// `next` holds a ring: every index reached from `start` within `steps` hops is in bounds.
/// `out` holds 3 u64 words. Launched with one thread (any other thread returns at once).
#[inline(always)]
pub unsafe fn chase(args: ChaseArgs) {
    let ChaseArgs {
        next,
        start,
        steps,
        out,
    } = args;
    if gpu::thread_idx_x() != 0 || gpu::block_idx_x() != 0 {
        return;
    }
    let (ns0, c0) = (gpu::globaltimer(), gpu::clock64());
    let mut i = start;
    let mut step = 0;
    while step < steps {
        // SAFETY: in bounds by the ring's contract.
        i = unsafe { gpu::load_cg_u32(next, i) };
        step += 1;
    }
    // The store needs the last load's value, so the clock read issued after it counts the last
    // hop's latency too.
    // SAFETY: out holds 3 words.
    unsafe { gpu::store_global(out, 0, u64::from(i)) };
    let (c1, ns1) = (gpu::clock64(), gpu::globaltimer());
    // SAFETY: as above.
    unsafe {
        gpu::store_global(out, 1, c1.wrapping_sub(c0));
        gpu::store_global(out, 2, ns1.wrapping_sub(ns0));
    }
}
