//! The index arithmetic of the BF16 tensor-core GEMM family (`gemm_mma.rs`), shared by the kernel
//! and the host: which 16-byte chunks of A and B a thread copies, where they sit in swizzled
//! shared memory, which address each lane hands `ldmatrix`, and where its accumulators sit in
//! the block's output tile. The kernel calls these functions, so the CPU tests
//! (`mma_shape/tests.rs`) check the kernel's own arithmetic.
//!
//! Layout of one block (BM x BN output tile, K slices of depth BK, bf16 in, f32 out):
//! - a pipeline stage holds the A slice (BM rows of BK bf16) and then the B slice (BK rows of BN
//!   bf16), both row-major, in 16-byte chunks of 8 bf16: a chunk is the unit of a `cp.async` and
//!   one row of an 8 x 8 `ldmatrix` matrix;
//! - the chunks are swizzled ([`swizzle`]): in every 128-byte line the chunk index is XORed with
//!   a phase taken from the row, so that the 8 rows one `ldmatrix` phase reads (one chunk each,
//!   same column) fall in 8 different 16-byte bank groups, and so do the 8 chunks a quarter-warp
//!   of copies writes. Without it, rows 64 or 256 bytes apart all start in the same banks and an
//!   8-row read is an 8-way (B) or 4-way (A) conflict;
//! - warps tile the block in a (BM/WM) x (BN/WN) grid; a warp's WM x WN tile is (WM/16) x (WN/8)
//!   tiles of m16n8k16, its A fragments come from one `ldmatrix.x4` per 16 rows and its B
//!   fragments from one `ldmatrix.x4.trans` per 16 columns (two n8 tiles).

use crate::shapes::mma_layout::{
    ldmatrix_address_of, warp_tile_accumulator, LANES, MMA_K, MMA_M, MMA_N,
};

/// Bytes of one staged chunk (one `cp.async`, one `ldmatrix` row).
pub const CHUNK_BYTES: u32 = CHUNK_ELEMS * BF16_BYTES;
/// bf16 elements in a chunk.
pub const CHUNK_ELEMS: u32 = 8;
/// Bytes of a bf16.
pub const BF16_BYTES: u32 = 2;
/// Chunks in a 128-byte line: one per 16-byte group of the 32 four-byte banks.
pub const LINE_CHUNKS: u32 = 8;
/// Most source pointers a thread of the interior path keeps per matrix (one per copy of A, one
/// per row step of B): shapes that need more take the edge path everywhere.
pub const MAX_BASES: usize = 8;
/// Most copies of A a thread of the interior path keeps a pointer for that it advances every
/// slice; with more, its pointers stay at slice 0 and each copy adds the slice's offset.
pub const CARRIED_A_POINTERS: u32 = 4;

/// One tensor-core GEMM tile shape; every field is a table column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaShape {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub wm: u32,
    pub wn: u32,
    pub stages: u32,
}

/// Where a staged chunk or a fragment row lies: (row, chunk) inside a slice of A or B.
pub type ChunkIndex = (u32, u32);

/// The physical chunk of logical chunk `chunk` of row `row`, in a tile of `per_row` chunks a row
/// (`per_row` 4 or a multiple of 8): the chunk's index within its 128-byte line XORed with the
/// line's phase, the row (rows of at least one line) or the line number (4-chunk rows, two a
/// line). A bijection within each line: it only permutes the 8 chunks of a line.
pub const fn swizzle(row: u32, chunk: u32, per_row: u32) -> u32 {
    let q = row * per_row + chunk;
    let line_of_phase = if per_row > LINE_CHUNKS {
        per_row
    } else {
        LINE_CHUNKS
    };
    q ^ ((q / line_of_phase) % LINE_CHUNKS)
}

/// Rows after which [`swizzle`]'s phase repeats, in a tile of `per_row` chunks a row: 8 lines
/// of phases, each line a row (rows of at least a line) or 8 / `per_row` rows.
pub const fn phase_rows(per_row: u32) -> u32 {
    let line_of_phase = if per_row > LINE_CHUNKS {
        per_row
    } else {
        LINE_CHUNKS
    };
    LINE_CHUNKS * line_of_phase / per_row
}

