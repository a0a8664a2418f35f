//! Experiment 1's row, as `results.json` stores it.

use serde::{Deserialize, Serialize};

use crate::results::{Check, Comparison, Timing};
use crate::table::TableRow;

/// Experiment 1, one GEMM variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GemmRow {
    pub variant: String,
    pub threads: u32,
    pub tm: u32,
    pub tn: u32,
    pub regs: u32,
    pub blocks_per_sm: u32,
    /// Theoretical occupancy, 0..=1.
    pub occupancy: f64,
    /// What limits the resident blocks, by the occupancy calculator (e.g. "registers + warps").
    pub limiter: String,
    pub timing: Timing,
    pub gflops: f64,
    pub check: Check,
    /// Warnings about the figure (e.g. above the physical peak).
    pub flags: Vec<String>,
    pub compare: Option<Comparison>,
}

impl TableRow for GemmRow {
    fn label(&self) -> String {
        self.variant.clone()
    }
    fn flags(&self) -> &[String] {
        &self.flags
    }
    fn compared(&self) -> bool {
        self.compare.is_some()
    }
}
