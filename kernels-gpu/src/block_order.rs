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
    let id = by * gx + bx;
    let group_blocks = RASTER_ROWS * gx;
    let first_row = id / group_blocks * RASTER_ROWS;
    let rows = if gy - first_row < RASTER_ROWS {
        gy - first_row
    } else {
        RASTER_ROWS
    };
    let within = id % group_blocks;
    (first_row + within % rows, within / rows)
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
