//! Every claim judged from a run, each from its own experiment's output, and the `bandwidth`
//! experiment's verdicts given their reason from the `inflight` experiment where it ran too: the
//! bytes in flight the blog's copy variants hold against what Little's law with this GPU's
//! latency says are needed.

use super::unit::Across;
use crate::claim::Verdict;
use crate::experiments::contract::Registered;
use crate::experiments::inflight::table::bandwidth_pointer;
use crate::experiments::{bandwidth, inflight, RunResults};

/// The verdicts of a run.
pub struct Verdicts;

impl Across for Verdicts {
    const WHAT: &'static str = "the verdicts, the copy's with the bytes in flight behind them";
    const READS: &'static [&'static str] = &[bandwidth::Spec::NAME, inflight::Spec::NAME];
    type Gives = Vec<Verdict>;

    fn read(results: &RunResults) -> Vec<Verdict> {
        let mut out = results.own_verdicts();
        if let Some(inflight) = &results.inflight {
            let why = bandwidth_pointer(&inflight.model, &inflight.rows);
            for v in out
                .iter_mut()
                .filter(|v| v.experiment == bandwidth::Spec::NUMBER && v.holds.is_some())
            {
                v.evidence = format!("{} {why}", v.evidence);
            }
        }
        out
    }
}

impl RunResults {
    /// Every claim, judged from this run ([`Verdicts`]).
    pub fn verdicts(&self) -> Vec<Verdict> {
        Verdicts::read(self)
    }
}
