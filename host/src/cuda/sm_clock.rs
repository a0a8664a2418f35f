//! The SM clock, why it is below its maximum, and the device's total energy, read through NVML
//! (`libnvidia-ml`, loaded at run time by the `nvml-wrapper` crate). The CUDA driver API has no
//! current-clock query; NVML answers in microseconds, where spawning `nvidia-smi` took about 0.1 s
//! a reading.

use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::Clock;
use nvml_wrapper::Nvml;

/// NVML opened once per device: None inside when the library or the device cannot be had, and
/// then every reading is None (the timing goes on without clock flags).
pub struct SmClock {
    nvml: Option<Nvml>,
    /// The device's PCI bus id in NVML's form (`00000000:18:00.0`).
    bus_id: String,
}

impl SmClock {
    /// NVML for the device with the driver's PCI bus id `cuda_bus_id` (`0000:18:00.0`).
    pub fn open(cuda_bus_id: Option<&str>) -> Self {
        let bus_id = cuda_bus_id.map(nvml_bus_id).unwrap_or_default();
        let nvml = (!bus_id.is_empty())
            .then(Nvml::init)
            .and_then(Result::ok)
            .filter(|n| n.device_by_pci_bus_id(bus_id.as_str()).is_ok());
        Self { nvml, bus_id }
    }

    fn device(&self) -> Option<nvml_wrapper::Device<'_>> {
        self.nvml
            .as_ref()?
            .device_by_pci_bus_id(self.bus_id.as_str())
            .ok()
    }

    /// The current SM clock in MHz.
    pub fn mhz(&self) -> Option<u32> {
        self.device()?.clock_info(Clock::SM).ok()
    }

    /// The device's total energy since the driver loaded, millijoules (Volta and later). On the
    /// H200 it moves in steps about every 100 ms: `sampling::energy_windows` reads it over
    /// windows of a second or more.
    pub fn energy_mj(&self) -> Option<u64> {
        self.device()?.total_energy_consumption().ok()
    }

    /// Why the clocks are held down now, in NVML's words ("sw power cap, hw slowdown"); empty
    /// when nothing holds them (idle is not counted: a GPU between launches idles by design).
    pub fn throttled_by(&self) -> Option<String> {
        Some(reason_words(
            self.device()?.current_throttle_reasons().ok()?,
        ))
    }
}

/// The reasons in `mask` that slow a running kernel, in words, comma-separated.
pub fn reason_words(mask: ThrottleReasons) -> String {
    const NAMES: [(ThrottleReasons, &str); 7] = [
        (
            ThrottleReasons::APPLICATIONS_CLOCKS_SETTING,
            "application clocks setting",
        ),
        (ThrottleReasons::SW_POWER_CAP, "sw power cap"),
        (ThrottleReasons::HW_SLOWDOWN, "hw slowdown"),
        (ThrottleReasons::SYNC_BOOST, "sync boost"),
        (ThrottleReasons::SW_THERMAL_SLOWDOWN, "sw thermal slowdown"),
        (ThrottleReasons::HW_THERMAL_SLOWDOWN, "hw thermal slowdown"),
        (ThrottleReasons::HW_POWER_BRAKE_SLOWDOWN, "hw power brake"),
    ];
    NAMES
        .iter()
        .filter(|(bit, _)| mask.contains(*bit))
        .map(|(_, name)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The driver's PCI bus id (`0000:18:00.0`) in NVML's and nvidia-smi's form (`00000000:18:00.0`).
pub fn nvml_bus_id(cuda_id: &str) -> String {
    match cuda_id.split_once(':') {
        Some((domain, rest)) => format!("{domain:0>8}:{rest}"),
        None => cuda_id.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_ids_are_widened_for_nvml_and_throttle_reasons_read_as_words_but_idle() {
        assert_eq!(nvml_bus_id("0000:18:00.0"), "00000000:18:00.0");
        assert_eq!(nvml_bus_id("00000000:9A:00.0"), "00000000:9A:00.0");
        assert_eq!(reason_words(ThrottleReasons::empty()), "");
        assert_eq!(reason_words(ThrottleReasons::GPU_IDLE), "");
        assert_eq!(
            reason_words(ThrottleReasons::SW_POWER_CAP | ThrottleReasons::HW_THERMAL_SLOWDOWN),
            "sw power cap, hw thermal slowdown"
        );
    }

    /// Without a GPU (or without NVML) every reading is None rather than an error or a panic.
    #[test]
    fn no_device_reads_nothing() {
        let c = SmClock::open(None);
        assert_eq!(
            (c.mhz(), c.throttled_by(), c.energy_mj()),
            (None, None, None)
        );
        let c = SmClock::open(Some("0000:ff:1f.7"));
        assert_eq!(c.mhz(), None);
    }
}
