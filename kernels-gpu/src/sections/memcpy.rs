//! The copy lines of the variant table: a point of the memcpy grid (a strided-copy entry) and a
//! labelled variant, with what the host derives from them.

/// One point of the memcpy grid: a strided-copy entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemcpyPoint {
    /// Threads per block (also the entry's launch bound).
    pub threads: u32,
    /// Independent loads each thread issues before its first store.
    pub loads: u32,
    /// Floats per access: 1, 2 (one 8-byte access) or 4 (one 16-byte access).
    pub width: u32,
    /// Exported PTX entry name, `memcpy_t{THREADS}_l{LOADS}_w{WIDTH}`.
    pub entry: &'static str,
}

impl MemcpyPoint {
    /// Bytes each thread has in flight (loaded before storing).
    pub const fn bytes_per_thread(&self) -> u32 {
        4 * self.loads * self.width
    }
    /// Floats one block copies.
    pub const fn floats_per_block(&self) -> u64 {
        self.threads as u64 * self.loads as u64 * self.width as u64
    }
    /// Blocks needed for n floats: ceil(n / (THREADS*LOADS*WIDTH)); launched as (grid, 1) blocks
    /// of [`threads`](Self::threads) threads.
    pub const fn grid(&self, n: u64) -> u64 {
        n.div_ceil(self.floats_per_block())
    }
    /// Memory requests each thread has in flight (one per load, whatever its width).
    pub const fn requests_per_thread(&self) -> u32 {
        self.loads
    }
    // `label` (which reads the table) is in variants.rs, so that this file imports nothing of it.
}

/// A labelled memcpy variant: a point of the grid with the `bandwidth` experiment's name for it.
/// Derefs to its [`MemcpyPoint`] (threads, loads, width, entry, grid, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemcpyVariant {
    pub label: &'static str,
    pub point: MemcpyPoint,
}

impl core::ops::Deref for MemcpyVariant {
    type Target = MemcpyPoint;
    fn deref(&self) -> &MemcpyPoint {
        &self.point
    }
}
