//! One module's figures for one table row: residency, timing, throughput, check and the flags
//! that keep a doubtful figure from passing as fact; and the compared module's side of a row.

use super::residency::Resident;
use crate::results::{Check, Comparison, Timing};

/// One module's figures for one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub regs: u32,
    pub blocks_per_sm: u32,
    pub occupancy: f64,
    pub timing: Timing,
    /// GFLOP/s or GB/s.
    pub throughput: f64,
    pub check: Check,
    /// Warnings about the figures; [`Measured::disagreement`] is among them.
    pub flags: Vec<String>,
    /// What limits the resident blocks, by the occupancy calculator.
    pub limiter: String,
    /// The calculator and the driver disagree on the resident blocks (also in `flags`).
    pub disagreement: Option<String>,
}

impl Measured {
    /// A kernel's figures from its residency and what was measured: the residency's
    /// calculator/driver disagreement and a throughput above the device's spec `peak` (in `unit`,
    /// the peak of `what`) become the flags.
    pub(crate) fn new(
        resident: Resident,
        timing: Timing,
        throughput: f64,
        check: Check,
        peak: f64,
        unit: &str,
        what: &str,
    ) -> Measured {
        let mut flags: Vec<String> = resident.disagreement.iter().cloned().collect();
        flags.extend(timing.flags.iter().cloned());
        flag_above_peak(&mut flags, throughput, peak, unit, what);
        Measured {
            regs: resident.regs,
            blocks_per_sm: resident.blocks_per_sm,
            occupancy: resident.occupancy,
            timing,
            throughput,
            check,
            flags,
            limiter: resident.limiter,
            disagreement: resident.disagreement,
        }
    }

    /// This row's figures as the other module's side of a comparison with `ours`.
    pub fn as_comparison(
        self,
        ours: &Measured,
        spill_stores: Option<u32>,
        spill_loads: Option<u32>,
    ) -> Comparison {
        Comparison {
            regs: self.regs,
            throughput: self.throughput,
            ratio: ours.throughput / self.throughput,
            spill_stores,
            spill_loads,
            timing: self.timing,
            check: self.check,
        }
    }
}

/// Flags a figure above the device's spec peak instead of letting it pass as fact.
pub(crate) fn flag_above_peak(
    flags: &mut Vec<String>,
    value: f64,
    peak: f64,
    unit: &str,
    what: &str,
) {
    if peak > 0.0 && value > peak {
        flags.push(format!(
            "{value:.0} {unit} is above the device's {what} spec peak of {peak:.0} {unit}: \
             the timing cannot be right"
        ));
    }
}

/// Keeps the compared module's calculator/driver disagreement on the row: a [`Comparison`] has
/// no flags of its own, so without this it would be dropped with the compared module's figures.
pub(crate) fn flag_compared_disagreement(flags: &mut Vec<String>, compared: &Measured) {
    if let Some(d) = &compared.disagreement {
        flags.push(format!("compared module: {d}"));
    }
}

/// The compared module's side of a row, when there is one: its figures and spill counts
/// (`theirs`) against `ours`; its calculator/driver disagreement is added to `flags`, the row's
/// flags (which start as `ours.flags`).
pub(crate) fn comparison(
    ours: &Measured,
    theirs: Option<(Measured, Option<u32>, Option<u32>)>,
    flags: &mut Vec<String>,
) -> Option<Comparison> {
    let (theirs, spill_stores, spill_loads) = theirs?;
    flag_compared_disagreement(flags, &theirs);
    flags.extend(
        theirs
            .timing
            .flags
            .iter()
            .map(|f| format!("compared module: {f}")),
    );
    Some(theirs.as_comparison(ours, spill_stores, spill_loads))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(throughput: f64, disagreement: Option<&str>, peak: f64) -> Measured {
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
        };
        Measured::new(resident, timing, throughput, check, peak, "GB/s", "DRAM")
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
    fn a_comparison_keeps_the_compared_modules_disagreement() {
        let ours = measured(100.0, None, 0.0);
        let mut flags = ours.flags.clone();
        assert_eq!(comparison(&ours, None, &mut flags), None);
        assert!(flags.is_empty());
        let theirs = measured(50.0, Some("driver says 3"), 0.0);
        let c = comparison(&ours, Some((theirs, Some(2), Some(1))), &mut flags).expect("compared");
        assert_eq!(flags, ["compared module: driver says 3"]);
        assert_eq!((c.throughput, c.ratio), (50.0, 2.0));
        assert_eq!((c.spill_stores, c.spill_loads), (Some(2), Some(1)));
    }

    #[test]
    fn peak_flags_only_above_the_peak() {
        let mut flags = Vec::new();
        flag_above_peak(&mut flags, 100.0, 200.0, "GB/s", "DRAM");
        assert!(flags.is_empty());
        flag_above_peak(&mut flags, 300.0, 200.0, "GB/s", "DRAM");
        assert_eq!(flags.len(), 1);
        assert!(flags[0].contains("300 GB/s") && flags[0].contains("200"));
    }
}
