//! GPU-only tests of the GEMM check: the f64 reference kernel against the CPU twin, the check
//! kernel against the CPU twin on right and wrong outputs, every variant and cuBLAS through the
//! experiments' own path (timed launch and epilogue launch) at 1x1x1, 333x250x77, 4096^3 and
//! 8192^3, and wrong outputs at 8192^3 (cuBLAS in TF32 mode, 1% corrupted, one k-term dropped).
//! Where the build found no CUDA driver (build.rs sets `lab_gpu` when it finds libcuda), `cargo
//! test` lists them as ignored with the reason; asked to run anyway (`--ignored`) without a
//! driver, they fail ([`support::gpu`]). The one timing here is printed, never asserted.

mod support;

use std::collections::BTreeSet;
use std::time::Instant;

use host::cuda::{Cublas, Gpu};
use host::experiments::gemm::{GemmBuffers, EPILOGUE, TIMED};
use host::experiments::gemm_check::{GemmChecker, GemmReference};
use host::experiments::inputs::{random_floats, Rng};
use host::experiments::verify::{gemm_reference, tally_gemm, GemmInputs};
use host::results::GemmDims;
use host::sampling::{SamplingConfig, SamplingPlan, TimingPlan};
use kernels_gpu::models::gemm_tolerance::{Reference, Tally};
use kernels_gpu::variants::GEMM;

fn dims(m: u32, n: u32, k: u32) -> GemmDims {
    GemmDims { m, n, k }
}

/// A problem's inputs as `GemmBuffers` makes them for `seed`, on the host.
struct Inputs {
    dims: GemmDims,
    a: Vec<f32>,
    b: Vec<f32>,
    b_t: Vec<f32>,
    c0: Vec<f32>,
}

impl Inputs {
    fn new(dims: GemmDims, seed: u64) -> Self {
        let (m, n, k) = (dims.m as usize, dims.n as usize, dims.k as usize);
        let b = random_floats(k * n, seed + 1);
        let mut b_t = vec![0.0; k * n];
        for r in 0..k {
            for c in 0..n {
                b_t[c * k + r] = b[r * n + c];
            }
        }
        Self {
            dims,
            a: random_floats(m * k, seed),
            b,
            b_t,
            c0: random_floats(m * n, seed + 2),
        }
    }

    fn cpu_reference(&self) -> Vec<Reference> {
        gemm_reference(&GemmInputs {
            dims: self.dims,
            a: &self.a,
            b_t: &self.b_t,
            c0: &self.c0,
        })
    }

    /// C = alpha*A*B + beta*C0 in FP32 with fmas in k order, each input through `round` and the
    /// k-term `skip` (if any) left out.
    fn fp32(
        &self,
        (alpha, beta): (f32, f32),
        round: fn(f32) -> f32,
        skip: Option<usize>,
    ) -> Vec<f32> {
        let k = self.dims.k as usize;
        (0..self.c0.len())
            .map(|i| {
                let (row, col) = (i / self.dims.n as usize, i % self.dims.n as usize);
                let a = &self.a[row * k..(row + 1) * k];
                let b = &self.b_t[col * k..(col + 1) * k];
                let acc = (0..k)
                    .filter(|&t| Some(t) != skip)
                    .fold(0.0f32, |acc, t| round(a[t]).mul_add(round(b[t]), acc));
                alpha.mul_add(acc, beta * self.c0[i])
            })
            .collect()
    }
}

fn same(x: f32) -> f32 {
    x
}

/// Round to nearest TF32 (10 mantissa bits), ties away, as `cvt.rna.tf32.f32`.
fn tf32(x: f32) -> f32 {
    f32::from_bits((x.to_bits() + 0x1000) & !0x1fff)
}

/// `count` distinct random indices below `len`.
fn positions(len: usize, count: usize, seed: u64) -> BTreeSet<usize> {
    let mut rng = Rng::new(seed);
    let mut out = BTreeSet::new();
    while out.len() < count {
        out.insert(rng.below(len as u32) as usize);
    }
    out
}

