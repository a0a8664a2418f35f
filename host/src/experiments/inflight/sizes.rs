//! The copy-size sweep: the sweep's fastest point run again over copies from a few MiB to a few
//! GiB, each size against its own device-to-device copy (`cuMemcpyDtoD` of the same buffers), to
//! show where the L2 stops serving a copy and both fall to the DRAM's rate. A copy of `S` bytes
//! touches `2 S` (source and destination): it can stay in an L2 of `L` bytes only while
//! `2 S <= L`.
//!
//! The rows, the size at which the DRAM level starts, and the table notes; [`measure_sizes`] runs
//! the sweep's fastest usable point over fresh buffers of each size, timed against the
//! device-to-device copy of the same buffers and checked exactly.

use serde::{Deserialize, Serialize};

use super::row::{fastest, InflightRow};
use crate::cuda::Gpu;
use crate::experiments::contract::RunContext;
use crate::experiments::copy::{check_fits, copy_gbps, CopyBuffers};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::module_source::Loaded;
use crate::results::{Check, Timing};

/// Default sizes of `host inflight --sizes-mib`: 16 MiB (within an H100/H200-class L2 with its
/// destination) to 4 GiB.
pub const DEFAULT_SIZES_MIB: [u64; 7] = [16, 32, 64, 128, 256, 1024, 4096];
/// Default sizes in `host all`: the small end only, where the L2 boundary lies on current GPUs
/// (the large sizes cost seconds each to fill and check).
pub const ALL_SIZES_MIB: [u64; 4] = [16, 32, 64, 256];
/// A size is at the DRAM level when its device-to-device GB/s is within this share of the
/// largest size's.
pub const DRAM_LEVEL_WITHIN: f64 = 0.10;

/// One size of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeRow {
    /// Bytes of each of the source and the destination.
    pub bytes: u64,
    /// The kernel's GB/s (read + written) and its timing.
    pub gbps: f64,
    pub timing: Timing,
    /// The device-to-device copy of the same buffers.
    pub d2d_gbps: f64,
    pub d2d_timing: Timing,
    /// The kernel's copy checked exactly.
    pub check: Check,
}

impl SizeRow {
    /// Whether source and destination fit the L2 together.
    pub fn within_l2(&self, l2_bytes: u64) -> bool {
        self.bytes.saturating_mul(2) <= l2_bytes
    }
}

/// The size sweep of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeSweep {
    /// The grid point run at every size, and its residency.
    pub entry: String,
    pub blocks_per_sm: u32,
    /// The device's L2, as the driver reports it.
    pub l2_bytes: u64,
    /// By size, ascending.
    pub rows: Vec<SizeRow>,
}

impl SizeSweep {
    /// The smallest size from which every size's device-to-device GB/s lies within
    /// [`DRAM_LEVEL_WITHIN`] of the largest size's (the copy no longer gains from the L2);
    /// None with fewer than two sizes.
    pub fn dram_level_from(&self) -> Option<u64> {
        if self.rows.len() < 2 {
            return None;
        }
        let last = self.rows.last()?.d2d_gbps;
        let near = |r: &SizeRow| (r.d2d_gbps / last - 1.0).abs() <= DRAM_LEVEL_WITHIN;
        let first_off = self.rows.iter().rposition(|r| !near(r));
        // None where even the largest size is off its own level (a record with no bandwidth).
        Some(self.rows.get(first_off.map_or(0, |i| i + 1))?.bytes)
    }

    /// The table notes: the sizes, each against its own copy, and where the DRAM level starts.
    pub fn notes(&self) -> Vec<String> {
        let mib = |b: u64| b >> 20;
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                format!(
                    "{} MiB{}: {:.0} GB/s, its own D2D copy {:.0} GB/s ({:.2}x){}",
                    mib(r.bytes),
                    if r.within_l2(self.l2_bytes) {
                        " (fits the L2 with its destination)"
                    } else {
                        ""
                    },
                    r.gbps,
                    r.d2d_gbps,
                    r.gbps / r.d2d_gbps,
                    if r.check.passed { "" } else { ", CHECK FAILED" }
                )
            })
            .collect();
        let mut notes = vec![format!(
            "Copy size sweep ({} at {} blocks/SM, the sweep's fastest point; L2 {} MiB as the \
             driver reports it; a copy of S MiB touches 2S): {}",
            self.entry,
            self.blocks_per_sm,
            mib(self.l2_bytes),
            rows.join("; ")
        )];
        if let Some(from) = self.dram_level_from() {
            notes.push(format!(
                "The L2 stops serving the copy by {} MiB: from there on the D2D copy runs within \
                 {:.0}% of the largest size's rate (the DRAM's); every smaller size runs faster",
                mib(from),
                DRAM_LEVEL_WITHIN * 100.0
            ));
        }
        notes
    }
}

