//! What a GEMM row's block trace (`kernels_gpu::sections::block_trace`) says, as pure arithmetic
//! on the blocks' records: the achieved occupancy beside the theoretical one, and the SM clock
//! the kernel ran at, from inside it, with the per-clock figures of the row's throughput. The
//! traced launch itself (`gemm_sides_trace.rs`) is one untimed launch per row, beside the timed
//! samples, never among them.

use kernels_gpu::sections::block_trace::{
    BlockRecord, TRACED_SUFFIX, TRACE_BLOCKS, WORDS_PER_BLOCK,
};
use serde::{Deserialize, Serialize};

/// The name of the traced entry of a GEMM line whose entry is `entry`: the one place it is made.
pub fn traced_entry(entry: &str) -> String {
    format!("{entry}{TRACED_SUFFIX}")
}

/// A row's block trace: its figures, or why it has none (the row's timed figures stand either
/// way).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockTrace {
    Traced(TraceFigures),
    Failed(String),
}

impl BlockTrace {
    pub fn figures(&self) -> Option<&TraceFigures> {
        match self {
            BlockTrace::Traced(f) => Some(f),
            BlockTrace::Failed(_) => None,
        }
    }
}

/// The figures of one traced launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceFigures {
    /// Blocks the launch recorded.
    pub blocks: u64,
    /// SMs that ran at least one block.
    pub sms_used: u32,
    /// Per SM, resident warps over the SM's active span (first block start to last block end
    /// on it) over its maximum warps; the mean over SMs weighted by their spans. 0..=1.
    pub achieved_occupancy: f64,
    /// Resident warps integrated over every SM of the device, over SMs x maximum warps x the
    /// kernel's span (first start to last end anywhere): counts idle SMs and the tail. 0..=1.
    pub kernel_occupancy: f64,
    /// First block start to last block end, ns.
    pub span_ns: u64,
    /// The SM clock inside the kernel: each block's cycles over its nanoseconds.
    pub clock: ClockMhz,
    /// The row's GFLOP/s per SM per cycle at [`ClockMhz::median`].
    pub flop_per_cycle_per_sm: Option<f64>,
    /// That over the family's peak FLOPs per SM per clock, 0..=1.
    pub of_peak_at_clock: Option<f64>,
    /// The traced build's registers/thread where ptxas gave it other than the timed build's
    /// (same blocks/SM and shared memory, or the trace is not used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traced_regs: Option<u32>,
}

/// Median, lowest and highest of the blocks' clocks, MHz.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClockMhz {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// Why a trace's records cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error("a grid of {blocks} blocks is more than the trace's {TRACE_BLOCKS}")]
    GridTooLarge { blocks: usize },
    #[error("block {block}: {done} warps left the body, the block has {warps}")]
    WarpsDone { block: usize, done: u64, warps: u64 },
    #[error("block {block}: it ended at {end} {unit}, before it started at {start} {unit}")]
    EndBeforeStart {
        block: usize,
        start: u64,
        end: u64,
        unit: &'static str,
    },
    #[error("block {block}: SM {sm} is not among the device's {sms}")]
    NoSuchSm { block: usize, sm: u32, sms: u32 },
    #[error("no block spanned a measurable time")]
    NoSpan,
    #[error("{words} words are not the records of {blocks} blocks")]
    Words { words: usize, blocks: usize },
}

/// Refuses a grid the trace cannot hold.
pub fn check_grid(blocks: usize) -> Result<(), TraceError> {
    if blocks > TRACE_BLOCKS {
        return Err(TraceError::GridTooLarge { blocks });
    }
    Ok(())
}

