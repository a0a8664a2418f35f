//! The addressing the strided copy (`memcpy.rs`) and its read-only twin (`read.rs`) share, written
//! once so the two cannot drift: thread g's vectors are g + i*grid_stride (i < LOADS), WIDTH
//! floats each, and only whole vectors are touched, as in the blog's kernel. The copies' round
//! (`memcpy.rs`'s `copy_round`, which the persistent copy loops) and the reads' loop stay in their
//! kernels' files.

use crate::gpu;

/// One thread's place in a strided pass over `n` floats, THREADS threads per block.
#[derive(Clone, Copy)]
pub struct Strided<const THREADS: u32, const WIDTH: usize> {
    /// This thread's index in the grid: its first vector.
    pub first: u64,
    grid_stride: u64,
    n: u64,
}

impl<const THREADS: u32, const WIDTH: usize> Strided<THREADS, WIDTH> {
    /// This thread's place in a pass over `n` floats.
    #[inline(always)]
    pub fn new(n: u64) -> Self {
        let grid_stride = gpu::grid_dim_x() as u64 * THREADS as u64;
        Self {
            first: gpu::global_thread_idx_x(THREADS),
            grid_stride,
            n,
        }
    }

    /// This thread's `i`th vector.
    #[inline(always)]
    pub fn vector(self, i: usize) -> u64 {
        self.first + i as u64 * self.grid_stride
    }

    /// Whether vector `v` is in range: whether its last float is.
    #[inline(always)]
    pub fn in_range(self, v: u64) -> bool {
        v * WIDTH as u64 + (WIDTH as u64 - 1) < self.n
    }
}
