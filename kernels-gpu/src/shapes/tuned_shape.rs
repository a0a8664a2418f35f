//! The index arithmetic of the tuned SGEMM family, shared by the kernel (`gemm_tuned.rs`) and the
//! host: which elements of A and B a thread stages, where its accumulators sit in the block's
//! output tile, and which of them lie inside the matrices. The kernel calls these functions
//! (they inline to the same integer arithmetic), so the CPU tests below check the kernel's own
//! edge logic, not a copy of it.
//!
//! Layout of one block (BM x BN output tile, K slices of depth BK):
//! - shared memory holds `stages` slices; a slice is A transposed, `As[BK][BM + A_PAD]`, then
//!   `Bs[BK][BN]`. A is stored k-major so that a thread's TM rows of one k are read with 128-bit
//!   loads; the pad keeps those reads aligned and spreads the transposing stores over all banks;
//! - warps tile the block in a (BM/WM) x (BN/WN) grid; the 32 lanes of a warp tile its WM x WN
//!   tile in a (WM/TM) x (WN/TN) grid, and a lane's TM x TN accumulators are (TM/4) x (TN/4)
//!   blocks of 4 x 4, spaced one lane-grid apart, so that each 4-float fragment is one 128-bit
//!   shared load and the lanes of a warp read consecutive 16-byte words (no bank conflicts).

use crate::shapes::mma_layout::LANES;

/// Floats of padding after each k row of the transposed A slice.
pub const A_PAD: u32 = 4;
/// Floats in one 128-bit access.
pub const VEC: u32 = 4;

/// One tuned tile shape; every field is a table column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TunedShape {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub wm: u32,
    pub wn: u32,
    pub tm: u32,
    pub tn: u32,
    pub stages: u32,
}

/// Where a staged element goes: `(row, col)` inside the block's slice of the matrix.
pub type SliceIndex = (u32, u32);

impl TunedShape {
    pub const fn threads(&self) -> u32 {
        (self.bm / self.wm) * (self.bn / self.wn) * LANES
    }
    /// Lanes of a warp along M and along N.
    pub const fn lanes_m(&self) -> u32 {
        self.wm / self.tm
    }
    pub const fn lanes_n(&self) -> u32 {
        self.wn / self.tn
    }
    /// Floats per k row of the transposed A slice in shared memory.
    pub const fn a_pitch(&self) -> u32 {
        self.bm + A_PAD
    }
    /// Floats of one pipeline stage (A slice, then B slice).
    pub const fn stage_floats(&self) -> u32 {
        self.bk * self.a_pitch() + self.bk * self.bn
    }
    /// Offset of the B slice inside a stage, floats.
    pub const fn b_offset(&self) -> u32 {
        self.bk * self.a_pitch()
    }
    /// Dynamic shared memory of a block, bytes.
    pub const fn shared_bytes(&self) -> u32 {
        4 * self.stages * self.stage_floats()
    }

    /// A elements each thread stages per slice (4-byte copies: the transpose happens in them).
    pub const fn a_loads(&self) -> u32 {
        self.bm * self.bk / self.threads()
    }
    /// Copy `e` of thread `t` of the A slice: (row in BM, column in BK). Consecutive threads take
    /// consecutive k of a row (a 32-byte sector per 8 lanes); copies step down by
    /// threads/BK rows.
    pub const fn a_load(&self, t: u32, e: u32) -> SliceIndex {
        (t / self.bk + e * self.a_row_step(), t % self.bk)
    }
    /// Rows of A between one copy of a thread and its next (same column).
    pub const fn a_row_step(&self) -> u32 {
        self.threads() / self.bk
    }
    /// 4-float groups each thread stages per B slice.
    pub const fn b_loads(&self) -> u32 {
        self.bk * self.bn / VEC / self.threads()
    }
    /// Group `e` of thread `t` of the B slice: (row in BK, first column in BN).
    pub const fn b_load(&self, t: u32, e: u32) -> SliceIndex {
        let groups = self.bn / VEC;
        (t / groups + e * self.b_row_step(), VEC * (t % groups))
    }
    /// Rows of B between one group of a thread and its next (same columns).
    pub const fn b_row_step(&self) -> u32 {
        self.threads() / (self.bn / VEC)
    }

    /// Copies each thread issues per slice: A floats, then B groups.
    pub const fn copies_per_slice(&self) -> u32 {
        self.a_loads() + self.b_loads()
    }
    /// The depth of the current slice at which copy `j` of the next slice is issued: copies
    /// spread evenly over the slice's BK depths.
    pub const fn copy_step(&self, j: u32) -> u32 {
        j * self.bk / self.copies_per_slice()
    }

