//! Little's law with the latency the copy itself causes. The unloaded chase latency
//! ([`super::chase`]) is what one load takes on an idle memory system; under a copy's traffic the
//! queues fill and each load takes longer, so the bytes in flight a rate needs grow faster than
//! the rate. A chase timed while a background copy runs gives one point of `L(bandwidth)`: the
//! ns per hop against the copy's GB/s over the same window. With that curve, Little's law asks
//! for `fraction x peak x L(fraction x peak) / (2 x SMs)` bytes in flight per SM (the 2 as in
//! [`super::model`]: the GB/s count bytes written as well as read). CPU side.

use serde::{Deserialize, Serialize};

use super::model::{LittlesLaw, BYTES_MOVED_PER_BYTE_LOADED};
use super::row::{least_bytes_reaching, InflightRow};
use crate::results::Check;

/// One chase timed under one background copy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedPoint {
    /// What made the background traffic: the memcpy grid entry and its residency, or "none".
    pub background: String,
    /// The background copy's GB/s (read + written) over the window the chase ran in.
    pub background_gbps: f64,
    /// The chase's ns per dependent load in that window.
    pub ns_per_hop: f64,
    /// Whether the background copies ran for at least as long as the chase (so every hop was
    /// under load).
    pub covered: bool,
    /// The chase's end index against the CPU's walk (and the last background copy's check).
    pub check: Check,
}

/// The latency curve: the points, sorted by background GB/s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LoadedLatency {
    pub points: Vec<LoadedPoint>,
}

impl LoadedLatency {
    /// The curve from `points` in any order; points whose check failed, or whose chase outlasted
    /// its background, are dropped from the interpolation but kept for the notes (marked there).
    pub fn new(mut points: Vec<LoadedPoint>) -> Self {
        points.sort_by(|a, b| a.background_gbps.total_cmp(&b.background_gbps));
        Self { points }
    }

    /// Whether no point was measured (the curve was not run).
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    fn checked(&self) -> impl Iterator<Item = &LoadedPoint> {
        self.points.iter().filter(|p| p.check.passed && p.covered)
    }

    /// The latency at `gbps` of background traffic: linear between the two measured points
    /// around it; past the last point, the line through the last two (latency keeps rising
    /// toward the peak, and a flat extension would understate it); below the first, the first.
    /// `None` without a checked point.
    pub fn latency_at(&self, gbps: f64) -> Option<f64> {
        let pts: Vec<(f64, f64)> = self
            .checked()
            .map(|p| (p.background_gbps, p.ns_per_hop))
            .collect();
        let first = *pts.first()?;
        if pts.len() == 1 || gbps <= first.0 {
            return Some(first.1);
        }
        let i = pts
            .iter()
            .position(|p| p.0 >= gbps)
            .unwrap_or(pts.len() - 1);
        let (a, b) = (pts[i - 1], pts[i]);
        if b.0 <= a.0 {
            return Some(b.1.max(a.1));
        }
        Some(a.1 + (b.1 - a.1) * (gbps - a.0) / (b.0 - a.0))
    }

    /// Bytes of loads in flight per SM Little's law asks for `fraction` of `model`'s peak when
    /// each load takes the latency measured at that rate.
    pub fn bytes_needed_per_sm(&self, model: &LittlesLaw, fraction: f64) -> Option<f64> {
        let gbps = fraction * model.peak_gbps;
        let latency = self.latency_at(gbps)?;
        Some(gbps * latency / (BYTES_MOVED_PER_BYTE_LOADED * f64::from(model.sms)))
    }

    /// Whether `gbps` lies past the fastest checked background copy (the latency there is
    /// extrapolated).
    pub fn extrapolated_at(&self, gbps: f64) -> bool {
        self.checked().all(|p| p.background_gbps < gbps)
    }
}

/// Within this share of the measured need, the loaded model "predicts" it.
pub const PREDICTION_WITHIN: f64 = 0.20;

/// The loaded model's need against the sweep's at one fraction of the copy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LoadedPrediction {
    pub fraction: f64,
    /// Bytes in flight per SM the unloaded model asks for.
    pub unloaded_bytes: f64,
    /// Bytes in flight per SM the loaded model asks for (None without a curve).
    pub loaded_bytes: Option<f64>,
    /// The least bytes in flight per SM of a usable row reaching the fraction (None when none
    /// did).
    pub measured_bytes: Option<u64>,
    /// Whether the latency there was extrapolated past the fastest background copy.
    pub extrapolated: bool,
}

impl LoadedPrediction {
    /// Loaded prediction over the measured need.
    pub fn ratio(&self) -> Option<f64> {
        match (self.loaded_bytes, self.measured_bytes) {
            (Some(p), Some(m)) if m > 0 => Some(p / m as f64),
            _ => None,
        }
    }

    /// Within [`PREDICTION_WITHIN`] of the measured need (None when either side is missing).
    pub fn within(&self) -> Option<bool> {
        self.ratio().map(|r| (r - 1.0).abs() <= PREDICTION_WITHIN)
    }
}

