//! What "reaching the peak" means for an `ilp` row: its bootstrap interval of the fraction of the
//! FP32 peak at or above [`REACHED`]. Both the claims and the needed-parallelism verdict judge by
//! it, so it sits below both.

use super::row::{IlpRow, VOLKOV_FRACTION};
use crate::confidence::{self, Coverage, Interval, NoInterval, Timed};
use crate::table::percent_with;

/// Fraction of peak that counts as reaching it.
pub const REACHED: f64 = VOLKOV_FRACTION;

/// A row's fraction of the peak with its bootstrap interval.
pub(crate) fn fraction(r: &IlpRow) -> Result<Interval, NoInterval> {
    confidence::value(Timed::new(r.fraction_of_peak, &r.timing))
}

/// A row's fraction of the peak with its interval at `coverage` (a corrected one where the row
/// was picked among several).
pub(crate) fn fraction_at(r: &IlpRow, coverage: Coverage) -> Result<Interval, NoInterval> {
    confidence::value_at(Timed::new(r.fraction_of_peak, &r.timing), coverage.level)
}

/// [`reaches`] on the interval at `coverage`.
pub(crate) fn reaches_at(r: &IlpRow, coverage: Coverage) -> Option<bool> {
    fraction_at(r, coverage)
        .ok()
        .and_then(|iv| iv.exceeds(REACHED))
}

/// Whether a row reaches the peak: its interval wholly at or above [`REACHED`] (`Some(true)`),
/// wholly below it (`Some(false)`), or neither.
pub(crate) fn reaches(r: &IlpRow) -> Option<bool> {
    fraction(r).ok().and_then(|iv| iv.exceeds(REACHED))
}

/// How the interval is read, in the words a verdict quotes.
pub(crate) fn interval_words() -> String {
    format!(
        "on the {} bootstrap interval of the row's fraction of the peak ({} resamples of its \
         samples, fixed seed)",
        percent_with(confidence::LEVEL, 0),
        confidence::RESAMPLES
    )
}
