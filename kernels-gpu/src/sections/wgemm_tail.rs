//! The streamed tail of a wgmma line's persistent walk (stream-K for the last wave). Where a
//! line's output tiles fill some whole waves of the grid and part of one more, walking the last
//! partial wave a tile per block leaves the other blocks idle for a whole tile's K. Instead, the
//! K slices of that wave's tiles, laid end to end, are shared out in runs as equal as whole
//! slices allow, one run per block of the grid. A run is shorter than a tile's K (the tail has
//! fewer tiles than the grid has blocks), so it crosses one tile boundary at most: a block takes
//! one or two pieces of tail tiles, and the pieces of one tile meet as split-K's units do
//! (`kernels/sm90a/split_k.rs`).
//!
//! A block runs its pieces in reverse: the start of its later tile first, then the end of its
//! earlier one. Taken in K order, block b's run would sit at K offset (b x run) mod K from its
//! first step: the blocks would read 132 different slices of A and B at once, none shared, and
//! where the panels outgrow L2 the tail ran at DRAM's pace (4096x4096x14336, call S19c: 0.86 of
//! the tail dealt whole). In reverse, every block is at offset t of its run's first piece at
//! step t, and at t + K - run in its second: two fronts of K slices that the blocks share, as
//! tiles dealt whole share one. Where a line streams its tail is `sections/wgemm_walk.rs`'s
//! rule; the kernels and the host's launch read these same formulas.

/// Pieces of tail tiles a block takes at most: its run is no longer than a tile's K.
pub const TAIL_PIECES: u32 = 2;

/// The tail of a walk of `from + tiles` tiles over `blocks` blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamTail {
    /// Tiles walked whole before the tail: whole waves of the grid.
    pub from: u32,
    /// Tiles of the tail, fewer than the blocks.
    pub tiles: u32,
    /// 64-deep K slices of every tile.
    pub k_steps: u32,
    /// Blocks of the grid, one run of the tail's slices each.
    pub blocks: u32,
}

/// A block's piece of one tail tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailPiece {
    /// The tile's index in the walk (`from` or above).
    pub tile: u32,
    /// The tile's first K slice that the piece takes, and how many (at least one).
    pub first: u32,
    pub steps: u32,
    /// Which of the tile's pieces this is, in K order, and how many pieces the tile has.
    pub index: u32,
    pub pieces: u32,
}

impl StreamTail {
    /// Whether the tail of `tiles` tiles of `k_steps` slices over `blocks` blocks (at least 1)
    /// keeps its arithmetic in 32 bits: its slices times the blocks below 2^32. The kernels
    /// divide in 32 bits: ptxas calls a subroutine for a 64-bit division, whose call frame
    /// broke a line's bar of no stack (W3).
    pub const fn fits(tiles: u32, k_steps: u32, blocks: u32) -> bool {
        let tail = (tiles % blocks) as u64;
        tail * k_steps as u64 * blocks as u64 <= u32::MAX as u64
    }

    /// The tail of a walk of `tiles` tiles of `k_steps` slices each over `blocks` blocks (at
    /// least 1): the tiles past its last whole wave. The pieces below hold where it
    /// [`fits`](StreamTail::fits) and every block's run has a slice at least
    /// ([`StreamTail::shortest_run`] >= 1), as the rule that streams a tail asks
    /// (`WgemmVariant::stream_tail`).
    #[inline(always)]
    pub const fn of(tiles: u32, k_steps: u32, blocks: u32) -> Self {
        let from = tiles / blocks * blocks;
        StreamTail {
            from,
            tiles: tiles - from,
            k_steps,
            blocks,
        }
    }

    /// Every K slice of every tail tile.
    #[inline(always)]
    const fn slices(&self) -> u32 {
        self.tiles * self.k_steps
    }

    /// The first tail slice of block `b`'s run (for `b` = blocks, the end of the last run).
    #[inline(always)]
    pub const fn run_start(&self, b: u32) -> u32 {
        b * self.slices() / self.blocks
    }

    /// The shortest run a block takes.
    pub const fn shortest_run(&self) -> u32 {
        self.slices() / self.blocks
    }

    /// The longest run a block takes.
    pub const fn longest_run(&self) -> u32 {
        self.slices().div_ceil(self.blocks)
    }

    /// The block whose run holds tail slice `s` (below `tiles * k_steps`): the last block whose
    /// run starts at `s` or before, which is never an empty run.
    #[inline(always)]
    pub const fn block_of(&self, s: u32) -> u32 {
        ((s + 1) * self.blocks - 1) / self.slices()
    }

