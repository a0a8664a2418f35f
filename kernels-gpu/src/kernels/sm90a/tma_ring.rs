//! The TMA ring both warp-specialized GEMMs of the `gemm_wgmma` section share (sm_90a): the
//! kernels' common start (their arguments, the ring's barriers set up, C's output), the
//! position a role has reached in the ring, and the walk of its fills (every K slice of every
//! work unit of the block's persistent walk: a unit is a tile, or part of a tile's K where the
//! wgmma lines cut it, `KSplit`, or a piece of a tile of a streamed last wave, `StreamTail`),
//! which a producer thread loads in order or, in the
//! mma.sync kernel, each slot's last reader loads one at a time. The layout of a slot and the
//! tensor maps' contract are in `sections/gemm_wgmma.rs`; what reads a slot is the kernel's
//! (`gemm_wgmma.rs`, `gemm_tma_mma.rs`).

use crate::gpu;
use crate::kernels::gemm_epilogue::Output;
use crate::sections::c_staging::{C_HANDOFF_EMPTY, C_STORE_PAUSE_NS};
use crate::sections::gemm_wgmma::WgemmVariant;
use crate::sections::wgemm_tail::{StreamTail, TAIL_PIECES};
use crate::sections::wgemm_walk::{ring_after, walk_tile, KSplit};
use crate::shapes::tma_slot::{B_BOX_COLS, SWIZZLE_ATOM, SWIZZLE_BYTES, WGEMM_BK};
use crate::variants::WgemmArgs;

/// A ring position: the slot and the parity of the barriers' phase it is in.
#[derive(Clone, Copy)]
pub struct Ring {
    pub slot: u32,
    pub phase: u32,
}

impl Ring {
    pub const START: Ring = Ring { slot: 0, phase: 0 };

    /// The position `fills` fills on (`next` that many times): a ping-pong consumer passing
    /// over the other's tile.
    #[inline(always)]
    pub fn advance(self, fills: u32, stages: u32) -> Ring {
        let (slot, phase) = ring_after((self.slot, self.phase), fills, stages);
        Ring { slot, phase }
    }

    #[inline(always)]
    pub fn next(self, stages: u32) -> Ring {
        if self.slot + 1 == stages {
            Ring {
                slot: 0,
                phase: self.phase ^ 1,
            }
        } else {
            Ring {
                slot: self.slot + 1,
                phase: self.phase,
            }
        }
    }
}

/// How the consumers hand a slot back.
#[derive(Clone, Copy)]
pub enum Release {
    /// Each of this many arrivals on the slot's empty mbarrier, which a producer waits on.
    Barrier(u32),
    /// Each reader adds one to a count in the empty barrier's word ([`gpu::shared_count_up`]);
    /// the last of a fill's readers loads the slot's next fill itself.
    Count,
}

/// What every role knows of the problem.
#[derive(Clone, Copy)]
pub struct RingProblem {
    pub line: WgemmVariant,
    /// Aligned shared address of the ring.
    pub ring: u32,
    /// Output tiles down and across C.
    pub rows: u32,
    pub cols: u32,
    /// 64-deep K slices of every tile.
    pub k_steps: u32,
    /// Each tile's slices cut into work units (one where K is whole).
    pub split: KSplit,
    /// The last partial wave's tiles shared out by K slices over the grid, where streamed.
    pub tail: Option<StreamTail>,
    /// This block's rank in its cluster (0 where the line's cluster is 1).
    pub rank: u32,
}

/// A work unit of the walk: a tile, which of the tile's units along K this is and how many it
/// has (1: the tile whole), and the K slices it takes (none past the block's walk).
#[derive(Clone, Copy)]
pub struct Unit {
    pub tile: u32,
    pub split: u32,
    pub pieces: u32,
    pub first: u32,
    pub steps: u32,
}

impl Unit {
    /// Past the walk's end.
    const NONE: Unit = Unit {
        tile: 0,
        split: 0,
        pieces: 1,
        first: 0,
        steps: 0,
    };
}

/// The scratch of a launch whose tiles' K is cut (`split_k.rs`, which reads and writes it):
/// `partials`, floats for every unit's accumulators (slots x BM x BN: tiles x splits, or a
/// streamed tail's [`StreamTail::slots`]), and `arrivals`, a zeroed word per cut tile and
/// warp of the tile (`WgemmVariant::tile_warps`), which the last arrival of each launch zeroes
/// again. Here, beside the kernels' common start that takes it from the arguments.
#[derive(Clone, Copy)]
pub struct SplitScratch {
    pub partials: *mut f32,
    pub arrivals: *mut u32,
}