impl MmaShape {
    /// The shape of block tile `bm x bn x bk`, warp tile `wm x wn` and `stages` stages.
    pub const fn new(bm: u32, bn: u32, bk: u32, wm: u32, wn: u32, stages: u32) -> Self {
        Self {
            bm,
            bn,
            bk,
            wm,
            wn,
            stages,
        }
    }

    /// The shape of a kernel's const parameters: block tile `bm x bn x bk`, warps of `mi x ni`
    /// m16n8 tiles, `stages` stages.
    pub const fn of(bm: usize, bn: usize, bk: usize, mi: usize, ni: usize, stages: usize) -> Self {
        let (mi, ni) = (mi as u32, ni as u32);
        Self::new(
            bm as u32,
            bn as u32,
            bk as u32,
            MMA_M * mi,
            MMA_N * ni,
            stages as u32,
        )
    }

    pub const fn threads(&self) -> u32 {
        self.warps() * LANES
    }
    pub const fn warps(&self) -> u32 {
        (self.bm / self.wm) * (self.bn / self.wn)
    }
    /// m16n8k16 tiles of a warp along M, along N, and 16-column pairs of them along N.
    pub const fn m_tiles(&self) -> u32 {
        self.wm / MMA_M
    }
    pub const fn n_tiles(&self) -> u32 {
        self.wn / MMA_N
    }
    pub const fn n_pairs(&self) -> u32 {
        self.wn / (2 * MMA_N)
    }
    /// k16 steps in a slice.
    pub const fn k_steps(&self) -> u32 {
        self.bk / MMA_K
    }
    /// f32 accumulators per thread.
    pub const fn accumulators(&self) -> u32 {
        self.m_tiles() * self.n_tiles() * 4
    }

    /// Chunks in a row of the A slice and of the B slice.
    pub const fn a_row_chunks(&self) -> u32 {
        self.bk / CHUNK_ELEMS
    }
    pub const fn b_row_chunks(&self) -> u32 {
        self.bn / CHUNK_ELEMS
    }
    pub const fn a_slice_bytes(&self) -> u32 {
        self.bm * self.bk * BF16_BYTES
    }
    pub const fn b_slice_bytes(&self) -> u32 {
        self.bk * self.bn * BF16_BYTES
    }
    /// Bytes of one pipeline stage (A slice, then B slice).
    pub const fn stage_bytes(&self) -> u32 {
        self.a_slice_bytes() + self.b_slice_bytes()
    }
    /// Dynamic shared memory of a block, bytes.
    pub const fn shared_bytes(&self) -> u32 {
        self.stages * self.stage_bytes()
    }

