//! DRAM latency by a dependent pointer chase: one thread follows `i = next[i]` over a ring that
//! visits every slot of the buffer once in a random order (`kernels_gpu::models::probe_results::
//! build_chase_ring`, slots of `CHASE.slot_bytes`), so every load depends on the previous one and,
//! the buffer being far larger than L2, almost every load goes to DRAM. The kernel
//! (`variants::CHASE`) writes the final index, the `%clock64` cycles and the `%globaltimer`
//! nanoseconds the chase took; the final index is checked against the same walk on the CPU
//! (`models::probe_results::chase_end`: a chase that stopped early or skipped loads ends
//! elsewhere). CPU side.

use kernels_gpu::variants::ChaseResult;
use serde::{Deserialize, Serialize};

use crate::results::Check;

/// Checks the kernel's final index against the CPU's walk.
pub fn check_chase(got: u32, predicted: u32, steps: u32) -> Check {
    let passed = got == predicted;
    Check {
        passed,
        error: if passed { 0.0 } else { 1.0 },
        bound: 0.0,
        what: format!(
            "pointer chase of {steps} dependent loads ends at index {predicted} as on the CPU \
             (got {got})"
        ),
        hashes: None,
    }
}

/// The latency figures of one chase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Dependent loads in the timed chase.
    pub steps: u32,
    /// Bytes of the chased buffer.
    pub buffer_bytes: u64,
    /// `%clock64` cycles per load.
    pub cycles_per_step: f64,
    /// Nanoseconds per load, from the kernel's `%globaltimer` readings around the chase (no
    /// launch overhead in it).
    pub ns_per_step: f64,
    /// The SM clock the two imply (cycles / ns, in MHz).
    pub implied_clock_mhz: f64,
    pub check: Check,
}

impl Latency {
    pub fn new(steps: u32, buffer_bytes: u64, measured: ChaseResult, check: Check) -> Self {
        let steps_f = f64::from(steps.max(1));
        let cycles_per_step = measured.cycles as f64 / steps_f;
        let ns_per_step = measured.nanos as f64 / steps_f;
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
    use kernels_gpu::models::probe_results::{build_chase_ring, chase_end};
    use kernels_gpu::variants::CHASE;

    use super::*;
    use crate::experiments::inputs::Rng;

    #[test]
    fn a_short_or_long_chase_is_caught() {
        let slot = CHASE.slot_elems();
        let mut next = vec![0u32; 1000 * slot];
        let mut rng = Rng::new(7);
        build_chase_ring(&mut next, slot, |n| rng.below(n));
        let end = chase_end(&next, 0, 500);
        assert!(check_chase(end, end, 500).passed);
        // A kernel that did one load less, or one more, ends elsewhere on a single cycle.
        for steps in [499, 501] {
            assert!(!check_chase(chase_end(&next, 0, steps), end, 500).passed);
        }
    }

    #[test]
    fn figures_per_step() {
        // 1000 loads, 600_000 cycles, 300_000 ns: 600 cycles and 300 ns a load, 2 GHz.
        let measured = ChaseResult {
            end: 1,
            cycles: 600_000,
            nanos: 300_000,
        };
        let l = Latency::new(1000, 1 << 30, measured, check_chase(1, 1, 1000));
        assert!((l.cycles_per_step - 600.0).abs() < 1e-9);
        assert!((l.ns_per_step - 300.0).abs() < 1e-9);
        assert!((l.implied_clock_mhz - 2000.0).abs() < 1e-6);
    }
}
