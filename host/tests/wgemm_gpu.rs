//! GPU-only checks of the warp-specialized wgmma GEMM (sm_90a, the variant table's `gemm_wgmma`
//! section), launched through the host's plumbing (the built-in sm_90a module, the tensor maps of
//! `host::cuda::tensor_map`, `experiments::gemm_bf16::wgemm`):
//! - the driver's JIT reports every line's entry without spills, stack or serialized wgmma;
//! - every element of every line's C against the f64 reference of its bf16 inputs under the
//!   tensor-core rule (`experiments::bf16_tolerance`), at awkward sizes (edge tiles in M,
//!   N and K, K shorter than a slice, fewer tiles than SMs, K or N not a multiple of 8 and so
//!   read through padded copies, N odd), at alpha=1.5, beta=0.5 and at alpha=1, beta=0;
//! - split-K at decode and skinny shapes, and streamed tails where lines stream them: every
//!   element checked, the same bits every launch; the streamed tail timed against the tail
//!   dealt whole, in alternating rounds (printed, not asserted);
//! - at 4096^3 and 8192^3 (and 2048x8192x1024): every line and cuBLAS's BF16 GEMM timed, their
//!   TFLOP/s and the ratio printed (not asserted: a timing never decides a test), every element
//!   of each timed output checked.
//!
//! Ignored by default; on an H100/H200 (compute capability 9.0):
//! `cargo test --release -p host --test wgemm_gpu -- --ignored --nocapture --test-threads 1`.
//! Anywhere else they fail with the reason ("needs sm_90a"); they never skip.

use cudarc::driver::CudaSlice;
use host::confidence::median;
use host::cuda::hopper::hopper_module;
use host::cuda::split_scratch::TailDeal;
use host::cuda::tensor_map::TensorMaps;
use host::cuda::{prepare, Cublas, Gpu, LaunchShape, Module};
use host::experiments::bf16_inputs::Bf16Inputs;
use host::experiments::bf16_tolerance::{record, spread_factor};
use host::experiments::gemm_bf16::wgemm::{
    launch_wgemm, not_run_reason, wgemm_launch_shape, wgemm_occupancy,
};
use host::experiments::gemm_check::{Checked, GemmChecker, GemmReference};
use host::experiments::gemm_sides::gflops;
use host::results::{Check, GemmDims};
use host::sampling::{time_launches, SamplingConfig, SamplingPlan, TimingPlan};
use kernels_gpu::variants::{WgemmVariant, WGEMM};
use std::sync::Arc;

/// Device 0 and its sm_90a module, or a panic that says why not.
fn hopper() -> (Gpu, Arc<Module>) {
    let gpu = Gpu::open(0).unwrap_or_else(|e| {
        panic!(
            "the wgmma GEMM tests need a CUDA GPU (sm_90a), and device 0 could not be opened: {e}"
        )
    });
    let module = hopper_module(&gpu).unwrap_or_else(|e| panic!("the wgmma GEMM tests: {e}"));
    (gpu, module)
}

/// One problem on the device: A, B (bf16), C0, the f64 reference scaled to the tensor-core rule.
struct Problem {
    dims: GemmDims,
    a: CudaSlice<u16>,
    b: CudaSlice<u16>,
    c0: CudaSlice<f32>,
    checker: GemmChecker,
    reference: GemmReference,
}

impl Problem {
    fn new(gpu: &Gpu, dims: GemmDims) -> Self {
        let inputs = Bf16Inputs::new(dims, u64::from(dims.k) ^ 0x5eed);
        let checker = GemmChecker::new(gpu).expect("the check kernels");
        let mut reference = {
            let a_wide = gpu.upload(&inputs.a.wide).unwrap();
            let b_wide = gpu.upload(&inputs.b.wide).unwrap();
            checker
                .reference(gpu, dims, &a_wide, &b_wide)
                .expect("the f64 reference")
        };
        reference
            .scale_spread(gpu, spread_factor(dims.k))
            .expect("the tolerance");
        Self {
            dims,
            a: gpu.upload(&inputs.a.bits).unwrap(),
            b: gpu.upload(&inputs.b.bits).unwrap(),
            c0: gpu.upload(&inputs.c0).unwrap(),
            checker,
            reference,
        }
    }

