//! The warp-specialized wgmma GEMM's lines (section `gemm_wgmma` of the variant table, sm_90a
//! only): what a line describes, the shared-memory layout of a block (the kernel and the host's
//! launch read the same formulas), the 128-byte-swizzle descriptors, and the compile-time checks
//! of a line.
//!
//! C = alpha*A*B + beta*C with A (M x K) and B (K x N) row-major bf16 and C row-major f32, as
//! the `gemm_bf16` lines. A block is one producer warpgroup and `consumers` consumer
//! warpgroups. The producer's one elected thread loads BM x 64 slices of A and 64 x BN slices of
//! B by TMA into a ring of `stages` slots; each slot has a "full" mbarrier (the TMA's bytes
//! arrive on it) and an "empty" one (each consumer warp arrives once it has read the slot).
//! Consumer warpgroup w owns rows 64w..64w+64 of the block tile and runs `wgmma` m64nBNk16
//! from the slot into BN/2 f32 accumulators per thread; on a line of turns (`wgmma_turns`) the
//! two consumers take whole tiles in turn instead, each running one m64nBNk16 per 64 rows.
//! Blocks are persistent: block b takes output tiles b, b + grid, b + 2 grid, ... in the order
//! of [`tile_of`]. An `mma_sync` line
//! ([`RingMma::Sync`]) has the same ring, walk and contract, no producer warpgroup, and consumer
//! warps that run `ldmatrix` and `mma.sync` (`gemm_tma_mma.rs`).
//!
//! Why the tensor maps live in global memory: a `CUtensorMap` is a 128-byte, 64-byte-aligned
//! opaque struct; CUDA C++ passes it as a `__grid_constant__` kernel parameter, which rustc's
//! nvptx kernel ABI cannot declare (it has no way to give a `.param` that alignment and keep it
//! out of local memory). The TMA instructions also take a tensor map's generic address in
//! global memory, so the host encodes both maps (`cuTensorMapEncodeTiled`), copies them into one
//! device buffer before the launch, and passes their addresses. Nothing writes them during the
//! kernel, so no `fence.proxy.tensormap` is needed.

use crate::sections::limits::{MAX_THREAD_REGS, REGISTER_FILE};
use crate::shapes::tma_slot::{
    SWIZZLE_ATOM, SWIZZLE_BYTES, WARPGROUP_WARPS, WGEMM_BK, WGEMM_M, WGEMM_WARPGROUP,
};

/// Registers the producer warpgroup keeps after `setmaxnreg.dec` (it holds only addresses and
/// counters).
pub const PRODUCER_REGS: u32 = 40;
/// Tile rows consecutive tiles of [`tile_of`] walk down before moving one tile column right.
pub const TILE_GROUP_ROWS: u32 = 16;

/// What a line's consumers run on a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingMma {
    /// `wgmma` m64nBNk16 from shared memory (descriptors), a producer warpgroup that hands its
    /// registers to the consumers by `setmaxnreg` (`gemm_wgmma.rs`).
    Wgmma,
    /// `ldmatrix` and `mma.sync` m16n8k16 (the `gemm_bf16` family's MMA): each consumer warp owns
    /// 64 rows x BN/4 columns of its warpgroup's share; thread 0 fills the ring first and each
    /// slot's last reader refills it, and every thread keeps the registers it launched with
    /// (`gemm_tma_mma.rs`, `tma_mma_shape.rs`).
    Sync,
}