    /// Piece `j` (below [`TAIL_PIECES`]) of block `b`'s run in the order the block runs them
    /// (its later tile first), or None where the run has fewer.
    #[inline(always)]
    pub const fn piece(&self, b: u32, j: u32) -> Option<TailPiece> {
        let (lo, hi) = (self.run_start(b), self.run_start(b + 1));
        let k = self.k_steps;
        if lo >= hi || j > (hi - 1) / k - lo / k {
            return None;
        }
        let t = (hi - 1) / k - j;
        let tile_end = (t + 1) * k;
        let start = if lo > t * k { lo } else { t * k };
        let end = if hi < tile_end { hi } else { tile_end };
        let first_block = self.block_of(t * k);
        Some(TailPiece {
            tile: self.from + t,
            first: start - t * k,
            steps: end - start,
            index: b - first_block,
            pieces: self.block_of(tile_end - 1) - first_block + 1,
        })
    }

    /// The scratch slot that piece `index` of tail tile `tile` (a walk index) is written to:
    /// its block's, [`TAIL_PIECES`] slots per block, the piece's place in the block's run.
    #[inline(always)]
    pub const fn slot(&self, tile: u32, index: u32) -> u32 {
        let t = tile - self.from;
        let b = self.block_of(t * self.k_steps) + index;
        b * TAIL_PIECES + (t - self.run_start(b) / self.k_steps)
    }