/// What both ring kernels start from ([`RingProblem::start`]).
pub struct RingStart {
    /// The problem, its ring's barriers initialized.
    pub p: RingProblem,
    /// The addresses of A's and B's tensor maps.
    pub maps: (*const u64, *const u64),
    /// C, written in pairs (one float at a time where N is odd, on lines that take it).
    pub out: Output,
    /// Where a cut tile's units meet (unused where K is whole).
    pub scratch: SplitScratch,
}

impl RingProblem {
    /// The start both ring kernels share: the kernel's arguments taken apart, the ring of `line`
    /// for them set up with `release` ([`RingProblem::set_up`]), and C's output.
    ///
    /// # Safety
    /// As [`RingProblem::set_up`].
    #[inline(always)]
    pub unsafe fn start(args: WgemmArgs, line: WgemmVariant, release: Release) -> RingStart {
        let WgemmArgs {
            a_map,
            b_map,
            c,
            m,
            n,
            k,
            alpha,
            beta,
            k_slices,
            stream_tail,
            partials,
            arrivals,
        } = args;
        let (m, n, k) = (m as u32, n as u32, k as u32);
        // A constant 0 for the lines that take K whole, so their walk compiles as it did before
        // units (one per tile, every slice); ping-pong lines stream a tail but never cut K.
        let k_slices = if line.splits_k() { k_slices as u32 } else { 0 };
        let stream = if line.streams_tail() {
            stream_tail as u32
        } else {
            0
        };
        // SAFETY: the caller's contract.
        let p = unsafe { RingProblem::set_up(line, (m, n, k), (k_slices, stream), release) };
        let out = Output {
            c,
            m,
            n,
            alpha,
            beta,
            // Where N is even, every pair at an even column is 8-byte aligned and wholly inside
            // or outside C; where it is odd (the host pads A and B for TMA, never C), a row's
            // pairs lose that alignment and go one float at a time, on the lines that take an
            // odd N (the others' contract is N even).
            vector: !line.takes_odd_n() || n % 2 == 0,
        };
        RingStart {
            p,
            maps: (a_map, b_map),
            out,
            scratch: SplitScratch { partials, arrivals },
        }
    }

    /// The ring of `line` in this block's dynamic shared memory, for an M x N x K product whose
    /// tiles' K is cut into units of `k_slices` slices ([`KSplit::of`]), and whose last partial
    /// wave is streamed over the grid from tile `stream` on where that is not 0 (the whole
    /// waves' tiles, [`StreamTail::of`]'s `from`, which the host passes: a division here put
    /// the consumers' K loop off the uniform datapath, see `units_of`), its barriers
    /// initialized (by thread 0) and visible to the whole block when this returns.
    ///
    /// # Safety
    /// Called by every thread of the block together (it ends in a block barrier), launched
    /// with `line.dynamic_shared_bytes()` of dynamic shared memory.
    #[inline(always)]
    pub unsafe fn set_up(
        line: WgemmVariant,
        (m, n, k): (u32, u32, u32),
        (k_slices, stream): (u32, u32),
        release: Release,
    ) -> Self {
        let ring = (gpu::dynamic_shared_base() + SWIZZLE_ATOM - 1) & !(SWIZZLE_ATOM - 1);
        if gpu::thread_idx_x() == 0 {
            let mut s = 0;
            while s < line.stages {
                // SAFETY: the barriers lie after the ring inside the launch's dynamic shared
                // memory, 8-byte aligned; only this thread touches them before the barrier
                // below.
                unsafe {
                    gpu::mbarrier_init(ring + line.full_barrier(s), 1);
                    match release {
                        // A cluster's producers multicast into each other's slots: each
                        // waits for the consumers of every block of the cluster.
                        Release::Barrier(arrivals) => gpu::mbarrier_init(
                            ring + line.empty_barrier(s),
                            arrivals * line.cluster,
                        ),
                        Release::Count => gpu::shared_store_u32(ring + line.empty_barrier(s), 0),
                    }
                }
                s += 1;
            }
            if line.stages_c() {
                let mut w = 0;
                while w < line.consumer_warps() {
                    let handoff = ring + line.c_handoff(w);
                    // SAFETY: as the ring's barriers: inside the dynamic shared memory, 8-byte
                    // aligned (`C_HANDOFF_BYTES`), this thread's alone until the barrier below.
                    unsafe {
                        gpu::mbarrier_init(handoff, 1);
                        gpu::mbarrier_init(handoff + C_HANDOFF_EMPTY, 1);
                    }
                    w += 1;
                }
                if C_STORE_PAUSE_NS > 0 {
                    // SAFETY: inside the dynamic shared memory, a word after the handoffs
                    // (`c_loads_done`), this thread's alone until the barrier below.
                    unsafe { gpu::shared_store_u32(ring + line.c_loads_done(), 0) };
                }
            }
            gpu::fence_barrier_init();
        }
        let rank = if line.cluster > 1 {
            // SAFETY: every thread of every block of the cluster runs it here, once: the
            // partner's barriers are initialized before any multicast or arrival reaches them.
            unsafe { gpu::cluster_sync() };
            gpu::cluster_ctarank()
        } else {
            gpu::sync_threads();
            0
        };
        let (rows, cols) = line.tiles(m, n);
        let k_steps = k.div_ceil(WGEMM_BK);
        RingProblem {
            line,
            ring,
            rows,
            cols,
            k_steps,
            split: KSplit::of(k_steps, k_slices),
            tail: if stream != 0 {
                Some(StreamTail {
                    from: stream,
                    tiles: rows * cols - stream,
                    k_steps,
                    blocks: gpu::grid_dim_x(),
                })
            } else {
                None
            },
            rank,
        }
    }