/// One `gemm_wgmma` line. Every entry takes the section's ABI (`variants.rs`: the two maps, C, M,
/// N, K, alpha, beta, and split-K's and the streamed tail's four); see the module documentation
/// for the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgemmVariant {
    pub label: &'static str,
    /// Block tile rows (64 per consumer warpgroup).
    pub bm: u32,
    /// Block tile columns, the wgmma's N (64, 128 or 256).
    pub bn: u32,
    /// Slots of the shared-memory ring.
    pub stages: u32,
    /// Consumer warpgroups (1 to 3).
    pub consumers: u32,
    /// Blocks per cluster: 1, or 2 (wgmma only), where the two blocks take tiles one above the
    /// other in a tile column and each loads half of their shared slice of B, multicast to both.
    pub cluster: u32,
    /// The consumers' MMA.
    pub mma: RingMma,
    /// Whether the two consumers take whole tiles in turn (ping-pong, family word
    /// `wgmma_turns`: each runs a tile's whole K while the other writes its last tile) rather
    /// than sharing every tile, 64 rows each.
    pub turns: bool,
    /// Exported PTX entry name,
    /// `wgemm_bm{BM}_bn{BN}_bk64_s{STAGES}_c{CONSUMERS}_x{CLUSTER}` (wgmma) or
    /// `tma_mma_bm{BM}_bn{BN}_bk64_s{STAGES}_c{CONSUMERS}_x{CLUSTER}` (mma.sync).
    pub entry: &'static str,
}

/// Why a `gemm_wgmma` line cannot work (see [`wgemm_line_fits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WgemmMisfit {
    /// BN is not a wgmma N the kernel issues (64, 128, 256).
    Width,
    /// Consumers is not 1, 2 or 3.
    Consumers,
    /// BM is not 64 rows per consumer warpgroup, nor, on a line of turns, 64 or 128 rows a
    /// consumer.
    Height,
    /// Turns on a line other than a wgmma line of two consumers (in clusters of one or two).
    Turns,
    /// Fewer than 2 stages: TMA could not load ahead of the MMAs.
    Stages,
    /// The ring and its barriers pass the 227 KB a block may opt into.
    SharedMemory,
    /// Cluster size other than 1 or 2, or 2 on an mma.sync line or on a B slot that is not an
    /// even number of 64-column boxes (each block multicasts half of them).
    Cluster,
    /// The accumulators do not fit the registers a thread has at launch.
    Registers,
}

