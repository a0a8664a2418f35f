//! Where a consumer warp of the TMA-fed mma.sync GEMM (`gemm_tma_mma.rs`) reads its fragments
//! in a ring slot, and where its accumulators go in C: index arithmetic only, shared by the
//! kernel and its CPU tests.
//!
//! A slot holds what TMA wrote with the 128-byte swizzle (`tma_slot.rs`): A's BM x 64 slice
//! as BM rows of 128 bytes, B's 64 x BN slice as BN/64 boxes of 64 rows (k) of 128 bytes (64
//! columns), each box 1024-byte aligned. In each 1024-byte group of 8 rows, the 16-byte chunk
//! `c` of row `r` lies at chunk `c ^ (r % 8)`, so the 8 rows an `ldmatrix` phase reads (8
//! consecutive rows of one chunk column) fall in 8 different bank groups.
//!
//! Consumer warpgroup `w` owns rows 64w..64w+64 of the block tile; its warp `q` owns columns
//! q*BN/4.. of them, as 4 x BN/32 m16n8 accumulator tiles.

use crate::shapes::mma_layout::{ldmatrix_address_of, MMA_K, MMA_M, MMA_N};
use crate::shapes::tma_slot::{B_BOX_COLS, SWIZZLE_BYTES, WARPGROUP_WARPS, WGEMM_BK, WGEMM_M};

/// m16 tiles down a warp's 64 rows.
pub const SYNC_M_TILES: usize = (WGEMM_M / MMA_M) as usize;
/// k16 steps of one 64-deep slot.
pub const SYNC_K_STEPS: u32 = WGEMM_BK / MMA_K;
/// Warps of a consumer warpgroup, side by side along N.
const WARPS_N: u32 = WARPGROUP_WARPS;
/// bf16 in one 16-byte chunk.
const CHUNK_ELEMS: u32 = 8;
/// Bytes of one 64 x 64 box of B (and of 64 rows of A).
const BOX_BYTES: u32 = WGEMM_BK * SWIZZLE_BYTES;

/// Byte offset of 16-byte chunk `chunk` (0..8) of row `row` in a 128-byte-swizzled tile whose
/// start is 1024-byte aligned: TMA's `CU_TENSOR_MAP_SWIZZLE_128B`.
pub const fn swizzled(row: u32, chunk: u32) -> u32 {
    row * SWIZZLE_BYTES + 16 * (chunk ^ (row % 8))
}

/// The fragment addressing of the consumer warps of a BN-wide line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncWarps {
    pub bn: u32,
}

impl SyncWarps {
    /// Columns of a warp's tile.
    pub const fn warp_cols(&self) -> u32 {
        self.bn / WARPS_N
    }
    /// m16n8 tiles across a warp's columns, and their pairs (one `ldmatrix.x4.trans` each).
    pub const fn n_tiles(&self) -> u32 {
        self.warp_cols() / MMA_N
    }
    pub const fn n_pairs(&self) -> u32 {
        self.n_tiles() / 2
    }
    /// Consumer warp `warp`'s first element in the block tile: (row, col).
    pub const fn warp_origin(&self, warp: u32) -> (u32, u32) {
        (
            (warp / WARPS_N) * WGEMM_M,
            (warp % WARPS_N) * self.warp_cols(),
        )
    }

