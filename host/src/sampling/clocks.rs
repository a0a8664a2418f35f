//! Clock drops: which samples a low SM clock reading brackets.

use serde::{Deserialize, Serialize};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_bracketed_by_a_low_clock_are_marked() {
        let r = |before_round, mhz| ClockReading { before_round, mhz };
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