    /// Chunks of A and of B each thread copies per slice.
    pub const fn a_copies(&self) -> u32 {
        self.bm * self.a_row_chunks() / self.threads()
    }
    pub const fn b_copies(&self) -> u32 {
        self.bk * self.b_row_chunks() / self.threads()
    }
    pub const fn copies_per_slice(&self) -> u32 {
        self.a_copies() + self.b_copies()
    }
    /// Copy `e` of thread `t` of the A slice: (row in BM, chunk in the row). Consecutive threads
    /// take consecutive chunks, so a warp reads whole rows of A (coalesced) and a quarter-warp
    /// writes one 128-byte line of shared memory.
    pub const fn a_copy(&self, t: u32, e: u32) -> ChunkIndex {
        let q = t + e * self.threads();
        (q / self.a_row_chunks(), q % self.a_row_chunks())
    }
    /// Copy `e` of thread `t` of the B slice: (row in BK, chunk in the row).
    pub const fn b_copy(&self, t: u32, e: u32) -> ChunkIndex {
        let q = t + e * self.threads();
        (q / self.b_row_chunks(), q % self.b_row_chunks())
    }
    /// The interior path's copy `e` of thread `t` of the B slice: the slice walked one 128-byte
    /// line column at a time (the 8 chunks of a line, then the next row, then the next line
    /// column), so that a warp still reads whole lines (4 rows of 128 bytes) and a quarter-warp
    /// writes one line, while a thread's copies differ only by whole lines and a few row steps:
    /// a few bases plus constants ([`Self::b_copy_delta`]). The other paths keep
    /// [`Self::b_copy`], whose one-chunk-column copies the element-wise staging needs fewer
    /// registers for.
    pub const fn b_copy_by_lines(&self, t: u32, e: u32) -> ChunkIndex {
        let q = t + e * self.threads();
        let rest = q / LINE_CHUNKS;
        let line = rest / self.bk;
        (rest % self.bk, LINE_CHUNKS * line + q % LINE_CHUNKS)
    }
    /// Rows between a thread's consecutive copies of the A slice: its copies of a slice are one
    /// chunk column, every `a_copy_rows()` rows.
    pub const fn a_copy_rows(&self) -> u32 {
        self.threads() / self.a_row_chunks()
    }
    /// Rows of B one round of copies (every thread's copy `e`) covers in a line column.
    pub const fn b_round_rows(&self) -> u32 {
        self.threads() / LINE_CHUNKS
    }
    /// What copy `e` of the B slice adds to a thread's copy 0 in [`Self::b_copy_by_lines`]:
    /// (rows, chunks), the same for every thread when [`Self::copies_split_exactly`] holds.
    pub const fn b_copy_delta(&self, e: u32) -> ChunkIndex {
        let rows = e * self.b_round_rows();
        (rows % self.bk, LINE_CHUNKS * (rows / self.bk))
    }
    /// Row steps of a thread's copies of the B slice in [`Self::b_copy_by_lines`]: the distinct
    /// rows its copies start at.
    pub const fn b_row_steps(&self) -> u32 {
        if self.b_round_rows() >= self.bk {
            1
        } else {
            self.bk / self.b_round_rows()
        }
    }
    /// Whether every thread's copy `e` lies a constant (rows, chunks) after its copy 0 and lands a
    /// constant `a_copy_offset(e)` (`b_copy_offset(e)`) bytes after it in the stage: the row
    /// steps are whole periods of the swizzle's phase ([`phase_rows`]) and, for B, a round of
    /// copies covers whole line columns or a whole number of rounds covers one. The kernel's
    /// interior path forms each copy's addresses as a base plus a constant only when this holds.
    pub const fn copies_split_exactly(&self) -> bool {
        let r = self.b_round_rows();
        self.a_copy_rows()
            .is_multiple_of(phase_rows(self.a_row_chunks()))
            && r.is_multiple_of(phase_rows(self.b_row_chunks()))
            && (r.is_multiple_of(self.bk) || self.bk.is_multiple_of(r))
            && self.a_copies() as usize <= MAX_BASES
            && self.b_row_steps() as usize <= MAX_BASES
    }
    /// Stage bytes from a thread's copy 0 of the A slice to its copy `e`, and of the B slice.
    pub const fn a_copy_offset(&self, e: u32) -> u32 {
        e * self.a_copy_rows() * self.bk * BF16_BYTES
    }
    pub const fn b_copy_offset(&self, e: u32) -> u32 {
        let (rows, chunks) = self.b_copy_delta(e);
        rows * self.bn * BF16_BYTES + chunks * CHUNK_BYTES
    }
    /// The k16 step of the current slice at which copy `j` of a later slice is issued: the
    /// copies spread evenly over the slice, so no step's mma queue behind all of them.
    pub const fn copy_step(&self, j: u32) -> u32 {
        j * self.k_steps() / self.copies_per_slice()
    }
    /// Byte offset in a stage of chunk `chunk` of row `row` of the A slice, and of the B slice.
    pub const fn a_chunk_offset(&self, row: u32, chunk: u32) -> u32 {
        CHUNK_BYTES * swizzle(row, chunk, self.a_row_chunks())
    }
    pub const fn b_chunk_offset(&self, row: u32, chunk: u32) -> u32 {
        self.a_slice_bytes() + CHUNK_BYTES * swizzle(row, chunk, self.b_row_chunks())
    }

    /// Warp `warp`'s first output element in the block tile: (row, col).
    pub const fn warp_origin(&self, warp: u32) -> (u32, u32) {
        let warps_n = self.bn / self.wn;
        ((warp / warps_n) * self.wm, (warp % warps_n) * self.wn)
    }

