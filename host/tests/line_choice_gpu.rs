//! GPU-only: the short list timed together (`experiments::line_choice::together`): every
//! contender timed with its samples interleaved and one launch of each checked element by
//! element; a contender whose output is wrong is a failed trial, the others stand. Where the
//! build found no CUDA driver, `cargo test` lists them as ignored; asked to run anyway without a
//! driver, they fail.

mod support;

use host::cuda::{Gpu, Kernel, LaunchShape};
use host::experiments::gemm::{launch_shape, Fp32, GemmBuffers};
use host::experiments::gemm_sides::{GemmKind, Launcher, Operands};
use host::experiments::line_choice::together::{time_together, Contender};
use host::results::GemmDims;
use host::sampling::{SamplingConfig, SamplingPlan, TimingPlan};
use kernels_gpu::variants::{find_gemm, GEMM};
use support::gpu;

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn the_short_list_is_timed_together_and_a_wrong_line_fails_its_trial() {
    let gpu = gpu();
    let module = support::main_module(&gpu);
    let dims = GemmDims::square(512);
    let mut buffers = GemmBuffers::new(&gpu, dims, 5).unwrap();
    let (r1, r2) = (
        find_gemm(GEMM, "R1").unwrap(),
        find_gemm(GEMM, "R2").unwrap(),
    );
    let (k1, k2) = (
        module.kernel(r1.entry).unwrap(),
        module.kernel(r2.entry).unwrap(),
    );
    // R2's kernel launched at twice alpha: its output is wrong wherever it is launched.
    let doubled = |gpu: &Gpu, k: &Kernel<'_>, shape: LaunchShape, ops: Operands<'_, f32>| {
        let setting = (2.0 * ops.setting.0, ops.setting.1);
        <Fp32 as GemmKind>::launch(gpu, k, shape, Operands { setting, ..ops })
    };
    let (fine, wrong): (Launcher<'_, f32>, Launcher<'_, f32>) = (&Fp32::launch, &doubled);
    let plan = SamplingConfig {
        plan: SamplingPlan::Fixed(TimingPlan {
            iters: 2,
            samples: 3,
        }),
        ..SamplingConfig::default()
    };
    let contenders = |second| -> [Contender<'_, '_, f32>; 2] {
        [
            Contender {
                label: "R1",
                kernel: &k1,
                shape: launch_shape(r1, dims),
                launcher: fine,
            },
            Contender {
                label: "R2",
                kernel: &k2,
                shape: launch_shape(r2, dims),
                launcher: second,
            },
        ]
    };
    let trials = time_together(&gpu, &mut buffers, &contenders(fine), &plan).unwrap();
    let labels: Vec<&str> = trials.iter().map(|t| t.label).collect();
    assert_eq!(labels, ["R1", "R2"]);
    for t in &trials {
        assert!(t.passed && t.gflops.is_finite() && t.gflops > 0.0, "{t:?}");
    }
    let trials = time_together(&gpu, &mut buffers, &contenders(wrong), &plan).unwrap();
    assert!(trials[0].passed, "{:?}", trials[0]);
    assert!(!trials[1].passed, "{:?}", trials[1]);
}
