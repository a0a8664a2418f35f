//! The copy samples: what a persistent copy line's `_sampled` entry records, beside (never
//! inside) its timed launches, so that the host can check the line's nominal bytes in flight
//! (every warp's loads outstanding all the time) against in-kernel timestamps. A sampled entry
//! runs the same kernel function as the line's entry (`kernels/persistent_copy.rs`); the only
//! additions are clock reads and stores to the module global [`SAMPLES_SYMBOL`] by lane 0 of
//! the sampled warps.
//!
//! The sampled warp is warp 0 of each block: every block, so every SM, is sampled (the law is
//! per SM, and one SM could be an outlier), and one warp a block, so that the recording's own
//! cost stays within one warp of the block's; the block's other warps run the same rounds on
//! the same schedule. Block `b` (linear, `ctaid.x`) owns words `b * WORDS_PER_BLOCK ..`; blocks
//! at or past [`SAMPLE_BLOCKS`] record nothing (the host refuses such a launch). The host zeroes
//! the words of a launch's blocks before it.
//!
//! Per round (the first [`ROUND_SLOTS`] rounds of the warp, consecutive, so the span from the
//! first round's issue stamp to the last recorded round's end stamp covers every gap between
//! them) lane 0 stores three `%clock64` stamps: [`ISSUE`] before the round's loads are issued,
//! [`RETURNED`] once the round's stores are issued (they consume the loaded values, so every
//! load of the round has returned), [`END`] at the round's end (the loop's step is all that lies
//! between the two; the stamps' own stores and the next round's range check follow it, inside
//! the span the host takes). Once per block it stores `%globaltimer` and
//! `%clock64` before the first round and after the last, and `%smid`, so that the host converts
//! cycles to ns with the clock the SM ran at during the same launch.

/// The sampled entries' module global: `SAMPLE_BLOCKS * WORDS_PER_BLOCK` u64 words.
pub const SAMPLES_SYMBOL: &str = "lab_copy_samples";
/// Blocks a sampled launch can record (a persistent copy launches SMs x blocks/SM).
pub const SAMPLE_BLOCKS: usize = 1024;
/// Rounds recorded per sampled warp: its first ones. 128 covers every round of a 128 MiB copy
/// on 132 SMs at 8 KiB in flight per SM or more, the table's least.
pub const ROUND_SLOTS: usize = 128;
/// Words before the rounds' stamps.
pub const HEADER_WORDS: usize = 6;
/// Words per recorded round.
pub const WORDS_PER_ROUND: usize = 3;
/// u64 words per block.
pub const WORDS_PER_BLOCK: usize = HEADER_WORDS + ROUND_SLOTS * WORDS_PER_ROUND;
/// Total u64 words of the global.
pub const SAMPLE_WORDS: usize = SAMPLE_BLOCKS * WORDS_PER_BLOCK;

/// `%globaltimer` (ns) before the warp's first round.
pub const START_NS: usize = 0;
/// `%globaltimer` (ns) after the warp's last round.
pub const END_NS: usize = 1;
/// `%clock64` before the warp's first round (read right after [`START_NS`]).
pub const START_CYCLES: usize = 2;
/// `%clock64` after the warp's last round (read right after [`END_NS`]).
pub const END_CYCLES: usize = 3;
/// `%smid` of the SM the block ran on.
pub const SM: usize = 4;
/// Rounds the sampled warp ran (recorded or not); stored after the last round, so a block that
/// never finished leaves it 0.
pub const ROUNDS: usize = 5;
/// Within a round's words: `%clock64` before the round's loads.
pub const ISSUE: usize = 0;
/// Within a round's words: `%clock64` after the round's stores are issued.
pub const RETURNED: usize = 1;
/// Within a round's words: `%clock64` at the round's end.
pub const END: usize = 2;
/// The suffix that names a line's sampled entry after its entry.
pub const SAMPLED_SUFFIX: &str = "_sampled";

/// The first word of `round`'s stamps in a block's words (None past the recorded rounds).
pub const fn round_word(round: usize) -> Option<usize> {
    if round < ROUND_SLOTS {
        Some(HEADER_WORDS + round * WORDS_PER_ROUND)
    } else {
        None
    }
}

/// One round's stamps (cycles of the SM's `%clock64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundStamps {
    pub issue: u64,
    pub returned: u64,
    pub end: u64,
}

/// One sampled warp's words, as the host reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpSamples {
    pub start_ns: u64,
    pub end_ns: u64,
    pub start_cycles: u64,
    pub end_cycles: u64,
    pub sm: u32,
    /// Rounds the warp ran.
    pub rounds: u64,
    /// Its first `min(rounds, ROUND_SLOTS)` rounds' stamps.
    pub recorded: [RoundStamps; ROUND_SLOTS],
}

impl WarpSamples {
    /// The samples of one block's [`WORDS_PER_BLOCK`] words.
    pub fn from_words(w: &[u64; WORDS_PER_BLOCK]) -> Self {
        let recorded = core::array::from_fn(|r| {
            let at = HEADER_WORDS + r * WORDS_PER_ROUND;
            RoundStamps {
                issue: w[at + ISSUE],
                returned: w[at + RETURNED],
                end: w[at + END],
            }
        });
        WarpSamples {
            start_ns: w[START_NS],
            end_ns: w[END_NS],
            start_cycles: w[START_CYCLES],
            end_cycles: w[END_CYCLES],
            sm: w[SM] as u32,
            rounds: w[ROUNDS],
            recorded,
        }
    }

    /// The rounds whose stamps were recorded.
    pub fn recorded_rounds(&self) -> &[RoundStamps] {
        let n = (self.rounds as usize).min(ROUND_SLOTS);
        &self.recorded[..n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blocks_words_read_back_as_its_samples() {
        let mut w = [0u64; WORDS_PER_BLOCK];
        w[START_NS] = 1_000;
        w[END_NS] = 2_000;
        w[START_CYCLES] = 10;
        w[END_CYCLES] = 1_990;
        w[SM] = 131;
        w[ROUNDS] = 2;
        for r in 0..2 {
            let at = round_word(r).unwrap();
            w[at + ISSUE] = 100 + 1000 * r as u64;
            w[at + RETURNED] = 700 + 1000 * r as u64;
            w[at + END] = 1_000 + 1000 * r as u64;
        }
        let s = WarpSamples::from_words(&w);
        assert_eq!((s.sm, s.rounds, s.end_cycles), (131, 2, 1_990));
        assert_eq!(
            s.recorded_rounds(),
            &[
                RoundStamps {
                    issue: 100,
                    returned: 700,
                    end: 1_000
                },
                RoundStamps {
                    issue: 1_100,
                    returned: 1_700,
                    end: 2_000
                }
            ]
        );
        // More rounds than slots: only the slots' are read; none past them has a word.
        w[ROUNDS] = 1_000;
        assert_eq!(
            WarpSamples::from_words(&w).recorded_rounds().len(),
            ROUND_SLOTS
        );
        assert_eq!(round_word(ROUND_SLOTS), None);
        assert_eq!(
            round_word(ROUND_SLOTS - 1),
            Some(WORDS_PER_BLOCK - WORDS_PER_ROUND)
        );
    }
}