    /// The end every thread of a block reaches: in a cluster, no block exits while the other
    /// may still multicast into its ring or arrive on its barriers.
    ///
    /// # Safety
    /// Run once by every thread of the block, converged within each warp, after its part of the
    /// walk.
    #[inline(always)]
    pub unsafe fn finish(&self) {
        if self.line.cluster > 1 {
            // SAFETY: the caller's contract, in every block of the cluster.
            unsafe { gpu::cluster_sync() };
        }
    }

    /// The walk's first unit for this block (its cluster's, where blocks walk in clusters).
    #[inline(always)]
    pub fn walker(&self) -> u32 {
        gpu::block_idx_x() / self.line.cluster
    }

    /// Units between one unit of a block's walk and its next: the walkers of the grid.
    #[inline(always)]
    pub fn walkers(&self) -> u32 {
        gpu::grid_dim_x() / self.line.cluster
    }

    /// The output tile (row, column) this block computes for the walk's tile (or pair) `tile`:
    /// in a cluster of two, the pair's upper tile for rank 0 and the lower for rank 1.
    #[inline(always)]
    pub fn tile_at(&self, tile: u32) -> (u32, u32) {
        walk_tile(tile, self.rank, (self.rows, self.cols), self.line.cluster)
    }

    /// Hands slot `s` back to its producer, or, in a cluster, to the producer of every block
    /// (each multicasts into this block's copy of the slot).
    ///
    /// # Safety
    /// Once per reader warp of the fill (`WgemmVariant::slot_readers`: every consumer warp, or
    /// in ping-pong the reading warpgroup's), after the warp's last read of it
    /// ([`Release::Barrier`]).
    #[inline(always)]
    pub unsafe fn release(&self, s: u32) {
        // SAFETY: the caller's contract; the barriers were initialized for these arrivals.
        unsafe {
            if self.line.cluster == 1 {
                gpu::mbarrier_arrive(self.empty(s));
            } else {
                let mut r = 0;
                while r < self.line.cluster {
                    gpu::mbarrier_arrive_in(self.empty(s), r);
                    r += 1;
                }
            }
        }
    }

    /// The walk's work units: every tile (or pair of tiles, in a cluster of two), times its
    /// units along K; with a streamed tail, the whole waves' tiles and [`TAIL_PIECES`] places
    /// for each block's pieces (some of them empty).
    #[inline(always)]
    pub fn units(&self) -> u32 {
        if self.tail.is_some() {
            self.units_of::<true>()
        } else {
            self.units_of::<false>()
        }
    }

    /// [`RingProblem::units`] for a walk known to stream its tail (`STREAMED`) or not. A
    /// consumer loop compiled for one of the two holds no code of the other: a loop whose
    /// bounds or units came from a division (the tail's) ran off the uniform datapath in
    /// ptxas's build (W1: 8 more SASS instructions a slice, the descriptors in vector
    /// registers), so the whole waves' tiles run in the plain build up to the tail's `from`, a
    /// kernel argument.
    #[inline(always)]
    pub fn units_of<const STREAMED: bool>(&self) -> u32 {
        match (STREAMED, self.tail) {
            (true, Some(t)) => t.from + TAIL_PIECES * t.blocks,
            _ => self.tiles() * self.split.splits,
        }
    }

