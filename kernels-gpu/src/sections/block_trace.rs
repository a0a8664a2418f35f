//! The block trace: what a GEMM line's `_traced` entry records, beside (never inside) its timed
//! launches, so that the host can give the line's achieved occupancy and the SM clock it ran at
//! from inside the kernel. A traced entry runs the same kernel function as the line's entry; the
//! only additions are a few stores to the module global [`TRACE_SYMBOL`], placed so that no
//! value stays live across the kernel's body (the host checks that the traced build keeps the
//! timed build's registers, shared memory and blocks/SM before it uses a trace).
//!
//! Block `b` (linear: `x + grid_x * (y + grid_y * z)`) owns words `b * WORDS_PER_BLOCK ..`;
//! blocks at or past [`TRACE_BLOCKS`] record nothing (the host refuses such a launch). The host
//! zeroes the words of a launch's blocks before it.

/// The traced entries' module global: `TRACE_BLOCKS * WORDS_PER_BLOCK` u64 words.
pub const TRACE_SYMBOL: &str = "lab_block_trace";
/// Blocks a traced launch can record.
pub const TRACE_BLOCKS: usize = 1 << 16;
/// u64 words per block.
pub const WORDS_PER_BLOCK: usize = 6;
/// `%globaltimer` (ns) when thread 0 of the block started, stored by it before the body.
pub const START_NS: usize = 0;
/// `%globaltimer` (ns) when the block's last warp left the body: lane 0 of each warp applies
/// `red.global.max.u64` after the body (no barrier: warp-specialised kernels retire warps early).
pub const END_NS: usize = 1;
/// `%clock64` when thread 0 started, stored before the body.
pub const START_CYCLES: usize = 2;
/// `%clock64` when the last warp left the body (`red.global.max.u64`, lane 0 of each warp).
pub const END_CYCLES: usize = 3;
/// `%smid` of the SM the block ran on, stored by thread 0.
pub const SM: usize = 4;
/// Warps that left the body: `red.global.add.u64` of 1 by lane 0 of each warp. The host checks
/// it equals the block's warps, so an end stamp missing a warp is caught.
pub const WARPS_DONE: usize = 5;
/// The suffix that names a line's traced entry after its entry.
pub const TRACED_SUFFIX: &str = "_traced";

/// One block's words, as the host reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRecord {
    pub start_ns: u64,
    pub end_ns: u64,
    pub start_cycles: u64,
    pub end_cycles: u64,
    pub sm: u32,
    pub warps_done: u64,
}

impl BlockRecord {
    /// The record of one block's [`WORDS_PER_BLOCK`] words.
    pub const fn from_words(w: &[u64; WORDS_PER_BLOCK]) -> Self {
        BlockRecord {
            start_ns: w[START_NS],
            end_ns: w[END_NS],
            start_cycles: w[START_CYCLES],
            end_cycles: w[END_CYCLES],
            sm: w[SM] as u32,
            warps_done: w[WARPS_DONE],
        }
    }
}
