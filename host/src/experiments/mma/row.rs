//! The tensor-core sweep's typed results: a row per (ILP, warps per SM) point, the `mma.sync`
//! ceiling (the best verified point of the run) and, per ILP, the least occupancy reaching 90%
//! and 95% of it.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::experiments::contract::{row, Output, TFLOPS};
use crate::experiments::ilp_sweep::{sweep_row, SweepPoint};
use crate::experiments::measured::Measured;
use crate::results::Timing;

use super::wgmma::WgmmaTable;

/// The fractions of the ceiling the headline asks the least occupancy for.
pub const REACH_FRACTIONS: [f64; 2] = [0.90, 0.95];

/// One (ILP, warps per SM) point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MmaRow {
    /// ILP: independent mma (accumulators) per warp; rounds: per warp (ILP mma each).
    #[serde(flatten)]
    pub point: SweepPoint,
    pub tflops: f64,
    /// SM clock during the samples (MHz; mean of the readings), None where it could not be read.
    pub sm_clock_mhz: Option<f64>,
    /// Dense BF16 spec peak at that clock (or at the maximum clock where it could not be read),
    /// TFLOP/s; None on an architecture whose rate the lab does not know.
    pub spec_peak_tflops: Option<f64>,
    /// `tflops / spec_peak_tflops`.
    pub fraction_of_spec: Option<f64>,
    /// `tflops` over the run's ceiling (its best verified point); 0 where the run has none.
    pub fraction_of_ceiling: f64,
    pub timing: Timing,
    #[serde(flatten)]
    pub measured: Measured,
}

row!(MmaRow, TFLOPS, tflops, occupancy: point.occupancy, |r| format!("ILP {} at {} warps/SM", r.point.ilp, r.point.warps_per_sm),
    merge_key: |r| format!("ILP {} x{} warps", r.point.ilp, r.point.warps_per_sm));
sweep_row!(MmaRow);

/// The run's best verified point: what `mma.sync` reaches on this GPU.
pub fn ceiling(rows: &[MmaRow]) -> Option<&MmaRow> {
    rows.iter()
        .filter(|r| r.measured.checked())
        .max_by(|a, b| a.tflops.total_cmp(&b.tflops))
}

/// `rows` with their fraction of the ceiling filled in.
pub fn with_ceiling(mut rows: Vec<MmaRow>) -> Vec<MmaRow> {
    let best = ceiling(&rows).map_or(0.0, |r| r.tflops);
    for r in &mut rows {
        r.fraction_of_ceiling = if best > 0.0 { r.tflops / best } else { 0.0 };
    }
    rows
}

/// The least occupancy at which an ILP's verified points reach a fraction of the ceiling.
#[derive(Debug, Clone, PartialEq)]
pub struct Reach<'r> {
    pub fraction: f64,
    /// None when no verified point reaches it.
    pub row: Option<&'r MmaRow>,
}

/// Per ILP (ascending; `None` for every ILP together), the least occupancy reaching each of
/// [`REACH_FRACTIONS`] of the ceiling, and the most warps per SM measured.
pub fn reach_table(rows: &[MmaRow]) -> Vec<(Option<u32>, u32, Vec<Reach<'_>>)> {
    let ilps: BTreeSet<Option<u32>> = rows.iter().map(|r| Some(r.point.ilp)).collect();
    (ilps.into_iter().chain([None]))
        .map(|ilp| {
            let of = || {
                rows.iter()
                    .filter(move |r| r.measured.checked() && ilp.is_none_or(|i| r.point.ilp == i))
            };
            let reaches = REACH_FRACTIONS
                .iter()
                .map(|&fraction| Reach {
                    fraction,
                    row: of()
                        .filter(|r| r.fraction_of_ceiling >= fraction)
                        .min_by(|a, b| {
                            a.point
                                .occupancy
                                .total_cmp(&b.point.occupancy)
                                .then(b.tflops.total_cmp(&a.tflops))
                        }),
                })
                .collect();
            let most = of().map(|r| r.point.warps_per_sm).max().unwrap_or(0);
            (ilp, most, reaches)
        })
        .collect()
}

/// Everything the tensor-core sweep measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mma {
    /// Input elements were drawn from `-input_range..=input_range`.
    pub input_range: i32,
    pub rows: Vec<MmaRow>,
    /// Points that could not be placed, with the reason.
    pub skipped: Vec<String>,
    /// Why nothing ran (a GPU without `mma.sync` bf16); None when the sweep ran.
    pub not_run: Option<String>,
    /// The second table, wgmma on sm_90a (absent when it was left out, and in runs recorded
    /// before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wgmma: Option<WgmmaTable>,
}

impl Output for Mma {
    type Row = MmaRow;
    fn rows(&self) -> &[MmaRow] {
        &self.rows
    }
    fn other_failures(&self) -> Vec<String> {
        self.wgmma
            .as_ref()
            .map(WgmmaTable::failures)
            .unwrap_or_default()
    }
}

