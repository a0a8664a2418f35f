//! The wgmma microbenchmark's lines (section `wgmma_bf16` of the variant table, sm_90a only):
//! what a line describes, the shared-memory layout of its operands (the kernel writes it, the
//! CPU model reads the same formulas), and the compile-time checks of a line.
//!
//! A block is one warpgroup (128 threads). It writes a 64 x 16 A and a 16 x N B of small
//! integers (bf16) into its dynamic shared memory, then runs `iters` rounds; a round issues
//! `groups` commit groups of one `wgmma.mma_async` m64nNk16 each on the same accumulators and
//! waits for all of them. The block writes its 64 x N f32 accumulator tile, row-major, at
//! `out[block * 64 * N ..]`.

/// Threads of a warpgroup, and of every block of the microbenchmark.
pub const WARPGROUP_THREADS: u32 = 128;
/// Rows of A and of the accumulator tile (m64).
pub const WGMMA_M: u32 = 64;
/// Depth of one wgmma (k16).
pub const WGMMA_K: u32 = 16;
/// Bytes of one core matrix: 8 rows of 16 bytes (eight bf16).
pub const CORE_BYTES: u32 = 128;
/// Byte distance between the two core matrices along K of one 8-row group (the descriptor's
/// leading byte offset).
pub const LEADING_BYTES: u32 = CORE_BYTES;
/// Byte distance between consecutive 8-row groups (the descriptor's stride byte offset).
pub const STRIDE_BYTES: u32 = 2 * CORE_BYTES;
/// Most commit groups a line may keep in flight before it waits.
pub const MAX_WGMMA_GROUPS: u32 = 16;

/// One `wgmma_bf16` line: shape N and commit groups in flight. Every entry takes
/// `(out, iters)`; see the module documentation for the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgmmaVariant {
    /// N of m64nNk16: 64, 128 or 256.
    pub n: u32,
    /// Commit groups issued before each `wait_group 0`.
    pub groups: u32,
    /// Exported PTX entry name, `wgmma_bf16_n{N}_g{GROUPS}`.
    pub entry: &'static str,
}

impl WgmmaVariant {
    /// f32 accumulators per thread (N/2).
    pub const fn accumulators(&self) -> u32 {
        self.n / 2
    }
    /// FLOPs of one m64nNk16 MMA.
    pub const fn mma_flops(&self) -> u64 {
        2 * WGMMA_M as u64 * self.n as u64 * WGMMA_K as u64
    }
    /// Shared memory the operands take, bytes (A then B); a launch may ask for more to hold
    /// fewer blocks per SM.
    pub const fn operand_bytes(&self) -> u32 {
        b_offset() + self.n * WGMMA_K * 2
    }
    /// Floats one block writes.
    pub const fn outputs_per_block(&self) -> usize {
        (WGMMA_M * self.n) as usize
    }
}

/// Whether N is a shape the kernel implements.
pub const fn wgmma_n_supported(n: u32) -> bool {
    n == 64 || n == 128 || n == 256
}

/// Byte offset of B in the block's shared memory (A, 64 x 16 bf16, comes first).
pub const fn b_offset() -> u32 {
    WGMMA_M * WGMMA_K * 2
}

/// Byte offset of element (row, k) of a K-major operand without swizzle: core matrix
/// (row / 8, k / 8), 8-row groups `STRIDE_BYTES` apart, the two K halves `LEADING_BYTES` apart,
/// rows of a core matrix 16 bytes apart.
pub const fn k_major_offset(row: u32, k: u32) -> u32 {
    (row / 8) * STRIDE_BYTES + (k / 8) * LEADING_BYTES + (row % 8) * 16 + (k % 8) * 2
}

/// A shared-memory matrix descriptor without swizzle (PTX ISA, "Matrix Descriptor Format"): the
/// operand is made of 8 x 16-byte core matrices, each 128 contiguous bytes; `leading` is the byte
/// distance between core matrices along K, `stride` between core matrices along M (or N).
/// Addresses and offsets are encoded in 16-byte units, 14 bits each (bits 0-13, 16-29, 32-45);
/// layout type 0 (no swizzle) and base offset 0 sit in the upper bits, which stay clear.
pub const fn wgmma_descriptor(shared_addr: u32, leading: u32, stride: u32) -> u64 {
    descriptor_field(shared_addr)
        | (descriptor_field(leading) << 16)
        | (descriptor_field(stride) << 32)
}

/// A byte address or offset as a descriptor field: 16-byte units, 14 bits.
const fn descriptor_field(bytes: u32) -> u64 {
    ((bytes >> 4) & 0x3fff) as u64
}

/// A's element (m, k) as a small integer in -1..=1: mixes both indices, so a transposed or
/// misplaced operand changes the product.
pub const fn a_value(m: u32, k: u32) -> i32 {
    ((m * 5 + k * 3 + m * k) % 3) as i32 - 1
}

/// B's element (k, n) as a small integer in -1..=1.
pub const fn b_value(k: u32, n: u32) -> i32 {
    ((n * 7 + k + n / 8 + k * n / 4) % 3) as i32 - 1
}

/// The bf16 bits of -1, 0 or 1.
pub const fn small_bf16(v: i32) -> u16 {
    match v {
        -1 => 0xbf80,
        1 => 0x3f80,
        _ => 0,
    }
}

/// The accumulator element thread `t` (0..128) holds in its register `r` (0..N/2): row and
/// column of the 64 x N tile (PTX ISA, "wgmma D matrix fragment", f32): warp `t / 32` owns rows
/// 16w..16w+16; register 4i+j lies in the i-th 8-column slice, rows +8 for j >= 2, two
/// adjacent columns per lane quad.
pub const fn accumulator_position(t: u32, r: u32) -> (u32, u32) {
    let (warp, lane) = (t / 32, t % 32);
    let (slice, j) = (r / 4, r % 4);
    (
        16 * warp + lane / 4 + 8 * (j / 2),
        8 * slice + 2 * (lane % 4) + j % 2,
    )
}

/// No two lines share a shape and a group count (and so an entry).
pub const fn wgmma_lines_unique(lines: &[WgmmaVariant]) -> bool {
    no_two_alike!(lines, |a, b| a.n == b.n && a.groups == b.groups)
}
