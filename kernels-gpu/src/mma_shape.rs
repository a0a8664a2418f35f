//! The index arithmetic of the BF16 tensor-core GEMM family (`gemm_mma.rs`), shared by the kernel
//! and the host: which 16-byte chunks of A and B a thread copies, where they sit in swizzled
//! shared memory, which address each lane hands `ldmatrix`, and where its accumulators sit in
//! the block's output tile. The kernel calls these functions, so the CPU tests below check the
//! kernel's own arithmetic.
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

use crate::mma_layout::{ldmatrix_address_of, warp_tile_accumulator, MMA_K, MMA_M, MMA_N};

/// Lanes in a warp.
pub const WARP: u32 = 32;
/// Bytes of one staged chunk (one `cp.async`, one `ldmatrix` row).
pub const CHUNK_BYTES: u32 = 16;
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

    /// The shape of a kernel's const parameters: block tile BM x BN x BK, warps of MI x NI
    /// m16n8 tiles, STAGES stages.
    pub const fn of<
        const BM: usize,
        const BN: usize,
        const BK: usize,
        const MI: usize,
        const NI: usize,
        const STAGES: usize,
    >() -> Self {
        Self::new(
            BM as u32,
            BN as u32,
            BK as u32,
            MMA_M * MI as u32,
            MMA_N * NI as u32,
            STAGES as u32,
        )
    }

    pub const fn threads(&self) -> u32 {
        self.warps() * WARP
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
mod tests {
    extern crate std;
    use super::*;
    use crate::tuned_shape::inside;
    use std::vec;
    use std::vec::Vec;

    /// The table's lines and a few more corners of the checks (BK 64, narrow warps).
    fn shapes() -> Vec<MmaShape> {
        let mut v: Vec<MmaShape> = crate::variants::BF16_GEMM.iter().map(|g| g.shape).collect();
        v.extend([
            MmaShape::new(128, 128, 64, 64, 32, 3),
            MmaShape::new(64, 64, 32, 32, 16, 4),
            MmaShape::new(256, 128, 32, 64, 64, 3),
            MmaShape::new(32, 64, 64, 16, 64, 2),
        ]);
        v
    }

    #[test]
    fn swizzle_permutes_each_line() {
        for per_row in [4, 8, 16, 24, 32] {
            let rows = 64;
            let mut seen = vec![0u32; (rows * per_row) as usize];
            for row in 0..rows {
                for chunk in 0..per_row {
                    let p = swizzle(row, chunk, per_row);
                    assert_eq!(
                        p / LINE_CHUNKS,
                        (row * per_row + chunk) / LINE_CHUNKS,
                        "stays in its line"
                    );
                    seen[p as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&x| x == 1), "{per_row} chunks a row");
        }
    }

    /// 16-byte bank group of a shared address (8 groups of 4 banks).
    fn bank_group(offset: u32) -> u32 {
        offset / CHUNK_BYTES % LINE_CHUNKS
    }

    /// How many different bank groups `offsets` fall in (8: no two share one).
    fn distinct_bank_groups(offsets: impl Iterator<Item = u32>) -> usize {
        let mut g: Vec<u32> = offsets.map(bank_group).collect();
        g.sort_unstable();
        g.dedup();
        g.len()
    }

    /// Every `ldmatrix` phase (the 8 lanes giving one matrix's rows) reads 8 different bank
    /// groups, for A and for B, at every m-tile, n-pair and k-step of every warp.
    #[test]
    fn ldmatrix_reads_are_free_of_bank_conflicts() {
        for s in shapes() {
            for warp in 0..s.warps() {
                for kk in 0..s.k_steps() {
                    let phases = |f: &dyn Fn(u32) -> u32| {
                        for j in 0..4 {
                            let offsets = (8 * j..8 * j + 8).map(f);
                            assert_eq!(
                                distinct_bank_groups(offsets),
                                8,
                                "{s:?} warp {warp} kk {kk} matrix {j}"
                            );
                        }
                    };
                    for mi in 0..s.m_tiles() {
                        phases(&|l| s.a_fragment_offset(warp, l, mi, kk));
                    }
                    for nj in 0..s.n_pairs() {
                        phases(&|l| s.b_fragment_offset(warp, l, nj, kk));
                    }
                }
            }
        }
    }

    /// Each quarter-warp of copies writes 8 different bank groups.
    #[test]
    fn copies_write_without_bank_conflicts() {
        for s in shapes() {
            for quarter in 0..s.threads() / 8 {
                let threads = 8 * quarter..8 * quarter + 8;
                for e in 0..s.a_copies() {
                    let offsets = threads.clone().map(|t| {
                        let (r, c) = s.a_copy(t, e);
                        s.a_chunk_offset(r, c)
                    });
                    assert_eq!(distinct_bank_groups(offsets), 8, "{s:?} A copy {e}");
                }
                for e in 0..s.b_copies() {
                    for b_copy in [MmaShape::b_copy, MmaShape::b_copy_by_lines] {
                        let offsets = threads.clone().map(|t| {
                            let (r, c) = b_copy(&s, t, e);
                            s.b_chunk_offset(r, c)
                        });
                        assert_eq!(distinct_bank_groups(offsets), 8, "{s:?} B copy {e}");
                    }
                }
            }
        }
    }

    /// Every chunk of a slice is copied by exactly one (thread, copy), into its own place of the
    /// stage, and the A and B slices do not overlap, with either walk of B.
    #[test]
    fn each_chunk_of_a_slice_is_copied_once() {
        let walks = [MmaShape::b_copy, MmaShape::b_copy_by_lines];
        for (s, b_copy) in shapes().into_iter().flat_map(|s| walks.map(|w| (s, w))) {
            let mut stage = vec![0u32; (s.stage_bytes() / CHUNK_BYTES) as usize];
            let mut a = vec![0u32; (s.bm * s.a_row_chunks()) as usize];
            let mut b = vec![0u32; (s.bk * s.b_row_chunks()) as usize];
            for t in 0..s.threads() {
                for e in 0..s.a_copies() {
                    let (r, c) = s.a_copy(t, e);
                    a[(r * s.a_row_chunks() + c) as usize] += 1;
                    stage[(s.a_chunk_offset(r, c) / CHUNK_BYTES) as usize] += 1;
                }
                for e in 0..s.b_copies() {
                    let (r, c) = b_copy(&s, t, e);
                    b[(r * s.b_row_chunks() + c) as usize] += 1;
                    stage[(s.b_chunk_offset(r, c) / CHUNK_BYTES) as usize] += 1;
                }
            }
            assert!(a.iter().all(|&x| x == 1), "{s:?}: A slice");
            assert!(b.iter().all(|&x| x == 1), "{s:?}: B slice");
            assert!(stage.iter().all(|&x| x == 1), "{s:?}: stage bytes");
            assert_eq!(s.shared_bytes(), s.stages * s.stage_bytes());
        }
    }

    /// The kernel's split of each ldmatrix address (lane part + constant step) is the address.
    #[test]
    fn the_kernels_address_split_is_exact() {
        for s in shapes() {
            for warp in 0..s.warps() {
                for lane in 0..WARP {
                    for kk in 0..s.k_steps() {
                        for mi in 0..s.m_tiles() {
                            assert_eq!(
                                s.a_lane_offset(warp, lane, kk) + s.a_tile_step(mi),
                                s.a_fragment_offset(warp, lane, mi, kk),
                                "{s:?} A warp {warp} lane {lane} mi {mi} kk {kk}"
                            );
                        }
                        for nj in 0..s.n_pairs() {
                            assert_eq!(
                                s.b_lane_offset(warp, lane, nj) + s.b_step(kk),
                                s.b_fragment_offset(warp, lane, nj, kk),
                                "{s:?} B warp {warp} lane {lane} nj {nj} kk {kk}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The interior path's split of each copy (copy 0's row, chunk and place, plus a constant
    /// per copy) is the copy's own row, chunk and place, for every table line; and every table
    /// line takes that path.
    #[test]
    fn the_interior_copy_split_is_exact() {
        for g in crate::variants::BF16_GEMM {
            assert!(g.shape.copies_split_exactly(), "{}: {:?}", g.label, g.shape);
        }
        for s in shapes().into_iter().filter(|s| s.copies_split_exactly()) {
            for t in 0..s.threads() {
                let (ra, ca) = s.a_copy(t, 0);
                for e in 0..s.a_copies() {
                    assert_eq!(s.a_copy(t, e), (ra + e * s.a_copy_rows(), ca), "{s:?}");
                    assert_eq!(
                        s.a_chunk_offset(ra, ca) + s.a_copy_offset(e),
                        s.a_chunk_offset(ra + e * s.a_copy_rows(), ca),
                        "{s:?} A thread {t} copy {e}"
                    );
                }
                let (rb, cb) = s.b_copy_by_lines(t, 0);
                for e in 0..s.b_copies() {
                    let (dr, dc) = s.b_copy_delta(e);
                    assert_eq!(
                        s.b_copy_by_lines(t, e),
                        (rb + dr, cb + dc),
                        "{s:?} copy {e}"
                    );
                    // The kernel's pointer for this copy's row step exists.
                    assert_eq!(dr % s.b_round_rows(), 0, "{s:?} copy {e}");
                    assert!(dr / s.b_round_rows() < s.b_row_steps(), "{s:?} copy {e}");
                    assert_eq!(
                        s.b_chunk_offset(rb, cb) + s.b_copy_offset(e),
                        s.b_chunk_offset(rb + dr, cb + dc),
                        "{s:?} B thread {t} copy {e}"
                    );
                }
            }
        }
        // A row step shorter than the swizzle's period shifts the phase: the split fails there.
        let narrow = MmaShape::new(16, 64, 64, 16, 64, 2);
        assert_eq!(narrow.a_copy_rows(), 4);
        assert!(!narrow.copies_split_exactly());
        assert_ne!(
            narrow.a_chunk_offset(0, 0) + narrow.a_copy_offset(1),
            narrow.a_chunk_offset(narrow.a_copy_rows(), 0)
        );
        assert_eq!((phase_rows(4), phase_rows(8), phase_rows(32)), (16, 8, 8));
    }

    /// Simulates a block's fragment loads from a staged slice: every lane's A and B registers,
    /// read through the swizzle by its ldmatrix addresses, hold exactly the elements the mma
    /// layout wants for its m-tile, n-tile and k-step.
    #[test]
    fn fragments_read_through_the_swizzle_are_the_mma_operands() {
        use crate::mma_layout::{a_element, b_element, ldmatrix_element, ldmatrix_trans_element};
        for s in shapes() {
            // The stage as (matrix, row, col) per 2-byte element, written through the swizzle.
            let mut smem = vec![(0u8, 0u32, 0u32); (s.stage_bytes() / BF16_BYTES) as usize];
            for r in 0..s.bm {
                for c in 0..s.bk {
                    let at = s.a_chunk_offset(r, c / CHUNK_ELEMS) + BF16_BYTES * (c % CHUNK_ELEMS);
                    smem[(at / BF16_BYTES) as usize] = (b'A', r, c);
                }
            }
            for k in 0..s.bk {
                for c in 0..s.bn {
                    let at = s.b_chunk_offset(k, c / CHUNK_ELEMS) + BF16_BYTES * (c % CHUNK_ELEMS);
                    smem[(at / BF16_BYTES) as usize] = (b'B', k, c);
                }
            }
            // ldmatrix: matrix j's row i is the chunk at the address lane 8j+i gave.
            let row_of = |addresses: &dyn Fn(u32) -> u32, j: u32, i: u32, col: u32| {
                smem[((addresses(8 * j + i) + BF16_BYTES * col) / BF16_BYTES) as usize]
            };
            for warp in 0..s.warps() {
                let (wr, wc) = s.warp_origin(warp);
                for kk in 0..s.k_steps() {
                    for mi in 0..s.m_tiles() {
                        let addr = |l| s.a_fragment_offset(warp, l, mi, kk);
                        for lane in 0..WARP {
                            for j in 0..4 {
                                for half in 0..2 {
                                    let (i, col) = ldmatrix_element(lane, half);
                                    let got = row_of(&addr, j, i, col);
                                    let (r, c) = a_element(lane, j, half);
                                    assert_eq!(got, (b'A', wr + 16 * mi + r, 16 * kk + c));
                                }
                            }
                        }
                    }
                    for nj in 0..s.n_pairs() {
                        let addr = |l| s.b_fragment_offset(warp, l, nj, kk);
                        for lane in 0..WARP {
                            for j in 0..4 {
                                for half in 0..2 {
                                    // .trans: the lane's element is (row, col) of the stored
                                    // matrix j, read from the chunk of that row.
                                    let (i, col) = ldmatrix_trans_element(lane, half);
                                    let got = row_of(&addr, j, i, col);
                                    let (k, n) = b_element(lane, j % 2, half);
                                    let ni = 2 * nj + j / 2;
                                    assert_eq!(got, (b'B', 16 * kk + k, wc + 8 * ni + n));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every element of C is one accumulator of one thread of one block, at any M and N; the
    /// ones outside the matrix are exactly those the epilogue's mask drops.
    #[test]
    fn every_element_of_c_is_one_accumulator() {
        for s in shapes() {
            for (m, n) in [(1, 1), (333, 250), (s.bm + 1, 2 * s.bn - 1), (s.bm, s.bn)] {
                let mut count = vec![0u32; (m * n) as usize];
                for by in 0..m.div_ceil(s.bm) {
                    for bx in 0..n.div_ceil(s.bn) {
                        for t in 0..s.threads() {
                            for mi in 0..s.m_tiles() {
                                for ni in 0..s.n_tiles() {
                                    for reg in 0..4 {
                                        let (r, c) = s.accumulator(t / WARP, t % WARP, mi, ni, reg);
                                        assert!(r < s.bm && c < s.bn);
                                        let (row, col) = (by * s.bm + r, bx * s.bn + c);
                                        if inside(row, col, m, n) {
                                            count[(row * n + col) as usize] += 1;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                assert!(count.iter().all(|&x| x == 1), "{s:?} at {m}x{n}");
            }
        }
    }

    /// At a K and N that chunks tile (multiples of 8), a chunk's predicate (its first element
    /// inside) decides all 8 of its elements, and every element of A and B reaches a stage once.
    #[test]
    fn edge_chunks_are_wholly_inside_or_outside() {
        let s = shapes()[0];
        let (m, n, k) = (s.bm + 5, s.bn + 8, 3 * s.bk + 24);
        assert!(chunks_aligned(n, 256) && chunks_aligned(k, 0));
        let mut a_seen = vec![0u32; (m * k) as usize];
        let mut b_seen = vec![0u32; (k * n) as usize];
        for kt in 0..k.div_ceil(s.bk) {
            for t in 0..s.threads() {
                for by in 0..m.div_ceil(s.bm) {
                    for e in 0..s.a_copies() {
                        let (r, c) = s.a_copy(t, e);
                        let (row, col) = (by * s.bm + r, kt * s.bk + CHUNK_ELEMS * c);
                        for i in 0..CHUNK_ELEMS {
                            assert_eq!(inside(row, col, m, k), inside(row, col + i, m, k));
                            if inside(row, col + i, m, k) {
                                a_seen[(row * k + col + i) as usize] += 1;
                            }
                        }
                    }
                }
                for bx in 0..n.div_ceil(s.bn) {
                    for e in 0..s.b_copies() {
                        let (r, c) = s.b_copy(t, e);
                        let (row, col) = (kt * s.bk + r, bx * s.bn + CHUNK_ELEMS * c);
                        for i in 0..CHUNK_ELEMS {
                            assert_eq!(inside(row, col, k, n), inside(row, col + i, k, n));
                            if inside(row, col + i, k, n) {
                                b_seen[(row * n + col + i) as usize] += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(a_seen.iter().all(|&x| x == 1));
        assert!(b_seen.iter().all(|&x| x == 1));
        assert!(
            !chunks_aligned(n + 1, 256),
            "an odd row length needs the gather"
        );
        assert!(!chunks_aligned(n, 8), "so does a base off 16 bytes");
    }

    #[test]
    fn copies_spread_over_the_k_steps() {
        for s in shapes() {
            let steps: Vec<u32> = (0..s.copies_per_slice()).map(|j| s.copy_step(j)).collect();
            assert!(steps.windows(2).all(|w| w[0] <= w[1]), "{s:?}");
            assert!(steps.iter().all(|&kk| kk < s.k_steps()), "{s:?}");
            for kk in 0..s.k_steps() {
                let here = steps.iter().filter(|&&x| x == kk).count() as u32;
                assert!(here <= s.copies_per_slice().div_ceil(s.k_steps()), "{s:?}");
            }
        }
    }

    #[test]
    fn shapes_derive_threads_tiles_and_shared_memory() {
        let s = MmaShape::new(128, 128, 32, 64, 64, 3);
        assert_eq!((s.threads(), s.warps()), (128, 4));
        assert_eq!(
            (s.m_tiles(), s.n_tiles(), s.n_pairs(), s.k_steps()),
            (4, 8, 4, 2)
        );
        assert_eq!(s.accumulators(), 128);
        assert_eq!(s.stage_bytes(), 2 * (128 * 32 + 32 * 128));
        assert_eq!(s.shared_bytes(), 3 * 16384);
        assert_eq!((s.a_copies(), s.b_copies()), (4, 4));
        assert_eq!(s.warp_origin(3), (64, 64));
        assert_eq!(s.accumulator(1, 5, 2, 3, 2), (32 + 9, 64 + 24 + 2));
    }
}
