//! DRAM latency by a dependent pointer chase: one thread follows `i = next[i]` over a random
//! permutation that is a single cycle through the whole buffer, so every load depends on the
//! previous one and, the buffer being far larger than L2, almost every load goes to DRAM.
//! The kernel writes the final index and the `%clock64` cycles the chase took; the final index
//! is checked against the same walk on the CPU (a chase that stopped early or skipped loads
//! ends elsewhere).
//!
//! CPU side only: the permutation, the predicted end, the check and the figures. (The kernel
//! crate carries its own permutation builder; this one is here so the figures can be tested
//! alone, and either can build the buffer as long as the check walks the same one.)

use serde::{Deserialize, Serialize};

use crate::experiments::inputs::Rng;
use crate::results::Check;

/// A permutation of `0..n` that is one cycle through every index (Sattolo's algorithm), so a
/// chase from any start visits all `n` slots before coming back.
pub fn single_cycle(n: u32, seed: u64) -> Vec<u32> {
    let mut next: Vec<u32> = (0..n).collect();
    let mut rng = Rng::new(seed);
    for i in (1..n as usize).rev() {
        let j = rng.below(i as u32) as usize; // j < i: this is what makes it one cycle
        next.swap(i, j);
    }
    next
}

/// Where a chase of `steps` loads from `start` ends.
pub fn chase_end(next: &[u32], start: u32, steps: u64) -> u32 {
    let mut i = start;
    for _ in 0..steps {
        i = next[i as usize];
    }
    i
}

/// Checks the kernel's final index against the CPU's walk.
pub fn check_chase(got: u64, predicted: u32, steps: u64) -> Check {
    let passed = got == u64::from(predicted);
    Check {
        passed,
        error: if passed { 0.0 } else { 1.0 },
        bound: 0.0,
        what: format!(
            "pointer chase of {steps} dependent loads ends at index {predicted} as on the CPU \
             (got {got})"
        ),
    }
}

/// The latency figures of one chase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Dependent loads in the timed chase.
    pub steps: u64,
    /// Bytes of the chased buffer.
    pub buffer_bytes: u64,
    /// `%clock64` cycles per load.
    pub cycles_per_step: f64,
    /// Nanoseconds per load, from the CUDA events around the launch (a launch's fixed cost is
    /// included, spread over the steps).
    pub ns_per_step: f64,
    /// The SM clock the two imply (cycles / ns, in MHz).
    pub implied_clock_mhz: f64,
    pub check: Check,
}

impl Latency {
    pub fn new(steps: u64, buffer_bytes: u64, cycles: u64, elapsed_ms: f64, check: Check) -> Self {
        let steps_f = steps.max(1) as f64;
        let cycles_per_step = cycles as f64 / steps_f;
        let ns_per_step = elapsed_ms * 1e6 / steps_f;
        Self {
            steps,
            buffer_bytes,
            cycles_per_step,
            ns_per_step,
            implied_clock_mhz: cycles_per_step / ns_per_step * 1e3,
            check,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permutation_is_one_cycle_through_every_slot() {
        let n = 10_000;
        let next = single_cycle(n, 42);
        let mut seen = vec![false; n as usize];
        let mut i = 0u32;
        for _ in 0..n {
            assert!(!seen[i as usize], "came back to {i} early");
            seen[i as usize] = true;
            i = next[i as usize];
        }
        assert_eq!(i, 0, "back at the start after n steps");
        assert!(seen.iter().all(|&s| s));
        assert_ne!(single_cycle(n, 43), next, "the seed matters");
    }

    #[test]
    fn a_short_or_long_chase_is_caught() {
        let next = single_cycle(1000, 7);
        let end = chase_end(&next, 0, 500);
        assert!(check_chase(u64::from(end), end, 500).passed);
        // A kernel that did one load less, or one more, ends elsewhere on a single cycle.
        assert!(!check_chase(u64::from(chase_end(&next, 0, 499)), end, 500).passed);
        assert!(!check_chase(u64::from(chase_end(&next, 0, 501)), end, 500).passed);
    }

    #[test]
    fn figures_per_step() {
        // 1000 loads, 600_000 cycles, 0.3 ms: 600 cycles and 300 ns a load, 2 GHz.
        let ok = check_chase(1, 1, 1000);
        let l = Latency::new(1000, 1 << 30, 600_000, 0.3, ok);
        assert!((l.cycles_per_step - 600.0).abs() < 1e-9);
        assert!((l.ns_per_step - 300.0).abs() < 1e-9);
        assert!((l.implied_clock_mhz - 2000.0).abs() < 1e-6);
    }
}
