//! GPU plumbing: the only place with `unsafe` intrinsics and inline PTX.
//!
//! What lives here, and why it is not left to LLVM:
//! - shared memory is declared in PTX and reached through 32-bit `.shared` addresses
//!   (`ld.shared`/`st.shared`), not generic pointers: rustc has no way to place a static in the
//!   shared state space, and generic accesses cost a conversion per access;
//! - the GEMM's global reads of data the kernel never writes use the non-coherent path
//!   (`ld.global.nc`), the promise nvcc derives from `const __restrict__`, which Rust raw
//!   pointers cannot give; the copies' loads stay coherent (see [`Vector::load`]);
//! - vector accesses are single 8- or 16-byte instructions;
//! - multiply-add is an explicit fused `fma.rn.f32`; a thread's 64-bit grid index is one
//!   wide multiply-add;
//! - the GEMM check's reference stages f64 in shared memory ([`SharedF64`]); its tally merges a
//!   warp with shuffles and adds into global words with 64-bit atomics (`gpu/reduce.rs`).
//! - the shared-memory copies' `cp.async` (64-bit indices, any count of groups pending) are in
//!   `gpu/async_copy.rs`;
//! - the sampled persistent copies' `%smid` and their module global are in `gpu/stamps.rs`;
//! - a traced entry's stamps read the block's and thread's linear index, the SM and the clocks,
//!   and reduce into global words (`gpu/block_trace.rs`);
//! - the tensor-core instructions (`ldmatrix`, `mma.sync`) and the BF16 GEMM's copies are in
//!   `gpu/tensor.rs`;
//! - the split-K hand-off between blocks (GPU-scope fence and count, L2 loads) is in
//!   `gpu/handoff.rs`.

use core::arch::asm;
use core::arch::nvptx;

#[macro_use]
mod async_copy;
mod block_trace;
mod reduce;
mod shared_arrays;
mod stamps;
pub use async_copy::{cp_async_16, cp_async_wait_pending};
pub use block_trace::{
    red_add_u64, red_max_u64, sm_id, trace_block_index, trace_thread_index, trace_warp_sync,
};
pub use reduce::{atomic_add_u64, atomic_max_u64, lane_id, load_word, shuffle_xor_u64, store_word};
pub use shared_arrays::{SharedF32, SharedF64};
pub use stamps::{copy_samples, smid};
mod tensor;
pub use tensor::*;
#[cfg(lab_sm90a)]
mod bulk_copy;
#[cfg(lab_sm90a)]
pub use bulk_copy::*;
#[cfg(lab_sm90a)]
mod wgmma;
#[cfg(lab_sm90a)]
pub use wgmma::*;
#[cfg(lab_sm90a)]
mod tma;
#[cfg(lab_sm90a)]
pub use tma::*;
#[cfg(lab_sm90a)]
mod cluster;
#[cfg(lab_sm90a)]
pub use cluster::*;
#[cfg(lab_sm90a)]
mod handoff;
#[cfg(lab_sm90a)]
pub use handoff::*;

/// A function reading one of the index special registers (`%tid.x`, `%ctaid.x`, ...) through
/// its intrinsic.
macro_rules! special_register {
    ($(#[$doc:meta])* $name:ident = $intrinsic:ident) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> u32 {
            // SAFETY: reads a special register.
            unsafe { nvptx::$intrinsic() as u32 }
        }
    };
}

special_register!(
    /// This thread's index in its block (x).
    thread_idx_x = _thread_idx_x
);
special_register!(
    /// This block's index in the grid (x).
    block_idx_x = _block_idx_x
);
special_register!(
    /// This block's index in the grid (y).
    block_idx_y = _block_idx_y
);
special_register!(
    /// Threads in the block (x).
    block_dim_x = _block_dim_x
);
special_register!(
    /// Blocks in the grid (x).
    grid_dim_x = _grid_dim_x
);
special_register!(
    /// Blocks in the grid (y).
    grid_dim_y = _grid_dim_y
);

