//! GPU-only: experiment 8 (`host held`), fixed binaries held at every residency by dynamic shared
//! memory. Where the build found no CUDA driver, `cargo test` lists it as ignored; asked to run
//! anyway without a driver, it fails.

use std::process::Command;

use host::cuda::driver_present;

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn every_binary_is_held_at_each_residency_and_verified() {
    assert!(
        driver_present(),
        "no CUDA driver: this GPU-only test was asked to run and cannot"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(["held", "--size", "1024", "--format", "json"])
        .args(["--iters", "2", "--samples", "3"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let r: host::experiments::RunResults = serde_json::from_slice(&out.stdout).unwrap();
    let rows = r.held.clone().expect("held ran");
    for binary in ["C", "D", "R4", "C@128"] {
        let curve: Vec<_> = rows.iter().filter(|r| r.binary == binary).collect();
        assert!(!curve.is_empty(), "{binary} has no row");
        for (i, row) in curve.iter().enumerate() {
            // One block/SM more at each step, from one; less shared memory for more blocks.
            assert_eq!(row.figures.blocks_per_sm, i as u32 + 1, "{binary}");
            assert!(
                row.measured.check.passed,
                "{binary}: {:?}",
                row.measured.check
            );
            assert!(row.figures.gflops > 0.0);
            if i > 0 {
                assert!(row.dyn_smem <= curve[i - 1].dyn_smem, "{binary}");
                assert!(row.figures.occupancy > curve[i - 1].figures.occupancy);
            }
        }
        // The same code at every residency: one register count.
        assert!(curve
            .iter()
            .all(|r| r.figures.regs == curve[0].figures.regs));
    }
    assert!(r
        .verdicts()
        .iter()
        .any(|v| v.key == "occupancy-apart-from-code"));
}