    /// A fresh copy of C0.
    fn fresh_c(&self, gpu: &Gpu) -> CudaSlice<f32> {
        let mut c = gpu.zeros(self.c0.len()).unwrap();
        gpu.copy_device(&self.c0, &mut c).unwrap();
        c
    }

    /// Every element of `c` against the reference at `setting`, under the tensor-core rule.
    fn check(&self, gpu: &Gpu, c: &CudaSlice<f32>, setting: (f32, f32), launch: &str) -> Check {
        let tally = self
            .checker
            .tally(gpu, &self.reference, &self.c0, c, setting)
            .expect("the check");
        record(
            self.dims,
            &[Checked {
                launch: launch.to_owned(),
                alpha: setting.0,
                beta: setting.1,
                tally,
            }],
        )
    }
}

impl Problem {
    /// Where a failed check's misses lie, for the log: how many elements are off by more than
    /// 1e-2 relative to the reference (a coarse view; the check's rule decides), by position in
    /// a 64 x 64 tile, and the first few with their values.
    fn misses(&self, gpu: &Gpu, c: &CudaSlice<f32>, (alpha, beta): (f32, f32)) -> String {
        let got = gpu.download(c).unwrap();
        let c0 = gpu.download(&self.c0).unwrap();
        let (dot, _) = self.reference.download(gpu).unwrap();
        let n = self.dims.n as usize;
        let mut by_row = [0u32; 64];
        let mut by_col = [0u32; 64];
        let mut first = Vec::new();
        let mut off = 0u64;
        for (i, (&g, (&d, &old))) in got.iter().zip(dot.iter().zip(&c0)).enumerate() {
            let want = f64::from(alpha) * d + f64::from(beta) * f64::from(old);
            if (f64::from(g) - want).abs() > 1e-2 * (1.0 + want.abs()) || !g.is_finite() {
                off += 1;
                by_row[(i / n) % 64] += 1;
                by_col[(i % n) % 64] += 1;
                if first.len() < 8 {
                    first.push(format!("({}, {}): {g} want {want:.4}", i / n, i % n));
                }
            }
        }
        format!(
            "{off} of {} elements off; by row mod 64 {by_row:?}; by column mod 64 {by_col:?}; \
             first {first:?}",
            got.len()
        )
    }
}

/// A line's kernel, prepared, with its shape and its maps over `p`.
struct Ready<'m> {
    kernel: host::cuda::Kernel<'m>,
    shape: LaunchShape,
    maps: TensorMaps,
}

fn ready<'m>(gpu: &Gpu, module: &'m Module, v: &WgemmVariant, p: &Problem) -> Ready<'m> {
    let kernel = module.kernel(v.entry).expect("the line's entry");
    let shape = wgemm_launch_shape(v, p.dims, gpu.info().sm_count);
    prepare(&kernel, shape).expect("the line's dynamic shared memory");
    let maps = TensorMaps::encode(gpu, v, p.dims, &p.a, &p.b)
        .unwrap_or_else(|e| panic!("{} at {:?}: {e}", v.label, p.dims));
    Ready {
        kernel,
        shape,
        maps,
    }
}

