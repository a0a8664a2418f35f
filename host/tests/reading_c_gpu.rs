//! GPU-only: the figure timed with the epilogue reading C (`experiments::gemm_sides_reading_c`).
//! A clean run of a lab kernel beside cuBLAS gives the same bits after every sample (each
//! starts from the initial C, the warm-up's output put back too) and passes its element check;
//! a sample whose launches wrote something else fails the figure though the checked launch is
//! right. Where the build found no CUDA driver, `cargo test` lists them as ignored; asked to run
//! anyway without a driver, they fail.

mod support;

use std::cell::Cell;

use host::cuda::{Cublas, Gpu, Kernel, LaunchShape};
use host::experiments::gemm::{launch_shape, Fp32, GemmBuffers};
use host::experiments::gemm_sides::{GemmKind, Launcher, Operands};
use host::experiments::gemm_sides_reading_c::{ReadingC, READING_C};
use host::results::GemmDims;
use host::sampling::{SamplingConfig, SamplingPlan, TimingPlan};
use kernels_gpu::variants::{find_gemm, GEMM};
use support::gpu;

/// Two launches a sample, four samples.
fn plan() -> SamplingConfig {
    SamplingConfig {
        plan: SamplingPlan::Fixed(TimingPlan {
            iters: 2,
            samples: 4,
        }),
        ..SamplingConfig::default()
    }
}

/// R1 at 512³ timed reading C, beside cuBLAS when `with_cublas`; launch `bad` of ours (1-based:
/// the warm-up is launch 1, sample s launches 2 + 2s and 3 + 2s, the checked launch 10) runs at
/// twice alpha. Asserts every launch was one of those.
fn reading_c(gpu: &Gpu, bad: Option<u32>, with_cublas: bool) -> ReadingC {
    let module = support::main_module(gpu);
    let v = find_gemm(GEMM, "R1").unwrap();
    let kernel = module.kernel(v.entry).unwrap();
    let dims = GemmDims::square(512);
    let mut buffers = GemmBuffers::new(gpu, dims, 11).unwrap();
    let launches = Cell::new(0u32);
    let launch = |gpu: &Gpu, k: &Kernel<'_>, shape: LaunchShape, ops: Operands<'_, f32>| {
        launches.set(launches.get() + 1);
        assert_eq!(ops.setting, READING_C, "every launch reads C");
        let ops = if Some(launches.get()) == bad {
            Operands {
                setting: (2.0 * ops.setting.0, ops.setting.1),
                ..ops
            }
        } else {
            ops
        };
        <Fp32 as GemmKind>::launch(gpu, k, shape, ops)
    };
    let launcher: Launcher<'_, f32> = &launch;
    let cublas = with_cublas.then(|| Cublas::open(gpu).unwrap());
    let r = buffers
        .time_reading_c(
            gpu,
            (&kernel, launch_shape(v, dims), launcher),
            cublas.as_ref(),
            &plan(),
        )
        .unwrap();
    assert_eq!(
        launches.get(),
        1 + 4 * 2 + 1,
        "warm-up, samples, checked launch"
    );
    assert_eq!(r.timing.samples_ms.len(), 4);
    r
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn every_sample_starts_from_the_initial_c_and_gives_the_same_bits() {
    let gpu = gpu();
    let r = reading_c(&gpu, None, true);
    assert_eq!((r.alpha, r.beta), READING_C);
    assert!(r.check.passed, "{}", r.check.what);
    assert!(
        r.check.what.contains("all 4 the same bits") && r.check.what.contains("0 of 262144 over"),
        "{}",
        r.check.what
    );
    let (timing, check) = r.cublas.as_ref().expect("cuBLAS timed beside");
    assert!(check.passed, "cuBLAS: {}", check.what);
    assert_eq!(timing.samples_ms.len(), 4);
    let x = r.vs_cublas().expect("both timed");
    assert!(x.is_finite() && x > 0.0, "{x}");
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_sample_that_wrote_something_else_fails_the_figure() {
    let gpu = gpu();
    // Launch 4: the first of sample 1.
    let r = reading_c(&gpu, Some(4), false);
    assert!(r.cublas.is_none());
    assert!(
        r.check.what.contains("0 of 262144 over"),
        "{}",
        r.check.what
    );
    assert!(!r.check.passed, "{}", r.check.what);
    assert!(
        r.check
            .what
            .contains("1 of 4 differ from the first (samples [1])"),
        "{}",
        r.check.what
    );
}
