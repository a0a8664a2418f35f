//! The copy lines whose bytes in flight live in shared memory (section `smem_copy` of the variant
//! table): what a line describes, where each byte goes (the kernel and the host's check share
//! these formulas) and the compile-time checks of a line.
//!
//! Every warp of a block owns a ring of `stages` slots of `stage_bytes` in the block's dynamic
//! shared memory. The grid is persistent (one wave: blocks per SM x SMs) and the copy is cut into
//! tiles of `stage_bytes`; warp w of the grid copies tiles w, w + warps, ... Each lane fills its
//! share of a slot with 16-byte `cp.async.cg` (global to shared, L1 bypassed) and closes one
//! commit group per tile; once the oldest group has landed (`cp.async.wait_group stages - 1`) the
//! lane stores that slot's 16-byte chunks to global memory from registers and refills the slot
//! with the warp's next tile. A lane reads back only the chunks it copied itself, so the wait
//! alone orders them and no barrier is needed. A warp so keeps `stages x stage_bytes` in flight
//! while its registers hold one chunk at a time.
//!
//! The `tma_copy` lines (sm_90a module only) keep the same rings with Hopper's bulk copies: lane
//! 0 of each warp fills a slot with one `cp.async.bulk` of the whole stage, completed on the
//! slot's mbarrier (`complete_tx::bytes`), and empties it with one bulk store
//! (`cp.async.bulk.global.shared::cta`), refilling the slot once the store has read it
//! (`cp.async.bulk.wait_group.read`). The bytes never pass through registers; the block's
//! shared memory holds the rings, then one 8-byte mbarrier per slot.

/// Bytes one `cp.async.cg` moves (the only size `.cg` takes).
pub const CHUNK_BYTES: u32 = 16;
/// Lanes of a warp, each moving its own chunks of every stage.
pub const COPY_LANES: u32 = 32;
/// Bytes of a stage when each lane moves one chunk: a stage is a whole number of these.
pub const STAGE_UNIT: u32 = CHUNK_BYTES * COPY_LANES;
/// Most stages a bulk-copy line may ask for (the waits' immediates the kernel has).
pub const MAX_BULK_STAGES: u32 = 8;
/// Largest stage of a bulk-copy line: one bulk copy's bytes, well inside an mbarrier's
/// transaction count.
pub const MAX_BULK_STAGE_BYTES: u32 = 64 * 1024;
/// Most stages (commit groups in flight) a line may ask for.
pub const MAX_SMEM_STAGES: u32 = 32;
/// Most shared memory a block may take: the opt-in limit of sm_90 (227 KiB), the largest of the
/// architectures the lab builds for; a line over a smaller GPU's limit is skipped there.
pub const MAX_SMEM_COPY_BYTES: u32 = 227 * 1024;

/// How a line moves its bytes between global and shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SmemPath {
    /// 16-byte `cp.async.cg` by every lane, stores from registers (any sm_80+).
    CpAsync,
    /// One `cp.async.bulk` a stage and one bulk store, by lane 0, mbarrier-completed (sm_90a).
    Bulk,
}

/// Bytes of one mbarrier.
pub const MBARRIER_BYTES: u32 = 8;

/// One `smem_copy` or `tma_copy` line. Every entry takes the memcpy parameters `(src, dst, n)`
/// and copies the whole 16-byte vectors of `n` floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmemCopyLine {
    /// How the bytes move (and so which module holds the entry).
    pub path: SmemPath,
    /// Threads per block (whole warps; also the entry's launch bound).
    pub threads: u32,
    /// Bytes of one stage of a warp's ring: a multiple of [`STAGE_UNIT`].
    pub stage_bytes: u32,
    /// Stages of a warp's ring: commit groups in flight.
    pub stages: u32,
    /// Exported PTX entry name, `cp_async_copy_t{THREADS}_b{STAGE_BYTES}_s{STAGES}` or
    /// `tma_copy_t{THREADS}_b{STAGE_BYTES}_s{STAGES}`.
    pub entry: &'static str,
}

impl SmemCopyLine {
    /// Warps of a block.
    pub const fn warps(&self) -> u32 {
        self.threads / COPY_LANES
    }
    /// 16-byte chunks each lane moves per stage.
    pub const fn chunks_per_lane(&self) -> u32 {
        self.stage_bytes / STAGE_UNIT
    }
    /// Bytes a warp keeps in flight: its whole ring.
    pub const fn bytes_in_flight_per_warp(&self) -> u32 {
        self.stage_bytes * self.stages
    }
    /// Bytes in flight per thread, the figure the register-held copies count (`4 x loads x
    /// width`): the warp's ring over its lanes.
    pub const fn bytes_per_thread(&self) -> u32 {
        self.bytes_in_flight_per_warp() / COPY_LANES
    }
    /// Requests each issuing thread has in flight: a 16-byte `cp.async` each for every lane, or
    /// one bulk copy a stage for lane 0.
    pub const fn requests_per_thread(&self) -> u32 {
        match self.path {
            SmemPath::CpAsync => self.chunks_per_lane() * self.stages,
            SmemPath::Bulk => self.stages,
        }
    }
    /// Dynamic shared memory a block needs: every warp's ring (and, for bulk copies, an
    /// mbarrier a slot after the rings).
    pub const fn shared_bytes(&self) -> u32 {
        let barriers = match self.path {
            SmemPath::CpAsync => 0,
            SmemPath::Bulk => MBARRIER_BYTES * self.stages,
        };
        self.warps() * (self.bytes_in_flight_per_warp() + barriers)
    }
    /// Floats of one tile (one stage of one warp).
    pub const fn tile_floats(&self) -> u64 {
        (self.stage_bytes / 4) as u64
    }
}

