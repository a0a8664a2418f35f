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
//! from the slot into BN/2 f32 accumulators per thread. Blocks are persistent: block b takes
//! output tiles b, b + grid, b + 2 grid, ... in the order of [`tile_of`]. An `mma_sync` line
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

/// One `gemm_wgmma` line. Every entry takes `(a_map, b_map, c, m, n, k, alpha, beta)`; see the
/// module documentation for the contract.
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
    /// BM is not 64 rows per consumer warpgroup.
    Height,
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
        consumers: u32,
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
    /// Warps of the consumer warpgroups (each arrives once on, or counts once out of, a slot).
    pub const fn consumer_warps(&self) -> u32 {
        self.consumers * WARPGROUP_WARPS
    }
    /// f32 accumulators per consumer thread (BN/2: a warpgroup's 64 x BN over its 128 threads,
    /// whichever MMA).
    pub const fn accumulators(&self) -> u32 {
        self.bn / 2
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
    /// Dynamic shared memory to launch with: the ring, its barriers, and up to an atom of slack
    /// to align the ring to [`SWIZZLE_ATOM`] (the dynamic window's start is not promised to be).
    pub const fn dynamic_shared_bytes(&self) -> u32 {
        self.empty_barrier(self.stages) + SWIZZLE_ATOM
    }
    /// Static shared memory of the kernel: none.
    pub const fn static_shared_bytes(&self) -> u32 {
        0
    }
    /// Output tiles (rows, columns) of an M x N product.
    pub const fn tiles(&self, m: u32, n: u32) -> (u32, u32) {
        (m.div_ceil(self.bm), n.div_ceil(self.bn))
    }
    /// Whether the line's kernel cuts K into work units when asked ([`KSplit`]): the wgmma
    /// lines, whose epilogue then adds to C. The mma.sync lines take a tile's K whole (their
    /// epilogue writes C; a second path in it cost them registers before, see `takes_odd_n`).
    pub const fn splits_k(&self) -> bool {
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
    /// The persistent grid of an M x N x K product on `sms` SMs: one block per SM at most,
    /// never more blocks than the walk's units (tiles, times K's units where it is cut).
    pub const fn walk_grid(&self, m: u32, n: u32, k: u32, sms: u32) -> u32 {
        let units = self.walk_tiles(m, n) * self.k_split(m, n, k, sms).splits;
        // A cluster's blocks walk one unit together.
        persistent_grid(units, sms / self.cluster) * self.cluster
    }
    /// The split-K scratch of an M x N product cut by `split` (`kernels/sm90a/split_k.rs`):
    /// floats of the units' partials, and words of the arrivals (each tile's consumer warps).
    /// None where K is whole.
    pub const fn split_scratch(&self, m: u32, n: u32, split: KSplit) -> (u64, u64) {
        if split.splits < 2 {
            return (0, 0);
        }
        let (rows, cols) = self.tiles(m, n);
        let tiles = rows as u64 * cols as u64;
        (
            tiles * split.splits as u64 * self.bm as u64 * self.bn as u64,
            tiles * self.consumer_warps() as u64,
        )
    }
}

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

/// A tile's K slices cut into work units (split-K): `splits` units of `unit_steps` 64-deep
/// slices, the last one shorter where they do not divide; one unit of every slice where K is
/// left whole. A persistent block walks units as it walks tiles (unit u is split u / tiles of
/// tile u % tiles: the blocks running at one time take neighbouring tiles), and a cut tile's
/// units add their products to C, which the host has set to beta*C before the launch.
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
    if v.bm != WGEMM_M * v.consumers {
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

/// B's descriptor: an MN-major 128-byte-swizzled slice at `addr` (B is row-major K x N, so N is
/// the contiguous dimension; the wgmma takes it transposed). Rows along K are 128 bytes apart
/// and 8-row groups along K [`SWIZZLE_ATOM`] apart (the stride byte offset); 64-column boxes
/// along N lie one box, 64 rows of 128 bytes, apart (the leading byte offset). A k16 step is a
/// move of 16 rows, two atoms.
pub const fn b_descriptor(addr: u32) -> u64 {
    crate::sections::wgmma::wgmma_descriptor(addr, WGEMM_BK * SWIZZLE_BYTES, SWIZZLE_ATOM)
        | SWIZZLE_128B_LAYOUT
}

/// A line's MMA from its family word in the table (`wgmma` or `mma_sync`).
macro_rules! ring_mma {
    (wgmma) => {
        RingMma::Wgmma
    };
    (mma_sync) => {
        RingMma::Sync
    };
}

/// A line's entry name from its family word and numbers.
macro_rules! ring_entry {
    (wgmma, $bm:literal, $bn:literal, $s:literal, $c:literal, $x:literal) => {
        concat!("wgemm_bm", $bm, "_bn", $bn, "_bk64_s", $s, "_c", $c, "_x", $x)
    };
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
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;

    fn line(bm: u32, bn: u32, stages: u32, consumers: u32, cluster: u32) -> WgemmVariant {
        WgemmVariant {
            label: "t",
            bm,
            bn,
            stages,
            consumers,
            cluster,
            mma: RingMma::Wgmma,
            entry: "",
        }
    }

    fn sync_line(bm: u32, bn: u32, stages: u32, consumers: u32) -> WgemmVariant {
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
}
