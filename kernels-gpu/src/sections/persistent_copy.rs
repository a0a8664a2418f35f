//! The persistent copy lines of the variant table (section `persistent_copy`): the strided copy
//! (`memcpy.rs`) as one wave that streams over the whole buffer, so that its bytes in flight are
//! held for the whole copy rather than once per block.
//!
//! The grid is SMs x blocks per SM, every block resident at once. Thread g of the grid's G
//! threads copies, in rounds r = 0, 1, ..., the vectors g + (r*LOADS + i)*G (i < LOADS) of WIDTH
//! floats each: it issues the round's LOADS loads, then its LOADS stores, then the next round's
//! loads. Each round of the grid moves G*LOADS consecutive vectors, and a thread's loads of a round
//! wait on nothing but its stores of the round before, which do not wait at all: so every warp
//! keeps LOADS accesses in flight from its first round to its last, where a memcpy grid point's
//! warps keep them once and exit. Only the last round may be partial ([`PersistentCopyLine::fill`]).

use crate::sections::limits::{MAX_LOADS, MAX_THREADS, REGISTER_FILE};
use crate::sections::text_rules::str_eq;

/// Lanes of a warp: a line's blocks are whole warps.
const WARP: u32 = 32;

/// One persistent copy kernel: the strided copy's (threads, loads, width), looping over the copy.
/// Every entry takes the memcpy parameters `(src, dst, n)` and copies the whole vectors of `n`
/// floats, as the memcpy grid's points do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PersistentCopyLine {
    /// Threads per block (whole warps; also the entry's launch bound).
    pub threads: u32,
    /// Loads each thread issues per round before the round's first store.
    pub loads: u32,
    /// Floats per access: 1, 2 (one 8-byte access) or 4 (one 16-byte access).
    pub width: u32,
    /// Exported PTX entry name, `stream_copy_t{THREADS}_l{LOADS}_w{WIDTH}`.
    pub entry: &'static str,
    /// The same copy with its rounds stamped (`sections/copy_samples.rs`), never timed:
    /// `{entry}_sampled`, with the same parameters and launch bound.
    pub sampled: &'static str,
}

impl PersistentCopyLine {
    /// Bytes each thread keeps in flight through every round (its loads of a round).
    pub const fn bytes_per_thread(&self) -> u32 {
        4 * self.loads * self.width
    }
    /// Bytes in flight per SM at `blocks_per_sm` resident blocks, held from the first round to
    /// the last (the time average is this times [`fill`](Self::fill)).
    pub const fn bytes_in_flight_per_sm(&self, blocks_per_sm: u32) -> u64 {
        blocks_per_sm as u64 * self.threads as u64 * self.bytes_per_thread() as u64
    }
    /// Blocks of the launch: one wave, `blocks_per_sm` on each of `sms` SMs.
    pub const fn grid(&self, blocks_per_sm: u32, sms: u32) -> u64 {
        blocks_per_sm as u64 * sms as u64
    }
    /// Vectors one round of the whole grid moves.
    pub const fn vectors_per_round(&self, blocks_per_sm: u32, sms: u32) -> u64 {
        self.grid(blocks_per_sm, sms) * self.threads as u64 * self.loads as u64
    }
    /// Whole vectors of `n` floats: what the copy moves (a tail of fewer than WIDTH floats is
    /// left, as the memcpy grid's points leave it).
    pub const fn vectors(&self, n: u64) -> u64 {
        n / self.width as u64
    }
    /// Rounds the grid runs over `n` floats (the last may be partial); 0 for an empty copy.
    pub const fn rounds(&self, n: u64, blocks_per_sm: u32, sms: u32) -> u64 {
        let per_round = self.vectors_per_round(blocks_per_sm, sms);
        if per_round == 0 {
            return 0;
        }
        self.vectors(n).div_ceil(per_round)
    }
    /// The rounds' mean fill: vectors moved over the rounds' capacity, so 1 when every round is
    /// full and less by the last round's empty share. Each round takes about one loaded latency
    /// whatever its fill, so the time-averaged bytes in flight are the nominal ones times this.
    /// 0 for an empty copy.
    pub fn fill(&self, n: u64, blocks_per_sm: u32, sms: u32) -> f64 {
        let rounds = self.rounds(n, blocks_per_sm, sms);
        if rounds == 0 {
            return 0.0;
        }
        let capacity = rounds as f64 * self.vectors_per_round(blocks_per_sm, sms) as f64;
        self.vectors(n) as f64 / capacity
    }
}

