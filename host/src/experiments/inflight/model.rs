//! Little's law for the copy: the bandwidth a GPU can sustain is the bytes it keeps in flight
//! divided by the time one request takes (the DRAM latency), up to the copy's peak.
//!
//! **Byte convention.** Every GB/s of this experiment counts bytes read plus bytes written, as
//! the `bandwidth` experiment does (`bandwidth::copy_gbps`) and as the device-to-device copy's
//! figure is counted. Bytes *in flight* are the bytes a thread has loaded and not yet stored: each thread
//! issues all its loads before its first store, so an SM holds
//! `resident threads x bytes per thread` of reads in flight. Little's law on those gives the
//! *read* rate, `bytes in flight / latency`; the copy writes as many bytes as it reads (stores
//! do not wait for DRAM: they leave the SM and the warp moves on), so the read+write rate the
//! model predicts is **twice** the read rate:
//!
//! `predicted GB/s (read+write) = min(peak, 2 x SMs x bytes in flight per SM / latency)`
//!
//! with `peak` the device-to-device copy measured in the same run (also read+write).

use serde::{Deserialize, Serialize};

/// Reads and writes are counted both: a copy moves 2 bytes for every byte it loads.
pub const BYTES_MOVED_PER_BYTE_LOADED: f64 = 2.0;

/// The inputs of the model for one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LittlesLaw {
    /// SMs of the device.
    pub sms: u32,
    /// DRAM latency of one dependent load, ns (the pointer chase).
    pub latency_ns: f64,
    /// The copy's ceiling, GB/s read+write (the device-to-device copy of the same run).
    pub peak_gbps: f64,
}

impl LittlesLaw {
    /// Predicted copy GB/s (read+write) with `bytes_in_flight_per_sm` bytes of loads in flight
    /// on every SM.
    pub fn predicted_gbps(&self, bytes_in_flight_per_sm: f64) -> f64 {
        // bytes/ns is GB/s (1e9 bytes per s).
        let unbounded = BYTES_MOVED_PER_BYTE_LOADED * f64::from(self.sms) * bytes_in_flight_per_sm
            / self.latency_ns;
        unbounded.min(self.peak_gbps)
    }

    /// The latency a row implies, ns: Little's law solved for the latency with the row's own
    /// bytes in flight and GB/s, `2 x SMs x bytes in flight per SM / GB/s` (the 2 as in the
    /// prediction: the GB/s count the bytes written too). Above the knee it is an upper bound,
    /// as more bytes are in flight than the rate needs; below it, the time a load took under the
    /// row's own load. `None` for a row that moved nothing.
    pub fn effective_latency_ns(&self, bytes_in_flight_per_sm: f64, gbps: f64) -> Option<f64> {
        (gbps > 0.0).then(|| {
            BYTES_MOVED_PER_BYTE_LOADED * f64::from(self.sms) * bytes_in_flight_per_sm / gbps
        })
    }

    /// Bytes of loads in flight per SM the model needs for `fraction` of the peak (1.0: the
    /// knee, where the line meets the ceiling).
    pub fn bytes_needed_per_sm(&self, fraction: f64) -> f64 {
        fraction * self.peak_gbps * self.latency_ns
            / (BYTES_MOVED_PER_BYTE_LOADED * f64::from(self.sms))
    }
}

/// Bytes of loads in flight per SM: resident threads x bytes each thread loads before storing.
pub fn bytes_in_flight_per_sm(resident_threads_per_sm: u32, bytes_per_thread: u32) -> u64 {
    u64::from(resident_threads_per_sm) * u64::from(bytes_per_thread)
}

/// Memory requests in flight per SM, counted as warp-wide load instructions: every resident warp
/// has each of its `loads` loads outstanding (one request of 128, 256 or 512 bytes by width).
pub fn requests_in_flight_per_sm(resident_warps_per_sm: u32, loads: u32) -> u64 {
    u64::from(resident_warps_per_sm) * u64::from(loads)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A made-up GPU: 100 SMs, 500 ns, 4000 GB/s copy (read+write).
    pub(crate) const GPU: LittlesLaw = LittlesLaw {
        sms: 100,
        latency_ns: 500.0,
        peak_gbps: 4000.0,
    };

    /// An H200-like GPU: 132 SMs, 600 ns, 4200 GB/s copy.
    pub(crate) const H200_LIKE: LittlesLaw = LittlesLaw {
        sms: 132,
        latency_ns: 600.0,
        peak_gbps: 4200.0,
    };

    /// Asserts `a` is `b` up to rounding.
    pub(crate) fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} against {b}");
    }

    #[test]
    fn the_rate_is_twice_the_reads_in_flight_over_latency_up_to_the_peak() {
        // 1000 B per SM: 100 SMs x 1000 B / 500 ns = 200 GB/s read, 400 GB/s read+write.
        close(GPU.predicted_gbps(1000.0), 400.0);
        // Linear below the knee; above it the peak holds.
        close(GPU.predicted_gbps(4000.0), 1600.0);
        assert_eq!(GPU.predicted_gbps(1e6), 4000.0);
    }

    #[test]
    fn the_bytes_needed_and_the_effective_latency_invert_the_prediction() {
        // Knee: 4000 GB/s = 2 x 100 x B / 500 -> B = 10000 B per SM.
        close(GPU.bytes_needed_per_sm(1.0), 10_000.0);
        close(GPU.predicted_gbps(GPU.bytes_needed_per_sm(0.95)), 3800.0);
        // 1000 B per SM predicts 400 GB/s; measured at 400 the latency is the model's 500 ns.
        close(GPU.effective_latency_ns(1000.0, 400.0).unwrap(), 500.0);
        // Half the rate with the same bytes in flight: each load took twice as long.
        close(GPU.effective_latency_ns(1000.0, 200.0).unwrap(), 1000.0);
        assert_eq!(GPU.effective_latency_ns(1000.0, 0.0), None);
        // 2 blocks of 1024 threads, 16 B each: 32 KiB per SM; 64 warps x 4 loads.
        assert_eq!(bytes_in_flight_per_sm(2048, 16), 32_768);
        assert_eq!(requests_in_flight_per_sm(64, 4), 256);
    }
}