    /// The A row and chunk whose address `lane` hands `ldmatrix.x4` for m-tile `mi` at k16 step
    /// `kk`: matrix j is rows 8*(j%2).. and columns 8*(j/2).. of the 16 x 16 tile, so register
    /// j is the mma's A register j.
    pub const fn a_fragment_chunk(&self, warp: u32, lane: u32, mi: u32, kk: u32) -> (u32, u32) {
        let (j, r) = ldmatrix_address_of(lane);
        let row = self.warp_origin(warp).0 + MMA_M * mi + r + 8 * (j % 2);
        (row, 2 * kk + j / 2)
    }
    /// Slot offset (from the A slice) of `lane`'s `ldmatrix` address for A: by definition.
    pub const fn a_fragment_offset(&self, warp: u32, lane: u32, mi: u32, kk: u32) -> u32 {
        let (row, chunk) = self.a_fragment_chunk(warp, lane, mi, kk);
        swizzled(row, chunk)
    }
    /// The B row (k) and column whose address `lane` hands `ldmatrix.x4.trans` for n-tile pair
    /// `nj` at k16 step `kk`: matrix j is k rows 8*(j%2).. and columns 8*(j/2).. of the pair, so
    /// registers 0-1 are the first n-tile's B fragment and 2-3 the second's.
    pub const fn b_fragment_element(&self, warp: u32, lane: u32, nj: u32, kk: u32) -> (u32, u32) {
        let (j, r) = ldmatrix_address_of(lane);
        let col = self.warp_origin(warp).1 + 2 * MMA_N * nj + MMA_N * (j / 2);
        (MMA_K * kk + r + 8 * (j % 2), col)
    }
    /// Slot offset (from the B slice) of `lane`'s `ldmatrix` address for B: its column's box,
    /// then the row and chunk in it.
    pub const fn b_fragment_offset(&self, warp: u32, lane: u32, nj: u32, kk: u32) -> u32 {
        let (k, col) = self.b_fragment_element(warp, lane, nj, kk);
        (col / B_BOX_COLS) * BOX_BYTES + swizzled(k, (col % B_BOX_COLS) / CHUNK_ELEMS)
    }

    // The kernel's form of the two offsets: a per-lane part, computed once, plus a compile-time
    // constant. An m-tile or a k-step moves 16 rows, two whole swizzle groups, so it adds; the
    // chunk's XOR does not, so the lane part is kept per k-step (A) or per n-pair (B).