impl Mma {
    /// The `mma.sync` ceiling of the run, TFLOP/s: its best verified point (None without one).
    pub fn ceiling_tflops(&self) -> Option<f64> {
        ceiling(&self.rows).map(|r| r.tflops)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests::grid;

    /// A synthetic verified row on a 64-warp SM at 1,000 TFLOP/s of spec peak: the sweeps'
    /// synthetic point (its layout, occupancy, 1 ms timing with 0.1% noise and passed check)
    /// with the tensor-core figures.
    pub(crate) fn row(ilp: u32, warps: u32, tflops: f64) -> MmaRow {
        use crate::experiments::ilp_sweep::tests::{passed, point, timing};
        MmaRow {
            point: SweepPoint {
                regs: 32,
                iters: 4096,
                ..point(format!("mma_bf16_ilp{ilp}"), ilp, warps)
            },
            tflops,
            sm_clock_mhz: Some(1980.0),
            spec_peak_tflops: Some(1000.0),
            fraction_of_spec: Some(tflops / 1000.0),
            fraction_of_ceiling: 0.0,
            timing: timing(),
            measured: passed(),
        }
    }

    /// The output of a GPU the sweep could not run on.
    pub(crate) fn not_run(why: &str) -> Mma {
        Mma {
            input_range: 1,
            rows: vec![],
            skipped: vec![],
            not_run: Some(why.into()),
            wgmma: None,
        }
    }

    /// TFLOP/s that saturate at 650 when warps x ILP covers `needed` mma in flight per SM.
    pub(crate) fn saturating(ilp: u32, warps: u32, needed: u32) -> f64 {
        650.0 * (f64::from(warps * ilp) / f64::from(needed)).min(1.0)
    }

    /// A sweep of ILP 1, 2, 4, 8 over 1..64 warps/SM saturating at `needed` mma per SM.
    pub(crate) fn sweep(needed: u32) -> Vec<MmaRow> {
        with_ceiling(grid(
            &[1, 2, 4, 8],
            &[1, 2, 4, 8, 16, 32, 64],
            |ilp, warps| row(ilp, warps, saturating(ilp, warps, needed)),
        ))
    }

    #[test]
    fn the_ceiling_is_the_best_verified_row() {
        let mut rows = vec![row(1, 64, 600.0), row(8, 16, 640.0), row(8, 8, 700.0)];
        rows[2].measured.check.passed = false;
        let rows = with_ceiling(rows);
        let out = Mma {
            rows,
            not_run: None,
            ..not_run("")
        };
        assert_eq!(out.ceiling_tflops(), Some(640.0));
        assert_eq!(
            ceiling(&out.rows).map(|r| (r.point.ilp, r.point.warps_per_sm)),
            Some((8, 16))
        );
        assert_eq!(out.rows[1].fraction_of_ceiling, 1.0);
        assert!((out.rows[0].fraction_of_ceiling - 600.0 / 640.0).abs() < 1e-12);
        let empty = Mma {
            rows: with_ceiling(vec![]),
            ..out
        };
        assert_eq!(empty.ceiling_tflops(), None);
    }

    #[test]
    fn the_reach_table_gives_the_least_occupancy_per_ilp_and_overall() {
        // 32 mma in flight per SM needed: ILP 1 at 32 warps, 2 at 16, 4 at 8, 8 at 4.
        let rows = sweep(32);
        let t = reach_table(&rows);
        let least: Vec<(Option<u32>, Option<u32>)> = t
            .iter()
            .map(|(ilp, _, r)| (*ilp, r[1].row.map(|r| r.point.warps_per_sm)))
            .collect();
        assert_eq!(
            least,
            [
                (Some(1), Some(32)),
                (Some(2), Some(16)),
                (Some(4), Some(8)),
                (Some(8), Some(4)),
                (None, Some(4))
            ]
        );
        assert_eq!(t[0].1, 64, "the most warps measured");
        // 90% of 32 in flight is 28.8: ILP 4 still needs 8 warps, ILP 8 still 4.
        assert_eq!(t[2].2[0].row.map(|r| r.point.warps_per_sm), Some(8));
    }

    #[test]
    fn an_ilp_that_never_gets_there_has_no_entry_and_failed_checks_do_not_count() {
        let mut wrong = row(1, 8, 700.0);
        wrong.measured.check.passed = false;
        let rows = with_ceiling(vec![row(1, 64, 300.0), row(4, 8, 650.0), wrong]);
        let t = reach_table(&rows);
        assert_eq!(t[0].0, Some(1));
        assert!(t[0].2.iter().all(|r| r.row.is_none()));
        assert_eq!(t[0].1, 64);
        assert_eq!(t[1].2[1].row.map(|r| r.point.warps_per_sm), Some(8));
    }
}
