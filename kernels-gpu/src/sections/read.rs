//! The read lines of the variant table: read-only twins of chosen memcpy grid points, each
//! loading what its copy loads and writing one word per warp (`read.rs`).

use crate::sections::memcpy::MemcpyPoint;

/// Warp width the read kernels reduce over (their per-warp sums and output words).
pub const READ_WARP: u32 = 32;

/// One read-only kernel: the copy point whose loads it issues, and its own entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadPoint {
    /// The copy it mirrors (threads, loads, width, and the copy's entry); its grid is the copy's.
    pub copy: MemcpyPoint,
    /// Exported PTX entry name, `read_t{THREADS}_l{LOADS}_w{WIDTH}`.
    pub entry: &'static str,
}

impl ReadPoint {
    /// Output words (one per warp) of a launch over `n` floats.
    pub const fn words(&self, n: u64) -> u64 {
        self.copy.grid(n) * (self.copy.threads / READ_WARP) as u64
    }
}

impl core::ops::Deref for ReadPoint {
    type Target = MemcpyPoint;
    fn deref(&self) -> &MemcpyPoint {
        &self.copy
    }
}
