//! C's staging on the wgmma lines that hand part of each tile's C to the producer warpgroup's
//! idle warps (`kernels/sm90a/c_handoff.rs`): which lines do (`WgemmVariant::stages_c`), and
//! where each consumer warp's handoff and buffer lie in the block's shared memory, after the
//! ring's barriers.

use crate::sections::gemm_wgmma::{RingMma, WgemmVariant};
use crate::shapes::tma_slot::{SWIZZLE_ATOM, WARPGROUP_WARPS};

/// C's staging ([`WgemmVariant::stages_c`]): a consumer warp hands its 16 rows over a chunk of
/// this many columns at a time (512 bytes, four 128-byte lines, of each row) ...
pub const C_STAGE_COLS: u32 = 128;
/// ... through this many buffers of its own ...
pub const C_STAGE_BUFFERS: u32 = 1;
/// ... whose rows lie this many bytes apart: a chunk row's 512 bytes and 32 of padding, so that
/// the eight rows one 8-byte store of the warp touches fall in distinct bank groups (two
/// wavefronts, the least 256 bytes take; unpadded rows put all eight on the same banks). A storer
/// warp reads a row back with one 16-byte load a lane.
pub const C_STAGE_ROW_BYTES: u32 = 544;
// A staged row holds its chunk, and each row starts 16-byte aligned for the storers' loads.
const _: () =
    assert!(C_STAGE_ROW_BYTES >= C_STAGE_COLS * 4 && C_STAGE_ROW_BYTES.is_multiple_of(16));
/// Chunks of a warp's rows that go through the buffers each tile; the rest its lanes store
/// themselves, before the staged ones.
pub const C_STAGED_CHUNKS: u32 = 1;
/// A consumer warp's handoff to the storer warps (`WgemmVariant::c_handoff`), offsets from its
/// start: its "full" mbarrier at 0, its "empty" mbarrier ...
pub const C_HANDOFF_EMPTY: u32 = 8;
/// ... the staged rows' first row in C ([`C_HANDOFF_DONE`] once the walk is over) ...
pub const C_HANDOFF_ROW: u32 = 16;
/// ... and their first column.
pub const C_HANDOFF_COL: u32 = 20;
/// Bytes of a handoff: two mbarriers and two words.
pub const C_HANDOFF_BYTES: u32 = C_HANDOFF_COL + 4;
/// The handoff's first row when the consumer warp's walk is over.
pub const C_HANDOFF_DONE: u32 = u32::MAX;
/// Consumer warps each storer warp serves (`store_staged`'s round); with the producer
/// warpgroup's three idle warps, a line staging C has at most three times this many.
pub const C_WARPS_PER_STORER: u32 = 3;
/// Nanoseconds a storer warp pauses after each staged row it stores (`store_staged`), so that a
/// tile's staged rows leave over the next tile's K loop instead of in one burst beside its loads,
/// until the producer has issued its last load ([`WgemmVariant::c_loads_done`]); 0 pauses
/// nowhere and compiles to no instruction. An experiment's setting, kept at 0 because pauses
/// made W8 slower per clock at 4096³ and 8192³: the burst of staged rows is not what idles the
/// tensor pipe (the H200 run page of 2026-12-05, S29a-S29c; the question is that of 2026-12-04's
/// "where the tensor pipe idles").
pub const C_STORE_PAUSE_NS: u32 = 0;
/// Bytes of one staging buffer: a warp's 16 rows.
pub const C_STAGE_BUFFER_BYTES: u32 = 16 * C_STAGE_ROW_BYTES;

