//! Where the elements of one `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` live in a
//! warp's registers, and what `ldmatrix` hands each lane: the PTX ISA's fragment layouts (section
//! "Matrix Fragments for mma.m16n8k16 with floating point type" and "ldmatrix"), written once for
//! the kernels (the GEMM's epilogue places its accumulators with [`d_element`]) and for the CPU
//! model of the instruction (`models/mma_sync.rs`).
//!
//! A lane's `group` is `lane / 4` and its `thread_in_group` `lane % 4`. A 32-bit fragment register
//! holds two bf16, the lower-numbered element in the low half.

/// Rows of A, C and D.
pub const MMA_M: u32 = 16;
/// Columns of B, C and D.
pub const MMA_N: u32 = 8;
/// Columns of A, rows of B.
pub const MMA_K: u32 = 16;
/// 32-bit registers of a lane's A fragment: the 16 x 16 bf16 over the warp's lanes, two a
/// register (4).
pub const A_REGS: usize = (MMA_M * MMA_K / LANES / 2) as usize;
/// 32-bit registers of a lane's B fragment: the 16 x 8 bf16 over the lanes, two a register (2).
pub const B_REGS: usize = (MMA_K * MMA_N / LANES / 2) as usize;
/// f32 registers of a lane's C or D fragment: the 16 x 8 floats over the lanes (4).
pub const D_REGS: usize = (MMA_M * MMA_N / LANES) as usize;
/// Lanes in a warp.
pub const LANES: u32 = 32;

/// A position in a matrix: (row, column).
pub type Element = (u32, u32);

const fn group(lane: u32) -> u32 {
    lane / 4
}

const fn thread_in_group(lane: u32) -> u32 {
    lane % 4
}

/// The element of the 16 x 16 A (row-major) in half `half` (0: low 16 bits, 1: high) of
/// register `reg` (0..4) of `lane`: registers 0 and 2 hold rows `group`, 1 and 3 rows
/// `group + 8`; registers 0 and 1 hold columns 0..8, 2 and 3 columns 8..16.
pub const fn a_element(lane: u32, reg: u32, half: u32) -> Element {
    (
        group(lane) + 8 * (reg % 2),
        2 * thread_in_group(lane) + half + 8 * (reg / 2),
    )
}

/// The element (k, n) of the 16 x 8 B in half `half` of register `reg` (0..2) of `lane`:
/// column `group`, rows `2 * thread_in_group + half`, 8 further down in register 1.
pub const fn b_element(lane: u32, reg: u32, half: u32) -> Element {
    (2 * thread_in_group(lane) + half + 8 * reg, group(lane))
}

/// The element of the 16 x 8 C or D in register `reg` (0..4) of `lane`: registers 0 and 1 in
/// row `group`, 2 and 3 in row `group + 8`, each pair in columns `2 * thread_in_group + (0, 1)`.
pub const fn d_element(lane: u32, reg: u32) -> Element {
    (
        group(lane) + 8 * (reg / 2),
        2 * thread_in_group(lane) + reg % 2,
    )
}

/// Register `reg` of `lane`'s accumulators of m16n8 tile (`mi`, `ni`) of a warp tile whose first
/// element is `origin`: its (row, col) in the block tile. Both BF16 GEMM families place their
/// epilogue's stores with it.
pub const fn warp_tile_accumulator(
    origin: Element,
    lane: u32,
    (mi, ni): (u32, u32),
    reg: u32,
) -> Element {
    let (r, c) = d_element(lane, reg);
    (origin.0 + MMA_M * mi + r, origin.1 + MMA_N * ni + c)
}

/// `ldmatrix.sync.aligned.m8n8.x4`: lane `lane` supplies the address of row `lane % 8` of
/// matrix `lane / 8`; this gives (matrix, row).
pub const fn ldmatrix_address_of(lane: u32) -> (u32, u32) {
    (lane / 8, lane % 8)
}

/// `ldmatrix` without `.trans`: half `half` of destination register `j` of `lane` is element
/// (row, column) of the 8 x 8 matrix `j` (rows as the addresses gave them, 8 b16 each).
pub const fn ldmatrix_element(lane: u32, half: u32) -> Element {
    (lane / 4, 2 * (lane % 4) + half)
}

/// `ldmatrix` with `.trans`: half `half` of register `j` of `lane` is element (row, column) of
/// the stored matrix `j`, i.e. the matrix is handed out transposed.
pub const fn ldmatrix_trans_element(lane: u32, half: u32) -> Element {
    let (r, c) = ldmatrix_element(lane, half);
    (c, r)
}