/// The records of `blocks` blocks of `warps` warps each from the trace's words, each checked:
/// every warp left the body, no end before its start, an SM the device has.
pub fn records(
    words: &[u64],
    blocks: usize,
    warps: u64,
    sms: u32,
) -> Result<Vec<BlockRecord>, TraceError> {
    check_grid(blocks)?;
    if words.len() < blocks * WORDS_PER_BLOCK {
        return Err(TraceError::Words {
            words: words.len(),
            blocks,
        });
    }
    let mut out = Vec::with_capacity(blocks);
    for (block, w) in words.chunks_exact(WORDS_PER_BLOCK).take(blocks).enumerate() {
        let r = BlockRecord::from_words(w.try_into().expect("chunks of WORDS_PER_BLOCK"));
        if r.warps_done != warps {
            return Err(TraceError::WarpsDone {
                block,
                done: r.warps_done,
                warps,
            });
        }
        for (start, end, unit) in [
            (r.start_ns, r.end_ns, "ns"),
            (r.start_cycles, r.end_cycles, "cycles"),
        ] {
            if end < start {
                return Err(TraceError::EndBeforeStart {
                    block,
                    start,
                    end,
                    unit,
                });
            }
        }
        if r.sm >= sms {
            return Err(TraceError::NoSuchSm {
                block,
                sm: r.sm,
                sms,
            });
        }
        out.push(r);
    }
    Ok(out)
}

/// Achieved occupancy of `records` (blocks of `warps` warps) on a device of `sms` SMs of
/// `max_warps` warps each: (span-weighted mean over the SMs used, whole kernel over all SMs).
/// A block holds its warps from its start to its end (its last warp's exit).
pub fn achieved_occupancy(
    records: &[BlockRecord],
    warps: u64,
    sms: u32,
    max_warps: u32,
) -> Result<(f64, f64), TraceError> {
    // Per SM: first start, last end, warp-nanoseconds.
    let mut per_sm: Vec<Option<(u64, u64, f64)>> = vec![None; sms as usize];
    for (block, r) in records.iter().enumerate() {
        let held = warps as f64 * r.end_ns.saturating_sub(r.start_ns) as f64;
        let Some(slot) = per_sm.get_mut(r.sm as usize) else {
            return Err(TraceError::NoSuchSm {
                block,
                sm: r.sm,
                sms,
            });
        };
        *slot = Some(match *slot {
            None => (r.start_ns, r.end_ns, held),
            Some((s, e, w)) => (s.min(r.start_ns), e.max(r.end_ns), w + held),
        });
    }
    let used = per_sm.iter().flatten();
    let spans: f64 = used.clone().map(|&(s, e, _)| (e - s) as f64).sum();
    let held: f64 = used.map(|&(_, _, w)| w).sum();
    let first = records.iter().map(|r| r.start_ns).min();
    let last = records.iter().map(|r| r.end_ns).max();
    let kernel = match (first, last) {
        (Some(f), Some(l)) => l.saturating_sub(f) as f64,
        _ => 0.0,
    };
    if spans <= 0.0 || kernel <= 0.0 {
        return Err(TraceError::NoSpan);
    }
    let max = f64::from(max_warps.max(1));
    // Sum over SMs of span x (held / span / max), over the sum of spans.
    let weighted = held / (max * spans);
    let whole = held / (f64::from(sms) * max * kernel);
    Ok((weighted, whole))
}

/// Each block's clock, cycles over nanoseconds in MHz (blocks whose span is under the timer's
/// resolution are left out): median, min and max.
pub fn clock_mhz(records: &[BlockRecord]) -> Result<ClockMhz, TraceError> {
    let mut mhz: Vec<f64> = records
        .iter()
        .filter(|r| r.end_ns > r.start_ns)
        .map(|r| {
            let cycles = r.end_cycles.saturating_sub(r.start_cycles);
            cycles as f64 * 1e3 / (r.end_ns - r.start_ns) as f64
        })
        .collect();
    if mhz.is_empty() {
        return Err(TraceError::NoSpan);
    }
    mhz.sort_by(f64::total_cmp);
    let n = mhz.len();
    let median = if n % 2 == 1 {
        mhz[n / 2]
    } else {
        (mhz[n / 2 - 1] + mhz[n / 2]) / 2.0
    };
    Ok(ClockMhz {
        median,
        min: mhz[0],
        max: mhz[n - 1],
    })
}

/// What the trace needs to know of the device and the row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceBasis {
    pub sms: u32,
    pub max_warps_per_sm: u32,
    /// Warps per block of the launch.
    pub warps: u64,
    /// The row's GFLOP/s (its timed median).
    pub gflops: f64,
    /// The family's peak FLOPs per SM per clock, where the lab knows it.
    pub peak_flops_per_sm_clock: Option<f64>,
}

