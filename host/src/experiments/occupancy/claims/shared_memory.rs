//! Volkov's second fallacy, "shared memory is as fast as registers", judged on the GEMM lines
//! that read shared memory faster than it can serve them at the FP32 peak.

use super::super::row::GemmRow;
use crate::claim::{decide, faster, ratio_words, with_exclusions, Claim, Verdict, NOT_RUN};
use crate::confidence::{Interval, NoInterval};
use crate::experiments::row_views::two_passing;

/// Shared-memory words an SM serves a cycle (32 banks of 4 bytes on sm_80 and later) against
/// the FFMAs its FP32 pipes issue (128): a tile reading more words per FFMA than their ratio can
/// be held under the FP32 peak by shared memory alone.
pub const SHARED_WORDS_PER_FFMA_AT_PEAK: f64 = 32.0 / 128.0;
/// Two figures agree when their ratio's interval lies within this band around 1.
pub const AGREE_WITHIN: f64 = 0.10;

/// Shared-memory words (4 bytes) a GEMM line's threads read per FFMA: each step of K, a thread
/// reads TM values of A and TN of B for TM x TN FFMAs.
pub fn shared_words_per_ffma(r: &GemmRow) -> f64 {
    f64::from(r.tm + r.tn) / f64::from((r.tm * r.tn).max(1))
}

const CLAIM_SMEM: &str = "Shared memory is as fast as registers (Volkov's second fallacy: it is \
not).";
const RULE_SMEM: &str = "Each GEMM line reads (TM + TN) / (TM x TN) shared-memory words per FFMA. \
Take the checked lines reading more than 1/4 (where shared memory, 32 words a cycle against 128 \
FFMAs, can hold them under the FP32 peak), and of those the two with the most and the fewest \
words per FFMA. If shared memory were as fast as registers the words would not matter; if it \
caps the lines, both read shared memory at the same rate (GFLOP/s / 2 x words per FFMA). DOES \
NOT HOLD when the line with fewer words is faster (its GFLOP/s over the other's wholly above 1) \
and the two shared-memory word rates agree within 10% (their ratio's interval inside 0.9 to \
1.1); HOLDS when the two GFLOP/s agree within 10%; NOT JUDGED otherwise, or without two such \
lines of different words per FFMA.";

/// Volkov's second fallacy: shared memory is as fast as registers.
pub fn shared_memory_as_fast_as_registers(rows: Option<&[GemmRow]>) -> Verdict {
    let claim = Claim::interval("shared-memory-as-fast-as-registers", CLAIM_SMEM, RULE_SMEM);
    claim.judge(|| {
        let (ok, failed) = two_passing(rows.ok_or(NOT_RUN)?, "GEMM variants")?;
        let mut capped: Vec<&GemmRow> = ok
            .iter()
            .copied()
            .filter(|r| shared_words_per_ffma(r) > SHARED_WORDS_PER_FFMA_AT_PEAK)
            .collect();
        capped.sort_by(|a, b| shared_words_per_ffma(a).total_cmp(&shared_words_per_ffma(b)));
        let lines = capped
            .iter()
            .map(|r| {
                format!(
                    "{} {:.3} words/FFMA {:.0} GFLOP/s ({:.0} G words/s)",
                    r.variant,
                    shared_words_per_ffma(r),
                    r.figures.gflops,
                    r.figures.gflops / 2.0 * shared_words_per_ffma(r)
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let (Some(&few), Some(&most)) = (capped.first(), capped.last()) else {
            return Err(with_exclusions(
                "no checked line reads more than 1/4 shared word per FFMA".into(),
                &failed,
            ));
        };
        let (w_few, w_most) = (shared_words_per_ffma(few), shared_words_per_ffma(most));
        if (w_most - w_few).abs() < 1e-9 {
            let why = format!("the lines past 1/4 word per FFMA all read as many: {lines}");
            return Err(with_exclusions(why, &failed));
        }
        let gflops = few.figures.over(&most.figures);
        // The word rates' ratio is the GFLOP/s ratio scaled by the words per FFMA.
        let words = gflops.clone().map(|iv| Interval {
            point: iv.point * w_few / w_most,
            lo: iv.lo * w_few / w_most,
            hi: iv.hi * w_few / w_most,
        });
        let within = |r: &Result<Interval, NoInterval>| {
            r.as_ref()
                .ok()
                .map(|iv| iv.lo >= 1.0 - AGREE_WITHIN && iv.hi <= 1.0 + AGREE_WITHIN)
        };
        let holds = decide(
            within(&gflops) == Some(true),
            faster(&gflops) == Some(true) && within(&words) == Some(true),
        );
        let ev = format!(
            "{lines}; {} over {}: GFLOP/s {}, shared-memory words/s {}",
            few.variant,
            most.variant,
            ratio_words(&gflops),
            ratio_words(&words)
        );
        Ok((holds, with_exclusions(ev, &failed)))
    })
}
