//! Block-wide arrays in shared memory (`SharedF32`, `SharedF64`), addressed by 32-bit
//! shared-space offsets, for kernels that stage data through `.shared` declared in PTX.

use core::arch::asm;

/// A block-wide array of `N` floats in shared memory, addressed by 32-bit shared-space offsets.
#[derive(Clone, Copy)]
pub struct SharedF32<const N: usize> {
    base: u32,
}

impl<const N: usize> SharedF32<N> {
    /// Declares a fresh shared array (one per call site; every call is a separate allocation).
    #[inline(always)]
    pub fn new() -> Self {
        let base: u32;
        // SAFETY: declares a block-scoped .shared variable and takes its 32-bit shared address.
        unsafe {
            asm!(
                "{{ .shared .align 16 .b8 lab_smem[{bytes}];",
                "mov.u32 {base}, lab_smem; }}",
                bytes = const N * 4,
                base = out(reg32) base,
                options(nomem, nostack, preserves_flags),
            );
        }
        Self { base }
    }

    /// The elements from `offset` on, as a window of the same array: a per-thread base kept in
    /// one register, so that the kernel's unrolled indices stay compile-time offsets from it.
    #[inline(always)]
    pub fn view(&self, offset: u32) -> Self {
        Self {
            base: self.base + 4 * offset,
        }
    }

    /// Reads element `i`. Indices are checked in debug builds only (the kernels index with
    /// compile-time shapes).
    #[inline(always)]
    pub fn load(&self, i: u32) -> f32 {
        debug_assert!((i as usize) < N);
        let v: f32;
        // SAFETY: base + 4*i lies inside this block's shared array.
        unsafe {
            asm!("{{ .reg .u32 s; mad.lo.u32 s, {i}, 4, {base}; ld.shared.f32 {v}, [s]; }}",
                 v = out(reg32) v, i = in(reg32) i, base = in(reg32) self.base,
                 options(pure, readonly, nostack, preserves_flags));
        }
        v
    }

    /// Writes element `i`.
    #[inline(always)]
    pub fn store(&self, i: u32, v: f32) {
        debug_assert!((i as usize) < N);
        // SAFETY: base + 4*i lies inside this block's shared array.
        unsafe {
            asm!("{{ .reg .u32 s; mad.lo.u32 s, {i}, 4, {base}; st.shared.f32 [s], {v}; }}",
                 i = in(reg32) i, base = in(reg32) self.base, v = in(reg32) v,
                 options(nostack, preserves_flags));
        }
    }
}

/// A block-wide array of `N` doubles in shared memory, addressed by 32-bit shared-space offsets
/// (as [`SharedF32`]).
#[derive(Clone, Copy)]
pub struct SharedF64<const N: usize> {
    base: u32,
}

impl<const N: usize> SharedF64<N> {
    /// Declares a fresh shared array (one per call site; every call is a separate allocation).
    #[inline(always)]
    pub fn new() -> Self {
        let base: u32;
        // SAFETY: declares a block-scoped .shared variable and takes its 32-bit shared address.
        unsafe {
            asm!(
                "{{ .shared .align 16 .b8 lab_smem_f64[{bytes}];",
                "mov.u32 {base}, lab_smem_f64; }}",
                bytes = const N * 8,
                base = out(reg32) base,
                options(nomem, nostack, preserves_flags),
            );
        }
        Self { base }
    }

    /// Reads element `i` (checked in debug builds only).
    #[inline(always)]
    pub fn load(&self, i: u32) -> f64 {
        debug_assert!((i as usize) < N);
        let v: f64;
        // SAFETY: base + 8*i lies inside this block's shared array.
        unsafe {
            asm!("{{ .reg .u32 s; mad.lo.u32 s, {i}, 8, {base}; ld.shared.f64 {v}, [s]; }}",
                 v = out(reg64) v, i = in(reg32) i, base = in(reg32) self.base,
                 options(pure, readonly, nostack, preserves_flags));
        }
        v
    }

    /// Writes element `i`.
    #[inline(always)]
    pub fn store(&self, i: u32, v: f64) {
        debug_assert!((i as usize) < N);
        // SAFETY: base + 8*i lies inside this block's shared array.
        unsafe {
            asm!("{{ .reg .u32 s; mad.lo.u32 s, {i}, 8, {base}; st.shared.f64 [s], {v}; }}",
                 i = in(reg32) i, base = in(reg32) self.base, v = in(reg64) v,
                 options(nostack, preserves_flags));
        }
    }
}
