//! GPU-only: the shape sweep (`host shapes`) on its odd and decode shapes, every element of the
//! chosen line and of cuBLAS verified and a shape no line runs reported as a miss; and
//! `--variants auto` on `occupancy` and `gemm_bf16`. Where the build found no CUDA driver,
//! `cargo test` lists them as ignored; asked to run anyway without a driver, they fail.

use std::process::Command;

use host::cuda::driver_present;
use host::experiments::RunResults;

/// `host ARGS --format json` with a short fixed sampling plan, its results.
fn run(args: &[&str]) -> RunResults {
    assert!(
        driver_present(),
        "no CUDA driver: this GPU-only test was asked to run and cannot"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(args)
        .args(["--format", "json", "--iters", "2", "--samples", "3"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    serde_json::from_slice(&out.stdout).unwrap()
}

const SHAPES: &str = "1x4096x4096,16x4096x4096,64x4096x4096,128x4096x4096,128x8192x8192,\
1000x776x1000,4095x4097x1023,7x9000x13";

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn the_odd_and_decode_shapes_are_chosen_checked_and_beside_cublas() {
    let r = run(&["shapes", "--shapes", SHAPES]);
    let s = r.shapes.clone().expect("the sweep ran");
    // Every shape and family: a row or a miss, never neither.
    let pairs = s.rows.len() + s.misses.len();
    assert_eq!(pairs, 2 * SHAPES.split(',').count(), "{s:#?}");
    for m in &s.misses {
        assert!(!m.why.is_empty(), "a miss says why");
    }
    for row in &s.rows {
        let what = format!("{:?} {:?} {}", row.family, row.dims, row.line);
        assert!(
            row.measured.check.passed,
            "{what}: {:?}",
            row.measured.check
        );
        assert_eq!(
            row.choice.label.as_deref(),
            Some(row.line.as_str()),
            "{what}"
        );
        assert!(
            row.figures.gflops > 0.0 && row.figures.schedule.is_some(),
            "{what}"
        );
        let c = row.cublas_row().expect("cuBLAS beside every row");
        assert!(c.check.passed, "{what}: cuBLAS {:?}", c.check);
        assert!(row.vs_cublas.is_some(), "{what}");
    }
    // 7x9000x13 and 4095x4097x1023: K or N off TMA's 16-byte strides. The ring lines read A
    // or B through padded copies, so they are short-listed like any other line, not excluded.
    for k in [13, 1023] {
        let odd = (s.rows.iter())
            .find(|r| r.family == host::experiments::shapes::Family::Bf16 && r.dims.k == k)
            .unwrap_or_else(|| panic!("BF16 at K = {k} runs"));
        let why = &odd.choice.why;
        assert!(!why.contains("multiples of 8"), "{why}");
        let listed = why.split("short list:").nth(1).unwrap_or_default();
        assert!(
            (kernels_gpu::variants::WGEMM.iter())
                .any(|v| listed.contains(&format!("{} (", v.label))),
            "a ring line on the short list: {why}"
        );
    }
    assert!(r
        .verdicts()
        .iter()
        .any(|v| v.key == "under-one-wave-more-smaller-tiles"));
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn variants_auto_runs_the_chosen_line_of_either_gemm_experiment() {
    let r = run(&["occupancy", "--variants", "auto", "--size", "1000x776x1000"]);
    let o = r.occupancy.expect("occupancy ran");
    let auto = o.auto.expect("the choice is recorded");
    let label = auto.label.expect("a tuned line runs any size");
    assert_eq!(o.rows.len(), 1);
    assert_eq!(o.rows[0].variant, label);
    assert!(o.rows[0].measured.check.passed);
    assert!(auto.why.contains("short list"), "{}", auto.why);

    let r = run(&["gemm_bf16", "--variants", "auto", "--size", "16x4096x4096"]);
    let b = r.gemm_bf16.expect("gemm_bf16 ran");
    let auto = b.auto.expect("the choice is recorded");
    let label = auto.label.expect("a BF16 line runs 16x4096x4096");
    assert_eq!(b.rows.len(), 1, "{:?}", b.not_run);
    assert_eq!(b.rows[0].variant, label);
    assert!(b.rows[0].measured.check.passed);
}
