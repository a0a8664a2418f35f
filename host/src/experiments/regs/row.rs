//! The `regs` experiment's row, as `results.json` stores it.

use serde::{Deserialize, Serialize};

use crate::experiments::contract::{row, GFLOPS};
use crate::experiments::measured::Measured;
use crate::results::Timing;

/// The `regs` experiment, one register cap.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RegsRow {
    pub cap: u32,
    pub regs: u32,
    pub blocks_per_sm: u32,
    pub occupancy: f64,
    /// What limits the resident blocks, by the occupancy calculator.
    pub limiter: String,
    pub timing: Timing,
    pub gflops: f64,
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
}

row!(RegsRow, GFLOPS, gflops, |r| format!("cap {}", r.cap));
