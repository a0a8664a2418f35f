//! `cp.async` with a 64-bit source index and a wait on any count of pending groups: the pieces
//! of the copies whose bytes in flight live in shared memory (`smem_copy.rs`). The GEMMs' own
//! `cp.async` wrappers (`gpu.rs`) take 32-bit indices and wait on at most 6 groups.

use core::arch::asm;

/// The `cp.async` of `$bytes` bytes at element `$index` (of `$elem` bytes) of the global
/// `$src` to the shared address `$dst` through cache option `$cache`, or `$bytes` zeros when
/// `$inside` is false: the predicate turns the index and the source size to 0, so nothing is
/// read and no address outside the matrix is even formed. The GEMMs' staging copies
/// (`gpu::cp_async_f32`, `gpu::cp_async_f32x4`, `gpu::cp_async_bf16x8`) differ only in these.
macro_rules! cp_async_or_zeros {
    ($cache:literal, $bytes:literal, $elem:literal; $dst:expr, $src:expr, $index:expr, $inside:expr) => {
        asm!(
            "{{ .reg .pred p; .reg .u32 i, n; .reg .u64 g;",
            concat!("setp.ne.u32 p, {inside}, 0; selp.u32 i, {index}, 0, p; selp.u32 n, ", $bytes, ", 0, p;"),
            concat!("mul.wide.u32 g, i, ", $elem, "; add.s64 g, g, {src}; cvta.to.global.u64 g, g;"),
            concat!("cp.async.", $cache, ".shared.global [{dst}], [g], ", $bytes, ", n; }}"),
            dst = in(reg32) $dst, src = in(reg64) $src, index = in(reg32) $index,
            inside = in(reg32) $inside as u32,
            options(nostack, preserves_flags),
        )
    };
}

/// Asynchronous copy of the 16 bytes at `src[index..index + 4]` (global) to the shared address
/// `dst`, bypassing L1 (`cp.async.cg`).
///
/// # Safety
/// `src[index..index + 4]` must be valid global floats, 16-byte aligned and not written during
/// the kernel; `dst` must lie in the block's shared memory, 16-byte aligned.
#[inline(always)]
pub unsafe fn cp_async_16(dst: u32, src: *const f32, index: u64) {
    // SAFETY: the caller's contract. Not `nomem`: the copy writes shared memory, so no shared
    // access may move across it.
    unsafe {
        asm!(
            "{{ .reg .u64 g; shl.b64 g, {index}, 2; add.s64 g, g, {src}; cvta.to.global.u64 g, g;",
            "cp.async.cg.shared.global [{dst}], [g], 16; }}",
            dst = in(reg32) dst, src = in(reg64) src, index = in(reg64) index,
            options(nostack, preserves_flags),
        );
    }
}

/// One arm per immediate the PTX instruction may take (`cp.async.wait_group N`).
macro_rules! wait_arms {
    ($pending:ident; $($n:literal)*) => {
        match $pending {
            $( $n => asm!(concat!("cp.async.wait_group ", $n, ";"), options(nostack, preserves_flags)), )*
            _ => asm!("cp.async.wait_group 0;", options(nostack, preserves_flags)),
        }
    };
}

/// Waits until at most `pending` of this thread's commit groups are still in flight. `pending`
/// is a constant of the caller (the instruction takes an immediate; after inlining only its arm
/// is left); a count above 31 waits for all.
#[inline(always)]
pub fn cp_async_wait_pending(pending: u32) {
    // SAFETY: waits on this thread's own copies; a memory clobber, so that no shared load of the
    // copied data moves above it.
    unsafe {
        wait_arms!(pending; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26
            27 28 29 30 31)
    }
}
