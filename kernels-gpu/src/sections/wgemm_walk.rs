//! The persistent walk of a `gemm_wgmma` line (`sections/gemm_wgmma.rs` has the line, its ring
//! and its contract): its work units (output tiles; pairs of tiles one above the other where the
//! line runs clusters of two; and, where tiles are few, each tile's K cut into units: split-K)
//! and the grid of blocks that walks them; where the tiles fill whole waves and part of one
//! more, the rule that streams that last wave (`sections/wgemm_tail.rs`). The kernels
//! (`kernels/sm90a/tma_ring.rs`, `split_k.rs`) and the host's launch read the same rules.

use crate::sections::gemm_wgmma::{tile_of, RingMma, WgemmVariant};
use crate::sections::wgemm_tail::StreamTail;
use crate::shapes::tma_slot::WGEMM_BK;

/// The fewest 64-deep K slices a unit of a cut tile takes. A unit's hand-off (its partial
/// written, fenced, read back by the last unit) and its own ring start cost microseconds: on
/// the H200 (results/2026-12-03-h200-s16, call S16c, at 4 slices a unit at least) units of 8
/// slices lost a fifth against the whole tile (1000x776x1000), units of 16 gained two fifths
/// (128x4096x4096).
pub const MIN_UNIT_STEPS: u32 = 16;

/// K is cut only where the tiles would keep fewer than 1/SPLIT_BELOW of the SMs busy: at 64
/// tiles of 132 SMs (128x8192x8192, DRAM-bound there) two units per tile ran 0.96x the whole
/// tiles (S16c against S15b, where the bound was a half).
pub const SPLIT_BELOW: u32 = 3;

/// A line streams its last partial wave ([`StreamTail`]) only where that saves each block at
/// least this many K slices against walking a tail tile whole: a tail tile's pieces meet through
/// global memory (each but the last written, fenced, read back), which costs about what a few
/// slices' MMAs do, and, for the block that finishes a tile, comes at the end of the kernel.
/// The bound is reasoned, not measured below: the shapes timed against the tail dealt whole
/// saved 27 slices or more a block and gained 1.004-1.074x (call S19d).
pub const TAIL_GAIN_STEPS: u32 = 16;

/// The persistent grid over `units` work units: one block per SM at most, never more blocks
/// than units (at least 1).
pub const fn persistent_grid(units: u32, sms: u32) -> u32 {
    let g = if units < sms { units } else { sms };
    if g == 0 {
        1
    } else {
        g
    }
}

/// The output tile (row, column) of `rows` x `cols` that the block of rank `rank` in a cluster of
/// `cluster` computes at position `index` of the walk: [`tile_of`] where blocks walk alone; in a
/// cluster of two, pair `index` of the walk over half the tile rows (rounded up), its upper tile
/// for rank 0 and its lower for rank 1 (past C's last row where the rows are odd).
pub const fn walk_tile(
    index: u32,
    rank: u32,
    (rows, cols): (u32, u32),
    cluster: u32,
) -> (u32, u32) {
    if cluster == 1 {
        return tile_of(index, rows, cols);
    }
    let (pr, pc) = tile_of(index, rows.div_ceil(cluster), cols);
    (pr * cluster + rank, pc)
}

/// The ring position (slot, phase parity) `fills` fills after (`slot`, `phase`) in a ring of
/// `stages` slots: where a ping-pong consumer resumes after the other's tile
/// (`WgemmVariant::ping_pong`; the kernels' `Ring::advance`).
pub const fn ring_after((slot, phase): (u32, u32), fills: u32, stages: u32) -> (u32, u32) {
    let to = slot + fills;
    (to % stages, phase ^ ((to / stages) & 1))
}

/// A tile's K slices cut into work units (split-K): `splits` units of `unit_steps` 64-deep
/// slices, the last one shorter where they do not divide; one unit of every slice where K is
/// left whole. A persistent block walks units as it walks tiles (unit u is split u / tiles of
/// tile u % tiles: the blocks running at one time take neighbouring tiles), and a cut tile's
/// units deposit their partial products in the launch's scratch (`partials`); the last of them
/// to arrive sums every unit's and writes C through the usual epilogue, any beta
/// (`kernels/sm90a/split_k.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KSplit {
    pub unit_steps: u32,
    pub splits: u32,
}

