//! The `ilp` experiment's typed results and Volkov's table.

use std::collections::BTreeSet;

use kernels_gpu::variants::FmaOp;
use serde::{Deserialize, Serialize};

use crate::experiments::contract::{row, GFLOPS};
use crate::experiments::ilp_sweep::{sweep_row, SweepPoint};
use crate::experiments::measured::Measured;
use crate::results::Timing;

/// Fraction of the FP32 peak Volkov's table asks for.
pub const VOLKOV_FRACTION: f64 = 0.90;

/// One (kernel, warps per SM) point: the FFMA sweep's or a control's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IlpRow {
    /// The kernel's op (`kernels_gpu::variants::FmaOp::name`): "ffma" for the sweep's
    /// three-register FFMA (and in runs recorded before the controls existed), else a control's.
    #[serde(default = "ffma", skip_serializing_if = "is_ffma")]
    pub op: String,
    #[serde(flatten)]
    pub point: SweepPoint,
    pub gflops: f64,
    /// SM clock during the samples (MHz; mean of the readings), None where it could not be read.
    pub sm_clock_mhz: Option<f64>,
    /// FP32 peak at that clock (or at the spec clock when it could not be read), GFLOP/s.
    pub peak_gflops: f64,
    /// `gflops / peak_gflops`.
    pub fraction_of_peak: f64,
    pub timing: Timing,
    /// The scheduler model's % of peak for this point (`dip::predicted`): derived from the rows,
    /// so not stored; filled in when the sweep is done and when a run is read. None where it
    /// predicts nothing (warps a multiple of the schedulers, or no measured point to scale from).
    #[serde(skip)]
    pub scheduler_model: Option<f64>,
    #[serde(flatten)]
    pub measured: Measured,
}

fn ffma() -> String {
    FmaOp::Ffma.name().to_owned()
}

/// The FFMA's rows store no op (as before the controls existed).
fn is_ffma(op: &str) -> bool {
    op == FmaOp::Ffma.name()
}

impl IlpRow {
    /// Whether the row is the FFMA sweep's (not a control's).
    pub fn is_ffma(&self) -> bool {
        self.op == FmaOp::Ffma.name()
    }

    /// The row's op, None for a name no kernel of this build has.
    pub fn fma_op(&self) -> Option<FmaOp> {
        FmaOp::named(&self.op)
    }
}

row!(IlpRow, GFLOPS, gflops, occupancy: point.occupancy, |r| if r.is_ffma() {
    format!("ILP {} at {} warps/SM", r.point.ilp, r.point.warps_per_sm)
} else {
    format!("{} at {} warps/SM", r.point.entry, r.point.warps_per_sm)
},
merge_key: |r| if r.is_ffma() {
    format!("ILP {} x{} warps", r.point.ilp, r.point.warps_per_sm)
} else {
    format!("{} x{} warps", r.point.entry, r.point.warps_per_sm)
});
sweep_row!(IlpRow);

/// One line of Volkov's table: the fewest warps per SM at which `ilp` reaches the fraction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VolkovLine {
    pub ilp: u32,
    /// None when no measured point of this ILP reaches it.
    pub fewest_warps_per_sm: Option<u32>,
    pub occupancy: Option<f64>,
    pub fraction_of_peak: Option<f64>,
    /// The most warps per SM measured for this ILP (so "none" can be read as "not up to N").
    pub most_warps_measured: u32,
}

