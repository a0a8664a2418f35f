//! GPU-only runs of the GEMM experiments' cuBLAS rows and of the BF16 experiment (sm_80 or
//! newer, cuBLAS and CUPTI):
//! - `host gemm_bf16` at an odd size and at 1024^3: every line and cuBLAS BF16 checked, each row
//!   at the occupancy the driver gives, cuBLAS's row with the kernel it ran read through CUPTI;
//! - `host gemm_bf16 --size 4096` on an sm_90a GPU: the wgmma lines as rows, every one checked
//!   and timed beside cuBLAS, on part II's picture as their own series; at a K and N off TMA's
//!   strides the wgmma line runs (A read through a padded copy), and at an odd N the mma.sync ring
//!   line says why it cannot instead of failing the run;
//! - experiment 1 on one tuned line: cuBLAS SGEMM's row with its kernel read, and both kernels'
//!   occupancy by the calculator placed on part II's picture.
//!
//! Ignored by default; on a GPU machine:
//! `cargo test --release -p host --test gemm_bf16_gpu -- --ignored --nocapture`.
//! They fail, with the reason, without a driver, cuBLAS or CUPTI; they never skip. No timing
//! decides anything here (the figures are printed).

// Only the device check is used here: the experiments load their own modules.
mod tensor_support;

mod support;

use std::sync::Mutex;

use host::cuda::Gpu;
use host::experiments::contract::{Plan as _, Run, RunContext};
use host::experiments::gemm_cublas::CublasKernel;
use host::experiments::gemm_cublas::CublasRow;
use host::experiments::{gemm_bf16, occupancy};
use kernels_gpu::variants::RingMma;
use support::experiment_args;

/// One test at a time: CUPTI's window records every kernel the process runs.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Three launches a sample, three samples, inputs from seed 11.
fn context(gpu: &Gpu) -> RunContext {
    RunContext {
        seed: 11,
        ..support::fixed_context(gpu, 3, 3)
    }
}

/// cuBLAS's row has the kernel it ran, read, with a whole-warp block and an occupancy in (0, 1].
fn kernel_read(what: &str, c: &CublasRow) {
    match &c.kernel {
        Some(CublasKernel::Read(k)) => {
            let threads = k.kernel.threads_per_block();
            assert!(threads >= 32 && threads.is_multiple_of(32), "{what}: {k:?}");
            assert!(k.occupancy > 0.0 && k.occupancy <= 1.0, "{what}: {k:?}");
            eprintln!("{what}: {}", c.kernel_words());
        }
        other => panic!("{what}: the kernel cuBLAS ran was not read: {other:?}"),
    }
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+), cuBLAS and CUPTI: cargo test --release -p host --test gemm_bf16_gpu -- --ignored"]
fn the_bf16_experiment_runs_every_line_and_cublas_checked_with_its_kernel() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let gpu = tensor_support::sm80_gpu("the BF16 experiment");
    for size in ["333x250x80", "1024"] {
        let cmd = ["gemm_bf16", "--size", size];
        let r = support::run_verified::<gemm_bf16::Spec>(&gpu, &context(&gpu), &cmd);
        // The ring lines run beside them only on sm_90a (the mma.sync ones at an even N).
        assert_eq!(
            r.rows.len() + r.not_run.len(),
            kernels_gpu::variants::BF16_GEMM.len() + kernels_gpu::variants::WGEMM.len(),
            "{:?}",
            r.not_run
        );
        for row in &r.rows {
            assert!(
                row.figures.blocks_per_sm > 0 && row.figures.occupancy > 0.0,
                "{row:?}"
            );
            assert!(row.vs_cublas.is_some(), "{}", row.variant);
            assert!(
                !row.measured
                    .flags
                    .iter()
                    .any(|f| f.contains("driver gives")),
                "{}: {:?}",
                row.variant,
                row.measured.flags
            );
            eprintln!(
                "{size}: {} {:.1} TFLOP/s at {:.1}% occupancy, {:.2} x cuBLAS",
                row.variant,
                row.figures.gflops / 1e3,
                row.figures.occupancy * 100.0,
                row.vs_cublas.unwrap()
            );
        }
        let c = r.cublas_row().expect("cuBLAS BF16 measured");
        assert!(c.check.passed, "{}", c.check.what);
        kernel_read(&format!("cuBLAS BF16 at {size}"), c);
    }
}

/// The BF16 experiment's run of lines `labels` (comma-separated) at `size`, every line run and
/// every check passed.
fn every_line_checked(gpu: &Gpu, ctx: &RunContext, size: &str, labels: &str) -> gemm_bf16::Bf16Run {
    let cmd = ["gemm_bf16", "--size", size, "--variants", labels];
    let r = support::run_verified::<gemm_bf16::Spec>(gpu, ctx, &cmd);
    assert!(r.not_run.is_empty(), "{size}: {:?}", r.not_run);
    r
}