/// One launch of `v` on a fresh C at `setting`, checked: the check's words (and where the
/// misses lie) if any element is off.
fn launch_and_check(
    gpu: &Gpu,
    module: &Module,
    v: &WgemmVariant,
    p: &Problem,
    setting: (f32, f32),
) -> Result<(), String> {
    let r = ready(gpu, module, v, p);
    let mut c = p.fresh_c(gpu);
    let at = format!(
        "{} ({}) at {}x{}x{}, alpha {} beta {}",
        v.label, v.entry, p.dims.m, p.dims.n, p.dims.k, setting.0, setting.1
    );
    launch_wgemm(
        gpu,
        &r.kernel,
        (v, r.shape),
        &r.maps,
        (p.dims, (&p.a, &p.b), &mut c),
        setting,
    )
    .and_then(|()| gpu.synchronize())
    .unwrap_or_else(|e| panic!("{at}: {e}"));
    let check = p.check(gpu, &c, setting, "one launch on a fresh C");
    if !check.passed {
        return Err(format!(
            "{at}: {}\n  {}",
            check.what,
            p.misses(gpu, &c, setting)
        ));
    }
    eprintln!(
        "{at}: every element within tolerance (worst {:.3} of it)",
        check.error
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU (sm_90a): cargo test --release -p host --test wgemm_gpu -- --ignored"]
fn the_jit_reports_every_wgemm_entry_without_spills_or_serialization() {
    let (gpu, module) = hopper();
    let log = module.info_log();
    // The build's bars, on the driver's JIT of the embedded PTX: no serialized wgmma, no spill
    // or stack frame in any entry of the module.
    let bad = xtask::hopper::check_bars(log);
    assert!(bad.is_empty(), "the JIT's report: {bad:?}");
    let report = ptxas_report::parse_report(log).expect("the JIT's report parses");
    for v in WGEMM {
        let e = report
            .iter()
            .find(|e| e.name == v.entry)
            .expect("check_bars found every entry");
        let o = wgemm_occupancy(v, gpu.limits(), e.registers).expect("a launchable line");
        eprintln!(
            "{} ({}): {} registers, {} threads, {} B dynamic shared memory: {} block/SM, {:.2}% \
             theoretical occupancy (the lab's calculator)",
            v.label,
            v.entry,
            e.registers,
            v.threads(),
            v.dynamic_shared_bytes(),
            o.blocks_per_sm,
            100.0 * o.occupancy
        );
        assert!(o.occupancy <= 0.1875 + 1e-12, "{}: issue 18's bar", v.label);
    }
}

#[test]
#[ignore = "needs a CUDA GPU (sm_90a): cargo test --release -p host --test wgemm_gpu -- --ignored"]
fn every_wgemm_line_passes_the_check_at_awkward_sizes() {
    let (gpu, module) = hopper();
    let mut failures = Vec::new();
    for (m, n, k) in [
        (8, 8, 8),
        (1, 264, 40),
        (333, 264, 80),
        (1000, 1000, 1000),
        (2048, 8192, 1024),
        // K or N not a multiple of 8: A or B read from padded copies, odd N written one
        // float at a time (the shape sweep's odd shapes, and the smallest).
        (1, 1, 1),
        (3, 5, 7),
        (7, 9000, 13),
        (65, 131, 200),
        (4095, 4097, 1023),
    ] {
        let p = Problem::new(&gpu, GemmDims { m, n, k });
        for v in WGEMM {
            // The mma.sync ring lines write C in pairs: an odd N is refused before the launch.
            let cc = gpu.info().compute_capability;
            if let Some(why) = not_run_reason(cc, v, p.dims) {
                assert!(
                    !v.takes_odd_n() && n % 2 == 1,
                    "{} at {m}x{n}x{k}: {why}",
                    v.label
                );
                continue;
            }
            for setting in [(1.5, 0.5), (1.0, 0.0)] {
                if let Err(e) = launch_and_check(&gpu, &module, v, &p, setting) {
                    eprintln!("FAILED {e}");
                    failures.push(e);
                }
            }
        }
    }
    assert_none_failed(&failures);
}

/// Split-K (`WgemmVariant::k_split`): at decode and skinny shapes whose tiles leave more than
/// two thirds of the SMs idle (N of 2048 or so: at 4096 the 64-wide lines have tiles enough),
/// every wgmma line that cuts K there is checked cut, element by element at both settings
/// (units of uneven depth, K and N not multiples of 8 among them), and is the same bits on
/// every launch: the units meet in a fixed order, whichever ends last.
#[test]
#[ignore = "needs a CUDA GPU (sm_90a): cargo test --release -p host --test wgemm_gpu -- --ignored"]
fn the_split_k_lines_are_checked_and_give_the_same_bits_every_launch() {
    let (gpu, module) = hopper();
    let sms = gpu.info().sm_count;
    let mut failures = Vec::new();
    let mut cut: Vec<(&str, u32, u32)> = Vec::new();
    for (m, n, k) in [
        (16, 2048, 4096),
        (64, 2048, 2048),
        (100, 2051, 4101),
        (20, 1001, 4101),
    ] {
        let p = Problem::new(&gpu, GemmDims { m, n, k });
        for v in WGEMM.iter().filter(|v| v.splits_k()) {
            let split = v.k_split(m, n, k, sms);
            if split.splits < 2 {
                continue;
            }
            cut.push((v.label, n, k));
            let what = format!(
                "K cut in {} (units of {} slices)",
                split.splits, split.unit_steps
            );
            check_cut(&gpu, &module, v, &p, &what, &mut failures);
        }
    }
    // Every line that cuts K is checked cut at three shapes at least, N and K not multiples of 8
    // at one of them (a small tile's line keeps K whole where the wide lines' tiles are few).
    for v in WGEMM.iter().filter(|v| v.splits_k()) {
        let at: Vec<_> = cut.iter().filter(|(l, ..)| *l == v.label).collect();
        assert!(
            at.len() >= 3 && at.iter().any(|(_, n, k)| n % 8 != 0 && k % 8 != 0),
            "{} cuts K at too few of the shapes: {at:?} (on {sms} SMs)",
            v.label
        );
    }
    assert_none_failed(&failures);
}

/// Streamed tails (`WgemmVariant::stream_tail`): at shapes whose last partial wave each line
/// streams over the grid (N odd, K not a multiple of 8, edge tiles in M, N and K), C is checked
/// element by element at both settings and is the same bits on every launch. Every line that
/// can stream a tail (ping-pong's among them) streams at one of the shapes at least.
#[test]
#[ignore = "needs a CUDA GPU (sm_90a): cargo test --release -p host --test wgemm_gpu -- --ignored"]
fn the_streamed_tails_are_checked_and_give_the_same_bits_every_launch() {
    let (gpu, module) = hopper();
    let sms = gpu.info().sm_count;
    let mut failures = Vec::new();
    let mut streamed = Vec::new();
    for (m, n, k) in [(2000, 3001, 4101), (1100, 3000, 4100), (1900, 2900, 3000)] {
        let p = Problem::new(&gpu, GemmDims { m, n, k });
        for v in WGEMM.iter().filter(|v| v.streams_tail()) {
            let Some(tail) = v.stream_tail(m, n, k, sms) else {
                continue;
            };
            streamed.push(v.label);
            let what = format!(
                "{} tail tiles of {} slices in runs of {} to {}",
                tail.tiles,
                tail.k_steps,
                tail.shortest_run(),
                tail.longest_run()
            );
            check_cut(&gpu, &module, v, &p, &what, &mut failures);
        }
    }
    for v in WGEMM.iter().filter(|v| v.streams_tail()) {
        assert!(
            streamed.contains(&v.label),
            "{} streams its tail at none of the shapes (on {sms} SMs)",
            v.label
        );
    }
    assert_none_failed(&failures);
}

/// Fails with every failure's words, if there are any.
fn assert_none_failed(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A line whose tiles' K is cut at `p` (split-K, or a streamed tail: `what` says which):
/// every element checked at both settings (failures pushed), then 20 launches from the same C
/// giving the same bits (asserted: the units meet in a fixed order, whichever ends last).
fn check_cut(
    gpu: &Gpu,
    module: &Module,
    v: &WgemmVariant,
    p: &Problem,
    what: &str,
    failures: &mut Vec<String>,
) {
    let GemmDims { m, n, k } = p.dims;
    for setting in [(1.5, 0.5), (1.0, 0.0)] {
        if let Err(e) = launch_and_check(gpu, module, v, p, setting) {
            eprintln!("FAILED {e}");
            failures.push(e);
        }
    }
    let r = ready(gpu, module, v, p);
    let mut bits = None;
    for launch in 0..20 {
        let mut c = p.fresh_c(gpu);
        launch_wgemm(
            gpu,
            &r.kernel,
            (v, r.shape),
            &r.maps,
            (p.dims, (&p.a, &p.b), &mut c),
            (1.5, 0.5),
        )
        .unwrap();
        let now: Vec<u32> = gpu
            .download(&c)
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect();
        match &bits {
            None => bits = Some(now),
            Some(first) => assert!(
                *first == now,
                "{} at {m}x{n}x{k} ({what}): launch {launch} differs",
                v.label
            ),
        }
    }
    eprintln!(
        "{} at {m}x{n}x{k}: {what}, 20 launches, one set of bits",
        v.label
    );
}

/// The streamed tail against the same line with its last wave dealt a tile per block: at the
/// sweep's shapes where the line it chose (S19b) streams, and, streamed anyway
/// (`TailDeal::Streamed`), where the rule's bounds (`TAIL_GAIN_STEPS`, runs of
/// `MIN_UNIT_STEPS`) decline, at 4096^3 for the gain and at big shapes of few tail tiles
/// for the runs' depth, the two launches timed in
/// alternating rounds (5 launches a sample, 9 rounds, each round's order swapped), their median
/// TFLOP/s and the ratio printed, not asserted (a timing never decides a test); one launch of
/// each checked element by element.
#[test]
#[ignore = "needs a CUDA GPU (sm_90a): cargo test --release -p host --test wgemm_gpu -- --ignored"]
fn the_streamed_tail_timed_against_the_tail_dealt_whole() {
    let (gpu, module) = hopper();
    let sms = gpu.info().sm_count;
    let round = SamplingConfig {
        plan: SamplingPlan::Fixed(TimingPlan {
            iters: 5,
            samples: 1,
        }),
        ..SamplingConfig::default()
    };
    for (label, (m, n, k), anyway) in [
        ("W1", (8192, 8192, 8192), false),
        ("W1", (4096, 14336, 4096), false),
        ("W1", (4096, 4096, 14336), false),
        ("W1", (16384, 4096, 4096), false),
        ("W3", (16384, 16384, 16384), false),
        ("W1", (4096, 4096, 4096), true),
        ("W6", (4096, 4096, 4096), true),
        ("W6", (8192, 8192, 8192), true),
        ("W6", (4096, 14336, 4096), true),
        ("W6", (16384, 4096, 4096), true),
        ("W4", (8192, 8192, 8192), true),
        ("W1", (16384, 16384, 16384), true),
    ] {
        let line = WGEMM
            .iter()
            .find(|v| v.label == label)
            .expect("in the table");
        let rule = if anyway {
            line.tail_at(m, n, k, sms)
        } else {
            line.stream_tail(m, n, k, sms)
        };
        let Some(tail) = rule else {
            eprintln!("{label} does not stream its tail at {m}x{n}x{k} on {sms} SMs");
            continue;
        };
        let p = Problem::new(&gpu, GemmDims { m, n, k });
        let mut streamed = ready(&gpu, &module, line, &p);
        if anyway {
            (streamed.maps)
                .deal_tail(&gpu, line, p.dims, TailDeal::Streamed)
                .unwrap();
        }
        let mut whole = ready(&gpu, &module, line, &p);
        (whole.maps)
            .deal_tail(&gpu, line, p.dims, TailDeal::Whole)
            .unwrap();
        let sides = [&streamed, &whole];
        let launch = |s: &Ready<'_>, c: &mut CudaSlice<f32>| {
            launch_wgemm(
                &gpu,
                &s.kernel,
                (line, s.shape),
                &s.maps,
                (p.dims, (&p.a, &p.b), c),
                (1.0, 0.0),
            )
        };
        let mut c = p.fresh_c(&gpu);
        let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for r in 0..9 {
            for i in [r % 2, 1 - r % 2] {
                let t = time_launches(&gpu, &round, || launch(sides[i], &mut c)).unwrap();
                times[i].push(gflops(p.dims, &t) / 1e3);
            }
        }
        for (s, what) in sides.iter().zip(["streamed", "dealt whole"]) {
            let mut c = p.fresh_c(&gpu);
            launch(s, &mut c).unwrap();
            let check = p.check(&gpu, &c, (1.0, 0.0), "one launch on a fresh C");
            assert!(
                check.passed,
                "{label} at {m}x{n}x{k}, tail {what}: {}",
                check.what
            );
        }
        let [streamed_tflops, whole_tflops] = &mut times;
        let (a, b) = (median(streamed_tflops), median(whole_tflops));
        eprintln!(
            "{label} at {m}x{n}x{k}: tail streamed{} ({} tiles of {} slices, runs of {} to {}) \
             {a:.1} TFLOP/s, dealt whole {b:.1} TFLOP/s: {:.3}x (medians of 9 alternating rounds)",
            if anyway { " anyway" } else { "" },
            tail.tiles,
            tail.k_steps,
            tail.shortest_run(),
            tail.longest_run(),
            a / b
        );
    }
}

/// The plan of the large-size timings: 5 samples of 10 launches.
fn plan() -> SamplingConfig {
    SamplingConfig {
        plan: SamplingPlan::Fixed(TimingPlan {
            iters: 10,
            samples: 5,
        }),
        ..SamplingConfig::default()
    }
}

/// cuBLAS at `p` and `setting`: its TFLOP/s over the plan, and its output of one more call on a
/// fresh C checked.
fn cublas_tflops(gpu: &Gpu, cublas: &Cublas, p: &Problem, setting: (f32, f32)) -> f64 {
    let d = p.dims;
    let mut c = p.fresh_c(gpu);
    let call = |c: &mut CudaSlice<f32>| {
        cublas.gemm_row_major(gpu, (d.m, d.n, d.k), setting.0, &p.a, &p.b, setting.1, c)
    };
    let t = time_launches(gpu, &plan(), || call(&mut c)).expect("timing cuBLAS");
    // The timed calls compounded C; one more on a fresh C is the one checked.
    let mut c = p.fresh_c(gpu);
    call(&mut c).expect("cuBLAS");
    let check = p.check(gpu, &c, setting, "cuBLAS on a fresh C");
    assert!(check.passed, "cuBLAS at {d:?}: {}", check.what);
    gflops(d, &t) / 1e3
}

/// Line `v` at `p` and `setting`: its TFLOP/s over the plan, and its output of one more launch
/// on a fresh C checked (the worst element's share of its tolerance returned beside).
fn line_tflops(
    gpu: &Gpu,
    module: &Module,
    v: &WgemmVariant,
    p: &Problem,
    setting: (f32, f32),
) -> (f64, f64) {
    let d = p.dims;
    let r = ready(gpu, module, v, p);
    let mut c = p.fresh_c(gpu);
    let launch = |c: &mut CudaSlice<f32>| {
        launch_wgemm(
            gpu,
            &r.kernel,
            (v, r.shape),
            &r.maps,
            (d, (&p.a, &p.b), c),
            setting,
        )
    };
    let t = time_launches(gpu, &plan(), || launch(&mut c))
        .unwrap_or_else(|e| panic!("{} at {d:?}: {e}", v.label));
    let mut c = p.fresh_c(gpu);
    launch(&mut c).unwrap();
    let check = p.check(gpu, &c, setting, "one launch on a fresh C");
    assert!(
        check.passed,
        "{} ({}) at {d:?}: {}",
        v.label, v.entry, check.what
    );
    (gflops(d, &t) / 1e3, check.error)
}

/// Every line and cuBLAS at `d`, at alpha=1.5, beta=0.5 (C read) and alpha=1, beta=0 (C only
/// written), each timed and its output checked; prints TFLOP/s and Ours/cuBLAS.
fn beside_cublas_at(gpu: &Gpu, module: &Module, cublas: &Cublas, d: GemmDims) {
    let p = Problem::new(gpu, d);
    for setting in [(1.5, 0.5), (1.0, 0.0)] {
        let theirs = cublas_tflops(gpu, cublas, &p, setting);
        eprintln!(
            "cuBLAS {} BF16 at {}x{}x{} (alpha {}, beta {}): {theirs:.1} TFLOP/s",
            cublas.version(),
            d.m,
            d.n,
            d.k,
            setting.0,
            setting.1
        );
        for v in WGEMM {
            let (ours, worst) = line_tflops(gpu, module, v, &p, setting);
            eprintln!(
                "{} ({}) at {}x{}x{} (alpha {}, beta {}): {ours:.1} TFLOP/s, {:.2}x cuBLAS; {} \
                 threads/block, one block/SM; every element within tolerance (worst {worst:.3} \
                 of it)",
                v.label,
                v.entry,
                d.m,
                d.n,
                d.k,
                setting.0,
                setting.1,
                ours / theirs,
                v.threads(),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU (sm_90a): cargo test --release -p host --test wgemm_gpu -- --ignored"]
fn every_wgemm_line_beside_cublas_at_large_sizes() {
    let (gpu, module) = hopper();
    let cublas = Cublas::open(&gpu).unwrap_or_else(|e| panic!("cuBLAS is part of this test: {e}"));
    for d in [
        GemmDims {
            m: 2048,
            n: 8192,
            k: 1024,
        },
        GemmDims::square(4096),
        GemmDims::square(8192),
    ] {
        beside_cublas_at(&gpu, &module, &cublas, d);
    }
}