impl KSplit {
    /// The cut of `k_steps` slices into units of `k_slices` slices (the kernels' `k_slices`
    /// argument); 0, or `k_steps` and more, leaves K whole.
    #[inline(always)]
    pub const fn of(k_steps: u32, k_slices: u32) -> Self {
        if k_slices == 0 || k_slices >= k_steps {
            KSplit {
                unit_steps: k_steps,
                splits: 1,
            }
        } else {
            KSplit {
                unit_steps: k_slices,
                splits: k_steps.div_ceil(k_slices),
            }
        }
    }
    /// The first slice and the slice count of unit `split` (below `splits`) of a tile with
    /// `k_steps` slices: never empty, as `of` rounds the count of units up.
    #[inline(always)]
    pub const fn range(&self, k_steps: u32, split: u32) -> (u32, u32) {
        let first = split * self.unit_steps;
        let left = k_steps - first;
        (
            first,
            if left < self.unit_steps {
                left
            } else {
                self.unit_steps
            },
        )
    }
}

impl WgemmVariant {
    /// Whether the line's kernel cuts K into work units when asked ([`KSplit`]): the wgmma
    /// lines of single blocks that are not lines of turns, whose cut tiles meet in the scratch.
    /// The mma.sync lines take a tile's K whole (a second path in their epilogue cost them
    /// registers before, see `takes_odd_n`).
    pub const fn splits_k(&self) -> bool {
        self.streams_tail() && !self.ping_pong()
    }
    /// Whether the line's kernel can stream its last partial wave ([`StreamTail`]): the wgmma
    /// lines of single blocks, ping-pong among them (a tail piece is one consumer's turn, as a
    /// tile is; a cut tile's warps deposit whatever accumulators they hold, both halves' on a
    /// 128-row tile). Split-K is not theirs: ping-pong lines are for shapes of many tiles.
    pub const fn streams_tail(&self) -> bool {
        matches!(self.mma, RingMma::Wgmma) && self.cluster == 1
    }
    /// Work units of the walk before K is cut: tiles, or, where blocks work in clusters of two,
    /// pairs of tiles one above the other (the lower one past C's last row where the rows are
    /// odd: its loads are TMA's zeros and it writes nothing).
    pub const fn walk_tiles(&self, m: u32, n: u32) -> u32 {
        let (rows, cols) = self.tiles(m, n);
        rows.div_ceil(self.cluster) * cols
    }
    /// How the line's walk cuts K at M x N x K on `sms` SMs (split-K): where its tiles would
    /// keep fewer than a third of the SMs busy ([`SPLIT_BELOW`]), into as many units per tile as
    /// give every SM one at most, each at least [`MIN_UNIT_STEPS`] slices deep; else, and on a
    /// line that takes K whole, not at all. The host passes `unit_steps` as the kernel's
    /// `k_slices`.
    pub const fn k_split(&self, m: u32, n: u32, k: u32, sms: u32) -> KSplit {
        let k_steps = k.div_ceil(WGEMM_BK);
        let (rows, cols) = self.tiles(m, n);
        let tiles = rows * cols;
        let whole = KSplit::of(k_steps, 0);
        if !self.splits_k() || tiles == 0 || tiles * SPLIT_BELOW >= sms {
            return whole;
        }
        let (by_sms, by_depth) = (sms / tiles, k_steps / MIN_UNIT_STEPS);
        let splits = if by_sms < by_depth { by_sms } else { by_depth };
        if splits < 2 {
            return whole;
        }
        KSplit::of(k_steps, k_steps.div_ceil(splits))
    }
    /// Whether the line's walk streams its last partial wave at M x N x K on `sms` SMs
    /// ([`StreamTail`]): where it can ([`WgemmVariant::tail_at`]), and the tail's runs save
    /// each block at least [`TAIL_GAIN_STEPS`] slices, each run at least [`MIN_UNIT_STEPS`]
    /// deep (as a cut tile's units).
    pub const fn stream_tail(&self, m: u32, n: u32, k: u32, sms: u32) -> Option<StreamTail> {
        match self.tail_at(m, n, k, sms) {
            Some(tail)
                if tail.shortest_run() >= MIN_UNIT_STEPS
                    && tail.longest_run() + TAIL_GAIN_STEPS <= tail.k_steps =>
            {
                Some(tail)
            }
            _ => None,
        }
    }
    /// The last partial wave the line's walk could stream at M x N x K on `sms` SMs, whatever
    /// it would save: on a line that streams tails, where K is not cut already (split-K), the
    /// tiles fill at least one whole wave (fewer tiles are split-K's ground, or DRAM's: S16c)
    /// and part of one more, every block's run has a slice, and the arithmetic fits 32 bits
    /// ([`StreamTail::fits`]). [`WgemmVariant::stream_tail`] is the rule; this is also the
    /// control that times a tail the rule declines.
    pub const fn tail_at(&self, m: u32, n: u32, k: u32, sms: u32) -> Option<StreamTail> {
        let (rows, cols) = self.tiles(m, n);
        let tiles = rows * cols;
        let k_steps = k.div_ceil(WGEMM_BK);
        if !self.streams_tail()
            || sms == 0
            || tiles < sms
            || self.k_split(m, n, k, sms).splits > 1
            || !StreamTail::fits(tiles, k_steps, sms)
        {
            return None;
        }
        let tail = StreamTail::of(tiles, k_steps, sms);
        if tail.tiles == 0 || tail.shortest_run() == 0 {
            return None;
        }
        Some(tail)
    }
    /// The scratch of a streamed tail (`kernels/sm90a/split_k.rs`): floats of its pieces'
    /// partials (a block's slots), and words of the arrivals (each tail tile's warps).
    pub const fn tail_scratch(&self, tail: StreamTail) -> (u64, u64) {
        (
            tail.slots() as u64 * self.bm as u64 * self.bn as u64,
            tail.tiles as u64 * self.tile_warps() as u64,
        )
    }
    /// The persistent grid of an M x N x K product on `sms` SMs: one block per SM at most,
    /// never more blocks than the walk's units (tiles, times K's units where it is cut).
    pub const fn walk_grid(&self, m: u32, n: u32, k: u32, sms: u32) -> u32 {
        let units = self.walk_tiles(m, n) * self.k_split(m, n, k, sms).splits;
        // A cluster's blocks walk one unit together.
        persistent_grid(units, sms / self.cluster) * self.cluster
    }
    /// The split-K scratch of an M x N product cut by `split` (`kernels/sm90a/split_k.rs`):
    /// floats of the units' partials, and words of the arrivals (each tile's warps).
    /// None where K is whole.
    pub const fn split_scratch(&self, m: u32, n: u32, split: KSplit) -> (u64, u64) {
        if split.splits < 2 {
            return (0, 0);
        }
        let (rows, cols) = self.tiles(m, n);
        let tiles = rows as u64 * cols as u64;
        (
            tiles * split.splits as u64 * self.bm as u64 * self.bn as u64,
            tiles * self.tile_warps() as u64,
        )
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::sections::gemm_wgmma::tests::line;

    #[test]
    fn ring_after_is_that_many_single_steps() {
        for stages in 2..9u32 {
            for start in 0..stages {
                for phase in 0..2u32 {
                    let mut at = (start, phase);
                    for fills in 0..40u32 {
                        assert_eq!(
                            ring_after((start, phase), fills, stages),
                            at,
                            "{stages} {fills}"
                        );
                        at = if at.0 + 1 == stages {
                            (0, at.1 ^ 1)
                        } else {
                            (at.0 + 1, at.1)
                        };
                    }
                }
            }
        }
    }

    #[test]
    fn ping_pong_lines_take_one_warpgroup_a_tile_and_keep_k_whole() {
        use crate::sections::gemm_wgmma::tests::turns_line;
        use crate::sections::gemm_wgmma::{wgemm_line_fits, WgemmMisfit};
        let pp = turns_line(64, 256, 5);
        assert!(pp.ping_pong());
        assert_eq!((pp.row_blocks(), pp.accumulators()), (1, 128));
        assert_eq!(wgemm_line_fits(&pp), Ok(()));
        assert_eq!(pp.slot_readers(), 4, "one warpgroup reads each fill");
        assert!(
            !pp.splits_k() && pp.k_split(16, 4096, 4096, 132).splits == 1,
            "no split-K: ping-pong lines are for shapes of many tiles"
        );
        // But a streamed tail: each piece is one consumer's turn, met by one warpgroup's warps.
        assert!(pp.streams_tail());
        assert_eq!(pp.tile_warps(), 4);
        // 4096^3 in 64 x 256 tiles: 1024 tiles, 7 whole waves, 100 in the tail, runs of 48
        // or 49 of 64 slices: the rule's bound declines what the walk could stream.
        let t = pp.tail_at(4096, 4096, 4096, 132).expect("a partial wave");
        assert_eq!(
            (t.from, t.tiles, t.shortest_run(), t.longest_run()),
            (924, 100, 48, 49)
        );
        assert_eq!(pp.tail_scratch(t), (264 * 64 * 256, 100 * 4));
        let shared = line(128, 256, 4, 2, 1);
        assert!(!shared.ping_pong());
        assert_eq!(shared.slot_readers(), 8);
        // Only two consumers take turns, not three; in clusters of two they do (both blocks'
        // consumers take the pair's tiles in the same turns), where B's boxes halve, and such a
        // line neither cuts K nor streams; two consumers sharing 64-row tiles is no line.
        let three = WgemmVariant { consumers: 3, ..pp };
        assert_eq!(wgemm_line_fits(&three), Err(WgemmMisfit::Turns));
        let pair = WgemmVariant { cluster: 2, ..pp };
        assert_eq!(wgemm_line_fits(&pair), Ok(()));
        assert!(pair.ping_pong() && !pair.splits_k() && !pair.streams_tail());
        assert_eq!(
            pair.slot_readers(),
            4,
            "one warpgroup of each block reads a fill"
        );
        let narrow = WgemmVariant {
            cluster: 2,
            ..turns_line(128, 64, 8)
        };
        assert_eq!(wgemm_line_fits(&narrow), Err(WgemmMisfit::Cluster));
        assert_eq!(
            wgemm_line_fits(&line(64, 256, 4, 2, 1)),
            Err(WgemmMisfit::Height)
        );
        assert!(crate::variants::WGEMM.iter().any(|v| v.ping_pong()));
    }

    #[test]
    fn turns_on_128_row_tiles_run_two_mmas_a_step_and_keep_k_and_the_tail_whole() {
        use crate::sections::gemm_wgmma::tests::turns_line;
        use crate::sections::gemm_wgmma::{wgemm_line_fits, WgemmMisfit};
        let v = turns_line(128, 128, 7);
        assert_eq!(wgemm_line_fits(&v), Ok(()));
        assert_eq!((v.consumer_rows(), v.row_blocks()), (128, 2));
        assert_eq!(v.accumulators(), 128, "two m64n128 halves of 64 floats");
        assert_eq!((v.tile_warps(), v.slot_readers()), (4, 4));
        assert!(
            !v.stages_c(),
            "ping-pong writes C under the other consumer's MMAs"
        );
        // No split-K, as every line of turns; a streamed tail as W6's, a piece being one turn,
        // and each warp's partial both halves' accumulators: a tile's 4 warps x 128 registers x
        // 32 lanes fill one BM x BN slot of the scratch.
        assert!(!v.splits_k() && v.streams_tail());
        assert_eq!(4 * 128 * 32, v.bm * v.bn);
        // 4096^3: 1024 tiles, 7 whole waves, 100 in the tail, runs of 48 or 49 of 64 slices,
        // which the rule declines (as W6's); 8192^3: 4 tail tiles, runs under a slice deep.
        let t = v.tail_at(4096, 4096, 4096, 132).expect("a partial wave");
        assert_eq!((t.from, t.tiles, t.longest_run()), (924, 100, 49));
        assert!(v.stream_tail(4096, 4096, 4096, 132).is_none());
        assert!(v.stream_tail(8192, 8192, 8192, 132).is_none());
        // 4096 x 4096 x 14336 streams: 100 tail tiles of 224 slices, runs of 170.
        let t = v.stream_tail(4096, 4096, 14336, 132).expect("streamed");
        assert_eq!((t.tiles, t.longest_run()), (100, 170));
        assert_eq!(v.tail_scratch(t).0, u64::from(t.slots()) * 128 * 128);
        // In clusters of two (each block loads half of B's boxes, multicast to both): W1's bytes
        // per FLOP, the tail dealt whole as every cluster line's.
        let pair = WgemmVariant { cluster: 2, ..v };
        assert_eq!(wgemm_line_fits(&pair), Ok(()));
        assert!(pair.stream_tail(4096, 4096, 14336, 132).is_none());
        assert_eq!(
            pair.walk_tiles(4096, 4096),
            512,
            "16 pairs of tile rows x 32 columns"
        );
        // 128 x 256 halves would need 256 accumulators a thread; 192 rows are no turns line.
        assert_eq!(
            wgemm_line_fits(&turns_line(128, 256, 4)),
            Err(WgemmMisfit::Registers)
        );
        assert_eq!(
            wgemm_line_fits(&turns_line(192, 64, 4)),
            Err(WgemmMisfit::Height)
        );
        // The same numbers shared by the two consumers are a line of its own (W2's kind).
        let shared = line(128, 128, 7, 2, 1);
        assert!(!shared.ping_pong());
        assert_eq!((shared.row_blocks(), shared.accumulators()), (1, 64));
    }

    #[test]
    fn a_pair_walk_covers_every_tile_once_and_only_rank_one_falls_past_c() {
        for (rows, cols) in [
            (1u32, 1u32),
            (2, 3),
            (3, 5),
            (32, 16),
            (13, 7),
            (17, 1),
            (40, 9),
        ] {
            let pairs = rows.div_ceil(2) * cols;
            let mut seen = std::vec![0u32; (rows * cols) as usize];
            for index in 0..pairs {
                for rank in 0..2 {
                    let (r, c) = walk_tile(index, rank, (rows, cols), 2);
                    assert!(c < cols, "{rows}x{cols}: pair {index} rank {rank}");
                    if r < rows {
                        seen[(r * cols + c) as usize] += 1;
                    } else {
                        // Only the lower tile of the last pair row, and only where rows are odd.
                        assert!(
                            rank == 1 && rows % 2 == 1 && r == rows,
                            "{rows}x{cols}: {r}"
                        );
                    }
                }
            }
            assert!(seen.iter().all(|&x| x == 1), "{rows}x{cols}: {seen:?}");
            // Alone, the walk is tile_of's.
            for index in 0..rows * cols {
                assert_eq!(
                    walk_tile(index, 0, (rows, cols), 1),
                    tile_of(index, rows, cols)
                );
            }
        }
        // The two blocks of a pair share its tile column (B's slice they multicast).
        assert_eq!(walk_tile(5, 0, (4, 8), 2).1, walk_tile(5, 1, (4, 8), 2).1);
    }

    #[test]
    fn a_k_split_covers_every_slice_once_with_no_empty_unit() {
        for k_steps in 1..70u32 {
            for k_slices in 0..72u32 {
                let s = KSplit::of(k_steps, k_slices);
                if k_slices == 0 || k_slices >= k_steps {
                    assert_eq!(
                        s,
                        KSplit {
                            unit_steps: k_steps,
                            splits: 1
                        }
                    );
                }
                let mut next = 0;
                for split in 0..s.splits {
                    let (first, count) = s.range(k_steps, split);
                    assert_eq!(first, next, "{k_steps} slices by {k_slices}: unit {split}");
                    assert!(count >= 1 && count <= s.unit_steps);
                    next += count;
                }
                assert_eq!(next, k_steps, "{k_steps} slices by {k_slices}");
            }
        }
        // 4096 deep in units of 16 slices: 4 units of 1024.
        assert_eq!(
            KSplit::of(64, 16),
            KSplit {
                unit_steps: 16,
                splits: 4
            }
        );
        assert_eq!(KSplit::of(64, 16).range(64, 3), (48, 16));
        // 1023 deep (16 slices) in units of 5: 5, 5, 5, 1.
        assert_eq!(KSplit::of(16, 5).splits, 4);
        assert_eq!(KSplit::of(16, 5).range(16, 3), (15, 1));
    }

    #[test]
    fn k_is_cut_only_where_tiles_leave_half_the_sms_idle() {
        let w2 = line(128, 128, 6, 2, 1);
        let whole = |k: u32| KSplit::of(k.div_ceil(64), 0);
        // 4096^3: 1024 tiles, K whole; 2048x8192x1024: 1024 tiles.
        assert_eq!(w2.k_split(4096, 4096, 4096, 132), whole(4096));
        // 16x4096x4096: 32 tiles on 132 SMs: 4 units of 16 slices, 128 units.
        assert_eq!(w2.k_split(16, 4096, 4096, 132), KSplit::of(64, 16));
        assert_eq!(w2.walk_grid(16, 4096, 4096, 132), 128);
        // 128x8192x8192: 64 tiles keep a third busy: K whole.
        assert_eq!(w2.k_split(128, 8192, 8192, 132), whole(8192));
        // 43 tiles of 132 SMs: under a third busy: 3 units; 44 tiles: a third, K whole.
        assert_eq!(w2.k_split(128, 43 * 128, 4096, 132).splits, 3);
        assert_eq!(w2.k_split(128, 44 * 128, 4096, 132).splits, 1);
        // Too shallow to cut: K = 1984 is 31 slices, 1 unit of at least 16.
        assert_eq!(w2.k_split(128, 128, 1984, 132).splits, 1);
        // 1000x776x1000 (16 slices) stays whole; 64x4096x2048 (32 slices) cuts in 2.
        assert_eq!(w2.k_split(1000, 776, 1000, 132).splits, 1);
        assert_eq!(w2.k_split(64, 4096, 2048, 132), KSplit::of(32, 16));
        // Never more units than SMs, never a unit under MIN_UNIT_STEPS slices (but the last).
        for (m, n, k) in [
            (1, 4096, 4096),
            (64, 1000, 12345),
            (1000, 776, 1000),
            (7, 9000, 13),
        ] {
            let s = w2.k_split(m, n, k, 132);
            let (rows, cols) = w2.tiles(m, n);
            assert!(
                rows * cols * s.splits <= 132 || s.splits == 1,
                "{m}x{n}x{k}"
            );
            assert!(
                s.splits == 1 || s.unit_steps >= MIN_UNIT_STEPS,
                "{m}x{n}x{k}"
            );
        }
        let mut sync = w2;
        sync.mma = RingMma::Sync;
        assert_eq!(
            sync.k_split(16, 4096, 4096, 132).splits,
            1,
            "mma.sync takes K whole"
        );
        // Scratch: 32 tiles x 4 units x 128 x 128 floats; 32 tiles x 8 consumer warps.
        let cut = w2.k_split(16, 4096, 4096, 132);
        assert_eq!(
            w2.split_scratch(16, 4096, cut),
            (32 * 4 * 128 * 128, 32 * 8)
        );
        assert_eq!(w2.split_scratch(4096, 4096, whole(4096)), (0, 0));
    }

    /// What the ping-pong consumers take for granted where a tail is streamed
    /// (`consume_in_turn`): every block's first tail place holds a piece (so the whole waves'
    /// last turn hands over to it), and a block's places hold pieces first, empty places after
    /// (so an empty place ends the block's turns). Over the tails `tail_at` gives, for every
    /// block; a tail whose runs leave a block without a slice must not be one of them.
    #[test]
    fn every_block_of_a_streamed_tail_has_a_first_piece_and_no_gap() {
        use crate::sections::wgemm_tail::TAIL_PIECES;
        let mut seen = 0;
        for v in [line(64, 256, 5, 2, 1), line(128, 256, 4, 2, 1)] {
            for (m, n, k) in [
                (4096, 4096, 4096),
                (8192, 8192, 8192),
                (16384, 4096, 4096),
                (1100, 3000, 4100),
                (2000, 3001, 4101),
                (8448, 256, 64),
                (8449, 257, 1),
                (4160, 512, 200),
            ] {
                for sms in [1, 7, 132] {
                    let Some(t) = v.tail_at(m, n, k, sms) else {
                        continue;
                    };
                    seen += 1;
                    for b in 0..t.blocks {
                        assert!(t.piece(b, 0).is_some(), "{m}x{n}x{k} on {sms}: block {b}");
                        for j in 1..TAIL_PIECES {
                            if t.piece(b, j).is_some() {
                                assert!(t.piece(b, j - 1).is_some());
                            }
                        }
                    }
                }
            }
        }
        assert!(seen >= 10, "{seen} tails walked");
    }

    #[test]
    fn the_tail_is_streamed_only_where_it_saves_its_blocks_slices() {
        let w1 = line(128, 256, 4, 2, 1);
        // 8192^3: 2048 tiles, 68 in the last wave, runs of at most 66 slices of 128.
        let t = w1
            .stream_tail(8192, 8192, 8192, 132)
            .expect("8192^3 streams its tail");
        assert_eq!((t.from, t.tiles, t.k_steps, t.blocks), (1980, 68, 128, 132));
        assert_eq!(w1.walk_grid(8192, 8192, 8192, 132), 132);
        // 4096x14336x4096: 1792 tiles, 76 in the tail, runs of 37 of 64 slices.
        assert!(w1.stream_tail(4096, 14336, 4096, 132).is_some());
        // 4096^3: 116 tail tiles, runs of 57 of 64 slices save 7: whole tiles.
        assert_eq!(w1.stream_tail(4096, 4096, 4096, 132), None);
        // Whole waves (264 tiles), under one wave (64 tiles), K cut by split-K (32 tiles).
        assert_eq!(w1.stream_tail(4224, 2048, 8192, 132), None);
        assert_eq!(w1.stream_tail(1024, 2048, 8192, 132), None);
        assert_eq!(w1.stream_tail(16, 8192, 4096, 132), None);
        // One tail tile (7 x 19 tiles): streamed where its K gives every block a run of 16
        // slices (K = 2112 x 64), not where runs would be 15 deep.
        assert_eq!(
            w1.stream_tail(896, 4864, 2112 * 64, 132).map(|t| t.tiles),
            Some(1)
        );
        assert_eq!(w1.stream_tail(896, 4864, 2111 * 64, 132), None);
        // Neither the mma.sync lines nor clusters of two.
        let mut sync = w1;
        sync.mma = RingMma::Sync;
        assert_eq!(sync.stream_tail(8192, 8192, 8192, 132), None);
        assert_eq!(
            line(128, 256, 4, 2, 2).stream_tail(8192, 8192, 8192, 132),
            None
        );
        // The scratch: two slots a block of 128 x 256 floats; a word per tail tile and warp.
        assert_eq!(w1.tail_scratch(t), (264 * 128 * 256, 68 * 8));
    }

    #[test]
    fn only_the_wgmma_lines_cut_k() {
        assert!(line(128, 256, 4, 2, 1).splits_k());
        let mut sync = line(128, 256, 4, 2, 1);
        sync.mma = RingMma::Sync;
        assert!(!sync.splits_k());
        assert_eq!(persistent_grid(0, 132), 1);
        assert_eq!(persistent_grid(128, 132), 128);
        assert_eq!(persistent_grid(512, 132), 132);
    }

    #[test]
    fn grids_are_persistent_and_never_empty() {
        let v = line(128, 256, 4, 2, 1);
        assert_eq!(v.tiles(4096, 4096), (32, 16));
        // K whole at each of these (too many tiles, or too shallow to cut): a block per tile.
        assert_eq!(v.walk_grid(4096, 4096, 4096, 132), 132);
        assert_eq!(v.walk_grid(1000, 1000, 1000, 132), 8 * 4);
        assert_eq!(v.walk_grid(1, 8, 8, 132), 1);
        assert_eq!(v.walk_grid(0, 0, 0, 132), 1);
        // In clusters of two: pairs of tiles one above the other, a pair per cluster, a whole
        // number of clusters, never a cut K.
        let pair = line(128, 256, 4, 2, 2);
        assert_eq!(pair.walk_tiles(4096, 4096), 16 * 16);
        assert_eq!(pair.walk_grid(4096, 4096, 4096, 132), 132);
        // Three tile rows: two pairs per column, the second's lower tile past C.
        assert_eq!(pair.walk_tiles(333, 512), 2 * 2);
        assert_eq!(pair.walk_grid(333, 512, 64, 132), 2 * 4);
        assert_eq!(pair.walk_grid(1, 8, 8, 132), 2);
        assert_eq!(pair.walk_grid(16, 4096, 4096, 132), 2 * 16);
        assert!(!pair.splits_k() && pair.k_split(16, 4096, 4096, 132).splits == 1);
    }
}
