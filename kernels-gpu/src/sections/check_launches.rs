//! The GEMM check's kernels as the variant table declares them (`gemm_ref:`, `gemm_check:` and
//! `gemm_hash:` lines): their launch shapes. Not variants: never timed.

/// The GEMM check's f64 reference kernel (gemm_ref.rs): one thread per element of C, a block
/// per TILE x TILE tile; writes per element the dot product and the spread of its partial sums
/// ([`crate::models::gemm_tolerance::Reference`]) into two M*N arrays of doubles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmRefKernel {
    /// Exported PTX entry name.
    pub entry: &'static str,
    /// Side of a block's tile of C (and depth of its K slices).
    pub tile: u32,
}

impl GemmRefKernel {
    /// Threads per block (also the entry's launch bound).
    pub const fn threads(&self) -> u32 {
        self.tile * self.tile
    }
    /// Grid (x over N, y over M) for an M x N output, edge blocks partial.
    pub const fn grid(&self, m: u32, n: u32) -> (u32, u32) {
        (n.div_ceil(self.tile), m.div_ceil(self.tile))
    }
}

/// A GEMM check kernel that reads every element of an f32 C once, over a grid-stride loop, and adds
/// what it finds into `out`'s words with one atomic per warp: the comparison
/// (kernels/gemm_judge.rs: the [`crate::models::gemm_tolerance::Tally`] against the reference) and
/// the hash (gemm_hash.rs: the [`crate::models::output_hash`] of C).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmCheckKernel {
    /// Exported PTX entry name.
    pub entry: &'static str,
    /// Threads per block (a multiple of 32: the kernel merges whole warps).
    pub threads: u32,
}

impl GemmCheckKernel {
    /// Blocks for `len` elements: one element per thread, but no more than `max_blocks` (the
    /// kernel loops over the rest, so that few warps add into the tally's words).
    pub const fn grid(&self, len: u64, max_blocks: u32) -> u32 {
        let needed = len.div_ceil(self.threads as u64);
        if needed == 0 {
            1
        } else if needed < max_blocks as u64 {
            needed as u32
        } else {
            max_blocks
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::variants::{GEMM_CHECK, GEMM_HASH, GEMM_REF};

    #[test]
    fn the_check_kernels_cover_every_element() {
        assert_eq!(
            GEMM_REF.grid(333, 250),
            (16, 21),
            "x over N, y over M, rounded up"
        );
        assert_eq!(GEMM_REF.grid(1, 1), (1, 1));
        assert_eq!(GEMM_REF.grid(8192, 8192), (512, 512));
        // One element per thread up to the cap; at least one block.
        assert_eq!(GEMM_CHECK.grid(1, 1000), 1);
        assert_eq!(GEMM_CHECK.grid(0, 1000), 1);
        assert_eq!(GEMM_CHECK.grid(256 * 10 + 1, 1000), 11);
        assert_eq!(GEMM_CHECK.grid(1 << 26, 1056), 1056);
        assert_eq!(GEMM_CHECK.threads % 32, 0);
        assert_eq!(GEMM_HASH.threads % 32, 0);
    }
}