/// Runs the size sweep over `sizes_mib` (0 stands for none) with the fastest of `rows`; sizes
/// that do not fit the device are left out with a note. None when no size was asked for or no
/// row is usable.
pub fn measure_sizes(
    gpu: &Gpu,
    ctx: &RunContext,
    ours: &Loaded,
    rows: &[InflightRow],
    sizes_mib: &[u64],
) -> Result<(Option<SizeSweep>, Vec<String>), ExperimentError> {
    let mut sizes: Vec<u64> = sizes_mib.iter().copied().filter(|&m| m > 0).collect();
    sizes.sort_unstable();
    sizes.dedup();
    // Among the rows our module builds (the bulk copies live in the sm_90a module).
    let best = fastest(rows, |r| ours.module.kernel(&r.entry).is_ok());
    let (Some(best), false) = (best, sizes.is_empty()) else {
        return Ok((None, Vec::new()));
    };
    let Some(point) = best.point.shape.copy_kernel() else {
        return Ok((None, Vec::new()));
    };
    let entry = point.entry();
    let kernel = ours.module.kernel(entry).in_variant(entry)?;
    let mut skipped = Vec::new();
    let mut out = Vec::new();
    for mib in sizes {
        let bytes = mib << 20;
        if let Err(e) = check_fits(gpu, bytes) {
            skipped.push(format!("copy size {mib} MiB: {e}"));
            continue;
        }
        let what = || format!("{entry} over {mib} MiB");
        let seed = ctx.seed.wrapping_add(50).wrapping_add(mib);
        let mut buffers = CopyBuffers::new(gpu, (bytes / 4) as usize, seed)?;
        let d2d_timing = buffers
            .time_reference(gpu, &ctx.timing)
            .in_variant(&what())?;
        let (mine, _, _) = buffers
            .measure(gpu, (&kernel, None), point, best.blocks_per_sm, &ctx.timing)
            .in_variant(&what())?;
        out.push(SizeRow {
            bytes,
            gbps: mine.throughput,
            timing: mine.timing,
            d2d_gbps: copy_gbps(bytes, d2d_timing.median_ms),
            d2d_timing,
            check: mine.check,
        });
    }
    let sweep = SizeSweep {
        entry: entry.to_owned(),
        blocks_per_sm: best.blocks_per_sm,
        l2_bytes: gpu.info().l2_bytes,
        rows: out,
    };
    Ok((Some(sweep), skipped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::inflight::row::tests::{copy, passed};

    /// A sweep over (MiB, D2D GB/s) sizes, the kernel at 95% of each.
    fn sweep(sizes: &[(u64, f64)]) -> SizeSweep {
        let timing = copy().timing;
        let rows = sizes.iter().map(|&(mib, d2d)| SizeRow {
            bytes: mib << 20,
            gbps: d2d * 0.95,
            timing: timing.clone(),
            d2d_gbps: d2d,
            d2d_timing: timing.clone(),
            check: passed(),
        });
        SizeSweep {
            entry: "memcpy_t1024_l2_w4".into(),
            blocks_per_sm: 2,
            l2_bytes: 50 << 20,
            rows: rows.collect(),
        }
    }

    #[test]
    fn the_dram_level_starts_after_the_last_size_off_it() {
        // 16 MiB served by the L2 at 7000; 32 MiB still 5000; from 64 MiB on, 4000-4200.
        let s = sweep(&[
            (16, 7000.0),
            (32, 5000.0),
            (64, 4200.0),
            (256, 4100.0),
            (1024, 4000.0),
        ]);
        assert_eq!(s.dram_level_from(), Some(64 << 20));
        let notes = s.notes();
        assert!(notes[0].contains("16 MiB (fits the L2 with its destination): 6650 GB/s"));
        assert!(notes[0].contains("32 MiB: 4750 GB/s, its own D2D copy 5000 GB/s (0.95x)"));
        assert!(
            notes[1].starts_with("The L2 stops serving the copy by 64 MiB"),
            "{notes:?}"
        );
        // Flat from the first size: the DRAM level starts there; one size says nothing.
        assert_eq!(
            sweep(&[(16, 4000.0), (64, 4100.0)]).dram_level_from(),
            Some(16 << 20)
        );
        assert_eq!(sweep(&[(16, 4000.0)]).dram_level_from(), None);
        // A record whose largest size has no bandwidth has no level (it panicked, reading past
        // the rows), and sizes past u64's half do not overflow the L2 test.
        assert_eq!(sweep(&[(16, 4000.0), (64, 0.0)]).dram_level_from(), None);
        let mut huge = sweep(&[(16, 4000.0)]);
        huge.rows[0].bytes = 1 << 63;
        assert!(!huge.rows[0].within_l2(huge.l2_bytes));
        // A failed check is named.
        let mut s = sweep(&[(16, 7000.0), (64, 4000.0)]);
        s.rows[1].check.passed = false;
        assert!(s.notes()[0].contains("CHECK FAILED"));
    }
}
