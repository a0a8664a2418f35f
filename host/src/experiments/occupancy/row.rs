//! The `occupancy` experiment's row and output, as `results.json` stores them.

use kernels_gpu::variants::GemmFamily;
use serde::{Deserialize, Serialize};

use crate::experiments::contract::{row, GFLOPS};
use crate::experiments::gemm_clock_energy::ClockAndEnergy;
use crate::experiments::gemm_cublas::{cublas_run_output, CublasOutcome};
use crate::experiments::gemm_figure_columns::GemmFiguresRow;
use crate::experiments::gemm_figures::GemmFigures;
use crate::experiments::line_choice::Choice;
use crate::experiments::measured::Measured;
use crate::experiments::whole_waves::WholeWave;

/// The `occupancy` experiment, one GEMM variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GemmRow {
    pub variant: String,
    pub threads: u32,
    pub tm: u32,
    pub tn: u32,
    #[serde(flatten)]
    pub figures: GemmFigures,
    #[serde(flatten)]
    pub measured: Measured,
    /// The line's family and tiles. Runs before the tuned family recorded none: their rows are
    /// the seed family's (64x64x8 block tile, no warp tile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile: Option<GemmTile>,
    /// This variant's GFLOP/s over cuBLAS's, from the samples interleaved with it; absent when
    /// cuBLAS did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_cublas: Option<f64>,
    /// This line timed again at the size where the pair `peak-below-max-occupancy` compares
    /// runs whole waves; empty for other lines and in runs before whole waves were.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub whole_waves: Vec<WholeWave>,
}

/// How a GEMM family is stored: by the names the runs recorded before it was an enum.
#[derive(Serialize, Deserialize)]
#[serde(remote = "GemmFamily", rename_all = "lowercase")]
enum StoredFamily {
    Seed,
    Tuned,
}

/// A family's name in tables ("seed", "tuned"), as it is stored.
pub fn family_name(family: GemmFamily) -> &'static str {
    match family {
        GemmFamily::Seed => "seed",
        GemmFamily::Tuned => "tuned",
    }
}

/// A GEMM line's family and tiles, as the variant table gives them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct GemmTile {
    /// Which kernel the line instantiates (stored as "seed" or "tuned").
    #[serde(with = "StoredFamily")]
    pub family: GemmFamily,
    /// Block tile: BM, BN, BK.
    pub block: (u32, u32, u32),
    /// Warp tile (WM, WN), where the family has one.
    pub warp: Option<(u32, u32)>,
    /// K slices in shared memory at once.
    pub stages: u32,
    /// Dynamic shared memory per block, bytes.
    pub dyn_smem: u32,
}

impl GemmTile {
    /// The seed family's line, for rows recorded without a tile.
    pub fn seed() -> Self {
        use kernels_gpu::variants::{BK, BM, BN};
        Self {
            family: GemmFamily::Seed,
            block: (BM, BN, BK),
            warp: None,
            stages: 1,
            dyn_smem: 0,
        }
    }
}

impl GemmRow {
    /// The row's family and tiles (the seed family's where the run recorded none).
    pub fn tile(&self) -> GemmTile {
        self.tile.clone().unwrap_or_else(GemmTile::seed)
    }

    /// Whether the row is of the seed blog's kernel.
    pub fn is_seed(&self) -> bool {
        self.tile
            .as_ref()
            .is_none_or(|t| t.family == GemmFamily::Seed)
    }
}

/// What the `occupancy` experiment stores: a row per variant and cuBLAS (absent when skipped with
/// `--no-cublas` or recorded before cuBLAS was timed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "Stored", into = "Stored")]
pub struct GemmRun {
    pub rows: Vec<GemmRow>,
    pub cublas: Option<CublasOutcome>,
    /// The variants a kernel faulted in (no row: each is a failed check).
    pub faults: Vec<RowFault>,
    /// The energy phase (`--energy`, or the headline sides in `host all`); absent when not run.
    pub clock_energy: Option<ClockAndEnergy>,
    /// `--variants auto`: the line the rule chose and its words; absent otherwise.
    pub auto: Option<Choice>,
}

