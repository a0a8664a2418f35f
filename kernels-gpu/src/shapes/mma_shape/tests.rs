//! CPU tests of `mma_shape.rs`'s index arithmetic (the kernel's own functions): the swizzle, the
//! copies, the fragments and the accumulators of every table line and a few more shapes.

extern crate std;
use super::*;
use crate::shapes::tuned_shape::inside;
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
            for lane in 0..LANES {
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
    use crate::shapes::mma_layout::{
        a_element, b_element, each_ldmatrix_x4_element, ldmatrix_element, ldmatrix_trans_element,
    };
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
                    each_ldmatrix_x4_element(|lane, j, half| {
                        let (i, col) = ldmatrix_element(lane, half);
                        let got = row_of(&addr, j, i, col);
                        let (r, c) = a_element(lane, j, half);
                        assert_eq!(got, (b'A', wr + 16 * mi + r, 16 * kk + c));
                    });
                }
                for nj in 0..s.n_pairs() {
                    let addr = |l| s.b_fragment_offset(warp, l, nj, kk);
                    each_ldmatrix_x4_element(|lane, j, half| {
                        // .trans: the lane's element is (row, col) of the stored
                        // matrix j, read from the chunk of that row.
                        let (i, col) = ldmatrix_trans_element(lane, half);
                        let got = row_of(&addr, j, i, col);
                        let (k, n) = b_element(lane, j % 2, half);
                        let ni = 2 * nj + j / 2;
                        assert_eq!(got, (b'B', 16 * kk + k, wc + 8 * ni + n));
                    });
                }
            }
        }
    }
}

/// Every element of C is one accumulator of one thread of one block, at any M and N (the
/// accumulators outside the matrix are those the epilogue's mask, the same `inside`, drops).
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
                                    let (r, c) = s.accumulator(t / LANES, t % LANES, mi, ni, reg);
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
    // The chunk at (row, col) of a matrix with `rows` x `cols` elements: its predicate decides
    // its 8 elements, and each one inside is counted in `seen`.
    let reach = |seen: &mut [u32], (row, col): (u32, u32), (rows, cols): (u32, u32)| {
        for i in 0..CHUNK_ELEMS {
            assert_eq!(
                inside(row, col, rows, cols),
                inside(row, col + i, rows, cols)
            );
            if inside(row, col + i, rows, cols) {
                seen[(row * cols + col + i) as usize] += 1;
            }
        }
    };
    for kt in 0..k.div_ceil(s.bk) {
        for t in 0..s.threads() {
            for by in 0..m.div_ceil(s.bm) {
                for e in 0..s.a_copies() {
                    let (r, c) = s.a_copy(t, e);
                    let at = (by * s.bm + r, kt * s.bk + CHUNK_ELEMS * c);
                    reach(&mut a_seen, at, (m, k));
                }
            }
            for bx in 0..n.div_ceil(s.bn) {
                for e in 0..s.b_copies() {
                    let (r, c) = s.b_copy(t, e);
                    let at = (kt * s.bk + r, bx * s.bn + CHUNK_ELEMS * c);
                    reach(&mut b_seen, at, (k, n));
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
