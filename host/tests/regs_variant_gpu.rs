//! GPU-only: experiment 3 on another GEMM line than the table's (`host regs --variant`), its
//! capped builds made on demand from the built-in PTX: a BF16 tensor-core line at a size that
//! tiles and at one that does not, and a tuned FP32 line. Where the build found no CUDA driver,
//! `cargo test` lists it as ignored; asked to run anyway without a driver, it fails.

mod support;

use host::cuda::driver_present;

/// Runs `host regs ARGS` quickly and gives the results (exit 0 expected).
fn regs(args: &[&str]) -> host::experiments::RunResults {
    support::quick_json_run("regs", args)
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn other_lines_are_capped_on_demand_verified_and_recorded() {
    assert!(
        driver_present(),
        "no CUDA driver: this GPU-only test was asked to run and cannot"
    );
    for (line, size) in [("M1", "512"), ("M4", "333x250x77"), ("R4", "512")] {
        let caps = [64u32, 255];
        let r = regs(&["--variant", line, "--caps", "64,255", "--size", size]);
        assert_eq!(r.meta.regs_variant.as_deref(), Some(line));
        let rows = r.regs.expect("experiment 3 ran");
        assert_eq!(rows.len(), caps.len(), "{line}");
        for (row, cap) in rows.iter().zip(caps) {
            assert_eq!(row.cap, cap);
            assert!(
                row.measured.check.passed,
                "{line} at cap {cap}, {size}: {:?}",
                row.measured.check
            );
            assert!(
                row.figures.regs <= cap,
                "{line}: {} > {cap}",
                row.figures.regs
            );
            assert!(row.figures.occupancy > 0.0 && row.figures.gflops > 0.0);
        }
        // The low cap binds: no more registers than at the high one.
        assert!(rows[0].figures.regs <= rows[1].figures.regs, "{line}");
    }
}
