//! `held`'s row: one fixed binary held at one residency, as `results.json` stores it.

use serde::{Deserialize, Serialize};

use crate::experiments::contract::{row, GFLOPS};
use crate::experiments::gemm_figure_columns::GemmFiguresRow;
use crate::experiments::gemm_figures::GemmFigures;
use crate::experiments::measured::Measured;
use crate::experiments::whole_waves::WholeWave;

/// One binary at one number of resident blocks per SM.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HeldRow {
    /// The binary's label (`C`, `D`, `R4`, `C@128`).
    pub binary: String,
    /// Dynamic shared memory per block of the launch: what holds it at `blocks_per_sm`.
    pub dyn_smem: u32,
    #[serde(flatten)]
    pub figures: GemmFigures,
    #[serde(flatten)]
    pub measured: Measured,
    /// This binary at this residency timed again at the size where the pair its verdict
    /// compares runs whole waves; empty for the other residencies and in runs before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub whole_waves: Vec<WholeWave>,
}

row!(HeldRow, GFLOPS, figures.gflops, |r| format!(
    "{} at {} blocks/SM",
    r.binary, r.figures.blocks_per_sm
));

impl GemmFiguresRow for HeldRow {
    fn gemm_figures(&self) -> &GemmFigures {
        &self.figures
    }
}