#[test]
#[ignore = "needs a CUDA GPU (sm_90a), cuBLAS and CUPTI: cargo test --release -p host --test gemm_bf16_gpu -- --ignored"]
fn the_bf16_experiment_runs_the_wgmma_lines_verified_beside_cublas() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let gpu = tensor_support::sm80_gpu("the wgmma rows");
    host::cuda::hopper::runs_sm90a(gpu.info().compute_capability)
        .unwrap_or_else(|e| panic!("the wgmma rows of the BF16 experiment: {e}"));
    let ctx = context(&gpu);
    // The wgmma lines alone beside cuBLAS (every mma.sync line at 4096^3 as well took this test
    // past two minutes; the test above runs those).
    let labels: Vec<&str> = kernels_gpu::variants::WGEMM
        .iter()
        .map(|v| v.label)
        .collect();
    let labels = labels.join(",");
    let r = every_line_checked(&gpu, &ctx, "4096", &labels);
    assert_eq!(
        r.rows.len(),
        kernels_gpu::variants::WGEMM.len(),
        "the W lines"
    );
    let cublas = r.cublas_row().expect("cuBLAS BF16 measured");
    for v in kernels_gpu::variants::WGEMM {
        let row = r
            .rows
            .iter()
            .find(|row| row.variant == v.label)
            .unwrap_or_else(|| panic!("{} has no row", v.label));
        assert!(row.is_ring() && row.measured.check.passed, "{row:?}");
        assert_eq!(row.is_wgmma(), v.mma == RingMma::Wgmma, "{row:?}");
        // Both the timed output and the alpha=1.5, beta=0.5 launch were checked.
        let what = &row.measured.check.what;
        assert!(
            what.contains("alpha=1, beta=0") && what.contains("alpha=1.5, beta=0.5"),
            "{what}"
        );
        assert_eq!(row.figures.blocks_per_sm, 1, "{row:?}");
        assert!(
            row.figures.occupancy > 0.0 && row.figures.occupancy <= 0.1875,
            "{row:?}"
        );
        eprintln!(
            "4096^3: {} {:.1} TFLOP/s at {:.2}% occupancy, {} registers, {:.2} x cuBLAS ({:.1} \
             TFLOP/s)",
            row.variant,
            row.figures.gflops / 1e3,
            row.figures.occupancy * 100.0,
            row.figures.regs,
            row.vs_cublas.expect("timed beside cuBLAS"),
            cublas.gflops / 1e3
        );
    }
    let meta = host::experiments::meta("test", &ctx.timing, &[], "test");
    let mut results = host::experiments::RunResults::empty(meta, gpu.info().clone());
    results.gemm_bf16 = Some(r);
    let plot = host::across::part_two::figure(&results, None).expect("a picture");
    let wgmma = plot
        .series
        .iter()
        .find(|s| s.name.contains("wgmma"))
        .expect("the wgmma series");
    let wgmma_lines = (kernels_gpu::variants::WGEMM.iter())
        .filter(|v| v.mma == RingMma::Wgmma)
        .count();
    assert_eq!(wgmma.points.len(), wgmma_lines);
    let md = host::across::part_two::section(&results, "p.svg", None).unwrap();
    assert!(md.contains("The best wgmma line"), "{md}");

    // Edge tiles along M and N and a K that is no whole number of 64-deep slices (TMA's zero
    // fill), every element checked, on every ring line.
    let r = every_line_checked(&gpu, &ctx, "1000x776x1000", &labels);
    assert_eq!(r.rows.len(), kernels_gpu::variants::WGEMM.len());
    assert!(
        r.rows.iter().all(|row| row.measured.check.passed),
        "{:?}",
        r.rows
    );

    // K off TMA's 16-byte strides (A read through a padded copy) and an odd N: W1 runs, every
    // element checked; MT1, which writes C in pairs, says why it cannot, and the run goes on.
    let cmd = [
        "gemm_bf16",
        "--variants",
        "M1,MT1,W1",
        "--size",
        "256x257x260",
    ];
    let plan = gemm_bf16::Plan::new(&experiment_args::<gemm_bf16::Args>(&cmd)).unwrap();
    let r = gemm_bf16::Spec::run(&gpu, &ctx, &plan).unwrap();
    let ran: Vec<&str> = r.rows.iter().map(|row| row.variant.as_str()).collect();
    assert_eq!(ran, ["M1", "W1"], "{:?}", r.not_run);
    assert!(
        r.rows.iter().all(|row| row.measured.check.passed),
        "{:?}",
        r.rows
    );
    assert_eq!(r.not_run.len(), 1);
    assert!(
        r.not_run[0].variant == "MT1" && r.not_run[0].why.contains("need N even"),
        "{:?}",
        r.not_run
    );
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+), cuBLAS and CUPTI: cargo test --release -p host --test gemm_bf16_gpu -- --ignored"]
fn experiment_1_reads_the_kernel_cublas_ran_and_part_two_places_both() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let gpu = tensor_support::sm80_gpu("part II's picture");
    let ctx = context(&gpu);
    let cmd = ["occupancy", "--variants", "R4", "--size", "1024"];
    let sgemm = support::run_verified::<occupancy::Spec>(&gpu, &ctx, &cmd);
    kernel_read("cuBLAS SGEMM at 1024^3", sgemm.cublas_row().unwrap());
    let args =
        experiment_args::<gemm_bf16::Args>(&["gemm_bf16", "--variants", "M1", "--size", "1024"]);
    let plan = gemm_bf16::Plan::new(&args).unwrap();
    let bf16 = gemm_bf16::Spec::run(&gpu, &ctx, &plan).unwrap();
    let meta = host::experiments::meta("test", &ctx.timing, &[], "test");
    let mut results = host::experiments::RunResults::empty(meta, gpu.info().clone());
    results.occupancy = Some(sgemm);
    results.gemm_bf16 = Some(bf16);
    let plot = host::across::part_two::figure(&results, None).expect("a picture");
    let cublas = plot
        .series
        .iter()
        .find(|s| s.name.starts_with("cuBLAS"))
        .expect("cuBLAS's kernels on the picture");
    assert_eq!(cublas.points.len(), 2, "{:?}", cublas.points);
    for p in plot.series.iter().flat_map(|s| &s.points) {
        assert!(p.x > 0.0 && p.x <= 100.0 && p.y > 0.0, "{p:?}");
    }
}
