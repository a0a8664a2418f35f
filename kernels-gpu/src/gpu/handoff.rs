//! Blocks of one launch handing results to each other through global memory (the wgmma GEMM's
//! split-K, `kernels/sm90a/split_k.rs`): a GPU-scope fence, an acquire-release count on a
//! global word, a warp's broadcast of lane 0's value, and float loads that go to L2 (where other
//! SMs' writes are), never to a line an earlier launch left in this SM's L1.

use core::arch::asm;

/// `fence.acq_rel.gpu`: this thread's memory accesses before it are ordered, for the whole GPU,
/// before those after it (CUDA's `__threadfence`).
#[inline(always)]
pub fn fence_gpu() {
    // SAFETY: a fence; no operands.
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack, preserves_flags)) }
}

/// Adds 1 to the global word `p[i]` and returns the value it held, as one acquire-release
/// atomic at GPU scope (`atom.acq_rel.gpu.global.add.u32`).
///
/// # Safety
/// `p[i]` is a 4-byte-aligned word of a live global allocation.
#[inline(always)]
pub unsafe fn count_up_gpu(p: *mut u32, i: u32) -> u32 {
    let before: u32;
    // SAFETY: the caller's contract; the add is atomic.
    unsafe {
        asm!(
            "{{ .reg .u64 g; mul.wide.u32 g, {i}, 4; add.s64 g, g, {p}; cvta.to.global.u64 g, g;",
            "atom.acq_rel.gpu.global.add.u32 {v}, [g], 1; }}",
            v = out(reg32) before, i = in(reg32) i, p = in(reg64) p,
            options(nostack, preserves_flags),
        );
    }
    before
}

/// Lane 0's `x`, in every lane (`shfl.sync.idx`). Every lane of the warp calls it together.
#[inline(always)]
pub fn from_lane0(x: u32) -> u32 {
    let y: u32;
    // SAFETY: a shuffle among all 32 lanes, which the caller's contract has reach it together.
    unsafe {
        asm!("shfl.sync.idx.b32 {y}, {x}, 0, 0x1f, 0xffffffff;", y = out(reg32) y,
             x = in(reg32) x, options(nomem, nostack, preserves_flags));
    }
    y
}

/// `p[i]` through `ld.global.cg` (L2, not L1): what another SM wrote before a release this
/// thread has acquired. Not marked pure, so LLVM keeps it after the fences around it.
///
/// # Safety
/// `p[i]` is a float of a live global allocation.
#[inline(always)]
pub unsafe fn load_l2_f32(p: *const f32, i: u32) -> f32 {
    let v: f32;
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .u64 g; mul.wide.u32 g, {i}, 4; add.s64 g, g, {p}; cvta.to.global.u64 g, g;",
            "ld.global.cg.f32 {v}, [g]; }}",
            v = out(reg32) v, i = in(reg32) i, p = in(reg64) p,
            options(nostack, preserves_flags),
        );
    }
    v
}