impl WgemmVariant {
    /// The line a kernel instance is built for, from its const parameters (no label or entry:
    /// the kernel needs only the shape).
    pub const fn kernel_line(
        (bm, bn): (u32, u32),
        stages: u32,
        (consumers, turns): (u32, bool),
        cluster: u32,
        mma: RingMma,
    ) -> Self {
        WgemmVariant {
            label: "",
            bm,
            bn,
            stages,
            consumers,
            cluster,
            mma,
            turns,
            entry: "",
        }
    }
    /// Threads per block: the consumers, and for wgmma a producer warpgroup, which gives its
    /// registers away (mma.sync's consumers load the ring themselves: `gemm_tma_mma.rs` says
    /// why).
    pub const fn threads(&self) -> u32 {
        match self.mma {
            RingMma::Wgmma => (self.consumers + 1) * WGEMM_WARPGROUP,
            RingMma::Sync => self.consumers * WGEMM_WARPGROUP,
        }
    }
    /// Whether the line's epilogue takes an odd N, writing C a float at a time there (pairs
    /// where N is even): the wgmma lines, whose consumers' registers `setmaxnreg` fixes, so the
    /// second path costs them nothing. The mma.sync lines write pairs only and need N even: the
    /// second path cost them registers and throughput (results/2026-12-03-h200-s15).
    pub const fn takes_odd_n(&self) -> bool {
        matches!(self.mma, RingMma::Wgmma)
    }
    /// Warps of the consumer warpgroups.
    pub const fn consumer_warps(&self) -> u32 {
        self.consumers * WARPGROUP_WARPS
    }
    /// Whether the consumers take tiles in turn (ping-pong, [`WgemmVariant::turns`]), each
    /// running its tile's whole K while the other writes its last tile, rather than sharing
    /// every tile (`gemm_wgmma.rs`, `consume_in_turn`).
    pub const fn ping_pong(&self) -> bool {
        self.turns
    }
    /// Rows of a tile one consumer computes: a warpgroup's 64 where the consumers share
    /// tiles, the whole tile's where they take tiles in turn.
    pub const fn consumer_rows(&self) -> u32 {
        if self.turns {
            self.bm
        } else {
            WGEMM_M
        }
    }
    /// The m64 MMAs a consumer runs per k16 step, one per 64 of its rows (on the same slice of
    /// B): 2 on a line of turns with 128-row tiles, else 1.
    pub const fn row_blocks(&self) -> u32 {
        self.consumer_rows() / WGEMM_M
    }
    /// Warps that compute one tile: every consumer warp where they share a tile, one
    /// warpgroup's in ping-pong. A cut tile's units meet warp by warp (`split_k.rs`).
    pub const fn tile_warps(&self) -> u32 {
        if self.ping_pong() {
            WARPGROUP_WARPS
        } else {
            self.consumer_warps()
        }
    }
    /// Warps that read each fill of a slot (each arrives once on, or counts once out of, it):
    /// the tile's ([`WgemmVariant::tile_warps`]), as a fill is one K slice of one tile.
    pub const fn slot_readers(&self) -> u32 {
        self.tile_warps()
    }
    /// f32 accumulators per consumer thread: BN/2 for each 64 of its rows (a warpgroup's
    /// 64 x BN over its 128 threads, whichever MMA).
    pub const fn accumulators(&self) -> u32 {
        self.row_blocks() * self.bn / 2
    }
    /// Registers a consumer thread needs beyond its accumulators (at least): wgmma's
    /// descriptors and addresses; mma.sync's A and B fragments of two k16 steps (4 m-tiles of 4
    /// words, BN/32 n-tiles of 2) and their addresses.
    pub const fn working_regs(&self) -> u32 {
        match self.mma {
            RingMma::Wgmma => 32,
            RingMma::Sync => 2 * (4 * 4 + 2 * (self.bn / 32)) + 16,
        }
    }
    /// A consumer warp's tile: rows x columns of C (`wgmma`: a warp's 16 rows of the
    /// warpgroup's m64; `mma.sync`: 64 rows, a quarter of the columns).
    pub const fn warp_tile(&self) -> (u32, u32) {
        match self.mma {
            RingMma::Wgmma => (WGEMM_M / WARPGROUP_WARPS, self.bn),
            RingMma::Sync => (WGEMM_M, self.bn / 4),
        }
    }
    /// Registers a consumer thread gets by `setmaxnreg.inc` ([`consumer_regs`]).
    pub const fn consumer_regs(&self) -> u32 {
        consumer_regs(self.consumers)
    }
    /// Bytes of A's BM x 64 slice in one slot.
    pub const fn a_slot_bytes(&self) -> u32 {
        self.bm * WGEMM_BK * 2
    }
    /// Bytes of B's 64 x BN slice in one slot.
    pub const fn b_slot_bytes(&self) -> u32 {
        WGEMM_BK * self.bn * 2
    }
    /// Bytes of one slot (A's slice, then B's): what the TMA of one K step brings.
    pub const fn slot_bytes(&self) -> u32 {
        self.a_slot_bytes() + self.b_slot_bytes()
    }
    /// Offset of slot `s`'s A slice from the aligned base of the ring.
    pub const fn a_slot(&self, s: u32) -> u32 {
        s * self.slot_bytes()
    }
    /// Offset of slot `s`'s B slice.
    pub const fn b_slot(&self, s: u32) -> u32 {
        s * self.slot_bytes() + self.a_slot_bytes()
    }
    /// Offset of slot `s`'s "full" mbarrier (after the ring; 8 bytes each).
    pub const fn full_barrier(&self, s: u32) -> u32 {
        self.stages * self.slot_bytes() + 8 * s
    }
    /// Offset of slot `s`'s "empty" mbarrier (for an mma.sync line, the slot's release count:
    /// `tma_ring::Release::Count`).
    pub const fn empty_barrier(&self, s: u32) -> u32 {
        self.stages * self.slot_bytes() + 8 * (self.stages + s)
    }
    /// Dynamic shared memory to launch with: the ring, its barriers, C's staging buffers where
    /// the line has them, and up to an atom of slack to align the ring to [`SWIZZLE_ATOM`] (the
    /// dynamic window's start is not promised to be).
    pub const fn dynamic_shared_bytes(&self) -> u32 {
        let end = if self.stages_c() {
            self.c_stage(self.consumer_warps(), 0)
        } else {
            self.empty_barrier(self.stages)
        };
        end + SWIZZLE_ATOM
    }
    /// Static shared memory of the kernel: none.
    pub const fn static_shared_bytes(&self) -> u32 {
        0
    }
    /// Output tiles (rows, columns) of an M x N product.
    pub const fn tiles(&self, m: u32, n: u32) -> (u32, u32) {
        (m.div_ceil(self.bm), n.div_ceil(self.bn))
    }
}

