//! The order in which the BF16 GEMM's blocks (`gemm_mma.rs`) take their output tiles, shared by
//! the kernel and its CPU test.

/// Block rows of C tiles that consecutive blocks share in [`block_tile`].
pub const RASTER_ROWS: u32 = 8;

/// The C tile (tile row, tile column) that block (`bx`, `by`) of a `gx` x `gy` grid computes.
/// Blocks start roughly in order of their linear index, so handing consecutive indices the
/// tiles of a column of `RASTER_ROWS` tile rows, column after column, makes the blocks resident
/// at one time share a few rows of A and columns of B in L2 instead of one row of A and every
/// column of B: the wave's working set stays in L2 when B alone does not. A bijection of the
/// grid onto the tiles (the last group of rows may be shorter).
#[inline(always)]
pub const fn block_tile(bx: u32, by: u32, gx: u32, gy: u32) -> (u32, u32) {
    grouped_tile(by * gx + bx, gy, gx, RASTER_ROWS)
}

/// The tile (tile row, tile column) that position `id` takes of a walk over `rows` x `cols`
/// tiles in columns of `group_rows` tile rows, column after column, group after group (the
/// last group may be shorter): a bijection of 0..rows*cols onto the tiles. [`block_tile`]'s
/// order, and the wgmma GEMM's persistent walk (`sections::gemm_wgmma::tile_of`).
#[inline(always)]
pub const fn grouped_tile(id: u32, rows: u32, cols: u32, group_rows: u32) -> (u32, u32) {
    let group_tiles = group_rows * cols;
    let first_row = id / group_tiles * group_rows;
    let in_group = if rows - first_row < group_rows {
        rows - first_row
    } else {
        group_rows
    };
    let within = id % group_tiles;
    (first_row + within % in_group, within / in_group)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;

    #[test]
    fn block_tile_covers_every_tile_once() {
        for (gx, gy) in [
            (1, 1),
            (16, 32),
            (32, 64),
            (7, 13),
            (3, 8),
            (5, 9),
            (1, 17),
            (33, 1),
        ] {
            let mut seen = vec![0u32; (gx * gy) as usize];
            for by in 0..gy {
                for bx in 0..gx {
                    let (r, c) = block_tile(bx, by, gx, gy);
                    assert!(
                        r < gy && c < gx,
                        "{gx}x{gy}: block ({bx},{by}) -> ({r},{c})"
                    );
                    seen[(r * gx + c) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&x| x == 1), "{gx}x{gy}");
        }
        // Consecutive blocks walk down a column of RASTER_ROWS tile rows first.
        assert_eq!(block_tile(1, 0, 16, 32), (1, 0));
        assert_eq!(block_tile(8, 0, 16, 32), (0, 1));
    }
}
