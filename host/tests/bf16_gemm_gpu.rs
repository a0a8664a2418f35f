//! GPU-only tests of the BF16 GEMM's host side (sm_80 or newer), through the pieces an experiment
//! uses (`experiments::gemm_bf16`, `cuda::cupti`):
//! - every BF16 line and cuBLAS's BF16 GEMM (`cublasGemmEx`) timed interleaved and every element
//!   of each output checked under the tensor-core rule, at 1x1x8, 333x250x80, 520x640x192,
//!   520x600x200, 4096^3 and 8192^3; the large sizes print TFLOP/s (not asserted: a timing never
//!   decides a test);
//! - CUPTI's record of one of the lab's own launches against what was launched (the record's
//!   layout, read on a real CUPTI);
//! - the kernels cuBLAS really runs for SGEMM and for the BF16 GEMM, read through CUPTI, with
//!   their theoretical occupancy by the lab's calculator, printed.
//!
//! Ignored by default; on a GPU machine:
//! `cargo test --release -p host --test bf16_gemm_gpu -- --ignored --nocapture`.
//! Without a driver, cuBLAS or CUPTI (or on a GPU older than sm_80) they fail with the reason;
//! they never skip. CUPTI records every kernel of the process, so the tests here run one at a
//! time (a lock), whatever the harness's threads.

mod tensor_support;

use std::sync::Mutex;

use cudarc::driver::CudaSlice;
use host::cuda::{
    cupti, prepare, Cublas, CudaError, Gpu, Kernel, Launch, LaunchShape, LibraryKernel, Module,
};
use host::experiments::bf16_gemm::{launch_shape, Bf16GemmBuffers, TIMED};
use host::experiments::gemm::GemmBuffers;
use host::results::GemmDims;
use host::sampling::{SamplingConfig, SamplingPlan, TimingPlan};
use kernels_gpu::variants::{Bf16GemmParams, Bf16GemmVariant, BF16_GEMM};

/// One test at a time: CUPTI's window records every kernel the process runs.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn gpu() -> Gpu {
    tensor_support::sm80_gpu("the BF16 GEMM tests")
}

fn open_cublas(gpu: &Gpu) -> Cublas {
    Cublas::open(gpu).unwrap_or_else(|e| panic!("cuBLAS is part of these tests: {e}"))
}

fn dims(m: u32, n: u32, k: u32) -> GemmDims {
    GemmDims { m, n, k }
}