    /// Thread `t`'s first accumulator in the block's output tile: (row, col).
    pub const fn thread_origin(&self, t: u32) -> SliceIndex {
        let (warp, lane) = (t / LANES, t % LANES);
        let warps_n = self.bn / self.wn;
        let (wr, wc) = (warp / warps_n, warp % warps_n);
        let (lr, lc) = (lane / self.lanes_n(), lane % self.lanes_n());
        (wr * self.wm + lr * VEC, wc * self.wn + lc * VEC)
    }
    /// Offset of accumulator `(r, c)` (r < TM, c < TN) from the thread's origin.
    pub const fn accumulator_offset(&self, r: u32, c: u32) -> SliceIndex {
        (
            (r / VEC) * self.lanes_m() * VEC + r % VEC,
            (c / VEC) * self.lanes_n() * VEC + c % VEC,
        )
    }
}

/// Whether the element at (`row`, `col`) lies inside a `rows` x `cols` matrix: the predicate of
/// every staged copy (false: zero-filled) and every store of C (false: skipped).
#[inline(always)]
pub const fn inside(row: u32, col: u32, rows: u32, cols: u32) -> bool {
    row < rows && col < cols
}

/// Whether B can be staged with 16-byte copies: every 4-float group of a row is then aligned
/// and either wholly inside or wholly outside the matrix. Otherwise each float is copied alone.
#[inline(always)]
pub const fn rows_vectorizable(cols: u32, base_address: usize) -> bool {
    cols.is_multiple_of(VEC) && base_address.is_multiple_of(4 * VEC as usize)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;

    const R128X256: TunedShape = TunedShape {
        bm: 128,
        bn: 256,
        bk: 8,
        wm: 64,
        wn: 64,
        tm: 8,
        tn: 16,
        stages: 3,
    };
    const R256X128: TunedShape = TunedShape {
        bm: 256,
        bn: 128,
        bk: 16,
        wm: 64,
        wn: 64,
        tm: 16,
        tn: 8,
        stages: 3,
    };
    const R128X128: TunedShape = TunedShape {
        bm: 128,
        bn: 128,
        bk: 8,
        wm: 64,
        wn: 32,
        tm: 8,
        tn: 8,
        stages: 2,
    };

    /// Runs the kernel's store logic for every block and thread of an m x n output and counts the
    /// writes to each element of C.
    fn writes(s: &TunedShape, m: u32, n: u32) -> std::vec::Vec<u32> {
        let mut count = vec![0u32; (m * n) as usize];
        for by in 0..m.div_ceil(s.bm) {
            for bx in 0..n.div_ceil(s.bn) {
                for t in 0..s.threads() {
                    let (or, oc) = s.thread_origin(t);
                    for r in 0..s.tm {
                        for c in 0..s.tn {
                            let (dr, dc) = s.accumulator_offset(r, c);
                            let (row, col) = (by * s.bm + or + dr, bx * s.bn + oc + dc);
                            if inside(row, col, m, n) {
                                count[(row * n + col) as usize] += 1;
                            }
                        }
                    }
                }
            }
        }
        count
    }

    #[test]
    fn every_element_of_c_is_written_exactly_once() {
        for s in [R128X256, R256X128, R128X128] {
            for (m, n) in [
                (1, 1),
                (129, 65),
                (1000, 1001),
                (257, 3),
                (3, 513),
                (256, 256),
            ] {
                let count = writes(&s, m, n);
                assert!(
                    count.iter().all(|&w| w == 1),
                    "{s:?} at {m}x{n}: some element written {:?} times",
                    count.iter().find(|&&w| w != 1)
                );
            }
        }
    }

    /// The interior blocks' copies (`gemm_tuned.rs`) address copy `e` of a thread as its first
    /// copy plus `e` strides of whole rows: that holds only while a thread's copies share a
    /// column (A) or columns (B) and step by `a_row_step` / `b_row_step` rows.
    #[test]
    fn a_threads_copies_step_down_whole_rows_from_its_first() {
        type Load = fn(&TunedShape, u32, u32) -> SliceIndex;
        for s in [R128X256, R256X128, R128X128] {
            let operands: [(&str, Load, u32, u32); 2] = [
                ("A", TunedShape::a_load, s.a_loads(), s.a_row_step()),
                ("B", TunedShape::b_load, s.b_loads(), s.b_row_step()),
            ];
            for (name, load, loads, step) in operands {
                for t in 0..s.threads() {
                    let (r0, c0) = load(&s, t, 0);
                    for e in 0..loads {
                        assert_eq!(
                            load(&s, t, e),
                            (r0 + e * step, c0),
                            "{s:?} {name} t{t} e{e}"
                        );
                    }
                }
            }
            // The last copy's row stays inside the slice: a stride never leaves the block.
            assert!((s.a_loads() - 1) * s.a_row_step() < s.bm, "{s:?}");
            assert!((s.b_loads() - 1) * s.b_row_step() < s.bk, "{s:?}");
        }
    }

    /// Each element of a block's A and B slices is staged by exactly one (thread, copy), and a
    /// thread's accumulators are exactly the block tile split among threads.
    #[test]
    fn staging_covers_each_slice_once() {
        for s in [R128X256, R256X128, R128X128] {
            let mut a = vec![0u32; (s.bm * s.bk) as usize];
            let mut b = vec![0u32; (s.bk * s.bn) as usize];
            let mut acc = vec![0u32; (s.bm * s.bn) as usize];
            for t in 0..s.threads() {
                for e in 0..s.a_loads() {
                    let (row, col) = s.a_load(t, e);
                    a[(row * s.bk + col) as usize] += 1;
                }
                for e in 0..s.b_loads() {
                    let (row, col) = s.b_load(t, e);
                    for j in 0..VEC {
                        b[(row * s.bn + col + j) as usize] += 1;
                    }
                }
                let (or, oc) = s.thread_origin(t);
                for r in 0..s.tm {
                    for c in 0..s.tn {
                        let (dr, dc) = s.accumulator_offset(r, c);
                        acc[((or + dr) * s.bn + oc + dc) as usize] += 1;
                    }
                }
            }
            assert!(a.iter().all(|&x| x == 1), "{s:?}: A slice");
            assert!(b.iter().all(|&x| x == 1), "{s:?}: B slice");
            assert!(acc.iter().all(|&x| x == 1), "{s:?}: accumulators");
        }
    }

    /// The staged slices of an odd-sized problem: every in-range element of A and B reaches
    /// shared memory once per K slice (the copies outside the matrices are the ones the kernel's
    /// predicate, the same `inside`, drops; this test takes that predicate as given).
    #[test]
    fn edge_slices_read_only_inside_the_matrices() {
        let s = R128X256;
        let (m, n, k) = (129u32, 65u32, 17u32);
        let mut a_seen = vec![0u32; (m * k) as usize];
        let mut b_seen = vec![0u32; (k * n) as usize];
        let vector = rows_vectorizable(n, 0);
        assert!(!vector, "65 columns need the 4-byte path");
        for by in 0..m.div_ceil(s.bm) {
            for kt in 0..k.div_ceil(s.bk) {
                for t in 0..s.threads() {
                    for e in 0..s.a_loads() {
                        let (r, c) = s.a_load(t, e);
                        let (row, col) = (by * s.bm + r, kt * s.bk + c);
                        if inside(row, col, m, k) {
                            a_seen[(row * k + col) as usize] += 1;
                        }
                    }
                }
            }
        }
        for bx in 0..n.div_ceil(s.bn) {
            for kt in 0..k.div_ceil(s.bk) {
                for t in 0..s.threads() {
                    for e in 0..s.b_loads() {
                        let (r, c) = s.b_load(t, e);
                        for j in 0..VEC {
                            let (row, col) = (kt * s.bk + r, bx * s.bn + c + j);
                            if inside(row, col, k, n) {
                                b_seen[(row * n + col) as usize] += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(a_seen.iter().all(|&x| x == 1));
        assert!(b_seen.iter().all(|&x| x == 1));
    }

    #[test]
    fn copies_spread_over_the_slice() {
        for s in [R128X256, R256X128, R128X128] {
            let steps: std::vec::Vec<u32> =
                (0..s.copies_per_slice()).map(|j| s.copy_step(j)).collect();
            assert!(steps.windows(2).all(|w| w[0] <= w[1]), "{s:?}: in order");
            assert!(steps.iter().all(|&k| k < s.bk), "{s:?}: within the slice");
            // At most ceil(copies / BK) copies at any one depth.
            let most = (0..s.bk)
                .map(|k| steps.iter().filter(|&&x| x == k).count())
                .max();
            assert_eq!(
                most,
                Some(s.copies_per_slice().div_ceil(s.bk) as usize),
                "{s:?}"
            );
        }
    }

    #[test]
    fn vector_copies_need_aligned_rows() {
        assert!(rows_vectorizable(4096, 256));
        assert!(!rows_vectorizable(4097, 256));
        assert!(!rows_vectorizable(4096, 4));
        // With 4 | n, a group starting at a multiple of 4 is wholly inside or wholly outside.
        let n = 68;
        for col in (0..n + 64).step_by(VEC as usize) {
            assert_eq!(inside(0, col, 1, n), inside(0, col + VEC - 1, 1, n));
        }
    }

    #[test]
    fn shapes_derive_threads_and_shared_memory() {
        assert_eq!(R128X256.threads(), 256);
        assert_eq!((R128X256.lanes_m(), R128X256.lanes_n()), (8, 4));
        assert_eq!(R128X256.shared_bytes(), 3 * 4 * (8 * 132 + 8 * 256));
        assert_eq!((R128X256.a_loads(), R128X256.b_loads()), (4, 2));
    }
}
