//! What a unit reading several experiments' results declares: the experiments it reads and what it
//! gives of a run.

use crate::experiments::RunResults;

/// A unit reading several experiments' results.
pub trait Across {
    /// What it is, in words.
    const WHAT: &'static str;
    /// The experiments whose output it reads, by name.
    const READS: &'static [&'static str];
    /// What it gives of a run.
    type Gives;
    /// What it gives of `results` (an experiment it reads that did not run is absent there).
    fn read(results: &RunResults) -> Self::Gives;
}
