//! What a traced entry's stamps (`kernels/block_trace.rs`) read and write: the block's and the
//! thread's linear index, the SM, a warp's barrier over its lanes, and 64-bit reductions into
//! global words.
//!
//! Every special register here is read by a volatile `asm!` statement (no `pure`): LLVM may not
//! merge the read after a kernel's body with the one before it, or with the body's own reads of
//! the same register, which would keep the value live across the body and could cost the traced
//! entry a register its timed entry does not use.

use core::arch::asm;

/// This block's linear index in its grid, `x + grid_x * (y + grid_y * z)`, in 64 bits.
#[inline(always)]
pub fn trace_block_index() -> u64 {
    let b: u64;
    // SAFETY: reads special registers and does register arithmetic.
    unsafe {
        asm!(
            "{{ .reg .u32 x, y, z, nx, ny; .reg .u64 w;",
            "mov.u32 x, %ctaid.x; mov.u32 y, %ctaid.y; mov.u32 z, %ctaid.z;",
            "mov.u32 nx, %nctaid.x; mov.u32 ny, %nctaid.y;",
            "mul.wide.u32 w, ny, z; cvt.u64.u32 {b}, y; add.s64 w, w, {b};",
            "cvt.u64.u32 {b}, nx; mul.lo.u64 w, w, {b}; cvt.u64.u32 {b}, x; add.s64 {b}, w, {b}; }}",
            b = out(reg64) b,
            options(nomem, nostack, preserves_flags)
        );
    }
    b
}

/// This thread's linear index in its block, `x + block_x * (y + block_y * z)`.
#[inline(always)]
pub fn trace_thread_index() -> u32 {
    let t: u32;
    // SAFETY: reads special registers and does register arithmetic.
    unsafe {
        asm!(
            "{{ .reg .u32 x, y, z, nx, ny;",
            "mov.u32 x, %tid.x; mov.u32 y, %tid.y; mov.u32 z, %tid.z;",
            "mov.u32 nx, %ntid.x; mov.u32 ny, %ntid.y;",
            "mad.lo.u32 y, ny, z, y; mad.lo.u32 {t}, nx, y, x; }}",
            t = out(reg32) t,
            options(nomem, nostack, preserves_flags)
        );
    }
    t
}

/// The SM this thread runs on (`%smid`), widened.
#[inline(always)]
pub fn sm_id() -> u64 {
    let s: u64;
    // SAFETY: reads a special register.
    unsafe {
        asm!(
            "{{ .reg .u32 s; mov.u32 s, %smid; cvt.u64.u32 {s}, s; }}",
            s = out(reg64) s,
            options(nomem, nostack, preserves_flags)
        );
    }
    s
}

/// Waits until every lane of this thread's warp that exists reaches it (`bar.warp.sync` on the
/// warp's lanes: all 32, or the first `threads % 32` of a block's last, partial warp), where
/// `thread` is [`trace_thread_index`]. Every thread of the block must reach it: a lane that
/// passed it knows the other lanes of its warp are done with whatever came before.
#[inline(always)]
pub fn trace_warp_sync(thread: u32) {
    // SAFETY: a barrier over the lanes of this warp that exist (the block's threads linearly
    // numbered make its warps); the caller's contract has each of them reach it.
    unsafe {
        asm!(
            "{{ .reg .u32 n, left, mask; .reg .pred full;",
            "mov.u32 n, %ntid.x; mov.u32 left, %ntid.y; mul.lo.u32 n, n, left;",
            "mov.u32 left, %ntid.z; mul.lo.u32 n, n, left;",
            "and.b32 left, {t}, 0xffffffe0; sub.u32 left, n, left;",
            "setp.ge.u32 full, left, 32; shl.b32 mask, 1, left; sub.u32 mask, mask, 1;",
            "selp.b32 mask, 0xffffffff, mask, full; bar.warp.sync mask; }}",
            t = in(reg32) thread,
            options(nostack, preserves_flags)
        );
    }
}

/// `red.global.$op.u64` of `$v` into the global word at generic address `$a`.
macro_rules! red_u64 {
    ($op:literal, $a:expr, $v:expr) => {
        asm!(
            concat!("{{ .reg .u64 g; cvta.to.global.u64 g, {a}; red.global.", $op, ".u64 [g], {v}; }}"),
            a = in(reg64) $a, v = in(reg64) $v,
            options(nostack, preserves_flags),
        )
    };
}

/// Raises the global word `p[i]` to `v` if `v` is larger (`red.global.max.u64`: no old value
/// comes back).
///
/// # Safety
/// `p.add(i)` must be a valid, 8-byte aligned global address.
#[inline(always)]
pub unsafe fn red_max_u64(p: *mut u64, i: usize, v: u64) {
    // SAFETY: the caller's contract.
    unsafe { red_u64!("max", p.wrapping_add(i), v) }
}

/// Adds `v` to the global word `p[i]` (`red.global.add.u64`: no old value comes back).
///
/// # Safety
/// `p.add(i)` must be a valid, 8-byte aligned global address.
#[inline(always)]
pub unsafe fn red_add_u64(p: *mut u64, i: usize, v: u64) {
    // SAFETY: the caller's contract.
    unsafe { red_u64!("add", p.wrapping_add(i), v) }
}
