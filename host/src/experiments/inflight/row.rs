//! The `inflight` experiment's typed results: one row per sweep point, the copy reference, the
//! latency, the model and the headline figures drawn from them.

use serde::{Deserialize, Serialize};

use super::grid::Point;
use super::model::LittlesLaw;
use crate::experiments::contract::{row, GBPS};
use crate::experiments::measured::Measured;
use crate::experiments::spills::Spills;
use crate::results::Timing;

/// One point of the bytes-in-flight sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InflightRow {
    pub point: Point,
    pub entry: String,
    pub bytes_per_thread: u32,
    pub regs: u32,
    pub dyn_smem_bytes: u32,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    /// Resident warps over the SM's maximum.
    pub occupancy: f64,
    /// Resident threads x bytes per thread (loads in flight).
    pub bytes_in_flight_per_sm: u64,
    /// Resident warps x loads per thread (warp-wide load instructions outstanding).
    pub requests_in_flight_per_sm: u64,
    /// Measured GB/s, read + written.
    pub gbps: f64,
    /// `gbps` over the device-to-device copy's GB/s of the same run.
    pub fraction_of_copy: f64,
    /// The model's GB/s for `bytes_in_flight_per_sm` (read + written).
    pub predicted_gbps: f64,
    /// The latency Little's law implies from the row's own bytes in flight and GB/s
    /// ([`LittlesLaw::effective_latency_ns`]); absent in runs recorded before it was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_latency_ns: Option<f64>,
    /// What limits the resident blocks, by the occupancy calculator.
    pub limiter: String,
    pub timing: Timing,
    #[serde(flatten)]
    pub measured: Measured,
    /// Our build's spill and stack figures for the entry, as compiled for this run (absent in
    /// runs recorded before they were kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spills: Option<Spills>,
    /// The compared module's, where it was timed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare_spills: Option<Spills>,
}

/// The rows conclusions about bytes in flight may use ([`InflightRow::usable`]).
pub fn usable(rows: &[InflightRow]) -> impl Iterator<Item = &InflightRow> {
    rows.iter().filter(|r| r.usable())
}

/// How the table and the notes show a point whose build keeps values in local memory.
pub const SPILLS_NOTE: &str = "spills: not all loads in flight";

row!(InflightRow, GBPS, gbps, |r| format!("{} at {} blocks/SM", r.entry, r.blocks_per_sm),
    merge_key: |r| format!("{} x{}", r.entry, r.blocks_per_sm));

impl InflightRow {
    /// Our build keeps values in local memory (spills, or a stack frame): its loads cannot all be
    /// held in the registers its block size allows, so not all of them are in flight together
    /// and `bytes_in_flight_per_sm` overstates what the point holds. False where the run
    /// recorded no compiler figures.
    pub fn spilled(&self) -> bool {
        self.spills.is_some_and(|s| s.in_local_memory())
    }

    /// The same of the compared module's build.
    pub fn compare_spilled(&self) -> bool {
        self.compare_spills.is_some_and(|s| s.in_local_memory())
    }

    /// Usable for conclusions about bytes in flight: checked, and our build does not spill.
    pub fn usable(&self) -> bool {
        self.measured.checked() && !self.spilled()
    }
}

/// The device-to-device copy that sets 100%.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CopyReference {
    /// Bytes of each of the source and the destination.
    pub bytes: u64,
    /// GB/s, read + written.
    pub gbps: f64,
    pub timing: Timing,
}

/// The configuration that reaches a fraction of the copy at the least occupancy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeastOccupancy {
    /// The fraction of the copy asked for (0.9, 0.95).
    pub fraction: f64,
    /// The row's entry, residency and figures; None when no checked row reaches the fraction.
    pub found: Option<HeadlineRow>,
}

/// The few numbers of a row a headline quotes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeadlineRow {
    pub entry: String,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    pub occupancy: f64,
    pub bytes_in_flight_per_sm: u64,
    pub fraction_of_copy: f64,
}