    /// The walk's tiles, or pairs of tiles one above the other in a cluster of two.
    #[inline(always)]
    fn tiles(&self) -> u32 {
        self.rows.div_ceil(self.line.cluster) * self.cols
    }

    /// Work unit `u`: split u / tiles of tile u % tiles; with a streamed tail, tile u of the
    /// whole waves, then piece (u - from) / blocks of block (u - from) % blocks's run; none (no
    /// slices) from [`RingProblem::units`] on, or where a block's run has fewer pieces.
    #[inline(always)]
    pub fn unit(&self, u: u32) -> Unit {
        if u >= self.units() {
            return Unit::NONE;
        }
        if self.tail.is_some() {
            self.unit_of::<true>(u)
        } else {
            self.unit_of::<false>(u)
        }
    }

    /// [`RingProblem::unit`] below [`RingProblem::units_of`] for a walk known to stream its
    /// tail or not.
    #[inline(always)]
    pub fn unit_of<const STREAMED: bool>(&self, u: u32) -> Unit {
        if let (true, Some(t)) = (STREAMED, self.tail) {
            if u < t.from {
                return self.whole(u);
            }
            let v = u - t.from;
            return match t.piece(v % t.blocks, v / t.blocks) {
                Some(p) => Unit {
                    tile: p.tile,
                    split: p.index,
                    pieces: p.pieces,
                    first: p.first,
                    steps: p.steps,
                },
                None => Unit::NONE,
            };
        }
        if self.split.splits == 1 {
            return self.whole(u);
        }
        let tiles = self.tiles();
        let split = u / tiles;
        let (first, steps) = self.split.range(self.k_steps, split);
        Unit {
            tile: u % tiles,
            split,
            pieces: self.split.splits,
            first,
            steps,
        }
    }

    /// Tile `tile`, every slice of it.
    #[inline(always)]
    fn whole(&self, tile: u32) -> Unit {
        Unit {
            tile,
            split: 0,
            pieces: 1,
            first: 0,
            steps: self.k_steps,
        }
    }

    /// Whether unit `u`'s tile has its K cut (split-K, or a streamed tail's piece), so that its
    /// units meet in the scratch (`split_k.rs`) rather than one writing C at once: `u.pieces > 1`
    /// in either build, but tested on the launch's split where nothing is streamed, a test
    /// the same for every unit that stays off the K loop's path in both compilers' code.
    #[inline(always)]
    pub fn cuts<const STREAMED: bool>(&self, u: &Unit) -> bool {
        if STREAMED {
            u.pieces > 1
        } else {
            self.split.splits > 1
        }
    }

    /// Where a cut tile's units meet: the tile's index among the cut tiles (its arrival
    /// words), and the scratch slot of its unit `index`.
    #[inline(always)]
    pub fn cut_tile<const STREAMED: bool>(&self, tile: u32) -> u32 {
        match (STREAMED, self.tail) {
            (true, Some(t)) => tile - t.from,
            _ => tile,
        }
    }
    #[inline(always)]
    pub fn slot<const STREAMED: bool>(&self, tile: u32, index: u32) -> u32 {
        match (STREAMED, self.tail) {
            (true, Some(t)) => t.slot(tile, index),
            _ => tile * self.split.splits + index,
        }
    }

    /// Shared address of slot `s`'s full and empty barriers (the empty one a count with
    /// [`Release::Count`]).
    #[inline(always)]
    pub fn full(&self, s: u32) -> u32 {
        self.ring + self.line.full_barrier(s)
    }
    #[inline(always)]
    pub fn empty(&self, s: u32) -> u32 {
        self.ring + self.line.empty_barrier(s)
    }

    /// The walk's first fill.
    #[inline(always)]
    pub fn first_fill(&self) -> Fill {
        self.fill_of(Ring::START, self.walker())
    }

    /// Whether this block's walk has fill `f` (its unit has slices: every unit of the walk
    /// has one at least, as K >= 1).
    #[inline(always)]
    pub fn has(&self, f: &Fill) -> bool {
        f.steps > 0
    }

    /// The fill after `f`: the next slot, and the next K slice of the unit or the first of the
    /// walk's next unit (whose tile and origin are worked out only then: both divide).
    #[inline(always)]
    pub fn after(&self, f: Fill) -> Fill {
        let at = f.at.next(self.line.stages);
        if f.ks + 1 < f.steps {
            Fill {
                at,
                ks: f.ks + 1,
                ..f
            }
        } else {
            self.fill_of(at, f.unit + self.walkers())
        }
    }