/// Registers a consumer thread of a block with `consumers` consumer warpgroups gets by
/// `setmaxnreg.inc`: what the register file leaves after the producer's [`PRODUCER_REGS`],
/// shared by the consumers, rounded down to the multiple of 8 `setmaxnreg` wants, and at most
/// [`MAX_THREAD_REGS`] less 16 (a legal request whatever ptxas gave the entry).
pub const fn consumer_regs(consumers: u32) -> u32 {
    let left = (REGISTER_FILE - PRODUCER_REGS * WGEMM_WARPGROUP) / (consumers * WGEMM_WARPGROUP);
    let capped = if left > MAX_THREAD_REGS - 16 {
        MAX_THREAD_REGS - 16
    } else {
        left
    };
    capped / 8 * 8
}

/// Registers a thread of a block of `threads` may have at launch (one block per SM): the
/// register file shared out, in the multiples of 8 the hardware allocates, at most 255.
pub const fn launch_regs(threads: u32) -> u32 {
    let share = REGISTER_FILE / threads / 8 * 8;
    if share > MAX_THREAD_REGS - 1 {
        MAX_THREAD_REGS - 1
    } else {
        share
    }
}

/// The output tile (tile row, tile column) that position `index` of the persistent walk takes,
/// of `rows` x `cols` tiles: columns of [`TILE_GROUP_ROWS`] tile rows, column after column
/// (the last group may be shorter), so the tiles in flight at one time share a few slices of A
/// and B in L2. A bijection of 0..rows*cols onto the tiles.
#[inline(always)]
pub const fn tile_of(index: u32, rows: u32, cols: u32) -> (u32, u32) {
    crate::shapes::block_order::grouped_tile(index, rows, cols, TILE_GROUP_ROWS)
}

/// Why a line cannot work, or `Ok`.
pub const fn wgemm_line_fits(v: &WgemmVariant) -> Result<(), WgemmMisfit> {
    if !(v.bn == 64 || v.bn == 128 || v.bn == 256) {
        return Err(WgemmMisfit::Width);
    }
    if v.consumers < 1 || v.consumers > 3 {
        return Err(WgemmMisfit::Consumers);
    }
    // Consumers share a tile (64 rows each), or two take tiles of 64 or 128 rows in turn; in a
    // cluster of two, both blocks' consumers take their pair's tiles in the same turns, so a
    // fill has one reader warpgroup in each block (the cluster rule below still applies).
    if v.turns && !(v.consumers == 2 && matches!(v.mma, RingMma::Wgmma)) {
        return Err(WgemmMisfit::Turns);
    }
    let height = if v.turns {
        v.bm == WGEMM_M || v.bm == 2 * WGEMM_M
    } else {
        v.bm == WGEMM_M * v.consumers
    };
    if !height {
        return Err(WgemmMisfit::Height);
    }
    if v.stages < 2 {
        return Err(WgemmMisfit::Stages);
    }
    if v.dynamic_shared_bytes() > crate::sections::limits::MAX_SHARED_OPT_IN {
        return Err(WgemmMisfit::SharedMemory);
    }
    let b_boxes = v.bn / crate::shapes::tma_slot::B_BOX_COLS;
    let pairs = v.cluster == 2 && matches!(v.mma, RingMma::Wgmma) && b_boxes.is_multiple_of(2);
    if v.cluster != 1 && !pairs {
        return Err(WgemmMisfit::Cluster);
    }
    // ptxas compiles the whole entry, consumers included, within the registers a thread has at
    // launch (it does not lift the bound past `setmaxnreg.inc`): the accumulators, descriptors,
    // addresses and the epilogue's indices must fit there.
    if launch_regs(v.threads()) < v.accumulators() + v.working_regs() {
        return Err(WgemmMisfit::Registers);
    }
    Ok(())
}