/// The least bytes in flight per SM of a usable row (checked, not spilling) at or above
/// `fraction` of the copy.
pub fn measured_need(rows: &[InflightRow], fraction: f64) -> Option<u64> {
    least_bytes_reaching(rows, fraction).map(|r| r.bytes_in_flight_per_sm)
}

/// The unloaded and loaded models' needs against the rows' at each of `fractions`.
pub fn predictions(
    curve: &LoadedLatency,
    model: &LittlesLaw,
    rows: &[InflightRow],
    fractions: &[f64],
) -> Vec<LoadedPrediction> {
    fractions
        .iter()
        .map(|&fraction| LoadedPrediction {
            fraction,
            unloaded_bytes: model.bytes_needed_per_sm(fraction),
            loaded_bytes: curve.bytes_needed_per_sm(model, fraction),
            measured_bytes: measured_need(rows, fraction),
            extrapolated: curve.extrapolated_at(fraction * model.peak_gbps),
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::inflight::model::tests::{close, GPU};
    use crate::experiments::inflight::row::tests::{passed, row, spilling};

    /// A checked chase at `ns` per hop beside a background copy of `gbps`, covered by it.
    pub(crate) fn point(gbps: f64, ns: f64) -> LoadedPoint {
        LoadedPoint {
            background: format!("{gbps} GB/s"),
            background_gbps: gbps,
            ns_per_hop: ns,
            covered: true,
            check: passed(),
        }
    }

    /// Latency 500 ns idle, 1000 ns at 2000 GB/s, 2000 ns at 3000 GB/s, given out of order.
    fn curve() -> LoadedLatency {
        LoadedLatency::new(vec![
            point(3000.0, 2000.0),
            point(0.0, 500.0),
            point(2000.0, 1000.0),
        ])
    }

    #[test]
    fn the_curve_interpolates_and_extends_its_last_slope() {
        let c = curve();
        assert_eq!(c.latency_at(0.0), Some(500.0));
        close(c.latency_at(1000.0).unwrap(), 750.0);
        close(c.latency_at(2500.0).unwrap(), 1500.0);
        // Past 3000 GB/s: 1 ns more per GB/s, as between the last two points.
        close(c.latency_at(3600.0).unwrap(), 2600.0);
        assert!(c.extrapolated_at(3600.0) && !c.extrapolated_at(2500.0));
        assert_eq!(LoadedLatency::default().latency_at(100.0), None);
        // A failed chase, or one that outlasted its copies, is not on the curve.
        let mut bad = point(2500.0, 99_999.0);
        bad.check.passed = false;
        let mut short = point(2600.0, 1.0);
        short.covered = false;
        let c = LoadedLatency::new([curve().points, vec![bad, short]].concat());
        close(c.latency_at(2500.0).unwrap(), 1500.0);
        close(c.latency_at(2600.0).unwrap(), 1600.0);
    }

    #[test]
    fn the_loaded_need_solves_littles_law_at_the_rate() {
        // 90% of 4000 = 3600 GB/s at 2600 ns: 3600 x 2600 / 200 = 46800 B per SM, against the
        // unloaded model's 3600 x 500 / 200 = 9000.
        close(curve().bytes_needed_per_sm(&GPU, 0.9).unwrap(), 46_800.0);
        close(GPU.bytes_needed_per_sm(0.9), 9000.0);
        // With a flat curve at the unloaded latency the two models agree.
        let flat = LoadedLatency::new(vec![point(0.0, 500.0)]);
        close(
            flat.bytes_needed_per_sm(&GPU, 0.95).unwrap(),
            GPU.bytes_needed_per_sm(0.95),
        );
    }

    #[test]
    fn predictions_meet_the_rows_need_or_say_by_how_much_they_miss() {
        // 48 KiB per SM reaches 92%; 32 KiB only 85%; a spilling 4 KiB row at 99% is no evidence.
        let rows = [
            row(1024, 1, 48, 0.92),
            row(1024, 1, 32, 0.85),
            spilling(row(256, 1, 16, 0.99), 8, 8),
        ];
        assert_eq!(measured_need(&rows, 0.9), Some(49_152));
        let p = predictions(&curve(), &GPU, &rows, &[0.9, 0.95]);
        assert_eq!(p[0].measured_bytes, Some(49_152));
        assert!((p[0].ratio().unwrap() - 46_800.0 / 49_152.0).abs() < 1e-12);
        assert_eq!(p[0].within(), Some(true));
        assert!(p[0].extrapolated);
        // The unloaded model misses by far more than 20%.
        assert!(p[0].unloaded_bytes / 49_152.0 < 0.2);
        // No row reached 95%: no judgement.
        assert_eq!((p[1].measured_bytes, p[1].within()), (None, None));
        // A need measured far above the prediction is a miss.
        let p = predictions(&curve(), &GPU, &[row(1024, 2, 64, 0.93)], &[0.9]);
        assert_eq!(p[0].within(), Some(false));
    }
}