/// This thread's index in the whole grid (x), `block_idx_x() * threads + thread_idx_x()`, as 64
/// bits, formed as nvcc forms it (a wide multiply plus the widened thread index), which ptxas
/// turns into one `IMAD.WIDE.U32`. Written in plain Rust, LLVM knows the thread index is below
/// the block size and turns the sum into an `or`, which ptxas cannot fold into the multiply: one
/// more dependent instruction before the first load of every thread.
#[inline(always)]
pub fn global_thread_idx_x(threads: u32) -> u64 {
    let (block, thread) = (block_idx_x(), thread_idx_x());
    let index: u64;
    // SAFETY: register arithmetic.
    unsafe {
        asm!(
            "{{ .reg .u64 p, t; mul.wide.u32 p, {b}, {n}; cvt.u64.u32 t, {x}; add.s64 {i}, p, t; }}",
            i = out(reg64) index, b = in(reg32) block, n = in(reg32) threads, x = in(reg32) thread,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    index
}

/// Block-wide barrier (`bar.sync 0`); also orders shared-memory accesses around it.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: every thread of the block reaches the barriers of the kernels in this crate.
    unsafe { nvptx::_syncthreads() }
}

/// `x`, opaque to the optimizer (LLVM sees a fresh value each time this runs). A loop bounded by
/// it keeps its trip count unknown, so LLVM leaves the loop rolled instead of unrolling it fully;
/// a value derived from it inside a loop is computed there, not hoisted and kept live across it.
#[inline(always)]
pub fn opaque(x: u32) -> u32 {
    let y: u32;
    // SAFETY: a register move.
    unsafe {
        asm!("mov.u32 {y}, {x};", y = out(reg32) y, x = in(reg32) x,
             options(nomem, nostack, preserves_flags));
    }
    y
}

/// The bound of a loop unrolled `step` times, `iters - (step - 1)` or `i32::MIN` where that
/// overflows, computed as nvcc's build computes it: `iters` compared with a constant, then a
/// select (`setp.lt` / `add` / `selp`). Written in Rust, LLVM folds the select into a `max`
/// and the guard of the loop into `iters < step`, and ptxas then orders the kernel's prologue
/// differently from nvcc's (the `mma` experiment says why that order matters).
#[inline(always)]
pub fn unrolled_loop_bound(iters: i32, step: i32) -> i32 {
    let bound: i32;
    // SAFETY: register arithmetic.
    unsafe {
        asm!(
            "{{ .reg .pred p; .reg .s32 t; setp.lt.s32 p, {i}, {lowest}; add.s32 t, {i}, {minus}; selp.b32 {b}, -2147483648, t, p; }}",
            b = out(reg32) bound, i = in(reg32) iters,
            lowest = in(reg32) i32::MIN.wrapping_add(step - 1), minus = in(reg32) 1 - step,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    bound
}

/// `x` as lane 0 of the warp has it (`shfl.sync.idx`), for a value every lane holds alike: the
/// same value, in a vector register. An instruction using a kernel parameter directly reads it
/// from the constant bank or a uniform register (sm_90 ptxas: `FADD R5, R5, UR5`); through the
/// shuffle it reads a vector register (`FADD R5, R4, R5`; ptxas may drop the shuffle of a
/// warp-uniform value, but keeps the register). Every lane of the warp must call it together.
#[inline(always)]
pub fn in_register(x: f32) -> f32 {
    let y: f32;
    // SAFETY: a warp shuffle among all 32 lanes, which the caller's contract has reach this
    // instruction together.
    unsafe {
        asm!("shfl.sync.idx.b32 {y}, {x}, 0, 0x1f, 0xffffffff;", y = out(reg32) y,
             x = in(reg32) x, options(nomem, nostack, preserves_flags));
    }
    y
}

/// The SM's cycle counter (`%clock64`). The asm is volatile and not `nomem`, so LLVM keeps it in
/// program order with every memory access around it; ptxas keeps `CS2R` clock reads in order too.
#[inline(always)]
pub fn clock64() -> u64 {
    let t: u64;
    // SAFETY: reads a special register.
    unsafe {
        asm!("mov.u64 {t}, %clock64;", t = out(reg64) t, options(nostack, preserves_flags));
    }
    t
}

/// The global nanosecond timer (`%globaltimer`; it advances in steps of up to a microsecond,
/// so only long spans are meaningful). Ordered like [`clock64`].
#[inline(always)]
pub fn globaltimer() -> u64 {
    let t: u64;
    // SAFETY: reads a special register.
    unsafe {
        asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nostack, preserves_flags));
    }
    t
}

/// Suspends the calling warp for about `ns` nanoseconds (`nanosleep.u32`; the hardware wakes it
/// anywhere from no time to twice that), leaving its issue slots to the SM's other warps. Only
/// an sm_90a kernel (W8's storer warps) waits so.
#[cfg(lab_sm90a)]
#[inline(always)]
pub fn nanosleep(ns: u32) {
    // SAFETY: only delays the warp; touches no memory and no register of the caller.
    unsafe { asm!("nanosleep.u32 {ns};", ns = in(reg32) ns, options(nostack, preserves_flags)) }
}

/// `p[i]` through `ld.global.cg`: cached in L2 only, never in L1. A pointer chase measures the
/// memory below L1: with the default `.ca` a line once touched would be served by L1 on the next
/// lap of a small ring, and `.cv` ("fetch again") is defined for system-memory coherence, not
/// for reaching DRAM. With `.cg` every hop goes at least to L2; a ring far larger than L2 makes
/// almost every hop an L2 miss, i.e. a DRAM access. The 32-bit index is widened last, as nvcc's
/// `mul.wide.u32` does.
///
/// # Safety
/// `p.add(i)` must be a valid, aligned global address.
#[inline(always)]
pub unsafe fn load_cg_u32(p: *const u32, i: u32) -> u32 {
    let v: u32;
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .u64 g; mul.wide.u32 g, {i}, 4; add.s64 g, g, {p}; cvta.to.global.u64 g, g;",
            "ld.global.cg.u32 {v}, [g]; }}",
            v = out(reg32) v, i = in(reg32) i, p = in(reg64) p,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    v
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

/// A read-only row-major matrix in global memory, seen from one element (its origin).
///
/// `load(dr, dc)` reads the element `dr` rows down and `dc` columns right of the origin through
/// the non-coherent path (`ld.global.nc`, what nvcc emits for `const __restrict__`). The offsets
/// are meant to be compile-time constants of unrolled loops: they reach the PTX as immediates
/// and the index arithmetic happens inside the load, in 32 bits, widened last (nvcc's
/// `mul.wide.s32`). Were it written as Rust arithmetic, LLVM would hoist one address per
/// unrolled load out of the K loop, two registers each, which the large tiles cannot afford.
#[derive(Clone, Copy)]
pub struct GlobalTile {
    ptr: *const f32,
    origin: i32,
    ld: i32,
}

impl GlobalTile {
    /// The matrix at `ptr` with `ld` floats per row, seen from (`row`, `col`).
    ///
    /// # Safety
    /// Every element the kernel then loads must lie inside the allocation, and no thread may
    /// write the matrix during the kernel.
    #[inline(always)]
    pub unsafe fn new(ptr: *const f32, ld: i32, row: i32, col: i32) -> Self {
        Self {
            ptr,
            origin: row * ld + col,
            ld,
        }
    }

    /// The same matrix seen from `dr` rows down and `dc` columns right.
    #[inline(always)]
    pub fn offset(self, dr: u32, dc: u32) -> Self {
        Self {
            origin: self.origin + dr as i32 * self.ld + dc as i32,
            ..self
        }
    }

    /// The element `dr` rows down and `dc` columns right of the origin.
    #[inline(always)]
    pub fn load(&self, dr: u32, dc: u32) -> f32 {
        let v: f32;
        // SAFETY: in bounds and read-only by the contract of `new`.
        unsafe {
            asm!(
                "{{ .reg .s32 i; .reg .u64 g;",
                "mad.lo.s32 i, {dr}, {ld}, {origin}; add.s32 i, i, {dc};",
                "mul.wide.s32 g, i, 4; add.s64 g, g, {p}; cvta.to.global.u64 g, g;",
                "ld.global.nc.f32 {v}, [g]; }}",
                v = out(reg32) v, dr = in(reg32) dr, dc = in(reg32) dc, ld = in(reg32) self.ld,
                origin = in(reg32) self.origin, p = in(reg64) self.ptr,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        v
    }
}

/// Reads `p[i]` from global memory (coherent path).
///
/// # Safety
/// `p.add(i)` must be a valid, aligned global address.
#[inline(always)]
pub unsafe fn load_global<T: Copy>(p: *const T, i: isize) -> T {
    // SAFETY: the caller's contract.
    unsafe { p.offset(i).read() }
}

/// Writes `p[i] = v` in global memory.
///
/// # Safety
/// `p.add(i)` must be a valid, aligned global address.
#[inline(always)]
pub unsafe fn store_global<T>(p: *mut T, i: isize, v: T) {
    // SAFETY: the caller's contract.
    unsafe { p.offset(i).write(v) }
}

/// `W` consecutive floats moved as one access (W = 1, 2 or 4).
#[derive(Clone, Copy)]
pub struct Vector<const W: usize>(pub [f32; W]);

impl<const W: usize> Vector<W> {
    /// The sum of the floats' bit patterns as integers (read.rs's exact sum), written out per
    /// width: a loop over the floats is left rolled by LLVM beside a long unrolled loop of
    /// vectors, and then indexes the vector through the stack.
    #[inline(always)]
    pub fn bits_sum(&self) -> u64 {
        let b = |k: usize| u64::from(self.0[k].to_bits());
        match W {
            1 => b(0),
            2 => b(0) + b(1),
            _ => b(0) + b(1) + b(2) + b(3),
        }
    }

    /// Reads vector `i` (floats `W*i .. W*i+W`) of `p` with a coherent `ld.global`.
    ///
    /// Not the read-only path (`ld.global.nc`): a `.nc` load promises that nothing writes the
    /// data during the kernel, so ptxas may move it below any store, and it does: it sinks a
    /// copy's loads between its stores to stay near 32 registers, which leaves only 3 or 4
    /// loads in flight per thread whatever LOADS says (`memcpy_t256_l8_w4` issued 3 of its 8
    /// 16-byte loads before the first store; nvcc's build of the peer's `const __restrict__`
    /// copy does the same). A coherent load may alias the stores that follow it, so ptxas keeps
    /// all of them above the first store and the thread really has LOADS*WIDTH*4 bytes in flight,
    /// which is what the bytes-in-flight experiments vary.
    ///
    /// # Safety
    /// The floats must be valid and `4*W`-byte aligned.
    #[inline(always)]
    pub unsafe fn load(p: *const f32, i: u64) -> Self {
        let a = p.wrapping_add((i as usize) * W);
        let mut v = [0.0f32; W];
        // SAFETY: the caller's contract.
        unsafe {
            match W {
                1 => {
                    asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {a}; ld.global.f32 {x}, [g]; }}", x = out(reg32) v[0], a = in(reg64) a,
                          options(pure, readonly, nostack, preserves_flags))
                }
                2 => {
                    asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {a}; ld.global.v2.f32 {{{x}, {y}}}, [g]; }}", x = out(reg32) v[0],
                          y = out(reg32) v[1 % W], a = in(reg64) a,
                          options(pure, readonly, nostack, preserves_flags))
                }
                _ => {
                    asm!("{{ .reg .u64 g; cvta.to.global.u64 g, {a}; ld.global.v4.f32 {{{x}, {y}, {z}, {w}}}, [g]; }}", x = out(reg32) v[0],
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

/// The block's dynamic shared memory (sized at launch): its 32-bit shared-space address.
///
/// PTX allows `.extern .shared` only at module scope, and inline asm can only reach function
/// scope, so the declaration (`.extern .shared .align 16 .b8 lab_dyn_smem[];`) is added to the
/// module by the build (`xtask/src/ptx.rs`, `declare_dynamic_shared`); this only names it.
#[inline(always)]
pub fn dynamic_shared_base() -> u32 {
    let base: u32;
    // SAFETY: takes the 32-bit shared address of the module's extern shared array.
    unsafe {
        asm!(
            "mov.u32 {base}, lab_dyn_smem;",
            base = out(reg32) base,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    base
}

/// Reads the four floats at shared address `base + offset` (16-byte aligned) with one 128-bit
/// load. `offset` is meant to be a compile-time constant: the sum is formed inside the asm, so
/// LLVM cannot hoist one address per unrolled load out of the K loop; ptxas folds it into the
/// load's immediate.
#[inline(always)]
pub fn shared_load4(base: u32, offset: u32) -> [f32; 4] {
    let v: [f32; 4];
    // SAFETY: the caller's kernel keeps base + offset inside its shared array, 16-byte aligned.
    unsafe {
        let (x, y, z, w): (f32, f32, f32, f32);
        asm!(
            "{{ .reg .u32 s; add.u32 s, {base}, {off}; ld.shared.v4.f32 {{{x}, {y}, {z}, {w}}}, [s]; }}",
            x = out(reg32) x, y = out(reg32) y, z = out(reg32) z, w = out(reg32) w,
            base = in(reg32) base, off = in(reg32) offset,
            options(pure, readonly, nostack, preserves_flags),
        );
        v = [x, y, z, w];
    }
    v
}

/// Asynchronous copy of one float, `src[index]` (global) to shared address `dst`, or a zero when
/// `inside` is false (source size 0: nothing is read, and the address is clamped to `src`
/// so that no out-of-range address is even formed). Through L1 (`.ca`, the only cache
/// option of a 4-byte copy).
///
/// # Safety
/// When `inside`, `src[index]` must be a valid global float not written during the kernel; `dst`
/// must lie in the block's shared memory, 4-byte aligned.
#[inline(always)]
pub unsafe fn cp_async_f32(dst: u32, src: *const f32, index: u32, inside: bool) {
    // SAFETY: the caller's contract; a false predicate turns the index and the size to 0.
    unsafe { cp_async_or_zeros!("ca", "4", "4"; dst, src, index, inside) }
}

/// Asynchronous copy of four floats, `src[index..index + 4]` (global, 16-byte aligned) to
/// shared address `dst` (16-byte aligned), bypassing L1 (`.cg`), or zeros when `inside` is false.
///
/// # Safety
/// As [`cp_async_f32`], for the four floats, with 16-byte alignment on both sides.
#[inline(always)]
pub unsafe fn cp_async_f32x4(dst: u32, src: *const f32, index: u32, inside: bool) {
    // SAFETY: the caller's contract; a false predicate turns the index and the size to 0.
    unsafe { cp_async_or_zeros!("cg", "16", "4"; dst, src, index, inside) }
}

/// Closes this thread's current group of asynchronous copies.
#[inline(always)]
pub fn cp_async_commit() {
    // SAFETY: bookkeeping of this thread's own copies. Not `nomem`: the copies it closes write
    // shared memory, so no shared access may move across it.
    unsafe { asm!("cp.async.commit_group;", options(nostack, preserves_flags)) }
}

/// Waits until at most `pending` of this thread's copy groups are still in flight (`pending` is
/// a compile-time constant of the caller; the PTX instruction takes an immediate).
#[inline(always)]
pub fn cp_async_wait(pending: u32) {
    // SAFETY: waits on this thread's own copies; a memory clobber so that no shared load of the
    // copied data moves above it.
    unsafe {
        match pending {
            0 => asm!("cp.async.wait_group 0;", options(nostack, preserves_flags)),
            1 => asm!("cp.async.wait_group 1;", options(nostack, preserves_flags)),
            2 => asm!("cp.async.wait_group 2;", options(nostack, preserves_flags)),
            3 => asm!("cp.async.wait_group 3;", options(nostack, preserves_flags)),
            4 => asm!("cp.async.wait_group 4;", options(nostack, preserves_flags)),
            5 => asm!("cp.async.wait_group 5;", options(nostack, preserves_flags)),
            6 => asm!("cp.async.wait_group 6;", options(nostack, preserves_flags)),
            _ => asm!("cp.async.wait_group 0;", options(nostack, preserves_flags)),
        }
    }
}

/// Reads the four floats `p[index..index + 4]` from global memory (coherent path, one 128-bit load).
///
/// # Safety
/// The floats must be valid and 16-byte aligned.
#[inline(always)]
pub unsafe fn load_global4(p: *const f32, index: u32) -> [f32; 4] {
    let (x, y, z, w): (f32, f32, f32, f32);
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .u64 g; mul.wide.u32 g, {i}, 4; add.s64 g, g, {p}; cvta.to.global.u64 g, g;",
            "ld.global.v4.f32 {{{x}, {y}, {z}, {w}}}, [g]; }}",
            x = out(reg32) x, y = out(reg32) y, z = out(reg32) z, w = out(reg32) w,
            p = in(reg64) p, i = in(reg32) index,
            options(readonly, nostack, preserves_flags),
        );
    }
    [x, y, z, w]
}

/// Writes `v` to `p[index..index + 4]` in global memory with one 128-bit store.
///
/// # Safety
/// The floats must be valid and 16-byte aligned.
#[inline(always)]
pub unsafe fn store_global4(p: *mut f32, index: u32, v: [f32; 4]) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .u64 g; mul.wide.u32 g, {i}, 4; add.s64 g, g, {p}; cvta.to.global.u64 g, g;",
            "st.global.v4.f32 [g], {{{x}, {y}, {z}, {w}}}; }}",
            p = in(reg64) p, i = in(reg32) index,
            x = in(reg32) v[0], y = in(reg32) v[1], z = in(reg32) v[2], w = in(reg32) v[3],
            options(nostack, preserves_flags),
        );
    }
}