/// A variant in which a kernel faulted: no row (the run went on without it, in a new process).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowFault {
    pub variant: String,
    /// The error, naming the kernel(s) in flight when the fault surfaced.
    pub error: String,
}

impl std::fmt::Display for RowFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "variant {} faulted: {}", self.variant, self.error)
    }
}

/// The stored form: a bare list of rows (older runs, and runs without cuBLAS, so that they
/// regenerate byte for byte), rows with cuBLAS, or either with the variants that faulted.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Stored {
    Rows(Vec<GemmRow>),
    /// First of the objects: an object without `faults` is one of the others.
    Faulted {
        rows: Vec<GemmRow>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cublas: Option<CublasOutcome>,
        faults: Vec<RowFault>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock_energy: Option<ClockAndEnergy>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        auto: Option<Choice>,
    },
    Run {
        rows: Vec<GemmRow>,
        cublas: CublasOutcome,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock_energy: Option<ClockAndEnergy>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        auto: Option<Choice>,
    },
}

impl From<Stored> for GemmRun {
    fn from(s: Stored) -> Self {
        match s {
            Stored::Rows(rows) => GemmRun {
                rows,
                cublas: None,
                faults: Vec::new(),
                clock_energy: None,
                auto: None,
            },
            Stored::Faulted {
                rows,
                cublas,
                faults,
                clock_energy,
                auto,
            } => GemmRun {
                rows,
                cublas,
                faults,
                clock_energy,
                auto,
            },
            Stored::Run {
                rows,
                cublas,
                clock_energy,
                auto,
            } => GemmRun {
                rows,
                cublas: Some(cublas),
                faults: Vec::new(),
                clock_energy,
                auto,
            },
        }
    }
}

impl From<GemmRun> for Stored {
    fn from(r: GemmRun) -> Self {
        // A run with clock figures (new runs) but neither cuBLAS nor a fault is an object with no
        // faults.
        match (r.cublas, r.faults.is_empty(), r.clock_energy) {
            (None, true, None) if r.auto.is_none() => Stored::Rows(r.rows),
            (Some(cublas), true, clock_energy) => Stored::Run {
                rows: r.rows,
                cublas,
                clock_energy,
                auto: r.auto,
            },
            (cublas, _, clock_energy) => Stored::Faulted {
                rows: r.rows,
                cublas,
                faults: r.faults,
                clock_energy,
                auto: r.auto,
            },
        }
    }
}

row!(GemmRow, GFLOPS, figures.gflops, |r| r.variant.clone());

impl GemmFiguresRow for GemmRow {
    fn gemm_figures(&self) -> &GemmFigures {
        &self.figures
    }
}