impl From<&InflightRow> for HeadlineRow {
    fn from(r: &InflightRow) -> Self {
        Self {
            entry: r.entry.clone(),
            blocks_per_sm: r.blocks_per_sm,
            warps_per_sm: r.warps_per_sm,
            occupancy: r.occupancy,
            bytes_in_flight_per_sm: r.bytes_in_flight_per_sm,
            fraction_of_copy: r.fraction_of_copy,
        }
    }
}

/// Bytes in flight per SM the model needs for a fraction of the copy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BytesNeeded {
    pub fraction: f64,
    pub bytes_per_sm: f64,
}

/// The figures printed at the end of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    /// At 90% and 95% of the copy.
    pub least_occupancy: Vec<LeastOccupancy>,
    /// At 90%, 95% and 100% (the knee).
    pub bytes_needed: Vec<BytesNeeded>,
}

/// Fractions of the copy the headline looks for.
pub const HEADLINE_FRACTIONS: [f64; 2] = [0.90, 0.95];

/// The fastest usable row (median GB/s) that `keep` admits.
pub fn fastest(rows: &[InflightRow], keep: impl Fn(&InflightRow) -> bool) -> Option<&InflightRow> {
    usable(rows)
        .filter(|r| keep(r))
        .max_by(|a, b| a.gbps.total_cmp(&b.gbps))
}

/// The usable row ([`InflightRow::usable`]) with the least occupancy among those reaching
/// `fraction` of the copy; among equal occupancies, the fastest.
pub fn least_occupancy_reaching(rows: &[InflightRow], fraction: f64) -> Option<&InflightRow> {
    rows.iter()
        .filter(|r| r.usable() && r.fraction_of_copy >= fraction)
        .min_by(|a, b| {
            a.occupancy
                .total_cmp(&b.occupancy)
                .then(b.fraction_of_copy.total_cmp(&a.fraction_of_copy))
        })
}

/// The usable row with the fewest bytes in flight per SM among those reaching `fraction` of the
/// copy.
pub fn least_bytes_reaching(rows: &[InflightRow], fraction: f64) -> Option<&InflightRow> {
    usable(rows)
        .filter(|r| r.fraction_of_copy >= fraction)
        .min_by_key(|r| r.bytes_in_flight_per_sm)
}