/// Per ILP (ascending), the fewest warps per SM of a checked FFMA row reaching `fraction` of
/// peak (the controls are not Volkov's kernel).
pub fn volkov_table(rows: &[IlpRow], fraction: f64) -> Vec<VolkovLine> {
    let ffma = || rows.iter().filter(|r| r.is_ffma());
    let ilps: BTreeSet<u32> = ffma().map(|r| r.point.ilp).collect();
    ilps.into_iter()
        .map(|ilp| {
            let of = || ffma().filter(move |r| r.point.ilp == ilp && r.measured.checked());
            let best = of()
                .filter(|r| r.fraction_of_peak >= fraction)
                .min_by_key(|r| r.point.warps_per_sm);
            VolkovLine {
                ilp,
                fewest_warps_per_sm: best.map(|r| r.point.warps_per_sm),
                occupancy: best.map(|r| r.point.occupancy),
                fraction_of_peak: best.map(|r| r.fraction_of_peak),
                most_warps_measured: of().map(|r| r.point.warps_per_sm).max().unwrap_or(0),
            }
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::ilp::output::Ilp;
    use crate::experiments::ilp_sweep::tests::{grid, passed, point, timing};

    /// A synthetic row on a 64-warp SM.
    pub(crate) fn row(ilp: u32, warps: u32, fraction: f64) -> IlpRow {
        IlpRow {
            op: ffma(),
            point: point(format!("fma_ilp{ilp}"), ilp, warps),
            gflops: 60_000.0 * fraction,
            sm_clock_mhz: Some(1980.0),
            peak_gflops: 60_000.0,
            fraction_of_peak: fraction,
            timing: timing(),
            scheduler_model: None,
            measured: passed(),
        }
    }

    /// A synthetic row of a control kernel (`op` a control's name).
    pub(crate) fn control(op: FmaOp, ilp: u32, warps: u32, fraction: f64) -> IlpRow {
        let mut r = row(ilp, warps, fraction);
        r.op = op.name().to_owned();
        r.point.entry = format!("{}_ilp{ilp}", op.name());
        r
    }

    /// A run's output of `rows`, Volkov's table computed from them.
    pub(crate) fn output(rows: Vec<IlpRow>) -> Ilp {
        Ilp {
            a: 1.0,
            b: 1.0,
            volkov: volkov_table(&rows, VOLKOV_FRACTION),
            rows,
            skipped: vec![],
        }
    }

    /// Throughput that saturates when warps x ILP covers `needed` independent FMAs.
    pub(crate) fn saturating(ilp: u32, warps: u32, needed: u32) -> f64 {
        (f64::from(warps * ilp) / f64::from(needed)).min(0.99)
    }

    #[test]
    fn the_table_gives_the_fewest_warps_per_ilp() {
        let rows = grid(&[1, 2, 4], &[1, 2, 4, 8, 16, 32, 64], |ilp, warps| {
            row(ilp, warps, saturating(ilp, warps, 16))
        });
        let t = volkov_table(&rows, 0.9);
        let fewest: Vec<Option<u32>> = t.iter().map(|l| l.fewest_warps_per_sm).collect();
        // 16 independent FMAs per SM needed: ILP 1 at 16 warps, 2 at 8, 4 at 4.
        assert_eq!(fewest, [Some(16), Some(8), Some(4)]);
        assert_eq!(t[2].occupancy, Some(4.0 / 64.0));
        assert_eq!(t[0].most_warps_measured, 64);
    }

    #[test]
    fn a_run_reads_back_with_its_scheduler_model_and_stores_no_ffma_op() {
        let mut rows = vec![
            row(2, 5, 0.41),
            row(2, 8, 0.66),
            control(FmaOp::Fadd, 1, 8, 0.5),
        ];
        super::super::dip::fill(&mut rows);
        let ilp = output(rows);
        let text = serde_json::to_string(&ilp).unwrap();
        assert!(!text.contains("scheduler_model"), "derived, not stored");
        assert_eq!(
            text.matches("\"op\":").count(),
            1,
            "only the control's op: {text}"
        );
        let back: Ilp = serde_json::from_str(&text).unwrap();
        assert_eq!(back, ilp);
        assert!(back.rows[0].scheduler_model.is_some());
        assert_eq!(back.rows[2].op, "fadd");
    }

    #[test]
    fn an_ilp_that_never_gets_there_has_no_entry_and_failed_checks_do_not_count() {
        let mut wrong = row(1, 8, 0.99);
        wrong.measured.check.passed = false;
        let t = volkov_table(&[row(1, 64, 0.5), wrong], 0.9);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].fewest_warps_per_sm, None);
        assert_eq!(t[0].most_warps_measured, 64);
    }
}
