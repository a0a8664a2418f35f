//! GPU-only checks of the energy phase: NVML's counter answers and moves, and `host gemm_bf16
//! --energy` runs every side in three windows of a second or more, each side's output checked
//! after them. Where the build found no CUDA driver they are listed as ignored; asked to run
//! anyway (`--ignored`) without one, they fail.

use std::process::Command;
use std::time::{Duration, Instant};

use host::cuda::{driver_present, Gpu};
use host::sampling::energy_windows::{EnergyPhase, MIN_WINDOW, MIN_WINDOWS};

fn require_driver() {
    assert!(
        driver_present(),
        "no CUDA driver: this GPU-only test was asked to run and cannot (it fails rather than \
         passing untested)"
    );
}

/// NVML's total-energy counter answers and moves within half a second (it steps about every
/// 100 ms on the H200), and the SM clock answers beside it.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn the_energy_counter_answers_and_moves() {
    require_driver();
    let gpu = Gpu::open(0).expect("open device 0");
    let first = gpu.total_energy_mj().expect("NVML's energy counter");
    assert!(gpu.sm_clock_mhz_now().is_some());
    let start = Instant::now();
    let mut moved = false;
    while start.elapsed() < Duration::from_millis(500) && !moved {
        std::thread::sleep(Duration::from_millis(5));
        moved = gpu.total_energy_mj().expect("still answering") != first;
    }
    assert!(moved, "the counter stayed at {first} mJ for half a second");
}

/// `host gemm_bf16 --energy` at 2048³ on one mma.sync line and one wgmma line: every side
/// (both lines and cuBLAS) has three windows of at least a second, each with launches and
/// energy, and passed its check after them; the figures' clock is recorded for the per-clock
/// table.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn the_energy_phase_runs_every_side_in_its_windows_and_checks_them() {
    require_driver();
    let out = Command::new(env!("CARGO_BIN_EXE_host"))
        .args([
            "gemm_bf16",
            "--variants",
            "M1,W1",
            "--size",
            "2048",
            "--energy",
        ])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: host::experiments::RunResults = serde_json::from_slice(&out.stdout).unwrap();
    let run = r.gemm_bf16.expect("gemm_bf16 ran");
    let ce = run.clock_energy.expect("the clock basis is kept");
    assert!(ce.peak_flops_per_sm_clock.is_some() && ce.sm_count > 0);
    for row in &run.rows {
        assert!(
            row.figures.timing.sm_clock_mhz_during.is_some(),
            "{}",
            row.variant
        );
    }
    let Some(EnergyPhase::Measured(phase)) = ce.energy else {
        panic!("no energy measured: {:?}", ce.energy);
    };
    let labels: Vec<&str> = phase.sides.iter().map(|s| s.label.as_str()).collect();
    let expected = ["M1", "W1", "cuBLAS BF16"];
    assert!(expected.iter().all(|l| labels.contains(l)), "{labels:?}");
    for side in &phase.sides {
        assert_eq!(side.windows.len(), MIN_WINDOWS as usize, "{}", side.label);
        for w in &side.windows {
            assert!(
                w.seconds >= MIN_WINDOW.as_secs_f64(),
                "{}: {w:?}",
                side.label
            );
            assert!(w.launches > 0 && w.millijoules > 0, "{}: {w:?}", side.label);
            assert!(w.clock_readings > 0, "{}: {w:?}", side.label);
            let probe = w
                .kernel_clock_mhz
                .expect("the in-kernel probe ran after the window");
            assert!(probe > 0.0, "{}: {w:?}", side.label);
        }
        let check = side.check.as_ref().expect("checked after its windows");
        assert!(check.passed, "{}: {check:?}", side.label);
        let ratios = phase.ratios_of(side);
        assert_eq!(ratios.is_some(), side.label != "cuBLAS BF16");
    }
}