    /// The first fill of work unit `unit`, into ring position `at`: its first K slice, and the
    /// first element (row, column) of C of its tile; no slices and (0, 0) past the walk's end,
    /// where `tile_of` would divide by the zero rows left.
    #[inline(always)]
    fn fill_of(&self, at: Ring, unit: u32) -> Fill {
        let u = self.unit(unit);
        if u.steps == 0 {
            return Fill {
                at,
                unit,
                ks: 0,
                first: 0,
                steps: 0,
                origin: (0, 0),
            };
        }
        let (tr, tc) = self.tile_at(u.tile);
        Fill {
            at,
            unit,
            ks: 0,
            first: u.first,
            steps: u.steps,
            origin: ((tr * self.line.bm) as i32, (tc * self.line.bn) as i32),
        }
    }

    /// Fill `f`: TMA loads the fill's K slice of A and B into its slot, completing on the
    /// slot's full barrier.
    ///
    /// # Safety
    /// Each fill the walk has is loaded once, by one thread, once its slot's previous fill is
    /// released (a fresh ring's slots are free); fills of different slots may be loaded in any
    /// order and at the same time, each completing on its own slot's barrier. `a_map` and
    /// `b_map` are the tensor maps of the line's contract (`gemm_wgmma`'s safety section).
    #[inline(always)]
    pub unsafe fn load(&self, f: Fill, a_map: *const u64, b_map: *const u64) {
        let line = self.line;
        let (row0, col0) = f.origin;
        let depth = ((f.first + f.ks) * WGEMM_BK) as i32;
        let full = self.full(f.at.slot);
        // SAFETY: the slot is free (the caller's contract; in a cluster, in both blocks: the
        // empty barrier counted both blocks' consumers); the TMA boxes are the slot's bytes
        // exactly (A: 64 x BM, B: BN/64 boxes of 64 x 64, in a cluster half of them from the
        // other block's multicast, which lands at the same offsets), each 1024-byte aligned, and
        // complete on the slot's full barrier, which expects them (a multicast's bytes may
        // arrive before this block's expectation: the phase waits for its one arrival too).
        unsafe {
            gpu::mbarrier_arrive_expect_tx(full, line.slot_bytes());
            gpu::tma_load_2d(self.ring + line.a_slot(f.at.slot), a_map, depth, row0, full);
            let mut j = 0;
            while j < line.bn / B_BOX_COLS {
                let dst = self.ring + line.b_slot(f.at.slot) + j * WGEMM_BK * SWIZZLE_BYTES;
                let col = col0 + (j * B_BOX_COLS) as i32;
                if line.cluster == 1 {
                    gpu::tma_load_2d(dst, b_map, col, depth, full);
                } else if j % line.cluster == self.rank {
                    // The pair shares its tile column's B: each block loads every other box
                    // for both (`wgemm_line_fits`: an even number of boxes).
                    let all = ((1u32 << line.cluster) - 1) as u16;
                    gpu::tma_load_2d_multicast(dst, b_map, (col, depth), full, all);
                }
                j += 1;
            }
        }
    }

    /// A producer thread's whole walk: every fill, in order, each once the slot's empty barrier
    /// says its previous fill was read ([`Release::Barrier`]).
    ///
    /// # Safety
    /// As [`RingProblem::load`]; the one thread that loads this block's ring.
    #[inline(always)]
    pub unsafe fn produce(&self, a_map: *const u64, b_map: *const u64) {
        // SAFETY: the maps are in global memory (the caller's contract).
        unsafe {
            gpu::prefetch_tensor_map(a_map);
            gpu::prefetch_tensor_map(b_map);
        }
        let mut f = self.first_fill();
        while self.has(&f) {
            // SAFETY: the caller's contract; fills in order, each once the consumers released
            // the slot's previous fill (a fresh ring's first round passes at once).
            unsafe {
                gpu::mbarrier_wait(self.empty(f.at.slot), f.at.phase ^ 1);
                self.load(f, a_map, b_map)
            };
            f = self.after(f);
        }
    }
}

/// A producer's place in the walk: the ring position it fills next, the work unit (its index
/// in the walk, its first K slice and slice count, its tile's origin in C), and the slice of
/// the unit that fill loads.
#[derive(Clone, Copy)]
pub struct Fill {
    pub at: Ring,
    unit: u32,
    ks: u32,
    first: u32,
    steps: u32,
    origin: (i32, i32),
}
