//! What the in-kernel stamps of one sampled persistent copy say (`sections/copy_samples.rs`):
//! how much of each round its sampled warps had loads outstanding, how long a round's loads took
//! to return, and the SM clock from the same stamps. CPU side: the arithmetic on the words the
//! sampled launch left ([`super::sampled_run`] launches it).
//!
//! Per sampled warp (warp 0 of each block), over its recorded rounds (its first ones, in a row):
//! loads are outstanding from a round's issue stamp to its returned stamp (the round's stores
//! are issued by then, so every load has returned; the stores' issue is inside, so this bounds
//! the loads' latency from above); the span is from the first round's issue stamp to the last
//! recorded round's end stamp, gaps between rounds (the stamps' own stores, the loop) included.
//! The outstanding fraction is the warps' loaded cycles over their spans, pooled; the time-average
//! bytes in flight per SM are the nominal ones times it (every warp of a block runs the rounds
//! the sampled one does).

use kernels_gpu::sections::copy_samples::{RoundStamps, WarpSamples};
use serde::{Deserialize, Serialize};

use crate::results::Check;

/// One sampled launch of a persistent copy: the stamps' figures, its own GB/s and check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CopySamples {
    /// Sampled warps read (one per block).
    pub warps: u32,
    /// Rounds recorded over all of them.
    pub rounds: u64,
    /// Share of the recorded rounds' span with the round's loads outstanding.
    pub outstanding: f64,
    /// Mean cycles from a round's issue stamp to its returned stamp.
    pub latency_cycles: f64,
    /// The SM clock over the launch from the same warps' stamps: `%clock64` cycles over
    /// `%globaltimer` ns, pooled (GHz).
    pub clock_ghz: f64,
    /// The sampled launch's GB/s (read + written, one launch timed by events): beside the timed
    /// entry's, the recording's own cost.
    pub gbps: f64,
    /// The sampled launch's copy, checked as the timed copy's is.
    pub check: Check,
}

impl CopySamples {
    /// The mean load latency in ns, at the clock the stamps give.
    pub fn latency_ns(&self) -> f64 {
        self.latency_cycles / self.clock_ghz
    }

    /// Bytes in flight per SM averaged over time: `nominal` (every warp's loads outstanding all
    /// the time) times the outstanding share.
    pub fn time_averaged_bytes(&self, nominal: u64) -> f64 {
        nominal as f64 * self.outstanding
    }
}

/// Stamps the figures cannot be taken from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SampleError {
    #[error("no sampled warp recorded a round")]
    NoRounds,
    #[error("block {block}: no round recorded (its warp 0 never finished?)")]
    Unfinished { block: usize },
    #[error("block {block}, round {round}: {what} (stamps out of order)")]
    OutOfOrder {
        block: usize,
        round: usize,
        what: &'static str,
    },
    #[error("block {block}, round {round}: a round of zero cycles")]
    ZeroRound { block: usize, round: usize },
    #[error(
        "block {block}: its clocks do not advance over the launch ({cycles} cycles in {ns} ns)"
    )]
    NoClock { block: usize, cycles: u64, ns: u64 },
}

/// The stamps' figures (the launch's GB/s and check come from the host).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StampFigures {
    pub warps: u32,
    pub rounds: u64,
    pub outstanding: f64,
    pub latency_cycles: f64,
    pub clock_ghz: f64,
}

/// `b - a` where `a <= b`, else the error: stamps never wrap (64-bit counters), so a later stamp
/// below an earlier one is a fault of the recording, never a wrap to undo.
fn since(
    a: u64,
    b: u64,
    block: usize,
    round: usize,
    what: &'static str,
) -> Result<u64, SampleError> {
    b.checked_sub(a)
        .ok_or(SampleError::OutOfOrder { block, round, what })
}

/// One warp's loaded cycles and span over its recorded rounds.
fn warp_cycles(block: usize, rounds: &[RoundStamps]) -> Result<(u64, u64), SampleError> {
    let (Some(first), Some(last)) = (rounds.first(), rounds.last()) else {
        return Err(SampleError::Unfinished { block });
    };
    let mut loaded = 0;
    for (round, s) in rounds.iter().enumerate() {
        loaded += since(s.issue, s.returned, block, round, "returned before issue")?;
        since(s.returned, s.end, block, round, "ended before returned")?;
        if s.end == s.issue {
            return Err(SampleError::ZeroRound { block, round });
        }
        if let Some(next) = rounds.get(round + 1) {
            since(
                s.end,
                next.issue,
                block,
                round,
                "the next round issued before it ended",
            )?;
        }
    }
    Ok((loaded, last.end - first.issue))
}

