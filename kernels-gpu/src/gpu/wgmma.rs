//! Hopper's warpgroup MMA (`wgmma`, sm_90a only): the descriptor of a shared-memory operand, the
//! fences and commit groups around the asynchronous MMAs, and `wgmma.mma_async` m64nNk16 BF16
//! with f32 accumulators for N = 64, 128 and 256. Compiled only into the sm_90a module
//! (`--cfg lab_sm90a`, see xtask/src/ptx.rs): an sm_80 `.target` cannot hold these instructions.
//!
//! Each accumulator is an `inout` operand of the one asm statement that issues the MMA; between
//! that statement and the `wait_group` that retires it the kernel must not touch the
//! accumulators, or ptxas serializes the wgmma pipeline (warnings C7510-C7515, which the build
//! refuses).

use core::arch::asm;

pub use crate::sections::wgmma::wgmma_descriptor;

/// Orders this thread's register and shared-memory accesses before the wgmma that follow
/// (`wgmma.fence`): required before the first MMA of a group that reads accumulators the thread
/// has written.
///
/// # Safety
/// Every thread of the warpgroup executes it together.
#[inline(always)]
pub unsafe fn wgmma_fence() {
    // SAFETY: the caller's contract; no operands.
    unsafe {
        asm!(
            "wgmma.fence.sync.aligned;",
            options(nostack, preserves_flags)
        )
    }
}

/// Closes the wgmma issued since the last commit into one group (`wgmma.commit_group`).
///
/// # Safety
/// Every thread of the warpgroup executes it together.
#[inline(always)]
pub unsafe fn wgmma_commit_group() {
    // SAFETY: the caller's contract; no operands.
    unsafe {
        asm!(
            "wgmma.commit_group.sync.aligned;",
            options(nostack, preserves_flags)
        )
    }
}

/// Waits until at most `PENDING` committed groups are in flight (`wgmma.wait_group`).
///
/// # Safety
/// Every thread of the warpgroup executes it together.
#[inline(always)]
pub unsafe fn wgmma_wait_group<const PENDING: u32>() {
    // SAFETY: the caller's contract; an immediate operand.
    unsafe {
        asm!("wgmma.wait_group.sync.aligned {n};", n = const PENDING, options(nostack, preserves_flags))
    }
}

/// Makes this thread's generic-proxy writes to shared memory visible to the async proxy, which
/// is how wgmma reads its operands (`fence.proxy.async.shared::cta`).
#[inline(always)]
pub fn fence_proxy_async_shared() {
    // SAFETY: a fence; no operands.
    unsafe {
        asm!(
            "fence.proxy.async.shared::cta;",
            options(nostack, preserves_flags)
        )
    }
}

/// Stores one 16-bit value at the 32-bit shared address `addr`.
///
/// # Safety
/// `addr` lies inside the block's shared memory, 2-byte aligned.
#[inline(always)]
pub unsafe fn store_shared_u16(addr: u32, v: u16) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("st.shared.u16 [{a}], {v};", a = in(reg32) addr, v = in(reg16) v,
             options(nostack, preserves_flags))
    }
}

/// One `wgmma.mma_async` m64nNk16 BF16 x BF16 + f32 with the accumulators in `$d` (an array of
/// N/2 floats), A and B from shared memory by descriptor, A K-major, B K-major (`$tb` 0) or
/// MN-major (`$tb` 1, the transposed-B flag), scale 1; D accumulated where `$acc` is not zero,
/// else overwritten (D = A*B: the accumulators' old values are not read).
macro_rules! wgmma_m64k16 {
    ($n:literal, $tb:literal, $acc:expr, $d:ident, $da:expr, $db:expr; $first:literal $($i:literal)*) => {
        asm!(
            concat!(
                "{{ .reg .pred p; setp.ne.b32 p, {scale_d}, 0; ",
                "wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.bf16.bf16 {{",
                "{", $first, "}" $(, ", {", $i, "}")*,
                "}}, {da}, {db}, p, 1, 1, 0, ", $tb, "; }}"
            ),
            inout(reg32) $d[$first], $(inout(reg32) $d[$i],)*
            da = in(reg64) $da, db = in(reg64) $db, scale_d = in(reg32) $acc,
            options(nostack, preserves_flags),
        )
    };
}

/// The arm of [`wgmma_m64k16`] whose N is 2 * `$acc` (32, 64 or 128 accumulators); traps
/// otherwise.
macro_rules! wgmma_by_width {
    ($acc:ident, $tb:literal, $scale:expr, $d:ident, $da:ident, $db:ident) => {
        if let Some(d) = $d.first_chunk_mut::<32>().filter(|_| $acc == 32) {
            wgmma_m64k16!(64, $tb, $scale, d, $da, $db; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
        } else if let Some(d) = $d.first_chunk_mut::<64>().filter(|_| $acc == 64) {
            wgmma_m64k16!(128, $tb, $scale, d, $da, $db; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
        } else if let Some(d) = $d.first_chunk_mut::<128>().filter(|_| $acc == 128) {
            wgmma_m64k16!(256, $tb, $scale, d, $da, $db; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127);
        } else {
            // Inside the callers' unsafe blocks: `trap` ends the kernel with an error (`gpu::trap`,
            // called by its intrinsic so that this part of `gpu` does not import the module that
            // declares it).
            core::arch::nvptx::trap()
        }
    };
}

/// The f32 accumulators of one thread for `wgmma_m64nNk16_bf16` with N = 2 * ACC.
///
/// # Safety
/// Every thread of the warpgroup executes it together, after a [`wgmma_fence`]; the descriptors
/// describe bf16 operands inside the block's shared memory, written before a
/// [`fence_proxy_async_shared`] and a barrier; the accumulators are not read or written until
/// a [`wgmma_wait_group`] has retired the MMA. ACC is 32, 64 or 128 (anything else traps).
#[inline(always)]
pub unsafe fn wgmma_m64k16_bf16<const ACC: usize>(d: &mut [f32; ACC], da: u64, db: u64) {
    // SAFETY (all arms): the caller's contract; each arm names exactly its N/2 accumulators, and
    // any other ACC traps.
    unsafe { wgmma_by_width!(ACC, 0, 1u32, d, da, db) }
}

/// As [`wgmma_m64k16_bf16`] with B MN-major (N contiguous: a row-major K x N B), as the wgmma
/// GEMM's 128-byte-swizzled TMA slices of B hold it; without `accumulate`, D = A*B (the
/// accumulators are written, not read: how a tile starts without instructions that zero them,
/// which ptxas would count as touching accumulators inside the pipeline).
///
/// # Safety
/// As [`wgmma_m64k16_bf16`]; `db` describes an MN-major operand (e.g.
/// `sections::gemm_wgmma::b_descriptor`), and its bytes were written by TMA (the async proxy) and
/// waited for on their mbarrier, or written and fenced as there.
#[inline(always)]
pub unsafe fn wgmma_m64k16_bf16_bt<const ACC: usize>(
    d: &mut [f32; ACC],
    da: u64,
    db: u64,
    accumulate: bool,
) {
    // SAFETY (all arms): the caller's contract; each arm names exactly its N/2 accumulators, and
    // any other ACC traps.
    unsafe { wgmma_by_width!(ACC, 1, u32::from(accumulate), d, da, db) }
}
