//! The `gemm_bf16` experiment's row and output, as `results.json` stores them.

use kernels_gpu::sections::gemm_wgmma::RingMma;
use kernels_gpu::shapes::tma_slot::WGEMM_BK;
use kernels_gpu::variants::{Bf16GemmVariant, WgemmVariant};
use serde::{Deserialize, Serialize};

use crate::experiments::contract::{row, GFLOPS};
use crate::experiments::gemm_clock_energy::ClockAndEnergy;
use crate::experiments::gemm_cublas::cublas_run_output;
use crate::experiments::gemm_cublas::CublasOutcome;
use crate::experiments::gemm_figure_columns::GemmFiguresRow;
use crate::experiments::gemm_figures::{GemmFigures, Schedule};
use crate::experiments::line_choice::Choice;
use crate::experiments::measured::Measured;
use crate::experiments::measurement::Measurement;

/// One BF16 line of the variant table at the run's size.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Bf16Row {
    pub variant: String,
    pub threads: u32,
    /// Block tile: BM, BN, BK.
    pub block: (u32, u32, u32),
    /// Warp tile: WM, WN (m16n8k16 mma tiles inside it).
    pub warp: (u32, u32),
    /// K slices in shared memory at once (`cp.async` stages).
    pub stages: u32,
    /// Dynamic shared memory per block, bytes.
    pub dyn_smem: u32,
    /// Registers, residency, timing and GFLOP/s, as `occupancy` and `regs` record them (flattened:
    /// `results.json` keeps these fields where they always were).
    #[serde(flatten)]
    pub figures: GemmFigures,
    #[serde(flatten)]
    pub measured: Measured,
    /// This line's GFLOP/s over cuBLAS's, from the samples interleaved with it; absent when
    /// cuBLAS did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_cublas: Option<f64>,
    /// The instructions the line is built on (absent in `results.json` for `mma.sync`, as the
    /// rows before the wgmma lines were written).
    #[serde(default, skip_serializing_if = "TensorPath::is_mma_sync")]
    pub path: TensorPath,
}

/// Which tensor-core instructions a BF16 line issues.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TensorPath {
    /// `mma.sync` m16n8k16 from registers (the `gemm_bf16` section, any sm_80+).
    #[default]
    MmaSync,
    /// Asynchronous warpgroup `wgmma` from TMA-loaded shared memory (the `gemm_wgmma` section,
    /// sm_90a only).
    Wgmma,
    /// `mma.sync` m16n8k16 fed by `ldmatrix` from the same TMA-loaded ring (the `gemm_wgmma`
    /// section's `mma_sync` lines, sm_90a only).
    MmaSyncTma,
}

impl TensorPath {
    fn is_mma_sync(&self) -> bool {
        *self == TensorPath::MmaSync
    }
}

/// A line asked for that did not run, and why (a device or a size its instructions cannot
/// take): the run goes on without it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotRun {
    pub variant: String,
    pub why: String,
}

impl Bf16Row {
    /// The row of line `v` from our measurement, the compared module's and ours over cuBLAS.
    pub fn new(
        v: &Bf16GemmVariant,
        ours: &Measurement,
        theirs: Option<Measurement>,
        vs_cublas: Option<f64>,
    ) -> Self {
        let s = &v.shape;
        Self {
            variant: v.label.to_owned(),
            threads: v.threads(),
            block: (s.bm, s.bn, s.bk),
            warp: (s.wm, s.wn),
            stages: s.stages,
            dyn_smem: v.dynamic_shared_bytes(),
            figures: GemmFigures::of(ours),
            measured: Measured::of(ours, theirs.map(|t| (t, None))),
            vs_cublas,
            path: TensorPath::MmaSync,
        }
    }