/// The figures of the sampled warps' stamps (one entry per block of the launch).
pub fn stamp_figures(warps: &[WarpSamples]) -> Result<StampFigures, SampleError> {
    let (mut loaded, mut span, mut rounds) = (0u64, 0u64, 0u64);
    let (mut cycles, mut ns) = (0u64, 0u64);
    for (block, w) in warps.iter().enumerate() {
        let recorded = w.recorded_rounds();
        let (l, s) = warp_cycles(block, recorded)?;
        loaded += l;
        span += s;
        rounds += recorded.len() as u64;
        // A clock that did not advance (or went back) reads as zero: refused below.
        let c = w.end_cycles.saturating_sub(w.start_cycles);
        let t = w.end_ns.saturating_sub(w.start_ns);
        if c == 0 || t == 0 {
            return Err(SampleError::NoClock {
                block,
                cycles: c,
                ns: t,
            });
        }
        cycles += c;
        ns += t;
    }
    if rounds == 0 {
        return Err(SampleError::NoRounds);
    }
    Ok(StampFigures {
        warps: warps.len() as u32,
        rounds,
        outstanding: loaded as f64 / span as f64,
        latency_cycles: loaded as f64 / rounds as f64,
        clock_ghz: cycles as f64 / ns as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_gpu::sections::copy_samples::{RoundStamps, ROUND_SLOTS};

    /// A warp of `rounds` rounds of `loaded` cycles with loads outstanding then `rest` more,
    /// back to back from cycle 1000, over `ns` of the global timer.
    fn warp(rounds: u64, loaded: u64, rest: u64, ns: u64) -> WarpSamples {
        let mut recorded = [RoundStamps {
            issue: 0,
            returned: 0,
            end: 0,
        }; ROUND_SLOTS];
        let length = loaded + rest;
        for (r, s) in recorded.iter_mut().enumerate().take(rounds as usize) {
            let issue = 1000 + r as u64 * length;
            *s = RoundStamps {
                issue,
                returned: issue + loaded,
                end: issue + length,
            };
        }
        WarpSamples {
            start_ns: 5_000,
            end_ns: 5_000 + ns,
            start_cycles: 900,
            end_cycles: 1000 + rounds * length + 100,
            sm: 0,
            rounds,
            recorded,
        }
    }

    #[test]
    fn fake_stamps_give_the_outstanding_share_the_latency_and_the_clock() {
        // 10 rounds of 900 loaded cycles out of 1000: 90% outstanding, 900 cycles of latency;
        // 10,200 cycles over 6,000 ns: 1.7 GHz.
        let f = stamp_figures(&[warp(10, 900, 100, 6_000)]).unwrap();
        assert_eq!((f.warps, f.rounds), (1, 10));
        assert!((f.outstanding - 0.9).abs() < 1e-12, "{f:?}");
        assert!((f.latency_cycles - 900.0).abs() < 1e-12);
        assert!((f.clock_ghz - 1.7).abs() < 1e-12);
        // Two warps pool their cycles: (9000 + 5000) / (10000 + 10000).
        let f = stamp_figures(&[warp(10, 900, 100, 6_000), warp(20, 250, 250, 6_000)]).unwrap();
        assert!((f.outstanding - 0.7).abs() < 1e-12, "{f:?}");
        assert!((f.latency_cycles - 14_000.0 / 30.0).abs() < 1e-9);
        let s = CopySamples {
            warps: 2,
            rounds: 30,
            outstanding: 0.5,
            latency_cycles: 850.0,
            clock_ghz: 1.7,
            gbps: 1.0,
            check: Check {
                passed: true,
                error: 0.0,
                bound: 0.0,
                what: String::new(),
                hashes: None,
            },
        };
        assert_eq!(s.time_averaged_bytes(32_768), 16_384.0);
        assert!((s.latency_ns() - 500.0).abs() < 1e-9);
    }

    #[test]
    fn a_gap_between_rounds_counts_in_the_span() {
        let mut w = warp(2, 500, 500, 1_000);
        // The second round starts 1000 cycles late: 1000 loaded over a span of 3000.
        w.recorded[1].issue += 1000;
        w.recorded[1].returned += 1000;
        w.recorded[1].end += 1000;
        let f = stamp_figures(&[w]).unwrap();
        assert!((f.outstanding - 1.0 / 3.0).abs() < 1e-12, "{f:?}");
    }

    #[test]
    fn stamps_out_of_order_are_refused_not_wrapped() {
        let mut w = warp(3, 500, 500, 1_000);
        w.recorded[1].returned = w.recorded[1].issue - 1;
        assert!(matches!(
            stamp_figures(&[w]),
            Err(SampleError::OutOfOrder { round: 1, .. })
        ));
        let mut w = warp(3, 500, 500, 1_000);
        w.recorded[2].issue = w.recorded[1].end - 1;
        w.recorded[2].returned = w.recorded[2].issue;
        assert!(matches!(
            stamp_figures(&[w]),
            Err(SampleError::OutOfOrder { round: 1, .. })
        ));
    }

    #[test]
    fn a_round_of_zero_length_a_silent_warp_or_a_still_clock_is_refused() {
        let z = stamp_figures(&[warp(3, 0, 0, 1_000)]);
        assert_eq!(z, Err(SampleError::ZeroRound { block: 0, round: 0 }));
        let silent = stamp_figures(&[warp(3, 500, 500, 1_000), warp(0, 500, 500, 1_000)]);
        assert_eq!(silent, Err(SampleError::Unfinished { block: 1 }));
        let still = stamp_figures(&[warp(3, 500, 500, 0)]);
        assert!(matches!(still, Err(SampleError::NoClock { block: 0, .. })));
        assert_eq!(stamp_figures(&[]), Err(SampleError::NoRounds));
    }
}
