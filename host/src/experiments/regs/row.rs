//! The `regs` experiment's row, as `results.json` stores it.

use serde::{Deserialize, Serialize};

use crate::experiments::contract::{row, GFLOPS};
use crate::experiments::gemm_figure_columns::GemmFiguresRow;
use crate::experiments::gemm_figures::GemmFigures;
use crate::experiments::measured::Measured;
use crate::experiments::whole_waves::WholeWave;

/// The `regs` experiment, one register cap.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RegsRow {
    pub cap: u32,
    #[serde(flatten)]
    pub figures: GemmFigures,
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// True when no compiler report was found for the module (a cubin without a `.ptxas.txt`
    /// beside it): `spill_stores` and `spill_loads` are then 0 placeholders, shown as "n/a", and
    /// `stack_frame` is the function's local memory from the driver.
    #[serde(default)]
    pub spills_unknown: bool,
    pub stack_frame: u32,
    #[serde(flatten)]
    pub measured: Measured,
    /// This build timed again at the sizes where a pair it is compared in (seed 001's, seed
    /// 002's) runs whole waves; empty in runs before whole waves were.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub whole_waves: Vec<WholeWave>,
}

row!(RegsRow, GFLOPS, figures.gflops, |r| format!(
    "cap {}",
    r.cap
));

impl GemmFiguresRow for RegsRow {
    fn gemm_figures(&self) -> &GemmFigures {
        &self.figures
    }
}
