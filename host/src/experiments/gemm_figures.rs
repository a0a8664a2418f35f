//! What the `occupancy` and `regs` experiments record alike of one timed GEMM build: its
//! registers, the occupancy calculator's residency, the timing and the throughput. Both rows
//! embed it (`#[serde(flatten)]`, so `results.json` keeps these fields where they always were).

use serde::{Deserialize, Serialize};

use super::measurement::Measurement;
use crate::claim::ratio;
use crate::confidence::{Interval, NoInterval};
use crate::results::Timing;

/// One GEMM build's registers, residency, timing and GFLOP/s.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GemmFigures {
    pub regs: u32,
    pub blocks_per_sm: u32,
    /// Theoretical occupancy, 0..=1.
    pub occupancy: f64,
    /// What limits the resident blocks, by the occupancy calculator (e.g. "registers + warps").
    pub limiter: String,
    pub timing: Timing,
    pub gflops: f64,
}

impl GemmFigures {
    /// The figures of our side of a measurement.
    pub fn of(ours: &Measurement) -> Self {
        Self {
            regs: ours.regs,
            blocks_per_sm: ours.blocks_per_sm,
            occupancy: ours.occupancy,
            limiter: ours.limiter.clone(),
            timing: ours.timing.clone(),
            gflops: ours.throughput,
        }
    }

    /// These GFLOP/s over `other`'s, with the interval of their samples.
    pub fn over(&self, other: &GemmFigures) -> Result<Interval, NoInterval> {
        ratio((self.gflops, &self.timing), (other.gflops, &other.timing))
    }
}
