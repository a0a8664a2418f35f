//! The MMAs of one k16 step of a ring slot in the wgmma GEMM (`gemm_wgmma.rs`'s K loop): one
//! m64nBNk16 on a consumer's 64 rows, or, on a 128-row tile of turns
//! (`WgemmVariant::row_blocks` 2), one on each 64-row half, on the same slice of B.

use crate::gpu;
use crate::sections::gemm_wgmma::{a_descriptor, b_descriptor, descriptor_advanced};
use crate::shapes::tma_slot::{SWIZZLE_BYTES, WGEMM_K, WGEMM_M};

/// Accumulators of one half of a 128-row tile of turns: one m64n128k16 MMA's, the widest whose
/// two halves fit a thread's registers.
pub(crate) const HALF_ACC: usize = 64;

/// The `step`-th k16 step of a slot (A's rows at `a`, B's slice at `b`): one m64 MMA
/// ([`mma_k16`]), or, on a 128-row tile of turns (`halves`), the top and the bottom half's
/// ([`mma_halves`]), in the same group. The slot's two descriptors are built here, the same on
/// each of its four steps (LLVM builds them once a slot); every MMA takes them advanced
/// (`descriptor_advanced`), an add where a descriptor built at the moved address cost ptxas a
/// shift and two masks per MMA.
///
/// # Safety
/// As [`mma_k16`].
#[inline(always)]
pub(crate) unsafe fn mma_step<const ACC: usize>(
    d: &mut [f32; ACC],
    (a, b): (u32, u32),
    halves: bool,
    step: u32,
    accumulate: bool,
) {
    let slot = (a_descriptor(a), b_descriptor(b));
    // SAFETY: the caller's contract.
    unsafe {
        if halves {
            mma_halves(d, slot, step, accumulate)
        } else {
            mma_k16(d, slot, step, accumulate)
        }
    }
}

/// [`mma_k16`] for both 64-row halves of a 128-row tile, its accumulators `d` the top half's
/// then the bottom half's: A's bottom half lies 64 rows of 128 bytes after its top.
///
/// # Safety
/// As [`mma_k16`].
#[inline(always)]
unsafe fn mma_halves<const ACC: usize>(
    d: &mut [f32; ACC],
    (da, db): (u64, u64),
    step: u32,
    accumulate: bool,
) {
    if let Some(top) = d.first_chunk_mut::<HALF_ACC>() {
        // SAFETY: the caller's contract.
        unsafe { mma_k16(top, (da, db), step, accumulate) };
    }
    if let Some(bottom) = d.last_chunk_mut::<HALF_ACC>() {
        let da = descriptor_advanced(da, WGEMM_M * SWIZZLE_BYTES);
        // SAFETY: the caller's contract.
        unsafe { mma_k16(bottom, (da, db), step, accumulate) };
    }
}

/// The `step`-th k16 MMA of a 64-deep slot whose A and B descriptors are `da` and `db`: A's
/// K-major rows move 32 bytes (16 bf16) per step inside their swizzled 128-byte rows, B's
/// MN-major slice moves 16 rows of 128 bytes; adds to the accumulators when `accumulate`, else
/// overwrites them.
///
/// # Safety
/// As [`gpu::wgmma_m64k16_bf16_bt`], inside the fence/commit of `gemm_wgmma.rs`'s K loop.
#[inline(always)]
unsafe fn mma_k16<const ACC: usize>(
    d: &mut [f32; ACC],
    (da, db): (u64, u64),
    step: u32,
    accumulate: bool,
) {
    let da = descriptor_advanced(da, step * WGEMM_K * 2);
    let db = descriptor_advanced(db, step * WGEMM_K * SWIZZLE_BYTES);
    // SAFETY: the caller's contract.
    unsafe { gpu::wgmma_m64k16_bf16_bt(d, da, db, accumulate) };
}
