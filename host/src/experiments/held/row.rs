//! `held`'s row: one fixed binary held at one residency, as `results.json` stores it.

use serde::{Deserialize, Serialize};

use crate::experiments::contract::{row, GFLOPS};
use crate::experiments::gemm_figure_columns::GemmFiguresRow;
use crate::experiments::gemm_figures::GemmFigures;
use crate::experiments::measured::Measured;

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