/// Calls `f(lane, j, half)` for every lane of a warp, matrix `j` of an `ldmatrix.x4` and half of
/// the lane's word: every element the four matrices hand out (the CPU tests' walk).
#[cfg(test)]
pub(crate) fn each_ldmatrix_x4_element(mut f: impl FnMut(u32, u32, u32)) {
    for lane in 0..LANES {
        for j in 0..4 {
            for half in 0..2 {
                f(lane, j, half);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// Each layout places every element of its matrix exactly once over the warp.
    #[test]
    fn every_element_is_held_by_exactly_one_lane_register_and_half() {
        let mut a = [[0u32; 16]; 16];
        let mut b = [[0u32; 8]; 16];
        let mut d = [[0u32; 8]; 16];
        for lane in 0..LANES {
            for reg in 0..A_REGS as u32 {
                for half in 0..2 {
                    let (r, c) = a_element(lane, reg, half);
                    a[r as usize][c as usize] += 1;
                }
            }
            for reg in 0..B_REGS as u32 {
                for half in 0..2 {
                    let (k, n) = b_element(lane, reg, half);
                    b[k as usize][n as usize] += 1;
                }
            }
            for reg in 0..D_REGS as u32 {
                let (r, c) = d_element(lane, reg);
                d[r as usize][c as usize] += 1;
            }
        }
        assert!(a.iter().flatten().all(|&x| x == 1), "A: {a:?}");
        assert!(b.iter().flatten().all(|&x| x == 1), "B: {b:?}");
        assert!(d.iter().flatten().all(|&x| x == 1), "D: {d:?}");
    }

    /// Points read off the ISA's figures (lane 0, lane 5 and lane 31), so that a transposed or
    /// shifted layout that is still a bijection fails here.
    #[test]
    fn the_isa_figures_corner_lanes() {
        // Lane 0: A rows 0 and 8, columns 0-1 and 8-9.
        assert_eq!(a_element(0, 0, 0), (0, 0));
        assert_eq!(a_element(0, 1, 1), (8, 1));
        assert_eq!(a_element(0, 2, 0), (0, 8));
        assert_eq!(a_element(0, 3, 1), (8, 9));
        // Lane 5 (group 1, thread 1): A row 1 columns 2-3; B rows 2-3 and 10-11 of column 1.
        assert_eq!(a_element(5, 0, 0), (1, 2));
        assert_eq!(a_element(5, 0, 1), (1, 3));
        assert_eq!(b_element(5, 0, 0), (2, 1));
        assert_eq!(b_element(5, 1, 1), (11, 1));
        // Lane 31 (group 7, thread 3): A rows 7 and 15, columns 6-7 and 14-15; D rows 7 and 15,
        // columns 6-7.
        assert_eq!(a_element(31, 3, 1), (15, 15));
        assert_eq!(a_element(31, 2, 0), (7, 14));
        assert_eq!(b_element(31, 0, 1), (7, 7));
        assert_eq!(d_element(31, 0), (7, 6));
        assert_eq!(d_element(31, 3), (15, 7));
        assert_eq!(d_element(4, 2), (9, 0));
    }

    /// ldmatrix.x4 over the four 8 x 8 quadrants of a 16 x 16 tile (matrix j at rows 8*(j%2),
    /// columns 8*(j/2)) hands each lane exactly its A fragment: the GEMM's addressing.
    #[test]
    fn ldmatrix_x4_of_the_quadrants_is_the_a_fragment() {
        each_ldmatrix_x4_element(|lane, j, half| {
            let (r, c) = ldmatrix_element(lane, half);
            let tile = (r + 8 * (j % 2), c + 8 * (j / 2));
            assert_eq!(tile, a_element(lane, j, half), "lane {lane} reg {j}");
        });
    }

    /// ldmatrix.x4.trans over a 16 x 16 slice of row-major B (k rows, n columns; matrix j at k
    /// 8*(j%2), n 8*(j/2)) hands each lane the B fragments of two neighbouring n8 tiles.
    #[test]
    fn ldmatrix_x4_trans_of_row_major_b_is_two_b_fragments() {
        each_ldmatrix_x4_element(|lane, j, half| {
            let (k, n) = ldmatrix_trans_element(lane, half);
            let (k, n) = (k + 8 * (j % 2), n + 8 * (j / 2));
            let (tile, reg) = (j / 2, j % 2);
            assert_eq!((k, n - 8 * tile), b_element(lane, reg, half), "lane {lane}");
        });
    }
}