    /// Scratch slots of the tail's pieces: [`TAIL_PIECES`] per block.
    pub const fn slots(&self) -> u32 {
        self.blocks * TAIL_PIECES
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// Every (tiles, k_steps, blocks) the tests walk: H200-sized grids and awkward ones.
    fn cases() -> Vec<(u32, u32, u32)> {
        let mut v = vec![
            (512, 64, 132),
            (2048, 128, 132),
            (1792, 64, 132),
            (16384, 256, 132),
            (133, 1, 132),
            (131, 64, 132),
        ];
        for tiles in [1u32, 2, 5, 7, 13] {
            for k_steps in [1u32, 2, 3, 16, 17] {
                for blocks in [1u32, 3, 4, 8] {
                    v.push((tiles, k_steps, blocks));
                }
            }
        }
        v
    }

    #[test]
    fn the_pieces_cover_every_tail_slice_once_in_order() {
        for (tiles, k_steps, blocks) in cases() {
            let t = StreamTail::of(tiles, k_steps, blocks);
            if t.shortest_run() == 0 {
                continue;
            }
            assert_eq!(t.from % blocks, 0);
            assert!(t.tiles < blocks);
            assert!(t.longest_run() <= k_steps, "{tiles} {k_steps} {blocks}");
            // seen[tile][slice]: which block took it.
            let mut seen = vec![vec![None; k_steps as usize]; t.tiles as usize];
            let mut slots = vec![0u32; t.slots() as usize];
            for b in 0..blocks {
                for j in 0..TAIL_PIECES {
                    if t.piece(b, j).is_none() {
                        assert!(t.piece(b, j + 1).is_none(), "pieces are a prefix");
                    }
                }
                let mut run: Vec<TailPiece> =
                    (0..TAIL_PIECES).filter_map(|j| t.piece(b, j)).collect();
                // Run in reverse tile order; in K order, a run is its pieces end to end.
                assert!(run.windows(2).all(|w| w[0].tile > w[1].tile));
                run.reverse();
                let mut next = t.run_start(b);
                for p in run {
                    let rel = p.tile - t.from;
                    assert_eq!(rel * k_steps + p.first, next, "runs are contiguous");
                    assert!(p.steps >= 1 && p.first + p.steps <= k_steps);
                    assert!(p.index < p.pieces);
                    for s in p.first..p.first + p.steps {
                        assert!(seen[rel as usize][s as usize].replace(b).is_none());
                    }
                    let slot = t.slot(p.tile, p.index);
                    assert_eq!(slot / TAIL_PIECES, b, "a piece's slot is its block's");
                    slots[slot as usize] += 1;
                    next += p.steps;
                }
                assert_eq!(next, t.run_start(b + 1), "a run is its pieces");
            }
            assert!(slots.iter().all(|&n| n <= 1), "no slot written twice");
            for (rel, tile) in seen.iter().enumerate() {
                assert!(
                    tile.iter().all(Option::is_some),
                    "{tiles} {k_steps} {blocks}"
                );
                // The tile's pieces: its blocks in order, as many as piece() says.
                let mut blocks_of: Vec<u32> = tile.iter().map(|b| b.unwrap()).collect();
                blocks_of.dedup();
                let b0 = blocks_of[0];
                let p = (0..TAIL_PIECES)
                    .filter_map(|j| t.piece(b0, j))
                    .find(|p| p.tile - t.from == rel as u32)
                    .unwrap();
                assert_eq!(p.pieces as usize, blocks_of.len());
                for (i, b) in blocks_of.iter().enumerate() {
                    assert_eq!(*b, t.block_of(rel as u32 * k_steps) + i as u32);
                }
            }
        }
    }

    #[test]
    fn every_block_is_on_one_of_two_k_fronts_at_every_step() {
        // At step s of its run a block reads K slice s of its first piece's tile, or, in its
        // second piece, slice s + K - run; a run inside one tile lies between the two.
        for (tiles, k_steps, blocks) in cases() {
            let t = StreamTail::of(tiles, k_steps, blocks);
            if t.shortest_run() == 0 {
                continue;
            }
            let spread = k_steps - t.shortest_run();
            for b in 0..blocks {
                let mut step = 0;
                for j in 0..TAIL_PIECES {
                    let Some(p) = t.piece(b, j) else { break };
                    for s in 0..p.steps {
                        let (offset, at) = (p.first + s, step + s);
                        assert!(
                            at <= offset && offset <= at + spread,
                            "{tiles} {k_steps} {blocks}: block {b} step {at} at slice {offset}"
                        );
                    }
                    step += p.steps;
                }
            }
        }
    }

    #[test]
    fn only_tails_whose_slices_times_blocks_fit_32_bits_are_streamed() {
        assert!(StreamTail::fits(2048, 128, 132));
        // 131 tail tiles of 2^18 slices (K = 2^24) on 132 blocks pass 2^32; whole waves fit.
        assert!(!StreamTail::fits(131, 1 << 18, 132));
        assert!(StreamTail::fits(132, 1 << 18, 132));
        // 2^32 - 1 exactly: 3 x 5 x 17 x 257 x 65537 (3 tail tiles on 5 blocks).
        assert!(StreamTail::fits(3, 17 * 257 * 65537, 5));
        assert!(!StreamTail::fits(3, 17 * 257 * 65537 + 1, 5));
    }

    #[test]
    fn runs_are_as_equal_as_whole_slices_allow() {
        // 4096^3 in 128 x 256 tiles on 132 SMs: 512 tiles, 3 whole waves, 116 tail tiles of 64
        // slices shared out in runs of 56 or 57.
        let t = StreamTail::of(512, 64, 132);
        assert_eq!((t.from, t.tiles), (396, 116));
        let runs: Vec<u32> = (0..132)
            .map(|b| t.run_start(b + 1) - t.run_start(b))
            .collect();
        assert!(runs.iter().all(|&r| r == 56 || r == 57), "{runs:?}");
        assert_eq!(t.longest_run(), 57);
        // 8192^3: 68 tail tiles of 128 slices in runs of 65 or 66, two or three pieces a tile.
        let t = StreamTail::of(2048, 128, 132);
        assert_eq!((t.from, t.tiles, t.longest_run()), (1980, 68, 66));
        assert_eq!(
            t.piece(0, 0),
            Some(TailPiece {
                tile: 1980,
                first: 0,
                steps: 65,
                index: 0,
                pieces: 2
            })
        );
        assert_eq!(t.piece(0, 1), None, "block 0's run ends inside tile 0");
        // Block 1: the start of tile 1981 first, then the end of tile 1980.
        assert_eq!(
            t.piece(1, 1),
            Some(TailPiece {
                tile: 1980,
                first: 65,
                steps: 63,
                index: 1,
                pieces: 2
            })
        );
        assert_eq!(
            t.piece(1, 0),
            Some(TailPiece {
                tile: 1981,
                first: 0,
                steps: 3,
                index: 0,
                pieces: 3
            })
        );
        assert_eq!((t.slot(1980, 1), t.slot(1981, 0)), (2, 3));
        // Whole waves only: no tail, no pieces.
        let t = StreamTail::of(264, 64, 132);
        assert_eq!((t.from, t.tiles), (264, 0));
        assert_eq!(t.piece(0, 0), None);
    }
}