/// Whole 16-byte vectors of `n` floats: what the copy moves (the tail of fewer than four floats
/// is left, as the register-held copies of width 4 leave it).
pub const fn whole_vectors(n: u64) -> u64 {
    n / 4
}

/// The first float of chunk `j` of lane `lane` in tile `tile` of a line with `chunks` chunks per
/// lane: chunk j of all 32 lanes is 512 consecutive bytes, so every `cp.async` of a warp reads
/// (and every store writes) one contiguous, aligned span.
pub const fn chunk_float(tile: u64, chunks: u32, j: u32, lane: u32) -> u64 {
    tile * (chunks * STAGE_UNIT / 4) as u64 + ((j * COPY_LANES + lane) * (CHUNK_BYTES / 4)) as u64
}

/// Why a line cannot be built, or None.
pub const fn smem_copy_misfit(threads: u32, stage_bytes: u32, stages: u32) -> Option<&'static str> {
    if threads == 0 || !threads.is_multiple_of(COPY_LANES) || threads > 1024 {
        return Some("threads must be whole warps, at most 1024");
    }
    if stage_bytes == 0 || !stage_bytes.is_multiple_of(STAGE_UNIT) {
        return Some("stage bytes must be a positive multiple of 512 (16 bytes a lane)");
    }
    if stages < 2 || stages > MAX_SMEM_STAGES {
        return Some("stages must be 2..=32");
    }
    // u64: a wild line must not overflow before it is refused.
    let shared = (threads / COPY_LANES) as u64 * stage_bytes as u64 * stages as u64;
    if shared > MAX_SMEM_COPY_BYTES as u64 {
        return Some("the block's rings exceed 227 KiB of shared memory");
    }
    None
}

/// No two lines share an entry.
pub const fn smem_copy_lines_unique(lines: &[SmemCopyLine]) -> bool {
    no_two_alike!(lines, |a, b| {
        let same_path = matches!(
            (a.path, b.path),
            (SmemPath::CpAsync, SmemPath::CpAsync) | (SmemPath::Bulk, SmemPath::Bulk)
        );
        same_path
            && a.threads == b.threads
            && a.stage_bytes == b.stage_bytes
            && a.stages == b.stages
    })
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn a_lines_figures_follow_from_its_ring() {
        let l = SmemCopyLine {
            path: SmemPath::CpAsync,
            threads: 128,
            stage_bytes: 2048,
            stages: 8,
            entry: "cp_async_copy_t128_b2048_s8",
        };
        assert_eq!(l.warps(), 4);
        assert_eq!(l.chunks_per_lane(), 4);
        assert_eq!(l.bytes_in_flight_per_warp(), 16384);
        assert_eq!(l.bytes_per_thread(), 512);
        assert_eq!(l.requests_per_thread(), 32);
        assert_eq!(l.shared_bytes(), 65536);
        assert_eq!(l.tile_floats(), 512);
        let bulk = SmemCopyLine {
            path: SmemPath::Bulk,
            ..l
        };
        assert_eq!(bulk.bytes_per_thread(), 512, "the same ring");
        assert_eq!(bulk.requests_per_thread(), 8, "one bulk copy a stage");
        assert_eq!(bulk.shared_bytes(), 65536 + 4 * 8 * 8, "an mbarrier a slot");
    }

    #[test]
    fn chunks_tile_the_copy_without_gaps_or_overlap() {
        for chunks in [1, 3, 16] {
            let mut seen = Vec::new();
            for tile in 0..3u64 {
                for j in 0..chunks {
                    for lane in 0..COPY_LANES {
                        seen.push(chunk_float(tile, chunks, j, lane));
                    }
                }
            }
            seen.sort_unstable();
            let want: Vec<u64> = (0..seen.len() as u64).map(|i| 4 * i).collect();
            assert_eq!(seen, want, "{chunks} chunks a lane");
        }
        // Chunk j of consecutive lanes is contiguous: one 512-byte span per instruction.
        assert_eq!(chunk_float(2, 4, 1, 5) - chunk_float(2, 4, 1, 4), 4);
    }

    #[test]
    fn misfits_are_named() {
        assert_eq!(smem_copy_misfit(32, 4096, 16), None);
        assert!(smem_copy_misfit(48, 4096, 16)
            .unwrap()
            .contains("whole warps"));
        assert!(smem_copy_misfit(32, 1000, 16)
            .unwrap()
            .contains("multiple of 512"));
        assert!(smem_copy_misfit(32, 512, 1).unwrap().contains("2..=32"));
        assert!(smem_copy_misfit(32, 512, 33).unwrap().contains("2..=32"));
        assert!(smem_copy_misfit(1024, 8192, 8).unwrap().contains("227 KiB"));
        assert!(smem_copy_misfit(1024, u32::MAX - 511, 32).is_some());
    }
}
