//! The energy phase's [`Meter`] on a GPU: NVML's counter, clock and throttle reasons, asked
//! afresh at every poll, and the host's monotonic clock.

use std::time::{Duration, Instant};

use super::energy_windows::Meter;
use crate::cuda::Gpu;

/// `gpu`'s NVML readings, timed from when the meter was made.
pub struct GpuMeter<'g> {
    gpu: &'g Gpu,
    origin: Instant,
}

impl<'g> GpuMeter<'g> {
    pub fn new(gpu: &'g Gpu) -> Self {
        Self {
            gpu,
            origin: Instant::now(),
        }
    }
}

impl Meter for GpuMeter<'_> {
    fn energy_mj(&mut self) -> Option<u64> {
        self.gpu.total_energy_mj()
    }
    fn sm_mhz(&mut self) -> Option<u32> {
        self.gpu.sm_clock_mhz_now()
    }
    fn throttled_by(&mut self) -> Option<String> {
        self.gpu.throttled_by()
    }
    fn now(&mut self) -> Duration {
        self.origin.elapsed()
    }
}