    /// `lane`'s part of its A address at k-step `kk` (with its warpgroup's rows).
    pub const fn a_lane_offset(&self, warp: u32, lane: u32, kk: u32) -> u32 {
        self.a_fragment_offset(warp, lane, 0, kk)
    }
    /// What m-tile `mi` adds to it.
    pub const fn a_tile_step(mi: u32) -> u32 {
        MMA_M * mi * SWIZZLE_BYTES
    }
    /// `lane`'s part of its B address for n-tile pair `nj` (with its warp's box and columns).
    pub const fn b_lane_offset(&self, warp: u32, lane: u32, nj: u32) -> u32 {
        self.b_fragment_offset(warp, lane, nj, 0)
    }
    /// What k-step `kk` adds to it.
    pub const fn b_step(kk: u32) -> u32 {
        MMA_K * kk * SWIZZLE_BYTES
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::shapes::mma_layout::{
        a_element, b_element, each_ldmatrix_x4_element, ldmatrix_element, ldmatrix_trans_element,
        warp_tile_accumulator,
    };
    use crate::variants::{RingMma, WGEMM};
    use std::vec;
    use std::vec::Vec;

    const BF16_BYTES: u32 = 2;
    const LANES: u32 = 32;

    /// Every mma.sync line of the table, and the other widths the lines' check allows.
    fn lines() -> Vec<(SyncWarps, u32)> {
        let mut v: Vec<(SyncWarps, u32)> = WGEMM
            .iter()
            .filter(|l| l.mma == RingMma::Sync)
            .map(|l| (SyncWarps { bn: l.bn }, l.bm))
            .collect();
        assert!(!v.is_empty(), "the table has mma.sync lines");
        v.extend([64, 128, 256].map(|bn| (SyncWarps { bn }, 128)));
        v
    }

    #[test]
    fn fragments_read_through_tma_swizzle_are_the_mma_operands() {
        for (s, bm) in lines() {
            // A slot as TMA writes it, as ('A' or 'B', row, col) per 2-byte element.
            let a_bytes = bm * SWIZZLE_BYTES;
            let mut a = vec![(0u8, 0u32, 0u32); (a_bytes / BF16_BYTES) as usize];
            for r in 0..bm {
                for c in 0..WGEMM_BK {
                    let at = swizzled(r, c / CHUNK_ELEMS) + BF16_BYTES * (c % CHUNK_ELEMS);
                    a[(at / BF16_BYTES) as usize] = (b'A', r, c);
                }
            }
            let mut b = vec![(0u8, 0u32, 0u32); (WGEMM_BK * s.bn) as usize];
            for k in 0..WGEMM_BK {
                for n in 0..s.bn {
                    let at = (n / B_BOX_COLS) * BOX_BYTES
                        + swizzled(k, (n % B_BOX_COLS) / CHUNK_ELEMS)
                        + BF16_BYTES * (n % CHUNK_ELEMS);
                    b[(at / BF16_BYTES) as usize] = (b'B', k, n);
                }
            }
            let read = |mem: &[(u8, u32, u32)], addr: u32, col: u32| {
                mem[((addr + BF16_BYTES * col) / BF16_BYTES) as usize]
            };
            for warp in 0..bm / WGEMM_M * WARPS_N {
                let (wr, wc) = s.warp_origin(warp);
                for kk in 0..SYNC_K_STEPS {
                    for mi in 0..SYNC_M_TILES as u32 {
                        each_ldmatrix_x4_element(|lane, j, half| {
                            // Matrix j's row i is the chunk at the address lane 8j+i gave.
                            let (i, col) = ldmatrix_element(lane, half);
                            let addr = s.a_fragment_offset(warp, 8 * j + i, mi, kk);
                            let (r, c) = a_element(lane, j, half);
                            assert_eq!(read(&a, addr, col), (b'A', wr + 16 * mi + r, 16 * kk + c));
                        });
                    }
                    for nj in 0..s.n_pairs() {
                        each_ldmatrix_x4_element(|lane, j, half| {
                            let (i, col) = ldmatrix_trans_element(lane, half);
                            let addr = s.b_fragment_offset(warp, 8 * j + i, nj, kk);
                            let (k, n) = b_element(lane, j % 2, half);
                            let ni = 2 * nj + j / 2;
                            assert_eq!(read(&b, addr, col), (b'B', 16 * kk + k, wc + 8 * ni + n));
                        });
                    }
                }
            }
        }
    }

    #[test]
    fn ldmatrix_reads_are_free_of_bank_conflicts() {
        // One phase of an ldmatrix.x4 is the 8 addresses of one matrix: 8 rows of 16 bytes,
        // which must lie in 8 different 16-byte bank groups of the 128-byte bank row.
        let distinct = |addrs: [u32; 8]| {
            let mut seen = [false; 8];
            addrs.iter().all(|a| {
                let g = ((a / 16) % 8) as usize;
                !core::mem::replace(&mut seen[g], true)
            })
        };
        for (s, bm) in lines() {
            for warp in 0..bm / WGEMM_M * WARPS_N {
                for kk in 0..SYNC_K_STEPS {
                    for j in 0..4 {
                        for mi in 0..SYNC_M_TILES as u32 {
                            let a = core::array::from_fn(|i| {
                                s.a_fragment_offset(warp, 8 * j + i as u32, mi, kk)
                            });
                            assert!(distinct(a), "A bn {} warp {warp} kk {kk} j {j}", s.bn);
                        }
                        for nj in 0..s.n_pairs() {
                            let b = core::array::from_fn(|i| {
                                s.b_fragment_offset(warp, 8 * j + i as u32, nj, kk)
                            });
                            assert!(distinct(b), "B bn {} warp {warp} kk {kk} j {j}", s.bn);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_kernels_address_split_is_exact() {
        for (s, bm) in lines() {
            for warp in 0..bm / WGEMM_M * WARPS_N {
                for lane in 0..LANES {
                    for kk in 0..SYNC_K_STEPS {
                        for mi in 0..SYNC_M_TILES as u32 {
                            assert_eq!(
                                s.a_lane_offset(warp, lane, kk) + SyncWarps::a_tile_step(mi),
                                s.a_fragment_offset(warp, lane, mi, kk)
                            );
                        }
                        for nj in 0..s.n_pairs() {
                            assert_eq!(
                                s.b_lane_offset(warp, lane, nj) + SyncWarps::b_step(kk),
                                s.b_fragment_offset(warp, lane, nj, kk)
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_element_of_a_tile_is_one_accumulator() {
        for (s, bm) in lines() {
            let mut seen = vec![0u32; (bm * s.bn) as usize];
            for warp in 0..bm / WGEMM_M * WARPS_N {
                for lane in 0..LANES {
                    for mi in 0..SYNC_M_TILES as u32 {
                        for ni in 0..s.n_tiles() {
                            for reg in 0..4 {
                                let (r, c) =
                                    warp_tile_accumulator(s.warp_origin(warp), lane, (mi, ni), reg);
                                assert!(r < bm && c < s.bn);
                                seen[(r * s.bn + c) as usize] += 1;
                            }
                        }
                    }
                }
            }
            assert!(seen.iter().all(|&x| x == 1), "bn {}", s.bn);
        }
    }
}