impl WgemmVariant {
    /// Offset of the staging buffers of C (`C_STAGE_*`), after the barriers, 128-byte aligned.
    pub const fn c_stage_base(&self) -> u32 {
        self.empty_barrier(self.stages).next_multiple_of(128)
    }
    /// Offset of consumer warp `warp`'s handoff to the storer warps ([`C_HANDOFF_BYTES`] each,
    /// from the staging area's start): its buffer's "full" mbarrier, its "empty" one, and the
    /// staged rows' place in C (first row, first column; [`C_HANDOFF_DONE`] ends the walk).
    pub const fn c_handoff(&self, warp: u32) -> u32 {
        self.c_stage_base() + warp * C_HANDOFF_BYTES
    }
    /// Offset of the word the producer sets once it has issued its last load, after every
    /// warp's handoff: from then on the storer warps store without pausing
    /// ([`C_STORE_PAUSE_NS`]), so that the last tiles' rows do not wait out pauses once no load
    /// is left to spare. Written and read only where the pause is set.
    pub const fn c_loads_done(&self) -> u32 {
        self.c_handoff(self.consumer_warps())
    }
    /// Offset of buffer `buffer` of consumer warp `warp`'s staging of C (rows of
    /// [`C_STAGE_ROW_BYTES`]), after every warp's handoff and the loads-done word.
    pub const fn c_stage(&self, warp: u32, buffer: u32) -> u32 {
        (self.c_loads_done() + 4).next_multiple_of(128)
            + (warp * C_STAGE_BUFFERS + buffer) * C_STAGE_BUFFER_BYTES
    }
    /// Whether the consumers hand part of C to the producer warpgroup's idle warps through
    /// staging buffers in shared memory (`c_handoff.rs`: `write_staged`, `store_staged`), which
    /// store it while the consumers run the next tile's MMAs: wgmma lines of shared tiles (not
    /// ping-pong), one block a cluster, no more consumer warps than the storers serve, whose tile
    /// rows hold the staged chunks, and whose ring leaves room for every consumer warp's handoff
    /// and buffers under the 227 KB a block may opt into. Elsewhere each thread stores its
    /// accumulators itself, and its warps wait for the stores to issue.
    pub const fn stages_c(&self) -> bool {
        matches!(self.mma, RingMma::Wgmma)
            && !self.ping_pong()
            && self.cluster == 1
            && self.consumer_warps() <= (WARPGROUP_WARPS - 1) * C_WARPS_PER_STORER
            && self.bn.is_multiple_of(C_STAGE_COLS)
            && self.bn / C_STAGE_COLS >= C_STAGED_CHUNKS
            && C_STAGED_CHUNKS.is_multiple_of(C_STAGE_BUFFERS)
            && self.c_stage(self.consumer_warps(), 0) + SWIZZLE_ATOM
                <= crate::sections::limits::MAX_SHARED_OPT_IN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sections::gemm_wgmma::tests::{line, sync_line};

    #[test]
    fn c_is_staged_where_every_warps_buffers_fit_beside_the_ring() {
        use crate::sections::limits::MAX_SHARED_OPT_IN;
        use crate::sections::wgmma::accumulator_position;
        let v = line(128, 256, 3, 2, 1);
        assert!(v.stages_c());
        let first = v.c_stage(0, 0);
        // Each warp's handoff after the barriers, its mbarriers 8-byte aligned, all of them
        // before the buffers.
        for w in 0..v.consumer_warps() {
            assert!(v.c_handoff(w) >= v.empty_barrier(v.stages));
            assert_eq!(v.c_handoff(w) % 8, 0);
            assert!(v.c_handoff(w) + C_HANDOFF_BYTES <= first);
        }
        // The loads-done word after the last handoff, a whole word before the buffers.
        assert_eq!(
            v.c_loads_done(),
            v.c_handoff(v.consumer_warps() - 1) + C_HANDOFF_BYTES
        );
        assert_eq!(v.c_loads_done() % 4, 0);
        assert!(v.c_loads_done() + 4 <= first);
        assert_eq!(first % 128, 0);
        // Buffers in order, each a whole buffer past the last (none overlap), every row
        // 16-byte aligned for the storers' 16-byte loads.
        let mut at = first;
        for w in 0..v.consumer_warps() {
            for b in 0..C_STAGE_BUFFERS {
                assert_eq!(v.c_stage(w, b), at, "warp {w} buffer {b}");
                assert_eq!(at % 16, 0);
                at += C_STAGE_BUFFER_BYTES;
            }
        }
        assert_eq!(v.dynamic_shared_bytes(), at + SWIZZLE_ATOM);
        assert!(v.dynamic_shared_bytes() <= MAX_SHARED_OPT_IN);
        // One 8-byte store of a warp (a register pair of every lane) falls on each bank at
        // most twice: two wavefronts, the least its 256 bytes take.
        for r in (0..C_STAGE_COLS / 2).step_by(2) {
            let mut lanes_on = [0u32; 32];
            for lane in 0..32 {
                let (row, col) = accumulator_position(lane, r);
                let word = (row * C_STAGE_ROW_BYTES + col * 4) / 4;
                lanes_on[(word % 32) as usize] += 1;
                lanes_on[((word + 1) % 32) as usize] += 1;
            }
            assert_eq!(
                lanes_on.iter().max(),
                Some(&2),
                "register {r}: {lanes_on:?}"
            );
        }
        // Elsewhere C goes out by each thread's own stores, and the ring ends the layout.
        for no in [
            line(128, 256, 4, 2, 1), // no room beside 4 slots
            line(128, 256, 3, 2, 2), // a cluster
            line(64, 256, 5, 2, 1),  // ping-pong
            line(128, 64, 3, 2, 1),  // narrower than a chunk
            line(192, 128, 2, 3, 1), // more consumer warps than the storers serve
        ] {
            assert!(!no.stages_c(), "{}x{} s{}", no.bm, no.bn, no.stages);
            assert_eq!(
                no.dynamic_shared_bytes(),
                no.empty_barrier(no.stages) + SWIZZLE_ATOM
            );
        }
        assert!(!sync_line(128, 256, 3, 2).stages_c(), "mma.sync lines");
    }
}