/// No two lines share a label or an entry.
pub const fn wgemm_lines_unique(lines: &[WgemmVariant]) -> bool {
    use crate::sections::text_rules::str_eq;
    no_two_alike!(lines, |a, b| str_eq(a.label, b.label)
        || str_eq(a.entry, b.entry))
}

/// The descriptor's layout type for the 128-byte swizzle (bits 62-63).
const SWIZZLE_128B_LAYOUT: u64 = 1 << 62;

/// A's descriptor: a K-major 128-byte-swizzled tile at shared address `addr` (rows 128 bytes
/// apart, 8-row groups [`SWIZZLE_ATOM`] apart: the stride byte offset; the leading byte offset
/// is unused for a K-major swizzled operand and set to 1 as CUTLASS does). A wgmma's k16 step
/// inside the 64-deep row is a 32-byte move of `addr`: the hardware swizzles the address bits.
pub const fn a_descriptor(addr: u32) -> u64 {
    crate::sections::wgmma::wgmma_descriptor(addr, 16, SWIZZLE_ATOM) | SWIZZLE_128B_LAYOUT
}

/// `desc` moved `bytes` further along shared memory: the address field (bits 0-13, 16-byte units)
/// plus `bytes / 16`, added to the low word alone. Equal to the descriptor built at the moved
/// address while that address stays under 256 KB, the field's reach, as every shared address of
/// a block does (227 KB at most): no carry leaves the field, and the other fields stay as they
/// were. It saves the K loop the shift and mask of each k16 step's descriptor (one add instead).
pub const fn descriptor_advanced(desc: u64, bytes: u32) -> u64 {
    let low = (desc as u32).wrapping_add(bytes >> 4);
    (desc & !0xffff_ffff) | low as u64
}

/// B's descriptor: an MN-major 128-byte-swizzled slice at `addr` (B is row-major K x N, so N is
/// the contiguous dimension; the wgmma takes it transposed). Rows along K are 128 bytes apart
/// and 8-row groups along K [`SWIZZLE_ATOM`] apart (the stride byte offset); 64-column boxes
/// along N lie one box, 64 rows of 128 bytes, apart (the leading byte offset). A k16 step is a
/// move of 16 rows, two atoms.
pub const fn b_descriptor(addr: u32) -> u64 {
    crate::sections::wgmma::wgmma_descriptor(addr, WGEMM_BK * SWIZZLE_BYTES, SWIZZLE_ATOM)
        | SWIZZLE_128B_LAYOUT
}

/// A line's MMA from its family word in the table (`wgmma`, `wgmma_turns` or `mma_sync`).
macro_rules! ring_mma {
    (wgmma) => {
        RingMma::Wgmma
    };
    (wgmma_turns) => {
        RingMma::Wgmma
    };
    (mma_sync) => {
        RingMma::Sync
    };
}

/// Whether a line's consumers take tiles in turn, from its family word (`wgmma_turns`).
macro_rules! ring_turns {
    (wgmma_turns) => {
        true
    };
    ($fam:ident) => {
        false
    };
}

/// A line's entry name from its family word and numbers: `wgmma` and `wgmma_turns` lines are
/// named alike (`ring_mma!` refuses any other word).
macro_rules! ring_entry {
    (mma_sync, $bm:literal, $bn:literal, $s:literal, $c:literal, $x:literal) => {
        concat!(
            "tma_mma_bm",
            $bm,
            "_bn",
            $bn,
            "_bk64_s",
            $s,
            "_c",
            $c,
            "_x",
            $x
        )
    };
    ($fam:ident, $bm:literal, $bn:literal, $s:literal, $c:literal, $x:literal) => {
        concat!("wgemm_bm", $bm, "_bn", $bn, "_bk64_s", $s, "_c", $c, "_x", $x)
    };
}

#[cfg(test)]
pub(crate) mod tests {
    extern crate std;
    use super::*;
    use std::vec;

