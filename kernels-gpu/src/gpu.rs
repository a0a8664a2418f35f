//! GPU plumbing: the only place with `unsafe` intrinsics and inline PTX.
//!
//! What lives here, and why it is not left to LLVM:
//! - shared memory is declared in PTX and reached through 32-bit `.shared` addresses
//!   (`ld.shared`/`st.shared`), not generic pointers: rustc has no way to place a static in the
//!   shared state space, and generic accesses cost a conversion per access;
//! - global reads of data the kernel never writes use the non-coherent path (`ld.global.nc`),
//!   the promise nvcc derives from `const __restrict__`, which Rust raw pointers cannot give;
//! - vector accesses are single 8- or 16-byte instructions;
//! - multiply-add is an explicit fused `fma.rn.f32`.

use core::arch::asm;
use core::arch::nvptx;

/// This thread's index in its block (x).
#[inline(always)]
pub fn thread_idx_x() -> u32 {
    // SAFETY: reads a special register.
    unsafe { nvptx::_thread_idx_x() as u32 }
}

/// This block's index in the grid (x).
#[inline(always)]
pub fn block_idx_x() -> u32 {
    // SAFETY: reads a special register.
    unsafe { nvptx::_block_idx_x() as u32 }
}

/// This block's index in the grid (y).
#[inline(always)]
pub fn block_idx_y() -> u32 {
    // SAFETY: reads a special register.
    unsafe { nvptx::_block_idx_y() as u32 }
}

/// Blocks in the grid (x).
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    // SAFETY: reads a special register.
    unsafe { nvptx::_grid_dim_x() as u32 }
}

/// Block-wide barrier (`bar.sync 0`); also orders shared-memory accesses around it.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: every thread of the block reaches the barriers of the kernels in this crate.
    unsafe { nvptx::_syncthreads() }
}

/// Aborts the kernel.
#[inline(always)]
pub fn trap() -> ! {
    // SAFETY: `trap` ends the kernel with an error.
    unsafe { nvptx::trap() }
}

/// `a * b + c`, rounded once.
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    core::intrinsics::fmaf32(a, b, c)
}

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
            asm!("st.shared.f32 [{a}], {v};", a = in(reg32) self.base + 4 * i, v = in(reg32) v,
                 options(nostack, preserves_flags));
        }
    }
}

/// Reads `p[i]` through the read-only (non-coherent) global path.
///
/// The index stays a 32-bit value up to the load (widened inside, as nvcc's `mul.wide.s32`):
/// LLVM otherwise strength-reduces every tile load into its own 64-bit pointer induction
/// variable, two registers each, which the largest GEMM tiles cannot afford.
///
/// # Safety
/// `p.offset(i)` must be a valid global address that no thread writes during the kernel.
#[inline(always)]
pub unsafe fn load_global_nc(p: *const f32, i: i32) -> f32 {
    let v: f32;
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .u64 g; mul.wide.s32 g, {i}, 4; add.s64 g, g, {p}; cvta.to.global.u64 g, g;",
            "ld.global.nc.f32 {v}, [g]; }}",
            v = out(reg32) v, i = in(reg32) i, p = in(reg64) p,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    v
}

/// Reads `p[i]` from global memory (coherent path).
///
/// # Safety
/// `p.add(i)` must be a valid, aligned global address.
#[inline(always)]
pub unsafe fn load_global(p: *const f32, i: isize) -> f32 {
    // SAFETY: the caller's contract.
    unsafe { p.offset(i).read() }
}

/// Writes `p[i] = v` in global memory.
///
/// # Safety
/// `p.add(i)` must be a valid, aligned global address.
#[inline(always)]
pub unsafe fn store_global(p: *mut f32, i: isize, v: f32) {
    // SAFETY: the caller's contract.
    unsafe { p.offset(i).write(v) }
}

/// `W` consecutive floats moved as one access (W = 1, 2 or 4).
#[derive(Clone, Copy)]
pub struct Vector<const W: usize>(pub [f32; W]);

impl<const W: usize> Vector<W> {
    /// Reads vector `i` (floats `W*i .. W*i+W`) of `p` through the read-only global path.
    ///
    /// # Safety
    /// The floats must be valid, `4*W`-byte aligned and not written during the kernel.
    #[inline(always)]
    pub unsafe fn load_nc(p: *const f32, i: u64) -> Self {
        let a = p.wrapping_add((i as usize) * W);
        let mut v = [0.0f32; W];
        // SAFETY: the caller's contract.
        unsafe {
            match W {
                1 => {
                    asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {a}; ld.global.nc.f32 {x}, [g]; }}", x = out(reg32) v[0], a = in(reg64) a,
                          options(pure, readonly, nostack, preserves_flags))
                }
                2 => {
                    asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {a}; ld.global.nc.v2.f32 {{{x}, {y}}}, [g]; }}", x = out(reg32) v[0],
                          y = out(reg32) v[1 % W], a = in(reg64) a,
                          options(pure, readonly, nostack, preserves_flags))
                }
                _ => {
                    asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {a}; ld.global.nc.v4.f32 {{{x}, {y}, {z}, {w}}}, [g]; }}", x = out(reg32) v[0],
                          y = out(reg32) v[1 % W], z = out(reg32) v[2 % W], w = out(reg32) v[3 % W],
                          a = in(reg64) a, options(pure, readonly, nostack, preserves_flags))
                }
            }
        }
        Self(v)
    }

    /// Writes this vector as vector `i` of `p`.
    ///
    /// # Safety
    /// The floats must be valid and `4*W`-byte aligned.
    #[inline(always)]
    pub unsafe fn store(self, p: *mut f32, i: u64) {
        let a = p.wrapping_add((i as usize) * W);
        let v = self.0;
        // SAFETY: the caller's contract.
        unsafe {
            match W {
                1 => {
                    asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {a}; st.global.f32 [g], {x}; }}", a = in(reg64) a, x = in(reg32) v[0],
                          options(nostack, preserves_flags))
                }
                2 => {
                    asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {a}; st.global.v2.f32 [g], {{{x}, {y}}}; }}", a = in(reg64) a,
                          x = in(reg32) v[0], y = in(reg32) v[1 % W], options(nostack, preserves_flags))
                }
                _ => {
                    asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {a}; st.global.v4.f32 [g], {{{x}, {y}, {z}, {w}}}; }}", a = in(reg64) a,
                          x = in(reg32) v[0], y = in(reg32) v[1 % W], z = in(reg32) v[2 % W],
                          w = in(reg32) v[3 % W], options(nostack, preserves_flags))
                }
            }
        }
    }
}