/// The figures of a traced launch of `blocks` blocks from its words.
pub fn figures(
    words: &[u64],
    blocks: usize,
    basis: TraceBasis,
) -> Result<TraceFigures, TraceError> {
    let recs = records(words, blocks, basis.warps, basis.sms)?;
    let (achieved, whole) =
        achieved_occupancy(&recs, basis.warps, basis.sms, basis.max_warps_per_sm)?;
    let clock = clock_mhz(&recs)?;
    let mut sms_used: Vec<u32> = recs.iter().map(|r| r.sm).collect();
    sms_used.sort_unstable();
    sms_used.dedup();
    let first = recs.iter().map(|r| r.start_ns).min().unwrap_or(0);
    let last = recs.iter().map(|r| r.end_ns).max().unwrap_or(0);
    let per_cycle = flop_per_cycle_per_sm(basis.gflops, basis.sms, clock.median);
    Ok(TraceFigures {
        blocks: blocks as u64,
        sms_used: sms_used.len() as u32,
        achieved_occupancy: achieved,
        kernel_occupancy: whole,
        span_ns: last - first,
        clock,
        flop_per_cycle_per_sm: per_cycle,
        of_peak_at_clock: per_cycle
            .zip(basis.peak_flops_per_sm_clock)
            .filter(|&(_, peak)| peak > 0.0)
            .map(|(f, peak)| f / peak),
        traced_regs: None,
    })
}

/// FLOPs per SM per clock of `gflops` on `sms` SMs at `mhz` (NVML's clock or the kernel's own).
pub fn flop_per_cycle_per_sm(gflops: f64, sms: u32, mhz: f64) -> Option<f64> {
    (sms > 0 && mhz > 0.0).then(|| gflops * 1e3 / (f64::from(sms) * mhz))
}

/// The peak FLOPs per SM per clock behind a spec peak of `peak_gflops` on `sms` SMs at
/// `clock_khz` (the lab's peaks are per-clock rates times SMs times the driver's clock).
pub fn peak_per_sm_clock(peak_gflops: f64, sms: u32, clock_khz: u32) -> Option<f64> {
    let per = peak_gflops * 1e9 / (f64::from(sms) * f64::from(clock_khz) * 1e3);
    (per.is_finite() && per > 0.0).then_some(per.round())
}

/// What the driver says a function needs: the traced entry must need what the timed one does,
/// or its trace would describe another kernel's residency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    pub regs: u32,
    pub static_smem: u32,
    pub dyn_smem: u32,
    pub blocks_per_sm: u32,
}

impl Footprint {
    /// How `traced` differs from this (the timed entry's) in what sets residency: shared
    /// memory and blocks/SM, in words; None where it does not. Registers are not part of it:
    /// ptxas may allocate a traced build a register more or fewer (the sm_90a mma.sync lines'
    /// traced builds take one fewer), which moves no block, so such a trace still describes the
    /// timed build's residency; [`Footprint::traced_regs`] keeps the difference for the notes.
    pub fn differs(&self, traced: &Footprint) -> Option<String> {
        let parts: Vec<String> = [
            (
                "static shared memory (B)",
                self.static_smem,
                traced.static_smem,
            ),
            ("dynamic shared memory (B)", self.dyn_smem, traced.dyn_smem),
            ("blocks/SM", self.blocks_per_sm, traced.blocks_per_sm),
        ]
        .into_iter()
        .filter(|(_, timed, traced)| timed != traced)
        .map(|(what, timed, traced)| format!("{what} {traced}, the timed entry's {timed}"))
        .collect();
        (!parts.is_empty()).then(|| format!("the traced entry differs: {}", parts.join(", ")))
    }

    /// The traced build's registers/thread where they are not the timed build's.
    pub fn traced_regs(&self, traced: &Footprint) -> Option<u32> {
        (traced.regs != self.regs).then_some(traced.regs)
    }
}

#[cfg(test)]
#[path = "block_trace_tests.rs"]
mod tests;