    /// A wgmma line of these numbers (no label or entry), for the section's tests.
    pub(crate) fn line(
        bm: u32,
        bn: u32,
        stages: u32,
        consumers: u32,
        cluster: u32,
    ) -> WgemmVariant {
        WgemmVariant {
            label: "t",
            bm,
            bn,
            stages,
            consumers,
            cluster,
            mma: RingMma::Wgmma,
            turns: false,
            entry: "",
        }
    }

    /// A wgmma line of turns (`wgmma_turns`: two consumers, clusters of one) of these numbers.
    pub(crate) fn turns_line(bm: u32, bn: u32, stages: u32) -> WgemmVariant {
        WgemmVariant {
            turns: true,
            ..line(bm, bn, stages, 2, 1)
        }
    }

    pub(crate) fn sync_line(bm: u32, bn: u32, stages: u32, consumers: u32) -> WgemmVariant {
        WgemmVariant {
            mma: RingMma::Sync,
            ..line(bm, bn, stages, consumers, 1)
        }
    }

    #[test]
    fn mma_sync_lines_are_their_consumers_and_fit_their_fragments() {
        use WgemmMisfit::*;
        let v = sync_line(128, 256, 4, 2);
        assert_eq!(v.threads(), 256);
        assert_eq!(launch_regs(v.threads()), 255);
        assert_eq!(v.warp_tile(), (64, 64));
        assert_eq!(v.accumulators(), 128, "a 64 x 64 warp tile over 32 lanes");
        assert_eq!(wgemm_line_fits(&v), Ok(()));
        assert_eq!(sync_line(128, 128, 4, 2).warp_tile(), (64, 32));
        // Three warpgroups of 64 x 64 warp tiles pass the registers 384 threads have.
        assert_eq!(wgemm_line_fits(&sync_line(192, 256, 3, 3)), Err(Registers));
        assert_eq!(wgemm_line_fits(&sync_line(192, 128, 3, 3)), Ok(()));
        assert_eq!(wgemm_line_fits(&sync_line(128, 96, 4, 2)), Err(Width));
        // The same ring as a wgmma line of the same tile.
        let w = line(128, 256, 4, 2, 1);
        assert_eq!(v.dynamic_shared_bytes(), w.dynamic_shared_bytes());
        assert_eq!(w.warp_tile(), (16, 256));
    }

    #[test]
    fn checks_reject_each_misfit() {
        use WgemmMisfit::*;
        assert_eq!(wgemm_line_fits(&line(128, 256, 4, 2, 1)), Ok(()));
        assert_eq!(wgemm_line_fits(&line(64, 256, 4, 1, 1)), Ok(()));
        assert_eq!(wgemm_line_fits(&line(128, 192, 4, 2, 1)), Err(Width));
        assert_eq!(wgemm_line_fits(&line(256, 128, 4, 4, 1)), Err(Consumers));
        assert_eq!(wgemm_line_fits(&line(192, 128, 4, 3, 1)), Ok(()));
        assert_eq!(wgemm_line_fits(&line(192, 256, 4, 3, 1)), Err(Registers));
        assert_eq!(wgemm_line_fits(&line(128, 128, 4, 1, 1)), Err(Height));
        assert_eq!(wgemm_line_fits(&line(128, 128, 1, 2, 1)), Err(Stages));
        assert_eq!(wgemm_line_fits(&line(128, 256, 5, 2, 1)), Err(SharedMemory));
        // Clusters of two on wgmma lines whose B slot splits into two halves of boxes.
        assert_eq!(wgemm_line_fits(&line(128, 256, 4, 2, 2)), Ok(()));
        assert_eq!(wgemm_line_fits(&line(128, 128, 4, 2, 2)), Ok(()));
        assert_eq!(wgemm_line_fits(&line(128, 64, 4, 2, 2)), Err(Cluster));
        assert_eq!(wgemm_line_fits(&line(128, 256, 4, 2, 4)), Err(Cluster));
        let sync_pair = WgemmVariant {
            cluster: 2,
            ..sync_line(128, 256, 4, 2)
        };
        assert_eq!(wgemm_line_fits(&sync_pair), Err(Cluster));
    }

