//! Block-wide arrays in shared memory (`SharedF32`, `SharedF64`), addressed by 32-bit
//! shared-space offsets, for kernels that stage data through `.shared` declared in PTX.

use core::arch::asm;

/// A block-wide array type of `N` elements of `$t` (`$bytes` bytes, a `$reg` register, PTX type
/// `$ptx`) in shared memory, declared as the PTX variable `$label`: `new`, `load` and `store`.
macro_rules! shared_array {
    ($(#[$doc:meta])* $name:ident, $t:ty, $bytes:literal, $reg:ident, $ptx:literal, $label:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<const N: usize> {
            base: u32,
        }

        impl<const N: usize> $name<N> {
            /// Declares a fresh shared array (one per call site; every call is a separate
            /// allocation).
            #[inline(always)]
            pub fn new() -> Self {
                let base: u32;
                // SAFETY: declares a block-scoped .shared variable and takes its 32-bit shared
                // address.
                unsafe {
                    asm!(
                        concat!("{{ .shared .align 16 .b8 ", $label, "[{bytes}];"),
                        concat!("mov.u32 {base}, ", $label, "; }}"),
                        bytes = const N * $bytes,
                        base = out(reg32) base,
                        options(nomem, nostack, preserves_flags),
                    );
                }
                Self { base }
            }

            /// Reads element `i`. Indices are checked in debug builds only (the kernels index
            /// with compile-time shapes).
            #[inline(always)]
            pub fn load(&self, i: u32) -> $t {
                debug_assert!((i as usize) < N);
                let v: $t;
                // SAFETY: base + i * size lies inside this block's shared array.
                unsafe {
                    asm!(concat!("{{ .reg .u32 s; mad.lo.u32 s, {i}, ", $bytes, ", {base}; ld.shared.", $ptx, " {v}, [s]; }}"),
                         v = out($reg) v, i = in(reg32) i, base = in(reg32) self.base,
                         options(pure, readonly, nostack, preserves_flags));
                }
                v
            }

            /// Writes element `i`.
            #[inline(always)]
            pub fn store(&self, i: u32, v: $t) {
                debug_assert!((i as usize) < N);
                // SAFETY: base + i * size lies inside this block's shared array.
                unsafe {
                    asm!(concat!("{{ .reg .u32 s; mad.lo.u32 s, {i}, ", $bytes, ", {base}; st.shared.", $ptx, " [s], {v}; }}"),
                         i = in(reg32) i, base = in(reg32) self.base, v = in($reg) v,
                         options(nostack, preserves_flags));
                }
            }
        }
    };
}

shared_array!(
    /// A block-wide array of `N` floats in shared memory, addressed by 32-bit shared-space offsets.
    SharedF32, f32, 4, reg32, "f32", "lab_smem"
);
shared_array!(
    /// A block-wide array of `N` doubles in shared memory, addressed by 32-bit shared-space
    /// offsets (as [`SharedF32`]).
    SharedF64, f64, 8, reg64, "f64", "lab_smem_f64"
);

impl<const N: usize> SharedF32<N> {
    /// The elements from `offset` on, as a window of the same array: a per-thread base kept in
    /// one register, so that the kernel's unrolled indices stay compile-time offsets from it.
    #[inline(always)]
    pub fn view(&self, offset: u32) -> Self {
        Self {
            base: self.base + 4 * offset,
        }
    }
}
