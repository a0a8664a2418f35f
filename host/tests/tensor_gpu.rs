//! GPU-only checks of the tensor-core kernels (sm_80 or newer), launched through the host's own
//! plumbing (the built-in module, `Launch`, the params structs the variant table generates):
//! - every `mma_bf16_ilp` entry, bit for bit against the CPU model of the m16n8k16 fragment
//!   layout, for every thread, at 1, 8 and 64 warps per SM;
//! - every BF16 GEMM line at small odd sizes (every element, both staging paths, both epilogue
//!   paths) and at 4096^3 and 8192^3 (sampled elements, and every element written), against an
//!   f64 reference of the bf16 inputs; the large sizes print their TFLOP/s (not asserted: a
//!   timing never decides a test).
//!
//! Ignored by default; on a GPU machine:
//! `cargo test --release -p host --test tensor_gpu -- --ignored --nocapture`.
//! Without a driver (or on a GPU older than sm_80) they fail with the reason; they never skip.

mod tensor_support;

use cudarc::driver::CudaSlice;
use host::cuda::{prepare, CudaError, Gpu, Kernel, Launch, LaunchShape};
use host::experiments::inputs::Rng;
use host::sampling::{time_launches, SamplingConfig, SamplingPlan, TimingPlan};
use kernels_gpu::models::mma_sync::{bf16_to_f32, mma_bf16_ilp_outputs, small_integer_fragments};
use kernels_gpu::variants::{Bf16GemmParams, Bf16GemmVariant, MmaParams, BF16_GEMM, MMA_ILP};

fn gpu() -> Gpu {
    tensor_support::sm80_gpu("the tensor-core tests")
}