    /// The row of TMA-ring line `v` (section `gemm_wgmma`) from our measurement, the compared
    /// module's (its sm_90a companion's, where it has the line) and ours over cuBLAS. A wgmma
    /// line's warp tile is one warp's share of its warpgroup's 64 rows.
    pub fn ring(
        v: &WgemmVariant,
        ours: &Measurement,
        theirs: Option<Measurement>,
        vs_cublas: Option<f64>,
    ) -> Self {
        Self {
            variant: v.label.to_owned(),
            threads: v.threads(),
            block: (v.bm, v.bn, WGEMM_BK),
            warp: v.warp_tile(),
            stages: v.stages,
            dyn_smem: v.dynamic_shared_bytes(),
            figures: GemmFigures::of(ours),
            measured: Measured::of(ours, theirs.map(|t| (t, None))),
            vs_cublas,
            path: match v.mma {
                RingMma::Wgmma => TensorPath::Wgmma,
                RingMma::Sync => TensorPath::MmaSyncTma,
            },
        }
    }

    /// The row with its launch's schedule (tiles, grid, SMs).
    pub fn scheduled(self, schedule: Schedule) -> Self {
        Self {
            figures: self.figures.scheduled(schedule),
            ..self
        }
    }

    pub fn is_wgmma(&self) -> bool {
        self.path == TensorPath::Wgmma
    }

    /// Whether the line is one of the TMA ring's (wgmma or mma.sync): sm_90a only, compared only
    /// where the compared build has an sm_90a module.
    pub fn is_ring(&self) -> bool {
        self.path != TensorPath::MmaSync
    }
}

row!(Bf16Row, GFLOPS, figures.gflops, |r| r.variant.clone());

impl GemmFiguresRow for Bf16Row {
    fn gemm_figures(&self) -> &GemmFigures {
        &self.figures
    }
}

/// What the `gemm_bf16` experiment stores: a row per line, and cuBLAS's BF16 GEMM (absent when
/// skipped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bf16Run {
    pub rows: Vec<Bf16Row>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cublas: Option<CublasOutcome>,
    /// Lines asked for that this device or size cannot run (the wgmma lines off sm_90a, or at a
    /// size TMA cannot describe), with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<NotRun>,
    /// The energy phase (`--energy`, or the headline sides in `host all`); absent when not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_energy: Option<ClockAndEnergy>,
    /// `--variants auto`: the line the rule chose and its words; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<Choice>,
}

