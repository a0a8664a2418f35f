//! The units that read the results of several experiments: each declares the experiments it reads
//! ([`Across::READS`], by their registered names) and what it gives of a run. They sit above the
//! experiments; no experiment imports them, so an experiment's folder stays its own.

pub mod part_two;
pub mod unit;
pub mod verdicts;

pub use unit::Across;

/// Every unit: what it is and the experiments it reads.
pub const UNITS: &[(&str, &[&str])] = &[
    (part_two::PartTwo::WHAT, part_two::PartTwo::READS),
    (verdicts::Verdicts::WHAT, verdicts::Verdicts::READS),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::registry::NAMES;

    #[test]
    fn every_unit_reads_registered_experiments() {
        for (what, reads) in UNITS {
            assert!(
                reads.len() > 1,
                "{what} reads one experiment: it belongs to it"
            );
            for name in *reads {
                assert!(NAMES.contains(name), "{what} reads {name}, not registered");
            }
        }
    }
}