    #[test]
    fn the_ring_is_aligned_and_the_registers_fit_the_file() {
        let v = line(128, 256, 4, 2, 1);
        assert_eq!(v.slot_bytes(), 128 * 128 + 64 * 512);
        for s in 0..v.stages {
            assert_eq!(v.a_slot(s) % SWIZZLE_ATOM, 0);
            assert_eq!(v.b_slot(s) % SWIZZLE_ATOM, 0);
            assert_eq!(v.full_barrier(s) % 8, 0);
        }
        assert_eq!(v.empty_barrier(0), v.full_barrier(v.stages));
        assert_eq!(v.threads(), 384);
        assert_eq!(v.consumer_regs(), 232);
        assert!(
            v.consumer_regs() * 256 + PRODUCER_REGS * 128 <= REGISTER_FILE,
            "setmaxnreg's requests fit the register file"
        );
        assert_eq!(line(64, 256, 4, 1, 1).consumer_regs(), 240);
        let three = line(192, 128, 4, 3, 1);
        assert_eq!(three.consumer_regs(), 152);
        assert!(three.consumer_regs() * 384 + PRODUCER_REGS * 128 <= REGISTER_FILE);
    }

    #[test]
    fn the_persistent_walk_covers_every_tile_once() {
        for (rows, cols) in [
            (1, 1),
            (32, 16),
            (64, 32),
            (13, 7),
            (17, 1),
            (1, 33),
            (40, 9),
        ] {
            let mut seen = vec![0u32; (rows * cols) as usize];
            for i in 0..rows * cols {
                let (r, c) = tile_of(i, rows, cols);
                assert!(r < rows && c < cols, "{rows}x{cols}: {i} -> ({r},{c})");
                seen[(r * cols + c) as usize] += 1;
            }
            assert!(seen.iter().all(|&x| x == 1), "{rows}x{cols}");
        }
        assert_eq!(tile_of(1, 32, 16), (1, 0));
        assert_eq!(tile_of(TILE_GROUP_ROWS, 32, 16), (0, 1));
    }

    #[test]
    fn descriptors_carry_the_swizzle_and_the_strides() {
        let a = a_descriptor(0x400);
        assert_eq!(a >> 62, 1, "128-byte swizzle");
        assert_eq!(a & 0x3fff, 0x400 >> 4);
        assert_eq!((a >> 16) & 0x3fff, 1);
        assert_eq!((a >> 32) & 0x3fff, 1024 >> 4);
        let b = b_descriptor(0x2000);
        assert_eq!((b >> 16) & 0x3fff, 8192 >> 4, "one 64 x 64 box to the next");
        assert_eq!((b >> 32) & 0x3fff, 1024 >> 4);
    }

    /// Every k16 step's and half's advance, from every 1024-byte-aligned slot base a block's
    /// shared memory can hold, equals the descriptor built at the moved address.
    #[test]
    fn an_advanced_descriptor_is_the_descriptor_of_the_moved_address() {
        use crate::sections::limits::MAX_SHARED_OPT_IN;
        use crate::shapes::tma_slot::WGEMM_K;
        let mut base = 0;
        while base + 2 * WGEMM_M * SWIZZLE_BYTES <= MAX_SHARED_OPT_IN {
            for step in 0..WGEMM_BK / WGEMM_K {
                for half in [0, WGEMM_M * SWIZZLE_BYTES] {
                    let off = half + step * WGEMM_K * 2;
                    assert_eq!(
                        descriptor_advanced(a_descriptor(base), off),
                        a_descriptor(base + off),
                        "A at {base:#x} + {off:#x}"
                    );
                }
                let off = step * WGEMM_K * SWIZZLE_BYTES;
                assert_eq!(
                    descriptor_advanced(b_descriptor(base), off),
                    b_descriptor(base + off),
                    "B at {base:#x} + {off:#x}"
                );
            }
            base += SWIZZLE_ATOM;
        }
        // Past the field's reach the two part: the advance is for shared addresses only.
        let top = (1 << 18) - 16;
        assert_ne!(
            descriptor_advanced(a_descriptor(top), 32),
            a_descriptor(top + 32)
        );
    }
}