/// The device reference of `inputs`, with its inputs uploaded.
fn device_reference(gpu: &Gpu, checker: &GemmChecker, inputs: &Inputs) -> GemmReference {
    let a = gpu.upload(&inputs.a).unwrap();
    let b = gpu.upload(&inputs.b).unwrap();
    checker.reference(gpu, inputs.dims, &a, &b).unwrap()
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn the_reference_kernel_is_the_cpu_reference_bit_for_bit() {
    let gpu = support::gpu();
    let checker = GemmChecker::new(&gpu).unwrap();
    for d in [
        dims(1, 1, 1),
        dims(333, 250, 77),
        dims(64, 64, 64),
        dims(17, 200, 1000),
    ] {
        let inputs = Inputs::new(d, 3);
        let (dot, spread) = device_reference(&gpu, &checker, &inputs)
            .download(&gpu)
            .unwrap();
        let cpu = inputs.cpu_reference();
        assert_eq!(dot.len(), cpu.len());
        for (i, r) in cpu.iter().enumerate() {
            assert_eq!(
                (dot[i].to_bits(), spread[i].to_bits()),
                (r.dot.to_bits(), r.spread.to_bits()),
                "{d:?} element {i}: GPU ({}, {}) vs CPU {r:?}",
                dot[i],
                spread[i]
            );
        }
    }
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn the_check_kernel_tallies_as_the_cpu_twin_and_fails_every_fault() {
    let gpu = support::gpu();
    let checker = GemmChecker::new(&gpu).unwrap();
    for d in [dims(1, 1, 1), dims(333, 250, 77), dims(256, 256, 256)] {
        let inputs = Inputs::new(d, 5);
        let reference = device_reference(&gpu, &checker, &inputs);
        let cpu_reference = inputs.cpu_reference();
        let c0 = gpu.upload(&inputs.c0).unwrap();
        let len = inputs.c0.len();
        for setting in [TIMED, EPILOGUE] {
            let right = inputs.fp32(setting, same, None);
            let mut corrupted = right.clone();
            let moved = positions(len, (len / 100).max(1), 11);
            for &i in &moved {
                corrupted[i] += 1e-3;
            }
            let mut nan = right.clone();
            nan[len / 2] = f32::NAN;
            let cases = [
                ("right", right, None),
                (
                    "TF32 inputs",
                    inputs.fp32(setting, tf32, None),
                    Some(len * 9 / 10),
                ),
                (
                    "last k-term dropped",
                    inputs.fp32(setting, same, Some(d.k as usize - 1)),
                    Some(len * 99 / 100),
                ),
                ("1% corrupted", corrupted, Some(moved.len())),
                ("one NaN", nan, Some(1)),
            ];
            for (what, c, fails_at_least) in cases {
                let cpu: Tally = tally_gemm(&cpu_reference, &inputs.c0, &c, setting.0, setting.1);
                let on_device = gpu.upload(&c).unwrap();
                let t = checker
                    .tally(&gpu, &reference, &c0, &on_device, setting)
                    .unwrap();
                eprintln!(
                    "{d:?} {setting:?} {what}: {} of {len} over, worst {:.3}",
                    t.over,
                    t.worst_ratio()
                );
                assert_eq!(
                    t, cpu,
                    "{d:?} {setting:?} {what}: GPU and CPU twin disagree"
                );
                match fails_at_least {
                    None => assert_eq!((t.over, t.non_finite), (0, 0), "{what}"),
                    Some(n) => assert!(t.over > 0 && t.over as usize >= n, "{what}: {t:?}"),
                }
            }
        }
    }
}

/// Every variant (the seed lines only at sizes that are multiples of 64) and cuBLAS, through
/// `GemmBuffers::measure` as the experiments run them: each side's last timed launch and one
/// launch at alpha=1.5, beta=0.5, every element checked. The compared side is the same entry
/// from the unbounded module, so that all three sides' buffers are exercised.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn every_variant_and_cublas_pass_at_every_size() {
    let gpu = support::gpu();
    let (main, unbounded) = support::main_and_unbounded(&gpu);
    let cublas = Cublas::open(&gpu).expect("cuBLAS is part of this check");
    let plan = SamplingConfig {
        plan: SamplingPlan::Fixed(TimingPlan {
            iters: 1,
            samples: 2,
        }),
        ..SamplingConfig::default()
    };
    for d in [
        dims(1, 1, 1),
        dims(333, 250, 77),
        dims(4096, 4096, 4096),
        dims(8192, 8192, 8192),
    ] {
        let mut buffers = GemmBuffers::new(&gpu, d, 7).unwrap();
        let mut cublas_timed = Vec::new();
        let mut ran = 0;
        for v in GEMM {
            if v.size_multiple()
                .is_some_and(|s| !(d.m % s == 0 && d.n % s == 0 && d.k % s == 0))
            {
                continue;
            }
            let ours = main.kernel(v.entry).unwrap();
            let theirs = unbounded.kernel(v.entry).unwrap();
            let m = buffers
                .measure(&gpu, &ours, Some(&theirs), v, &plan, Some(&cublas))
                .unwrap();
            let compared = m.theirs.expect("the compared side ran");
            let (_, cublas_check) = m.cublas.expect("cuBLAS ran");
            eprintln!(
                "{d:?} {}: worst {:.3} (compared {:.3}, cuBLAS timed {:.3})",
                v.label,
                m.ours.check.error,
                compared.check.error,
                cublas_check.tally.worst_ratio()
            );
            assert!(m.ours.check.passed, "{}: {}", v.label, m.ours.check.what);
            assert!(
                compared.check.passed,
                "{}: {}",
                v.label, compared.check.what
            );
            assert_eq!(cublas_check.tally.over, 0, "cuBLAS beside {}", v.label);
            cublas_timed.push(cublas_check);
            ran += 1;
        }
        let tuned = GEMM.iter().filter(|v| v.size_multiple().is_none()).count();
        assert!(
            ran >= tuned,
            "{d:?}: at least the {tuned} lines of any size ran"
        );
        let check = buffers.verify_cublas(&gpu, &cublas, cublas_timed).unwrap();
        eprintln!("{d:?} cuBLAS: worst {:.3}", check.error);
        assert!(check.passed, "cuBLAS: {}", check.what);
    }
}

/// At 8192^3: how long the reference and one check take (printed), and faults at full size:
/// cuBLAS in TF32 mode, cuBLAS's right answer with 1% of its elements corrupted, and with the
/// last k-term taken out again.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn at_8192_the_check_is_quick_and_fails_every_fault() {
    let gpu = support::gpu();
    let d = dims(8192, 8192, 8192);
    let (n, k) = (d.n as usize, d.k as usize);
    // GemmBuffers' inputs for seed 7 (A, B and C0 from seeds 7, 8 and 9).
    let (a_host, b_host) = (random_floats(n * k, 7), random_floats(k * n, 8));
    let checker = GemmChecker::new(&gpu).unwrap();
    let a = gpu.upload(&a_host).unwrap();
    let b = gpu.upload(&b_host).unwrap();
    let c0 = gpu.upload(&random_floats(n * n, 9)).unwrap();
    gpu.synchronize().unwrap();
    let started = Instant::now();
    let reference = checker.reference(&gpu, d, &a, &b).unwrap();
    gpu.synchronize().unwrap();
    let reference_time = started.elapsed();

    let cublas = Cublas::open(&gpu).expect("cuBLAS is part of this check");
    let mut c = gpu.zeros::<f32>(n * n).unwrap();
    cublas
        .gemm_row_major(&gpu, (d.m, d.n, d.k), TIMED.0, &a, &b, TIMED.1, &mut c)
        .unwrap();
    gpu.synchronize().unwrap();
    let started = Instant::now();
    let right = checker.tally(&gpu, &reference, &c0, &c, TIMED).unwrap();
    let check_time = started.elapsed();
    eprintln!(
        "8192^3: reference {:.0} ms, one check {:.1} ms; cuBLAS FP32 worst {:.3}",
        reference_time.as_secs_f64() * 1e3,
        check_time.as_secs_f64() * 1e3,
        right.worst_ratio()
    );
    assert_eq!((right.over, right.non_finite), (0, 0), "{right:?}");

    let host_c = gpu.download(&c).unwrap();
    let len = host_c.len();
    let moved = positions(len, len / 100, 13);
    let mut corrupted = host_c.clone();
    for &i in &moved {
        corrupted[i] += 0.05;
    }
    let t = checker
        .tally(
            &gpu,
            &reference,
            &c0,
            &gpu.upload(&corrupted).unwrap(),
            TIMED,
        )
        .unwrap();
    assert_eq!(t.over as usize, moved.len(), "1% corrupted: {t:?}");
    assert!(moved.contains(&(t.worst_index() as usize)));

    // The last term a[row][K-1] * b[K-1][col] taken out of every element.
    let last = k - 1;
    let dropped: Vec<f32> = (0..len)
        .map(|i| host_c[i] - a_host[(i / n) * k + last] * b_host[last * n + i % n])
        .collect();
    let t = checker
        .tally(&gpu, &reference, &c0, &gpu.upload(&dropped).unwrap(), TIMED)
        .unwrap();
    eprintln!("8192^3 last k-term dropped: {} of {len} over", t.over);
    assert!(t.over as usize >= len * 95 / 100, "dropped term: {t:?}");

    cublas.use_tf32().unwrap();
    cublas
        .gemm_row_major(&gpu, (d.m, d.n, d.k), TIMED.0, &a, &b, TIMED.1, &mut c)
        .unwrap();
    let t = checker.tally(&gpu, &reference, &c0, &c, TIMED).unwrap();
    eprintln!(
        "8192^3 cuBLAS TF32: {} of {len} over, worst {:.1}",
        t.over,
        t.worst_ratio()
    );
    assert!(t.over as usize >= len / 2, "TF32: {t:?}");
}
