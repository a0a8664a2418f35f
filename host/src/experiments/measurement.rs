//! One module's figures for one table row as a run measures them: residency, timing,
//! throughput, check and the flags that keep a doubtful figure from passing as fact. A row
//! stores them in its own columns and its [`super::measured::Measured`] part.

use super::block_trace::BlockTrace;
use super::residency::Resident;
use super::spills::Spills;
use crate::results::{Check, Comparison, DeviceInfo, Timing};

/// One module's figures for one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub regs: u32,
    pub blocks_per_sm: u32,
    pub occupancy: f64,
    pub timing: Timing,
    /// GFLOP/s or GB/s.
    pub throughput: f64,
    pub check: Check,
    /// Warnings about the figures; [`Measurement::disagreement`] is among them.
    pub flags: Vec<String>,
    /// What limits the resident blocks, by the occupancy calculator.
    pub limiter: String,
    /// The calculator and the driver disagree on the resident blocks (also in `flags`).
    pub disagreement: Option<String>,
    /// The block trace of one untimed launch of the traced build, where one was made.
    pub trace: Option<BlockTrace>,
}

/// The spec peak a throughput is held to: a figure above it is flagged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peak {
    pub value: f64,
    /// Its unit, e.g. "GB/s".
    pub unit: &'static str,
    /// What it is the peak of, e.g. "DRAM".
    pub what: &'static str,
}

impl Peak {
    /// The device's FP32 spec peak, GFLOP/s.
    pub fn fp32(device: &DeviceInfo) -> Peak {
        Peak {
            value: device.peak_fp32_gflops,
            unit: "GFLOP/s",
            what: "FP32",
        }
    }

    /// The device's DRAM spec peak, GB/s.
    pub fn dram(device: &DeviceInfo) -> Peak {
        Peak {
            value: device.peak_dram_gbps,
            unit: "GB/s",
            what: "DRAM",
        }
    }
}

impl Measurement {
    /// A kernel's figures from its residency and what was measured: the residency's
    /// calculator/driver disagreement and a throughput above the device's spec `peak` become the
    /// flags.
    pub(crate) fn new(
        resident: Resident,
        timing: Timing,
        throughput: f64,
        check: Check,
        peak: Peak,
    ) -> Measurement {
        let mut flags: Vec<String> = resident.disagreement.iter().cloned().collect();
        flags.extend(timing.flags.iter().cloned());
        flag_above_peak(&mut flags, throughput, peak);
        Measurement {
            regs: resident.regs,
            blocks_per_sm: resident.blocks_per_sm,
            occupancy: resident.occupancy,
            timing,
            throughput,
            check,
            flags,
            limiter: resident.limiter,
            disagreement: resident.disagreement,
            trace: None,
        }
    }

    /// These figures with the block trace `trace`.
    pub(crate) fn with_trace(self, trace: Option<BlockTrace>) -> Measurement {
        Measurement { trace, ..self }
    }

    /// This module's figures as the other module's side of a comparison with `ours`, with its
    /// spill counts where known.
    pub fn as_comparison(self, ours: &Measurement, spills: Option<Spills>) -> Comparison {
        Comparison {
            regs: self.regs,
            throughput: self.throughput,
            ratio: ours.throughput / self.throughput,
            spill_stores: spills.and_then(|s| s.stores),
            spill_loads: spills.and_then(|s| s.loads),
            timing: self.timing,
            check: self.check,
        }
    }
}

/// Flags a figure above the device's spec peak instead of letting it pass as fact.
pub(crate) fn flag_above_peak(flags: &mut Vec<String>, value: f64, peak: Peak) {
    let Peak {
        value: top,
        unit,
        what,
    } = peak;
    if top > 0.0 && value > top {
        flags.push(format!(
            "{value:.0} {unit} is above the device's {what} spec peak of {top:.0} {unit}: \
             the timing cannot be right"
        ));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A measurement of 40 registers at 4 blocks/SM and 1-3 ms, held to a 200 GB/s peak where
    /// `peak` says so.
    pub(crate) fn measured(throughput: f64, disagreement: Option<&str>, peak: f64) -> Measurement {
        let resident = Resident {
            regs: 40,
            blocks_per_sm: 4,
            occupancy: 0.5,
            limiter: "registers".into(),
            disagreement: disagreement.map(str::to_owned),
        };
        let timing = crate::sampling::summarize(vec![1.0, 2.0, 3.0], None, None);
        let check = Check {
            passed: true,
            error: 0.0,
            bound: 1e-5,
            what: "test".into(),
            hashes: None,
        };
        Measurement::new(resident, timing, throughput, check, dram(peak))
    }

    fn dram(value: f64) -> Peak {
        Peak {
            value,
            unit: "GB/s",
            what: "DRAM",
        }
    }

    #[test]
    fn measured_flags_the_disagreement_then_the_peak() {
        let m = measured(
            300.0,
            Some("calculator says 4 blocks/SM, driver says 3"),
            200.0,
        );
        assert_eq!(m.flags.len(), 2);
        assert_eq!(m.flags[0], "calculator says 4 blocks/SM, driver says 3");
        assert!(m.flags[1].contains("above the device's DRAM spec peak"));
        assert_eq!(m.disagreement.as_deref(), Some(m.flags[0].as_str()));
        assert_eq!(
            (m.regs, m.blocks_per_sm, m.limiter.as_str()),
            (40, 4, "registers")
        );
        assert_eq!(m.timing.median_ms, 2.0);
        assert!(measured(100.0, None, 200.0).flags.is_empty());
    }

    #[test]
    fn peak_flags_only_above_the_peak() {
        let peak = dram(200.0);
        let mut flags = Vec::new();
        flag_above_peak(&mut flags, 100.0, peak);
        assert!(flags.is_empty());
        flag_above_peak(&mut flags, 300.0, peak);
        assert_eq!(flags.len(), 1);
        assert!(flags[0].contains("300 GB/s") && flags[0].contains("200"));
    }
}
