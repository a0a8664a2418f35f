//! The epilogue the register-tiled GEMM families share (`gemm_tuned.rs`, `gemm_mma.rs`): a
//! thread's accumulators, in groups of W neighbouring columns of one row, written to C as
//! `alpha * acc + beta * C`, as one W-float access where C's rows allow it, else one float at
//! a time. C is read only when beta is not zero (it may hold anything then).

use crate::gpu;
use crate::shapes::tuned_shape::inside;

/// C as the epilogue writes it: M x N row-major f32.
#[derive(Clone, Copy)]
pub struct Output {
    pub c: *mut f32,
    pub m: u32,
    pub n: u32,
    pub alpha: f32,
    pub beta: f32,
    /// Whether groups go as one access: the caller has checked that every group of W at a
    /// column multiple of W is aligned to its size and wholly inside or outside C.
    pub vector: bool,
}

/// A group of floats moved as one global access.
pub trait Group: Sized {
    /// # Safety
    /// `p + at` starts an aligned group inside the allocation.
    unsafe fn load(p: *const f32, at: u32) -> Self;
    /// # Safety
    /// As `load`.
    unsafe fn store(self, p: *mut f32, at: u32);
}

/// [`Group`] for W floats, moved by `gpu`'s W-float global load and store.
macro_rules! group_of {
    ($w:literal, $load:ident, $store:ident) => {
        impl Group for [f32; $w] {
            #[inline(always)]
            unsafe fn load(p: *const f32, at: u32) -> Self {
                // SAFETY: the caller's contract.
                unsafe { gpu::$load(p, at) }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut f32, at: u32) {
                // SAFETY: the caller's contract.
                unsafe { gpu::$store(p, at, self) }
            }
        }
    };
}

group_of!(2, load_global2, store_global2);
group_of!(4, load_global4, store_global4);

impl Output {
    /// Writes `vals`, the accumulators of columns `col..col + W` of row `row`; parts outside C
    /// are left out.
    ///
    /// # Safety
    /// `c` holds M*N floats and is not read or written by another thread at these elements;
    /// with `vector`, the contract stated on the field holds and `col` is a multiple of W.
    #[inline(always)]
    pub unsafe fn store<const W: usize>(&self, row: u32, col: u32, vals: [f32; W])
    where
        [f32; W]: Group,
    {
        let (m, n) = (self.m, self.n);
        let read_c = self.beta != 0.0;
        let at = row * n + col;
        if self.vector {
            if inside(row, col, m, n) {
                // SAFETY: the group is inside C and aligned (the field's contract).
                let old = if read_c {
                    unsafe { <[f32; W]>::load(self.c, at) }
                } else {
                    [0.0; W]
                };
                let out: [f32; W] =
                    core::array::from_fn(|j| blend(self.alpha, vals[j], self.beta, old[j]));
                // SAFETY: as above.
                unsafe { out.store(self.c, at) };
            }
        } else {
            for (j, &v) in vals.iter().enumerate() {
                if inside(row, col + j as u32, m, n) {
                    let at = (at + j as u32) as isize;
                    // SAFETY: inside C.
                    let old = if read_c {
                        unsafe { gpu::load_global(self.c, at) }
                    } else {
                        0.0
                    };
                    // SAFETY: inside C.
                    unsafe { gpu::store_global(self.c, at, blend(self.alpha, v, self.beta, old)) };
                }
            }
        }
    }
}

impl Output {
    /// [`Output::store`] for a group known to lie inside C, as one access with no bounds test:
    /// the epilogue of a tile wholly inside C.
    ///
    /// # Safety
    /// `vector` holds (with its contract), `col` is a multiple of W, the W columns from (`row`,
    /// `col`) lie inside C, and no other thread reads or writes them.
    #[inline(always)]
    pub unsafe fn store_inside<const W: usize>(&self, row: u32, col: u32, vals: [f32; W])
    where
        [f32; W]: Group,
    {
        let at = row * self.n + col;
        // SAFETY: the group is inside C and aligned (the caller's contract).
        let old = if self.beta != 0.0 {
            unsafe { <[f32; W]>::load(self.c, at) }
        } else {
            [0.0; W]
        };
        let out: [f32; W] = core::array::from_fn(|j| blend(self.alpha, vals[j], self.beta, old[j]));
        // SAFETY: as above.
        unsafe { out.store(self.c, at) };
    }
}

/// alpha*acc + beta*old, with beta*old left out when beta is zero (C may hold anything then).
#[inline(always)]
fn blend(alpha: f32, acc: f32, beta: f32, old: f32) -> f32 {
    if beta == 0.0 {
        alpha * acc
    } else {
        gpu::fma(alpha, acc, beta * old)
    }
}
