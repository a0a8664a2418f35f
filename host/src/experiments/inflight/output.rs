//! The `inflight` experiment's output: the copy reference, the latencies (idle and loaded), the
//! optional sweeps and the rows. It sits above the rows and the loaded-latency model (which reads
//! the rows), so neither of those imports the other.

use serde::{Deserialize, Serialize};

use super::chase::Latency;
use super::loaded::{LoadedLatency, LoadedPrediction};
use super::model::LittlesLaw;
use super::reads::ReadOnly;
use super::row::{CopyReference, Headline, InflightRow};
use super::sizes::SizeSweep;
use super::sustained::Sustained;
use crate::experiments::contract::Output;

/// Everything the `inflight` experiment measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inflight {
    pub copy: CopyReference,
    pub latency: Latency,
    /// The chase timed under background copies (empty when not run, and in runs recorded
    /// before it was measured).
    #[serde(default, skip_serializing_if = "LoadedLatency::is_empty")]
    pub loaded: LoadedLatency,
    /// Little's law with the loaded latency against the rows' need, at the headline's
    /// fractions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loaded_predictions: Vec<LoadedPrediction>,
    /// The copy-size sweep (absent when not asked for, and in runs recorded before it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<SizeSweep>,
    /// The read-only kernels beside their copies (absent in runs recorded before them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reads: Option<ReadOnly>,
    /// The persistent copies the loaded-latency law is judged on (absent when not run, and in
    /// runs recorded before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sustained: Option<Sustained>,
    pub model: LittlesLaw,
    pub rows: Vec<InflightRow>,
    /// Points that could not be placed at their residency, with the reason.
    pub skipped: Vec<String>,
    pub headline: Headline,
}

impl Output for Inflight {
    type Row = InflightRow;
    fn rows(&self) -> &[InflightRow] {
        &self.rows
    }
    fn reference(&self) -> Option<(&'static str, f64)> {
        Some(("copy reference", self.copy.gbps))
    }
    fn other_failures(&self) -> Vec<String> {
        let chase = &self.latency.check;
        let failed = (!chase.passed).then(|| format!("latency: {}", chase.what));
        let loaded = self
            .loaded
            .points
            .iter()
            .filter(|p| !p.check.passed)
            .map(|p| format!("loaded latency beside {}: {}", p.background, p.check.what));
        let sizes = self
            .sizes
            .iter()
            .flat_map(|s| &s.rows)
            .filter(|r| !r.check.passed);
        let sizes = sizes.map(|r| format!("copy size {} MiB: {}", r.bytes >> 20, r.check.what));
        let reads = self.reads.iter().flat_map(ReadOnly::failures);
        let reads = reads.map(|r| format!("read-only {r}"));
        let sustained = self.sustained.iter().flat_map(Sustained::failures);
        let sustained = sustained.map(|r| format!("persistent copy {r}"));
        failed
            .into_iter()
            .chain(loaded)
            .chain(sizes)
            .chain(reads)
            .chain(sustained)
            .collect()
    }
}
