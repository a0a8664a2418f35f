//! The `bandwidth` experiment's output and row, as `results.json` stores them.

use serde::{Deserialize, Serialize};

use crate::experiments::contract::{row, Output, GBPS};
use crate::experiments::measured::Measured;
use crate::results::Timing;

/// The `bandwidth` experiment.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Bandwidth {
    /// Device-to-device copy (cuMemcpyDtoD) bandwidth measured in the same run, GB/s counting
    /// read + written bytes.
    pub reference_gbps: f64,
    pub reference_timing: Timing,
    pub rows: Vec<CopyRow>,
}

impl Output for Bandwidth {
    type Row = CopyRow;
    fn rows(&self) -> &[CopyRow] {
        &self.rows
    }
    fn reference(&self) -> Option<(&'static str, f64)> {
        Some(("copy reference", self.reference_gbps))
    }
}

/// The `bandwidth` experiment, one memcpy variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CopyRow {
    pub variant: String,
    pub threads: u32,
    pub loads: u32,
    pub width: u32,
    pub bytes_per_thread: u32,
    pub regs: u32,
    /// Dynamic shared memory per block that holds residency at 2 blocks/SM.
    pub dyn_smem_bytes: u32,
    pub blocks_per_sm: u32,
    pub occupancy: f64,
    /// What limits the resident blocks, by the occupancy calculator.
    pub limiter: String,
    pub timing: Timing,
    /// GB/s counting read + written bytes.
    pub gbps: f64,
    /// gbps / reference_gbps.
    pub fraction_of_reference: f64,
    #[serde(flatten)]
    pub measured: Measured,
}

row!(CopyRow, GBPS, gbps, |r| r.variant.clone());