/// Every line and cuBLAS at `d`: each line timed with cuBLAS interleaved, its timed output and
/// one launch at alpha=1.5, beta=0.5 checked; cuBLAS's timed outputs and one more call checked.
/// Prints each line's TFLOP/s and the worst element's share of its tolerance.
fn every_line_and_cublas_pass_at(gpu: &Gpu, module: &Module, cublas: &Cublas, d: GemmDims) {
    let plan = SamplingConfig {
        plan: SamplingPlan::Fixed(TimingPlan {
            iters: 5,
            samples: 3,
        }),
        ..SamplingConfig::default()
    };
    let mut buffers = Bf16GemmBuffers::new(gpu, d, u64::from(d.k)).expect("the problem's buffers");
    let mut cublas_checks = Vec::new();
    let mut cublas_tflops = Vec::new();
    for v in BF16_GEMM {
        let kernel = module.kernel(v.entry).expect("the line's entry");
        let m = buffers
            .measure(gpu, &kernel, None, v, &plan, Some(cublas))
            .unwrap_or_else(|e| panic!("{} at {d:?}: {e}", v.label));
        assert!(
            m.ours.check.passed,
            "{} ({}) at {d:?}: {}",
            v.label, v.entry, m.ours.check.what
        );
        let (cublas_timing, cublas_check) = m.cublas.expect("cuBLAS was timed");
        cublas_tflops.push(host::experiments::bf16_gemm::gflops(d, &cublas_timing) / 1e3);
        cublas_checks.push(cublas_check);
        eprintln!(
            "{} {} at {}x{}x{}: {:.1} TFLOP/s ({} regs, {} block(s)/SM, {:.1}% occupancy), \
             cuBLAS beside it {:.1} TFLOP/s; worst element {:.3} of its tolerance",
            v.label,
            v.entry,
            d.m,
            d.n,
            d.k,
            m.ours.throughput / 1e3,
            m.ours.regs,
            m.ours.blocks_per_sm,
            m.ours.occupancy * 100.0,
            cublas_tflops.last().unwrap(),
            m.ours.check.error
        );
    }
    let check = buffers
        .verify_cublas(gpu, cublas, cublas_checks)
        .expect("cuBLAS's extra call");
    assert!(check.passed, "cuBLAS BF16 at {d:?}: {}", check.what);
    cublas_tflops.sort_by(f64::total_cmp);
    eprintln!(
        "cuBLAS {} BF16 at {}x{}x{}: median {:.1} TFLOP/s over its {} timings; every element \
         within tolerance (worst {:.3} of it)",
        cublas.version(),
        d.m,
        d.n,
        d.k,
        cublas_tflops[cublas_tflops.len() / 2],
        cublas_tflops.len(),
        check.error
    );
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test bf16_gemm_gpu -- --ignored"]
fn every_bf16_line_and_cublas_pass_the_check_at_small_and_odd_sizes() {
    let _serial = serial();
    let gpu = gpu();
    let module = tensor_support::built_in(&gpu);
    let cublas = open_cublas(&gpu);
    // 1x1x8 and 333x250x80 stage element by element (N not a multiple of 8); 520x640x192 has
    // blocks wholly inside A and B (the interior copies, no bounds tests) beside edge blocks
    // along M (and along N for 256-column tiles); 520x600x200 copies 16-byte chunks with the
    // bounds tests in every block (K is no whole number of slices).
    for d in [
        dims(1, 1, 8),
        dims(333, 250, 80),
        dims(520, 640, 192),
        dims(520, 600, 200),
    ] {
        every_line_and_cublas_pass_at(&gpu, &module, &cublas, d);
    }
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test bf16_gemm_gpu -- --ignored"]
fn every_bf16_line_and_cublas_pass_the_check_at_4096_and_8192_cubed() {
    let _serial = serial();
    let gpu = gpu();
    let module = tensor_support::built_in(&gpu);
    let cublas = open_cublas(&gpu);
    for size in [4096, 8192] {
        every_line_and_cublas_pass_at(&gpu, &module, &cublas, GemmDims::square(size));
    }
}

/// Enqueues one launch of `kernel` (prepared for the shape) of line `v` at `d` on buffers of
/// zeros.
fn launch_line(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    v: &Bf16GemmVariant,
    d: GemmDims,
    bufs: &mut (CudaSlice<u16>, CudaSlice<u16>, CudaSlice<f32>),
) -> Result<(), CudaError> {
    let (a, b, c) = bufs;
    let mut l = Launch::new(gpu);
    let params = Bf16GemmParams {
        a: l.input(a),
        b: l.input(b),
        c: l.output(c),
        m: d.m as i32,
        n: d.n as i32,
        k: d.k as i32,
        alpha: TIMED.0,
        beta: TIMED.1,
    };
    // SAFETY: A, B and C hold M*K and K*N bf16 and M*N floats; the shape is the table's for
    // this line and the kernel was allowed its dynamic shared memory by `prepare`.
    unsafe { l.launch(kernel, launch_shape(v, d), &params) }
}

/// CUPTI's record of a launch of the lab's own is that launch: entry, grid, block, the
/// driver's register count and static shared memory, the dynamic shared memory given, no
/// cluster; and the calculator's blocks/SM from it is the driver's. A record layout read out
/// of place could not agree on all of these.
#[test]
#[ignore = "needs a CUDA GPU (sm_80+) and CUPTI: cargo test --release -p host --test bf16_gemm_gpu -- --ignored"]
fn cupti_records_the_labs_own_launch_as_it_was_made() {
    let _serial = serial();
    let gpu = gpu();
    let module = tensor_support::built_in(&gpu);
    let cupti = cupti().unwrap_or_else(|e| panic!("CUPTI is part of this test: {e}"));
    eprintln!(
        "CUPTI: {} (API version {})",
        cupti.library(),
        cupti.version()
    );
    let d = dims(333, 250, 80);
    for v in BF16_GEMM {
        let kernel = module.kernel(v.entry).unwrap();
        let shape: LaunchShape = launch_shape(v, d);
        prepare(&kernel, shape).unwrap();
        let mut bufs = (
            gpu.zeros::<u16>((d.m * d.k) as usize).unwrap(),
            gpu.zeros::<u16>((d.k * d.n) as usize).unwrap(),
            gpu.zeros::<f32>((d.m * d.n) as usize).unwrap(),
        );
        let records = cupti
            .kernels_during(&gpu, || launch_line(&gpu, &kernel, v, d, &mut bufs))
            .unwrap();
        assert_eq!(records.len(), 1, "{}: {records:?}", v.label);
        let r = &records[0];
        assert_eq!(r.name, v.entry);
        assert_eq!(r.grid, [shape.grid.0, shape.grid.1, 1], "{}", v.label);
        assert_eq!(r.block, [shape.threads, 1, 1], "{}", v.label);
        assert_eq!(
            r.registers_per_thread,
            kernel.num_regs().unwrap(),
            "{}",
            v.label
        );
        assert_eq!(r.static_shared_bytes, kernel.static_smem_bytes().unwrap());
        assert_eq!(r.dynamic_shared_bytes, shape.dyn_smem, "{}", v.label);
        assert_eq!(r.cluster_blocks(), 1, "{}", v.label);
        let read = LibraryKernel::from_records(&gpu, records).unwrap();
        assert_eq!(
            read.blocks_per_sm,
            kernel
                .max_active_blocks(shape.threads, shape.dyn_smem)
                .unwrap(),
            "{}: calculator on the record vs the driver",
            v.label
        );
        eprintln!("{}: {}", v.label, read.describe("the lab"));
    }
}

/// The kernels cuBLAS runs for SGEMM and for its BF16 GEMM at 4096^3 and 8192^3, read through
/// CUPTI: a name, registers, a block of whole warps, a grid; printed with their theoretical
/// occupancy by the lab's calculator.
#[test]
#[ignore = "needs a CUDA GPU (sm_80+) and CUPTI: cargo test --release -p host --test bf16_gemm_gpu -- --ignored"]
fn the_kernels_cublas_runs_are_read_through_cupti() {
    let _serial = serial();
    let gpu = gpu();
    let cublas = open_cublas(&gpu);
    let cupti = cupti().unwrap_or_else(|e| panic!("CUPTI is part of this test: {e}"));
    eprintln!(
        "cuBLAS {} ({}), CUPTI {} (API version {})",
        cublas.version(),
        cublas.library(),
        cupti.library(),
        cupti.version()
    );
    let sane = |what: &str, k: &LibraryKernel| {
        let r = &k.kernel;
        assert!(!r.name.is_empty(), "{what}: no name");
        assert!(r.registers_per_thread > 0, "{what}: {r:?}");
        let threads = r.threads_per_block();
        assert!(
            threads >= 32 && threads.is_multiple_of(32) && threads <= 1024,
            "{what}: {r:?}"
        );
        assert!(r.grid.iter().all(|&g| g > 0), "{what}: {r:?}");
        assert!(k.blocks_per_sm > 0 && k.occupancy > 0.0, "{what}: {k:?}");
        eprintln!("{what}: {}", k.describe("cuBLAS"));
    };
    for size in [4096u32, 8192] {
        let d = GemmDims::square(size);
        let mut fp32 = GemmBuffers::new(&gpu, d, 1).unwrap();
        let sgemm = fp32
            .cublas_kernel(&gpu, &cublas)
            .unwrap_or_else(|e| panic!("SGEMM at {size}^3: {e}"));
        sane(&format!("SGEMM {size}^3"), &sgemm);
        drop(fp32);
        let mut bf16 = Bf16GemmBuffers::new(&gpu, d, 1).unwrap();
        let gemm_ex = bf16
            .cublas_kernel(&gpu, &cublas)
            .unwrap_or_else(|e| panic!("BF16 GemmEx at {size}^3: {e}"));
        sane(&format!("BF16 GemmEx {size}^3"), &gemm_ex);
    }
}
