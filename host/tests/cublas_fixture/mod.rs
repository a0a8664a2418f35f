//! The report tests' hand-made fixture with cuBLAS measured beside its GEMM rows, and the kernel
//! cuBLAS ran as CUPTI would give it (or not read), for the tests of cuBLAS's row and of
//! `fastest-gemm-at-low-occupancy`.

use std::path::{Path, PathBuf};

use host::experiments::RunResults;
use host::report;

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_fixture")
}

/// The kernel cuBLAS ran as CUPTI would give it, at `occupancy` by the calculator; not read
/// (with the reason) for `None`.
pub fn cublas_kernel(occupancy: Option<f64>) -> host::experiments::gemm_cublas::CublasKernel {
    use host::cuda::{KernelRecord, LibraryKernel};
    use host::experiments::gemm_cublas::CublasKernel;
    let Some(occupancy) = occupancy else {
        return CublasKernel::Unread {
            reason: "the kernel cuBLAS ran was not read: CUPTI not found".into(),
        };
    };
    CublasKernel::Read(Box::new(LibraryKernel {
        kernel: KernelRecord {
            name: "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n".into(),
            grid: [32, 32, 1],
            block: [256, 1, 1],
            registers_per_thread: 200,
            static_shared_bytes: 0,
            dynamic_shared_bytes: 100_000,
            local_bytes_per_thread: 0,
            cluster: [0, 0, 0],
            // The fixture's device is an sm_89: its whole 100 KiB of shared memory per SM.
            shared_memory_executed: 102_400,
            duration_ns: 1_000_000,
        },
        others: vec![],
        blocks_per_sm: 1,
        warps_per_sm: (occupancy * 64.0) as u32,
        occupancy,
        limiter: "registers".into(),
    }))
}

/// The fixture with cuBLAS measured at `gflops` (checked), the kernel it ran read at
/// `kernel_occupancy` (or not read), and a tuned row R of (GFLOP/s, occupancy).
pub fn with_cublas(
    gflops: f64,
    tuned: Option<(f64, f64)>,
    kernel_occupancy: Option<f64>,
) -> RunResults {
    use host::experiments::gemm_cublas::{CublasOutcome, CublasRow};
    use host::experiments::occupancy::GemmTile;
    let mut r = report::merge::load(&fixture_dir()).expect("fixture loads");
    let run = r.occupancy.as_mut().unwrap();
    let d = run.rows.iter().find(|x| x.variant == "D").unwrap().clone();
    if let Some((gf, occ)) = tuned {
        let mut t = d.clone();
        t.variant = "R".into();
        t.figures.gflops = gf;
        t.figures.occupancy = occ;
        t.tile = Some(GemmTile {
            family: kernels_gpu::variants::GemmFamily::Tuned,
            block: (256, 128, 16),
            warp: Some((64, 64)),
            stages: 3,
            dyn_smem: 80_000,
        });
        run.rows.push(t);
    }
    for x in &mut run.rows {
        x.vs_cublas = Some(x.figures.gflops / gflops);
    }
    run.cublas = Some(CublasOutcome::Measured(Box::new(CublasRow {
        version: "13.1.0".into(),
        library: "libcublas.so.13".into(),
        timing: d.figures.timing.clone(),
        gflops,
        check: d.measured.check.clone(),
        flags: vec![],
        kernel: Some(cublas_kernel(kernel_occupancy)),
    })));
    r
}
