//! The slot of the TMA ring both warp-specialized GEMMs share (section `gemm_wgmma`): what TMA
//! writes with the 128-byte swizzle (a K slice 64 bf16 deep, one swizzle row; B in 64-column
//! boxes) and the wgmma shape and warpgroup its consumers read it in. The section's layout of a
//! block (`sections/gemm_wgmma.rs`), the kernels, the host's tensor maps and the mma.sync
//! consumers' fragment arithmetic (`tma_mma_shape.rs`) all build on these numbers.

/// Depth of one K slice: 64 bf16 are 128 bytes, one row of the 128-byte swizzle.
pub const WGEMM_BK: u32 = 64;
/// Rows of one wgmma (m64), and of one consumer warpgroup's share of the block tile.
pub const WGEMM_M: u32 = 64;
/// Depth of one wgmma (k16).
pub const WGEMM_K: u32 = 16;
/// Threads of a warpgroup.
pub const WGEMM_WARPGROUP: u32 = 128;
/// Warps of a warpgroup.
pub const WARPGROUP_WARPS: u32 = WGEMM_WARPGROUP / 32;
/// Bytes of a row of the 128-byte swizzle, and of one TMA box row (64 bf16).
pub const SWIZZLE_BYTES: u32 = 128;
/// Bytes of one swizzle atom (8 rows of 128 bytes): a slot's tiles start at multiples of it.
pub const SWIZZLE_ATOM: u32 = 8 * SWIZZLE_BYTES;
/// Columns of B one TMA box holds (128 bytes of bf16); a BN-wide slice is BN/64 boxes.
pub const B_BOX_COLS: u32 = SWIZZLE_BYTES / 2;