cublas_run_output!(Bf16Run, Bf16Row, " BF16");

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::contract::Output;
    use crate::experiments::gemm_cublas::tests::cublas_row;
    use crate::results::Check;
    use crate::sampling::summarize;

    fn check(passed: bool) -> Check {
        Check {
            passed,
            error: if passed { 0.01 } else { 3.0 },
            bound: 1.0,
            what: "every element within the tensor-core rule".into(),
            hashes: None,
        }
    }

    /// Line `label` at `occupancy`, `gflops` over `samples` (ms), its check passed or not.
    pub fn row(label: &str, occupancy: f64, gflops: f64, samples: Vec<f64>) -> Bf16Row {
        Bf16Row {
            variant: label.into(),
            threads: 128,
            block: (128, 128, 32),
            warp: (64, 64),
            stages: 4,
            dyn_smem: 4 * (128 * 32 + 32 * 128) * 2,
            figures: GemmFigures {
                schedule: None,
                block_trace: None,
                regs: 232,
                blocks_per_sm: 2,
                occupancy,
                limiter: "registers".into(),
                timing: summarize(samples, None, None),
                gflops,
            },
            measured: Measured {
                check: check(true),
                flags: vec![],
                compare: None,
            },
            vs_cublas: Some(0.8),
            path: TensorPath::MmaSync,
        }
    }

    /// Lines M1 (12.5%) and M4 (25%), and cuBLAS with its kernel read.
    pub fn run() -> Bf16Run {
        Bf16Run {
            rows: vec![
                row("M1", 0.125, 520_000.0, vec![0.264, 0.265, 0.266]),
                row("M4", 0.25, 400_000.0, vec![0.343, 0.344, 0.345]),
            ],
            cublas: Some(CublasOutcome::Measured(Box::new(cublas_row(
                650_000.0,
                vec![0.211, 0.212, 0.213],
                Some("nvjet_tst_bf16"),
            )))),
            not_run: vec![],
            clock_energy: None,
            auto: None,
        }
    }

    /// A wgmma line's row takes its shape from the table (threads of the producer and the
    /// consumers, BM x BN x 64, one warp's 16 rows of its warpgroup's 64 x BN) and its figures
    /// from the measurement, uncompared.
    #[test]
    fn a_wgmma_row_is_built_from_its_line_and_measurement() {
        let v = &kernels_gpu::variants::WGEMM[0];
        let m = crate::experiments::measurement::tests::measured(700_000.0, None, 0.0);
        let r = Bf16Row::ring(v, &m, None, Some(0.97));
        assert!(r.is_wgmma());
        assert_eq!(r.variant, v.label);
        assert_eq!(r.threads, (v.consumers + 1) * 128);
        assert_eq!(r.block, (v.bm, v.bn, 64));
        assert_eq!(r.warp, (16, v.bn));
        assert_eq!((r.stages, r.dyn_smem), (v.stages, v.dynamic_shared_bytes()));
        assert_eq!((r.figures.regs, r.figures.gflops), (40, 700_000.0));
        assert!(r.measured.compare.is_none() && r.measured.check.passed);
        assert_eq!(r.vs_cublas, Some(0.97));
        // An mma.sync line of the ring: its consumers only, 64 x BN/4 warp tiles.
        let t = (kernels_gpu::variants::WGEMM.iter())
            .find(|v| v.mma == RingMma::Sync)
            .expect("the table has an mma_sync line");
        let r = Bf16Row::ring(t, &m, None, None);
        assert!(!r.is_wgmma() && r.is_ring());
        assert_eq!(r.path, TensorPath::MmaSyncTma);
        assert_eq!((r.threads, r.warp), (t.consumers * 128, (64, t.bn / 4)));
    }

    /// A wgmma row says so and a line that did not run keeps its reason; an mma.sync row and a
    /// run with every line run are written as before (no `path`, no `not_run`).
    #[test]
    fn wgmma_rows_and_lines_not_run_round_trip_and_old_runs_are_unchanged() {
        let plain = serde_json::to_value(run()).unwrap();
        assert!(plain.get("not_run").is_none() && plain["rows"][0].get("path").is_none());
        let mut r = run();
        let mut w = r.rows[0].clone();
        w.variant = "W1".into();
        w.path = TensorPath::Wgmma;
        r.rows.push(w);
        r.not_run.push(NotRun {
            variant: "W2".into(),
            why: "the wgmma GEMM needs K and N to be multiples of 8".into(),
        });
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["rows"][2]["path"], "wgmma");
        assert_eq!(json["not_run"][0]["variant"], "W2");
        let back: Bf16Run = serde_json::from_value(json).unwrap();
        assert!(back.rows[2].is_wgmma() && !back.rows[0].is_wgmma());
        assert_eq!(back, r);
    }

    #[test]
    fn a_run_round_trips_with_cublas_and_its_kernel() {
        let r = run();
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["cublas"]["status"], "measured");
        assert_eq!(json["cublas"]["kernel"]["status"], "read");
        assert_eq!(json["cublas"]["kernel"]["kernel"]["name"], "nvjet_tst_bf16");
        assert_eq!(json["rows"][0]["block"], serde_json::json!([128, 128, 32]));
        assert_eq!(serde_json::from_value::<Bf16Run>(json).unwrap(), r);
        let mut failed = r.clone();
        if let Some(CublasOutcome::Measured(c)) = &mut failed.cublas {
            c.check = check(false);
        }
        assert_eq!(failed.other_failures().len(), 1);
        assert_eq!(r.reference(), Some(("cuBLAS BF16", 650_000.0)));
    }
}