/// The headline figures of a sweep.
pub fn headline(rows: &[InflightRow], model: &LittlesLaw) -> Headline {
    Headline {
        least_occupancy: HEADLINE_FRACTIONS
            .iter()
            .map(|&fraction| LeastOccupancy {
                fraction,
                found: least_occupancy_reaching(rows, fraction).map(HeadlineRow::from),
            })
            .collect(),
        bytes_needed: [0.90, 0.95, 1.0]
            .iter()
            .map(|&fraction| BytesNeeded {
                fraction,
                bytes_per_sm: model.bytes_needed_per_sm(fraction),
            })
            .collect(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests as sweep;
    use crate::experiments::inflight::chase::Latency;
    use crate::experiments::inflight::grid::CopyShape;
    use crate::experiments::inflight::model::tests::GPU;
    use crate::experiments::inflight::output::Inflight;

    /// The 4000 GB/s copy the synthetic rows are fractions of, timed like them.
    pub(crate) fn copy() -> CopyReference {
        CopyReference {
            bytes: 1 << 27,
            gbps: 4000.0,
            timing: row(32, 1, 4, 1.0).timing,
        }
    }

    /// A run of `rows` against [`copy`], with a 600 ns chase and the model `model`; no loaded
    /// curve or size sweep.
    pub(crate) fn synthetic(rows: Vec<InflightRow>, model: LittlesLaw) -> Inflight {
        Inflight {
            copy: copy(),
            latency: Latency {
                steps: 1000,
                buffer_bytes: 1 << 30,
                cycles_per_step: 1200.0,
                ns_per_step: 600.0,
                implied_clock_mhz: 2000.0,
                check: passed(),
            },
            loaded: Default::default(),
            loaded_predictions: vec![],
            sizes: None,
            reads: None,
            sustained: None,
            headline: headline(&rows, &model),
            model,
            rows,
            skipped: vec![],
        }
    }

    pub(crate) fn passed() -> crate::results::Check {
        sweep::passed().check
    }

    /// A synthetic row: `threads` x `blocks` resident, `bytes` per thread, at `fraction` of a
    /// 4000 GB/s copy.
    pub(crate) fn row(threads: u32, blocks: u32, bytes: u32, fraction: f64) -> InflightRow {
        let warps = threads / 32 * blocks;
        let r = InflightRow {
            point: Point {
                shape: CopyShape {
                    threads,
                    loads: bytes / 4,
                    width: 1,
                    ring: None,
                    persistent: false,
                },
                blocks_per_sm: blocks,
            },
            entry: format!("memcpy_t{threads}_l{}_w1", bytes / 4),
            bytes_per_thread: bytes,
            regs: 32,
            dyn_smem_bytes: 0,
            blocks_per_sm: blocks,
            warps_per_sm: warps,
            occupancy: f64::from(warps) / 64.0,
            bytes_in_flight_per_sm: u64::from(threads * blocks) * u64::from(bytes),
            requests_in_flight_per_sm: u64::from(warps * bytes / 4),
            gbps: 4000.0 * fraction,
            fraction_of_copy: fraction,
            predicted_gbps: 0.0,
            effective_latency_ns: None,
            limiter: "shared memory".into(),
            timing: sweep::timing(),
            measured: sweep::passed(),
            spills: None,
            compare_spills: None,
        };
        spilling(r, 0, 0)
    }

    /// `r` as a build that spills `bytes` each way with a stack frame of `stack` bytes.
    pub(crate) fn spilling(mut r: InflightRow, bytes: u32, stack: u32) -> InflightRow {
        r.spills = Some(Spills {
            stores: Some(bytes),
            loads: Some(bytes),
            stack_frame: stack,
        });
        r
    }

    /// The warps/SM of the least occupancy reaching `fraction` among `rows`.
    fn least(rows: &[InflightRow], fraction: f64) -> Option<u32> {
        least_occupancy_reaching(rows, fraction).map(|r| r.warps_per_sm)
    }

    #[test]
    fn the_least_occupancy_reaching_a_fraction_is_found() {
        let rows = vec![
            row(1024, 2, 4, 0.55),  // 100%, too slow
            row(256, 1, 64, 0.96),  // 12.5%
            row(128, 1, 128, 0.91), // 6.25%, only 90
            row(512, 1, 16, 0.97),  // 25%
        ];
        assert_eq!(least(&rows, 0.90), Some(4));
        assert_eq!(least(&rows, 0.95), Some(8));
        assert_eq!(least(&rows, 0.99), None);
        // Among equal occupancies, the faster row.
        let rows = vec![row(256, 1, 64, 0.955), row(256, 1, 128, 0.97)];
        let r = least_occupancy_reaching(&rows, 0.95).unwrap();
        assert_eq!(r.bytes_per_thread, 128);
    }

    #[test]
    fn a_failed_check_or_a_spilling_point_never_makes_a_headline() {
        let mut bad = row(32, 1, 512, 0.99);
        bad.measured.check.passed = false;
        assert_eq!(least(&[bad, row(256, 1, 64, 0.96)], 0.95), Some(8));
        let spills = spilling(row(1024, 2, 512, 0.99), 792, 800);
        assert!(spills.measured.checked() && spills.spilled() && !spills.usable());
        assert_eq!(least(&[spills, row(256, 1, 64, 0.96)], 0.95), Some(8));
        // A run that recorded no compiler figures cannot tell: the point counts.
        let mut unknown = row(1024, 2, 512, 0.99);
        unknown.spills = None;
        assert!(unknown.usable());
    }

    #[test]
    fn the_headline_carries_the_models_needs() {
        let h = headline(&[row(256, 1, 64, 0.96)], &GPU);
        assert_eq!(h.least_occupancy.len(), 2);
        assert!(h.least_occupancy[1].found.is_some());
        assert_eq!(h.bytes_needed.len(), 3);
        assert!((h.bytes_needed[2].bytes_per_sm - 10_000.0).abs() < 1e-9);
    }
}