/// Why a line cannot be built, or None.
pub const fn persistent_copy_misfit(threads: u32, loads: u32, width: u32) -> Option<&'static str> {
    if threads == 0 || !threads.is_multiple_of(WARP) || threads > MAX_THREADS {
        return Some("threads must be whole warps, at most 1024");
    }
    if loads == 0 || loads > MAX_LOADS {
        return Some("loads must be 1..=64");
    }
    if width != 1 && width != 2 && width != 4 {
        return Some("width must be 1, 2 or 4 floats");
    }
    // A block's staged floats must leave half the register file to its addresses and indices:
    // past that the build spills at its launch bound, and the loads are not all in flight.
    if threads * loads * width > REGISTER_FILE / 2 {
        return Some("a block's staged floats take more than half the register file");
    }
    None
}

/// No two lines with the same entry (so with the same sampled entry).
pub const fn persistent_copy_lines_unique(lines: &[PersistentCopyLine]) -> bool {
    no_two_alike!(lines, |a, b| str_eq(a.entry, b.entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: PersistentCopyLine = PersistentCopyLine {
        threads: 256,
        loads: 4,
        width: 4,
        entry: "stream_copy_t256_l4_w4",
        sampled: "stream_copy_t256_l4_w4_sampled",
    };

    #[test]
    fn a_line_holds_its_loads_per_sm_and_counts_its_rounds() {
        // 256 threads x 4 loads x 16 B = 16 KiB per block.
        assert_eq!(LINE.bytes_per_thread(), 64);
        assert_eq!(LINE.bytes_in_flight_per_sm(1), 16 * 1024);
        assert_eq!(LINE.bytes_in_flight_per_sm(2), 32 * 1024);
        assert_eq!(LINE.grid(2, 132), 264);
        // One round of 132 blocks: 132 x 256 x 4 vectors of 4 floats.
        let round = 132 * 256 * 4;
        assert_eq!(LINE.vectors_per_round(1, 132), round);
        let floats = |vectors: u64| vectors * 4;
        assert_eq!(LINE.rounds(floats(3 * round), 1, 132), 3);
        assert_eq!(LINE.fill(floats(3 * round), 1, 132), 1.0);
        // One vector more takes a fourth round with one vector in it.
        assert_eq!(LINE.rounds(floats(3 * round + 1), 1, 132), 4);
        let fill = LINE.fill(floats(3 * round + 1), 1, 132);
        assert!((fill - (3 * round + 1) as f64 / (4 * round) as f64).abs() < 1e-15);
        // A tail of fewer than WIDTH floats is not a vector; nothing to copy is no round.
        assert_eq!(LINE.rounds(floats(3 * round) + 3, 1, 132), 3);
        assert_eq!((LINE.rounds(0, 1, 132), LINE.fill(0, 1, 132)), (0, 0.0));
        assert_eq!(LINE.rounds(100, 0, 132), 0, "no grid, no rounds");
    }

    #[test]
    fn the_default_copy_leaves_its_last_round_nearly_empty() {
        // 128 MiB over 132 SMs at 32 KiB in flight per SM: 31.03 rounds' worth run as 32, so the
        // time average falls 3% short of the nominal bytes.
        let n = (128u64 << 20) / 4;
        let l = PersistentCopyLine { loads: 8, ..LINE };
        assert_eq!(l.rounds(n, 1, 132), 32);
        let want = (n / 4) as f64 / (32.0 * 132.0 * 256.0 * 8.0);
        assert!((l.fill(n, 1, 132) - want).abs() < 1e-15);
        assert!((0.96..0.98).contains(&want));
    }

    #[test]
    fn misfits_are_named() {
        assert_eq!(persistent_copy_misfit(256, 4, 4), None);
        assert!(persistent_copy_misfit(100, 4, 4)
            .unwrap()
            .contains("whole warps"));
        assert!(persistent_copy_misfit(2048, 1, 1).unwrap().contains("1024"));
        assert!(persistent_copy_misfit(256, 0, 4).unwrap().contains("loads"));
        assert!(persistent_copy_misfit(256, 65, 1)
            .unwrap()
            .contains("loads"));
        assert!(persistent_copy_misfit(256, 4, 3).unwrap().contains("width"));
        assert!(persistent_copy_misfit(1024, 16, 4)
            .unwrap()
            .contains("register"));
        assert_eq!(persistent_copy_misfit(1024, 8, 4), None, "exactly half");
        let other = PersistentCopyLine {
            entry: "stream_copy_t256_l8_w4",
            ..LINE
        };
        assert!(persistent_copy_lines_unique(&[LINE, other]));
        assert!(!persistent_copy_lines_unique(&[LINE, other, LINE]));
    }
}
