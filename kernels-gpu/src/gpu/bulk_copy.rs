//! Hopper's bulk copies (TMA without a tensor map, sm_90a only) and the mbarriers that complete
//! them: a 1D `cp.async.bulk` global to shared memory that signals an mbarrier with its bytes, a
//! 1D bulk store shared to global in bulk groups, and the waits on both. Compiled only into the
//! sm_90a module (`--cfg lab_sm90a`). The mbarriers' set-up, arrivals and waits are `tma.rs`'s, the
//! async-proxy fence `wgmma.rs`'s.

use core::arch::asm;

/// Copies `bytes` from global `src[index..]` (floats) to shared address `dst` with one bulk copy
/// that completes `bytes` of transactions on `bar`.
///
/// # Safety
/// `bytes` is a positive multiple of 16; `src + 4 index` and `dst` are 16-byte aligned; the
/// source bytes are valid and not written during the kernel; the destination lies in the
/// block's shared memory; `bar` expects these bytes in its current phase.
#[inline(always)]
pub unsafe fn bulk_load(dst: u32, src: *const f32, index: u64, bytes: u32, bar: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .u64 g; shl.b64 g, {index}, 2; add.s64 g, g, {src}; cvta.to.global.u64 g, g;",
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{dst}], [g], {bytes}, [{bar}]; }}",
            dst = in(reg32) dst, src = in(reg64) src, index = in(reg64) index,
            bytes = in(reg32) bytes, bar = in(reg32) bar,
            options(nostack, preserves_flags),
        );
    }
}

/// Stores `bytes` from shared address `src` to global `dst[index..]` (floats) with one bulk copy
/// in the current bulk group.
///
/// # Safety
/// As [`bulk_load`], the other way; the shared bytes are not rewritten until the group has read
/// them ([`bulk_wait_read_pending`]).
#[inline(always)]
pub unsafe fn bulk_store(dst: *mut f32, index: u64, src: u32, bytes: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .u64 g; shl.b64 g, {index}, 2; add.s64 g, g, {dst}; cvta.to.global.u64 g, g;",
            "cp.async.bulk.global.shared::cta.bulk_group [g], [{src}], {bytes}; }}",
            dst = in(reg64) dst, index = in(reg64) index, src = in(reg32) src,
            bytes = in(reg32) bytes,
            options(nostack, preserves_flags),
        );
    }
}

/// Closes this thread's bulk stores into one group.
#[inline(always)]
pub fn bulk_commit() {
    // SAFETY: bookkeeping of this thread's own bulk copies.
    unsafe {
        asm!(
            "cp.async.bulk.commit_group;",
            options(nostack, preserves_flags)
        )
    }
}

/// One arm per immediate the PTX instruction may take.
macro_rules! bulk_wait_arms {
    ($op:literal, $pending:ident; $($n:literal)*) => {
        match $pending {
            $( $n => asm!(concat!($op, " ", $n, ";"), options(nostack, preserves_flags)), )*
            _ => asm!(concat!($op, " 0;"), options(nostack, preserves_flags)),
        }
    };
}

/// Waits until at most `pending` of this thread's bulk groups have not yet read their shared
/// memory (`cp.async.bulk.wait_group.read`); `pending` is a constant of the caller, a count
/// above 7 waits for all.
#[inline(always)]
pub fn bulk_wait_read_pending(pending: u32) {
    // SAFETY: waits on this thread's own bulk copies; a memory clobber, so that no shared write
    // moves above it.
    unsafe { bulk_wait_arms!("cp.async.bulk.wait_group.read", pending; 0 1 2 3 4 5 6 7) }
}

/// Waits until every one of this thread's bulk groups has completed (its writes performed).
#[inline(always)]
pub fn bulk_wait_all() {
    // SAFETY: waits on this thread's own bulk copies.
    unsafe {
        asm!(
            "cp.async.bulk.wait_group 0;",
            options(nostack, preserves_flags)
        )
    }
}