/// A bf16 in [-1, 1): the upper half of a uniform f32 (bf16 is exactly that, truncated).
fn bf16(gen: &mut Rng) -> u16 {
    (gen.next_signed_unit().to_bits() >> 16) as u16
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test tensor_gpu -- --ignored"]
fn the_jit_reports_every_tensor_core_entry_without_spills() {
    let gpu = gpu();
    let module = tensor_support::built_in(&gpu);
    let report = ptxas_report::parse_report(module.info_log()).expect("the JIT's report parses");
    let entries = BF16_GEMM
        .iter()
        .map(|v| v.entry)
        .chain(MMA_ILP.iter().map(|v| v.entry));
    for entry in entries {
        let k = module.kernel(entry).expect("the entry is in the module");
        let jit = report
            .iter()
            .find(|e| e.name == entry)
            .unwrap_or_else(|| panic!("{entry} missing from the JIT log (cut short?)"));
        assert_eq!(jit.registers, k.num_regs().unwrap(), "{entry}");
        assert_eq!(
            (jit.spill_stores, jit.spill_loads),
            (0, 0),
            "{entry} spills"
        );
        eprintln!("{entry}: {} registers", jit.registers);
    }
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test tensor_gpu -- --ignored"]
fn every_mma_ilp_entry_matches_the_fragment_model_bit_for_bit() {
    let gpu = gpu();
    let module = tensor_support::built_in(&gpu);
    let sms = gpu.info().sm_count;
    let mut gen = Rng::new(17);
    let (a_host, b_host) = small_integer_fragments(2, || gen.next_u64() as u32);
    let a = gpu.upload(&a_host).unwrap();
    let b = gpu.upload(&b_host).unwrap();
    for v in MMA_ILP {
        let kernel = module.kernel(v.entry).unwrap();
        // No rounds; fewer rounds than the unrolled loop takes; many, with a remainder.
        for iters in [0, 3, 1001] {
            let want = mma_bf16_ilp_outputs(&a_host, &b_host, v.ilp, iters)
                .expect("the inputs keep every sum exact");
            // 1, 8 and 64 warps per SM (block of 32, 2 x 128, 8 x 256 threads per SM).
            for (block, per_sm) in [(32u32, 1u32), (128, 2), (256, 8)] {
                let blocks = sms * per_sm;
                let threads = (blocks * block) as usize;
                let mut out: CudaSlice<f32> = gpu.upload(&vec![f32::NAN; threads]).unwrap();
                let shape = LaunchShape {
                    grid: (blocks, 1),
                    threads: block,
                    dyn_smem: 0,
                };
                let mut l = Launch::new(&gpu);
                let params = MmaParams {
                    a: l.input(&a),
                    b: l.input(&b),
                    out: l.output(&mut out),
                    iters,
                };
                // SAFETY: a and b hold 128 and 64 words, out one float per launched thread; the
                // block is whole warps.
                unsafe { l.launch(&kernel, shape, &params) }.unwrap();
                let got = gpu.download(&out).unwrap();
                for (g, x) in got.iter().enumerate() {
                    let lane = (g % block as usize) % 32;
                    assert_eq!(
                        x.to_bits(),
                        want[lane].to_bits(),
                        "{} iters {iters}, block {block} x {blocks}: thread {g} wrote {x}, the model says {}",
                        v.entry,
                        want[lane]
                    );
                }
            }
            eprintln!(
                "{}: iters {iters}: every thread bit-exact at 1, 8, 64 warps/SM",
                v.entry
            );
        }
    }
}

/// A GEMM problem on the host: A (M x K) and B (K x N) bf16 bits, C's initial value.
struct Problem {
    m: u32,
    n: u32,
    k: u32,
    a: Vec<u16>,
    b: Vec<u16>,
    c0: Vec<f32>,
}

impl Problem {
    fn new(m: u32, n: u32, k: u32, seed: u64, c0: impl Fn(&mut Rng) -> f32) -> Self {
        let mut gen = Rng::new(seed);
        let (m_, n_, k_) = (m as usize, n as usize, k as usize);
        let a = (0..m_ * k_).map(|_| bf16(&mut gen)).collect();
        let b = (0..k_ * n_).map(|_| bf16(&mut gen)).collect();
        let c0 = (0..m_ * n_).map(|_| c0(&mut gen)).collect();
        Self { m, n, k, a, b, c0 }
    }

    /// alpha*A*B + beta*C0 at (row, col) in f64 from the bf16 inputs, and the bound on the
    /// kernel's error there: f32 accumulation of K/16 mma steps of 16 exact products each (every
    /// add rounding by at most 2^-23 relative, doubled for margin), and the epilogue's roundings.
    fn reference(&self, row: u32, col: u32, alpha: f32, beta: f32) -> (f64, f64) {
        let (n, k) = (self.n as usize, self.k as usize);
        let (row, col) = (row as usize, col as usize);
        let (mut sum, mut magnitude) = (0.0f64, 0.0f64);
        for i in 0..k {
            let p = f64::from(bf16_to_f32(self.a[row * k + i]))
                * f64::from(bf16_to_f32(self.b[i * n + col]));
            sum += p;
            magnitude += p.abs();
        }
        let old = if beta == 0.0 {
            0.0
        } else {
            f64::from(beta) * f64::from(self.c0[row * n + col])
        };
        let value = f64::from(alpha) * sum + old;
        let u = 2f64.powi(-22);
        let steps = (k.div_ceil(16) + 20) as f64;
        let bound = u * (steps * f64::from(alpha).abs() * magnitude + 2.0 * old.abs()) + 1e-30;
        (value, bound)
    }
}

/// Device buffers of a problem.
struct OnDevice {
    a: CudaSlice<u16>,
    b: CudaSlice<u16>,
    c: CudaSlice<f32>,
}

fn upload(gpu: &Gpu, p: &Problem) -> OnDevice {
    OnDevice {
        a: gpu.upload(&p.a).unwrap(),
        b: gpu.upload(&p.b).unwrap(),
        c: gpu.upload(&p.c0).unwrap(),
    }
}

fn launch_shape(v: &Bf16GemmVariant, p: &Problem) -> LaunchShape {
    LaunchShape {
        grid: v.grid(p.m, p.n),
        threads: v.threads(),
        dyn_smem: v.dynamic_shared_bytes(),
    }
}

/// Enqueues one launch of `kernel` (already `prepare`d for the shape) on the problem.
fn launch(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    v: &Bf16GemmVariant,
    p: &Problem,
    d: &mut OnDevice,
    (alpha, beta): (f32, f32),
) -> Result<(), CudaError> {
    let mut l = Launch::new(gpu);
    let params = Bf16GemmParams {
        a: l.input(&d.a),
        b: l.input(&d.b),
        c: l.output(&mut d.c),
        m: p.m as i32,
        n: p.n as i32,
        k: p.k as i32,
        alpha,
        beta,
    };
    // SAFETY: A, B and C hold M*K, K*N and M*N elements; the shape is the table's for this line
    // and the kernel was allowed its dynamic shared memory by `prepare`.
    unsafe { l.launch(kernel, launch_shape(v, p), &params) }
}

/// Checks `got` (C after the launch) at `points` against the reference; the worst error over
/// its bound.
fn check(
    v: &Bf16GemmVariant,
    p: &Problem,
    got: &[f32],
    points: &[(u32, u32)],
    (alpha, beta): (f32, f32),
) -> f64 {
    let mut worst = 0.0f64;
    for &(row, col) in points {
        let x = got[(row * p.n + col) as usize];
        let (want, bound) = p.reference(row, col, alpha, beta);
        let err = (f64::from(x) - want).abs();
        assert!(
            err <= bound,
            "{} ({}) at {}x{}x{}: C[{row}][{col}] = {x}, want {want} (error {err:e}, bound {bound:e})",
            v.label,
            v.entry,
            p.m,
            p.n,
            p.k
        );
        worst = worst.max(err / bound);
    }
    worst
}

/// Small sizes, every element: edge tiles, K tails, the 16-byte path (K and N multiples of 8)
/// and the element-wise one (the others), the paired and the single-float epilogue (N odd).
#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test tensor_gpu -- --ignored"]
fn every_bf16_gemm_line_is_right_at_small_and_odd_sizes() {
    let gpu = gpu();
    let module = tensor_support::built_in(&gpu);
    let scale = (1.5f32, 0.5f32);
    let sizes = [
        (1, 1, 8),
        (5, 3, 1),
        (333, 250, 80),
        (333, 264, 88),
        (130, 251, 77),
        (64, 128, 32),
    ];
    for (i, &(m, n, k)) in sizes.iter().enumerate() {
        let p = Problem::new(m, n, k, 100 + i as u64, Rng::next_signed_unit);
        let points: Vec<(u32, u32)> = (0..m).flat_map(|r| (0..n).map(move |c| (r, c))).collect();
        for v in BF16_GEMM {
            let kernel = module.kernel(v.entry).unwrap();
            prepare(&kernel, launch_shape(v, &p)).unwrap();
            let mut d = upload(&gpu, &p);
            launch(&gpu, &kernel, v, &p, &mut d, scale).unwrap();
            let got = gpu.download(&d.c).unwrap();
            let worst = check(v, &p, &got, &points, scale);
            eprintln!(
                "{} at {m}x{n}x{k}: every element within bound (worst {worst:.3} of it)",
                v.label
            );
        }
    }
}

/// The large sizes: every element written (C starts as NaN, beta = 0), sampled elements right
/// (tile corners and random ones), and the throughput printed.
#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test tensor_gpu -- --ignored"]
fn every_bf16_gemm_line_is_right_at_4096_and_8192_cubed() {
    let gpu = gpu();
    let module = tensor_support::built_in(&gpu);
    let scale = (1.0f32, 0.0f32);
    let timing = SamplingConfig {
        plan: SamplingPlan::Fixed(TimingPlan {
            iters: 5,
            samples: 3,
        }),
        ..SamplingConfig::default()
    };
    for size in [4096u32, 8192] {
        let p = Problem::new(size, size, size, size as u64, |_| f32::NAN);
        let mut gen = Rng::new(u64::from(size) + 1);
        let mut points: Vec<(u32, u32)> = (0..1000)
            .map(|_| (gen.below(size), gen.below(size)))
            .collect();
        for edge in [0, 63, 64, 127, 128, 255, 256, size - 1] {
            points.extend([
                (edge, 0),
                (0, edge),
                (edge, edge),
                (size - 1, edge),
                (edge, size - 1),
            ]);
        }
        let mut d = upload(&gpu, &p);
        for v in BF16_GEMM {
            let kernel = module.kernel(v.entry).unwrap();
            prepare(&kernel, launch_shape(v, &p)).unwrap();
            gpu.overwrite(&p.c0, &mut d.c).unwrap();
            launch(&gpu, &kernel, v, &p, &mut d, scale).unwrap();
            let got = gpu.download(&d.c).unwrap();
            let unwritten = got.iter().filter(|x| x.is_nan()).count();
            assert_eq!(
                unwritten, 0,
                "{} at {size}^3: {unwritten} elements of C not written",
                v.label
            );
            let worst = check(v, &p, &got, &points, scale);
            let t = time_launches(&gpu, &timing, || {
                launch(&gpu, &kernel, v, &p, &mut d, scale)
            })
            .unwrap();
            let tflops =
                Bf16GemmVariant::flops(size, size, size) as f64 / (t.median_ms * 1e-3) / 1e12;
            eprintln!(
                "{} {} at {size}^3: {:.3} ms, {tflops:.1} TFLOP/s in a burst of 15 launches after the check (not the sustained rate that experiment 7 times) ({} regs; {} sampled elements within bound, worst {worst:.3} of it)",
                v.label,
                v.entry,
                t.median_ms,
                kernel.num_regs().unwrap(),
                points.len()
            );
        }
    }
}
