//! What a reduction across threads needs: a warp's lanes exchanging values by shuffles, and
//! one lane per warp adding into global words with 64-bit atomics.

use core::arch::asm;

/// `$op` on the global word at generic address `$a`, turned global in register `g` (`$regs` the
/// 64-bit registers it declares), with `$v` read (`in`) or written (`out`) as operand `{v}`.
macro_rules! global_word {
    ($regs:literal, $op:expr; $a:expr, $dir:tt $v:expr) => {
        asm!(
            concat!("{{ .reg .u64 ", $regs, "; cvta.to.global.u64 g, {a}; ", $op, " }}"),
            a = in(reg64) $a, v = $dir(reg64) $v,
            options(nostack, preserves_flags),
        )
    };
}

/// `atom.global.$op.u64` of `$v` on the global word at `$a` (its old value dropped).
macro_rules! atomic_u64 {
    ($op:literal, $a:expr, $v:expr) => {
        global_word!("g, old", concat!("atom.global.", $op, ".u64 old, [g], {v};"); $a, in $v)
    };
}

/// This thread's lane in its warp (`%laneid`).
#[inline(always)]
pub fn lane_id() -> u32 {
    let lane: u32;
    // SAFETY: reads a special register.
    unsafe {
        asm!("mov.u32 {l}, %laneid;", l = out(reg32) lane,
             options(pure, nomem, nostack, preserves_flags));
    }
    lane
}

/// `v` of the lane whose id is this lane's XOR `mask` (`shfl.sync.bfly`, over the full warp).
/// Every lane of the warp must call it together (the full member mask says so).
#[inline(always)]
pub fn shuffle_xor_u64(v: u64, mask: u32) -> u64 {
    let out: u64;
    // SAFETY: register moves and a warp shuffle among all 32 lanes, which the caller's contract
    // has reach this instruction together.
    unsafe {
        asm!(
            "{{ .reg .b32 lo, hi; mov.b64 {{lo, hi}}, {v};",
            "shfl.sync.bfly.b32 lo, lo, {m}, 0x1f, 0xffffffff;",
            "shfl.sync.bfly.b32 hi, hi, {m}, 0x1f, 0xffffffff;",
            "mov.b64 {o}, {{lo, hi}}; }}",
            o = out(reg64) out, v = in(reg64) v, m = in(reg32) mask,
            options(nomem, nostack, preserves_flags),
        );
    }
    out
}

/// Writes the global word `p[i] = v` (`st.global.u64`), in an `asm!` statement so that LLVM
/// neither forwards it to a later read of the word nor moves the copy's or the read's loads
/// across it.
///
/// # Safety
/// `p.add(i)` must be a valid, 8-byte aligned global address.
#[inline(always)]
pub unsafe fn store_word(p: *mut u64, i: isize, v: u64) {
    // SAFETY: the caller's contract.
    unsafe { global_word!("g", "st.global.u64 [g], {v};"; p.wrapping_offset(i), in v) }
}

/// Reads the global word `p[i]` (`ld.global.u64`), in an `asm!` statement (see [`store_word`]).
///
/// # Safety
/// `p.add(i)` must be a valid, 8-byte aligned global address.
#[inline(always)]
pub unsafe fn load_word(p: *const u64, i: isize) -> u64 {
    let v: u64;
    // SAFETY: the caller's contract.
    unsafe { global_word!("g", "ld.global.u64 {v}, [g];"; p.wrapping_offset(i), out v) };
    v
}

/// Adds `v` to the global word `p[i]` atomically (`atom.global.add.u64`).
///
/// # Safety
/// `p.add(i)` must be a valid, 8-byte aligned global address.
#[inline(always)]
pub unsafe fn atomic_add_u64(p: *mut u64, i: usize, v: u64) {
    // SAFETY: the caller's contract.
    unsafe { atomic_u64!("add", p.wrapping_add(i), v) }
}

/// Raises the global word `p[i]` to `v` if `v` is larger, atomically (`atom.global.max.u64`).
///
/// # Safety
/// `p.add(i)` must be a valid, 8-byte aligned global address.
#[inline(always)]
pub unsafe fn atomic_max_u64(p: *mut u64, i: usize, v: u64) {
    // SAFETY: the caller's contract.
    unsafe { atomic_u64!("max", p.wrapping_add(i), v) }
}
