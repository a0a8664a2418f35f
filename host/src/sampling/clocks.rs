//! Clock drops: which samples a low SM clock reading brackets; and the span of the readings a
//! figure took, the clock it ran at.

use serde::{Deserialize, Serialize};

pub use crate::results::ClockSpan;

/// Whether a clock reading lies more than `tolerance` below `reference`.
pub fn clock_dropped(reading_mhz: u32, reference_mhz: u32, tolerance: f64) -> bool {
    f64::from(reading_mhz) < f64::from(reference_mhz) * (1.0 - tolerance)
}

/// A clock reading taken before round `before_round` (`rounds` for the one after the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockReading {
    pub before_round: u32,
    pub mhz: Option<u32>,
}

/// Per round, whether a reading bracketing it (the last at or before its start, the first at or
/// after its end) dropped below `reference`; rounds without a readable bracket are not marked.
pub fn rounds_with_clock_drop(
    readings: &[ClockReading],
    rounds: u32,
    reference_mhz: u32,
    tolerance: f64,
) -> Vec<bool> {
    let low = |r: &ClockReading| {
        r.mhz
            .is_some_and(|m| clock_dropped(m, reference_mhz, tolerance))
    };
    (0..rounds)
        .map(|round| {
            let before = readings
                .iter()
                .filter(|r| r.before_round <= round && r.mhz.is_some())
                .max_by_key(|r| r.before_round);
            let after = readings
                .iter()
                .filter(|r| r.before_round > round && r.mhz.is_some())
                .min_by_key(|r| r.before_round);
            before.is_some_and(low) || after.is_some_and(low)
        })
        .collect()
}

/// The span of the answered readings; None when the driver answered none.
pub fn clock_span(readings: &[ClockReading]) -> Option<ClockSpan> {
    let mut mhz: Vec<u32> = readings.iter().filter_map(|r| r.mhz).collect();
    mhz.sort_unstable();
    Some(ClockSpan {
        readings: mhz.len() as u32,
        min_mhz: *mhz.first()?,
        median_mhz: mhz[(mhz.len() - 1) / 2],
        max_mhz: *mhz.last()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(before_round: u32, mhz: Option<u32>) -> ClockReading {
        ClockReading { before_round, mhz }
    }

    #[test]
    fn the_span_covers_the_answered_readings() {
        let readings = [
            r(0, Some(1980)),
            r(1, None),
            r(2, Some(1755)),
            r(3, Some(1980)),
        ];
        let span = clock_span(&readings).unwrap();
        assert_eq!(
            (span.readings, span.min_mhz, span.median_mhz, span.max_mhz),
            (3, 1755, 1980, 1980)
        );
        assert_eq!(clock_span(&[r(0, None)]), None);
        assert_eq!(clock_span(&[]), None);
    }

    #[test]
    fn samples_bracketed_by_a_low_clock_are_marked() {
        // Readings before rounds 0, 2, 4 and after the last (round 6).
        let readings = [
            r(0, Some(1980)),
            r(2, Some(1700)),
            r(4, Some(1980)),
            r(6, None),
        ];
        let marked = rounds_with_clock_drop(&readings, 6, 1980, 0.02);
        // Rounds 0-1 end at the low reading, 2-3 start at it; 4-5 are bracketed by 1980 and
        // an unreadable reading, so not marked.
        assert_eq!(marked, [true, true, true, true, false, false]);
        assert!(!clock_dropped(1950, 1980, 0.02));
        assert!(clock_dropped(1930, 1980, 0.02));
    }
}