cublas_run_output!(GemmRun, GemmRow, "");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::gemm_cublas::CublasRow;

    fn row(variant: &str, tile: Option<GemmTile>) -> GemmRow {
        let timing = crate::sampling::summarize(vec![1.0], None, None);
        GemmRow {
            variant: variant.into(),
            threads: 256,
            tm: 16,
            tn: 8,
            figures: GemmFigures {
                schedule: None,
                block_trace: None,
                regs: 244,
                blocks_per_sm: 1,
                occupancy: 0.125,
                limiter: "registers".into(),
                timing: timing.clone(),
                gflops: 50_000.0,
            },
            measured: Measured::passing(),
            tile,
            vs_cublas: None,
            whole_waves: vec![],
        }
    }

    #[test]
    fn a_run_recorded_before_cublas_and_tiles_loads_as_seed_rows() {
        // The stored form of the `occupancy` experiment before this version: a bare list of rows.
        let mut old = serde_json::to_value(vec![row("D", None)]).unwrap();
        let obj = old[0].as_object_mut().unwrap();
        assert!(!obj.contains_key("tile") && !obj.contains_key("vs_cublas"));
        let run: GemmRun = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(run.cublas, None);
        assert!(run.rows[0].is_seed());
        assert_eq!(run.rows[0].tile(), GemmTile::seed());
        assert_eq!(run.rows[0].tile().block, (64, 64, 8));
        // And it is written back the same way.
        assert_eq!(serde_json::to_value(&run).unwrap(), old);
    }

    #[test]
    fn a_run_with_cublas_round_trips() {
        let tuned = GemmTile {
            family: GemmFamily::Tuned,
            block: (256, 128, 16),
            warp: Some((64, 64)),
            stages: 3,
            dyn_smem: 3 * 4 * (16 * 260 + 16 * 128),
        };
        let mut r = row("R4", Some(tuned));
        r.vs_cublas = Some(0.95);
        let run = GemmRun {
            rows: vec![r.clone()],
            cublas: Some(CublasOutcome::Measured(Box::new(CublasRow {
                version: "13.1.0".into(),
                library: "libcublas.so.13".into(),
                timing: r.figures.timing.clone(),
                gflops: 52_000.0,
                check: r.measured.check.clone(),
                flags: vec![],
                kernel: None,
            }))),
            faults: vec![],
            clock_energy: None,
            auto: None,
        };
        let json = serde_json::to_value(&run).unwrap();
        assert_eq!(json["rows"][0]["tile"]["family"], "tuned");
        assert_eq!(json["cublas"]["status"], "measured");
        assert_eq!(json["cublas"]["version"], "13.1.0");
        assert_eq!(serde_json::from_value::<GemmRun>(json).unwrap(), run);
        assert!(!run.rows[0].is_seed());
        let absent = GemmRun {
            rows: vec![],
            cublas: Some(CublasOutcome::Unavailable {
                reason: "cuBLAS not found".into(),
            }),
            faults: vec![],
            clock_energy: None,
            auto: None,
        };
        let json = serde_json::to_value(&absent).unwrap();
        assert_eq!(json["cublas"]["status"], "unavailable");
        assert_eq!(serde_json::from_value::<GemmRun>(json).unwrap(), absent);
    }

    /// A run with a faulted variant keeps it through results.json, with cuBLAS or without; a
    /// run without one is stored as before.
    #[test]
    fn faulted_variants_are_stored() {
        let fault = RowFault {
            variant: "S".into(),
            error: "`sgemm_s` of the compared module (bad.cubin) faulted".into(),
        };
        for cublas in [
            None,
            Some(CublasOutcome::Unavailable {
                reason: "cuBLAS not found".into(),
            }),
        ] {
            let run = GemmRun {
                rows: vec![row("D", None)],
                cublas,
                faults: vec![fault.clone()],
                clock_energy: None,
                auto: None,
            };
            let json = serde_json::to_value(&run).unwrap();
            assert_eq!(json["faults"][0]["variant"], "S");
            assert_eq!(serde_json::from_value::<GemmRun>(json).unwrap(), run);
        }
        let plain = GemmRun {
            rows: vec![row("D", None)],
            cublas: None,
            faults: vec![],
            clock_energy: None,
            auto: None,
        };
        assert!(serde_json::to_value(&plain).unwrap().is_array());
    }

    /// Each family is stored under the name the tables print, the strings runs stored before it
    /// was an enum.
    #[test]
    fn families_are_stored_by_their_names() {
        for family in [GemmFamily::Seed, GemmFamily::Tuned] {
            let tile = GemmTile {
                family,
                ..GemmTile::seed()
            };
            let json = serde_json::to_value(&tile).unwrap();
            assert_eq!(json["family"], family_name(family));
            assert_eq!(serde_json::from_value::<GemmTile>(json).unwrap(), tile);
        }
        let unknown = serde_json::json!({
            "family": "bf16", "block": [64, 64, 8], "warp": null, "stages": 1, "dyn_smem": 0
        });
        assert!(serde_json::from_value::<GemmTile>(unknown).is_err());
    }
}