    /// The A row and chunk whose address `lane` hands `ldmatrix.x4` for m-tile `mi` at k16 step
    /// `kk`: matrix j of the four is rows 8*(j%2).. and columns 8*(j/2).. of the 16 x 16 tile,
    /// which makes register j the mma's A register j (`mma_layout` tests this).
    pub const fn a_fragment_chunk(&self, warp: u32, lane: u32, mi: u32, kk: u32) -> ChunkIndex {
        let (j, r) = ldmatrix_address_of(lane);
        let row = self.warp_origin(warp).0 + MMA_M * mi + r + 8 * (j % 2);
        (row, 2 * kk + j / 2)
    }
    /// The B row (k) and chunk whose address `lane` hands `ldmatrix.x4.trans` for the n-tile pair
    /// `nj` at k16 step `kk`: matrix j is k rows 8*(j%2).. and n columns 8*(j/2).. of the pair,
    /// so registers 0-1 are the first n-tile's B fragment and 2-3 the second's.
    pub const fn b_fragment_chunk(&self, warp: u32, lane: u32, nj: u32, kk: u32) -> ChunkIndex {
        let (j, r) = ldmatrix_address_of(lane);
        let col = self.warp_origin(warp).1 + 2 * MMA_N * nj + MMA_N * (j / 2);
        (MMA_K * kk + r + 8 * (j % 2), col / CHUNK_ELEMS)
    }
    /// Stage offset of `lane`'s `ldmatrix` address for A: by definition.
    pub const fn a_fragment_offset(&self, warp: u32, lane: u32, mi: u32, kk: u32) -> u32 {
        let (row, chunk) = self.a_fragment_chunk(warp, lane, mi, kk);
        self.a_chunk_offset(row, chunk)
    }
    /// Stage offset of `lane`'s `ldmatrix` address for B: by definition.
    pub const fn b_fragment_offset(&self, warp: u32, lane: u32, nj: u32, kk: u32) -> u32 {
        let (row, chunk) = self.b_fragment_chunk(warp, lane, nj, kk);
        self.b_chunk_offset(row, chunk)
    }

    // The kernel's form of the two offsets above: a per-lane part, computed once, plus a part
    // that is the same for every lane and a compile-time constant in the unrolled loops. The
    // swizzle's phase depends on the row only modulo 16 (A) or 8 (B), and an m-tile (16 rows)
    // or k-step (16 rows) moves whole lines, so it adds; the XOR does not, so the lane part is
    // kept per k-step (A) or per n-pair (B): a few registers instead of one per fragment.

    /// `lane`'s part of its A address at k-step `kk` (with the warp's row offset).
    pub const fn a_lane_offset(&self, warp: u32, lane: u32, kk: u32) -> u32 {
        let (row, chunk) = self.a_fragment_chunk(0, lane, 0, kk);
        self.warp_origin(warp).0 * self.bk * BF16_BYTES
            + CHUNK_BYTES * swizzle(row, chunk, self.a_row_chunks())
    }
    /// What m-tile `mi` adds to it.
    pub const fn a_tile_step(&self, mi: u32) -> u32 {
        MMA_M * mi * self.bk * BF16_BYTES
    }
    /// `lane`'s part of its B address for n-tile pair `nj` (with the A slice before it).
    pub const fn b_lane_offset(&self, warp: u32, lane: u32, nj: u32) -> u32 {
        self.b_fragment_offset(warp, lane, nj, 0)
    }
    /// What k-step `kk` adds to it.
    pub const fn b_step(&self, kk: u32) -> u32 {
        MMA_K * kk * self.bn * BF16_BYTES
    }

    /// Accumulator register `reg` of m16n8 tile (`mi`, `ni`) of `lane` in warp `warp`: its
    /// (row, col) in the block's output tile.
    pub const fn accumulator(
        &self,
        warp: u32,
        lane: u32,
        mi: u32,
        ni: u32,
        reg: u32,
    ) -> (u32, u32) {
        warp_tile_accumulator(self.warp_origin(warp), lane, (mi, ni), reg)
    }
}

/// Whether a row-major bf16 matrix with `cols` columns at `base_address` can be staged in
/// 16-byte copies: every chunk of 8 starting at a multiple of 8 is then 16-byte aligned and
/// wholly inside or wholly outside the matrix. Otherwise the kernel gathers each chunk element
/// by element.
#[inline(always)]
pub const fn chunks_aligned(cols: u32, base_address: usize) -> bool {
    cols.is_multiple_of(CHUNK_ELEMS) && base_address.is_multiple_of(CHUNK_BYTES as usize)
}

#[cfg(test)]
mod tests;
