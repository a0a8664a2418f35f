//! GPU-only: every launch of a GEMM side accounted for (`experiments::gemm_hashes`). The hash
//! kernel against its CPU model; a timed sample whose C is wrong, and a race launch whose C is
//! wrong, each caught although the last timed launch (the one checked element by element)
//! is right; and every side of a clean run (ours, the compared module's, cuBLAS's) hashed after
//! each sample with its race launches (10 to 100, as time allows), each side's determinism
//! printed. Where the build
//! found no CUDA driver, `cargo test` lists them as ignored; asked to run anyway without a
//! driver, they fail.

mod support;

use std::cell::Cell;

use host::cuda::{Cublas, Gpu, Kernel, LaunchShape};
use host::experiments::gemm::{launch_shape, Fp32, GemmBuffers};
use host::experiments::gemm_check::GemmChecker;
use host::experiments::gemm_hashes::{HashSlots, RACE_LAUNCHES, RACE_LAUNCHES_LEAST};
use host::experiments::gemm_sides::{GemmKind, Launcher, Operands};
use host::experiments::inputs::random_floats;
use host::results::{GemmDims, LaunchHashes};
use host::sampling::{SamplingConfig, SamplingPlan, TimingPlan};
use kernels_gpu::models::output_hash::hash;
use kernels_gpu::variants::{find_gemm, GEMM};
use support::gpu;

/// One launch per sample, `samples` samples.
fn plan(samples: u32) -> SamplingConfig {
    SamplingConfig {
        plan: SamplingPlan::Fixed(TimingPlan { iters: 1, samples }),
        ..SamplingConfig::default()
    }
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn the_hash_kernel_gives_its_cpu_models_word_every_time() {
    let gpu = gpu();
    let checker = GemmChecker::new(&gpu).unwrap();
    for len in [1, 31, 333 * 250, 4096 * 4096] {
        let host_c = random_floats(len, len as u64);
        let c = gpu.upload(&host_c).unwrap();
        let mut slots = HashSlots::new(&gpu, 2).unwrap();
        // Three hashes of the same C, the third in a chunk the slots grow for it.
        for _ in 0..3 {
            slots.push(&gpu, &checker, &c).unwrap();
        }
        let words = slots.read(&gpu).unwrap();
        assert_eq!(words, vec![hash(&host_c); 3], "{len} elements");
        // One element one bit off: another word.
        let mut off = host_c.clone();
        off[len / 2] = f32::from_bits(off[len / 2].to_bits() ^ 1);
        let c = gpu.upload(&off).unwrap();
        let mut slots = HashSlots::new(&gpu, 1).unwrap();
        slots.push(&gpu, &checker, &c).unwrap();
        assert_ne!(slots.read(&gpu).unwrap()[0], words[0], "{len} elements");
    }
}

/// R1 at 512^3, ours alone, timed in 4 samples of one launch: launch `bad` (1-based: the warm-up
/// is launch 1, samples 0-3 launches 2-5, the epilogue's launch 6, race launch i launch 7 + i)
/// writes 2AB instead of AB. Gives the row's check, after asserting that every launch was one of
/// the warm-up, samples, epilogue and race check.
fn with_one_bad_launch(gpu: &Gpu, bad: u32) -> host::results::Check {
    let module = support::main_module(gpu);
    let v = find_gemm(GEMM, "R1").unwrap();
    let kernel = module.kernel(v.entry).unwrap();
    let dims = GemmDims::square(512);
    let mut buffers = GemmBuffers::new(gpu, dims, 7).unwrap();
    let launches = Cell::new(0u32);
    let launch = |gpu: &Gpu, k: &Kernel<'_>, shape: LaunchShape, ops: Operands<'_, f32>| {
        launches.set(launches.get() + 1);
        let ops = if launches.get() == bad {
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
    let m = buffers
        .measure_by(
            gpu,
            (&kernel, None),
            (launch_shape(v, dims), launcher),
            &plan(4),
            None,
        )
        .unwrap();
    let race = m.ours.check.hashes.as_ref().expect("hashed").race_launches;
    assert!(in_race_range(race), "{race} race launches");
    assert_eq!(launches.get(), 6 + race, "warm-up, samples, epilogue, race");
    m.ours.check
}

/// Whether a race check's launches are within its rule's least and most (where in that range
/// depends on how long the launches took: not something a test may depend on).
fn in_race_range(launches: u32) -> bool {
    (RACE_LAUNCHES_LEAST..=RACE_LAUNCHES).contains(&launches)
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_timed_sample_with_a_wrong_c_fails_the_row_though_the_last_one_is_right() {
    let gpu = gpu();
    let check = with_one_bad_launch(&gpu, 3);
    // What the check saw before the hashes: the last timed launch, every element right.
    assert!(
        check
            .what
            .contains("the last timed launch (alpha=1, beta=0): 0 of 262144 over"),
        "{}",
        check.what
    );
    assert!(!check.passed, "{}", check.what);
    let h = check.hashes.expect("hashed");
    assert_eq!(
        (h.samples, h.samples_differing.as_slice()),
        (4, [1].as_slice()),
        "sample 1 (launch 3) differs"
    );
    assert!(h.race_differing.is_empty() && h.bits_required);
    assert!(check.what.contains("(sample 1)"), "{}", check.what);
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_race_launch_with_a_wrong_c_is_checked_element_by_element_and_fails_the_row() {
    let gpu = gpu();
    // Race launch 5: below the least any race check makes, so it always runs.
    let check = with_one_bad_launch(&gpu, 7 + 5);
    assert!(!check.passed, "{}", check.what);
    let h = check.hashes.expect("hashed");
    assert!(h.samples_differing.is_empty());
    assert_eq!(
        (h.race_differing.as_slice(), h.race_failed.as_slice()),
        ([5].as_slice(), [5].as_slice())
    );
    assert!(check.error > 1.0, "the element check of race launch 5");
    assert!(
        check.what.contains("First failed: race launch 5"),
        "{}",
        check.what
    );
    // And nothing wrong, nothing caught.
    let clean = with_one_bad_launch(&gpu, 0);
    assert!(clean.passed, "{}", clean.what);
    assert!(clean.hashes.expect("hashed").bit_deterministic());
}

/// How a side's launches came out, in words.
fn summary(side: &str, h: &LaunchHashes) -> String {
    format!(
        "{side}: {} samples hashed ({} differ), {} race launches ({} differ, {} failed): {}",
        h.samples,
        h.samples_differing.len(),
        h.race_launches,
        h.race_differing.len(),
        h.race_failed.len(),
        if h.bit_deterministic() {
            "bit-deterministic"
        } else {
            "NOT bit-deterministic"
        }
    )
}

/// Every tuned FP32 line (the lines of any size; ours from the bounded module, the compared side
/// the same entry from the unbounded one) and cuBLAS at 333x250x77 and 4096^3: each side's samples
/// and race launches hashed, our lines bit-deterministic, every check passed; cuBLAS's determinism
/// printed.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn every_side_of_a_clean_run_is_hashed_and_passes() {
    let gpu = gpu();
    let (main, unbounded) = support::main_and_unbounded(&gpu);
    let cublas = Cublas::open(&gpu).expect("cuBLAS");
    for dims in [
        GemmDims {
            m: 333,
            n: 250,
            k: 77,
        },
        GemmDims::square(4096),
    ] {
        let mut buffers = GemmBuffers::new(&gpu, dims, 7).unwrap();
        let mut cublas_timed = Vec::new();
        for v in GEMM.iter().filter(|v| v.size_multiple().is_none()) {
            let ours = main.kernel(v.entry).unwrap();
            let theirs = unbounded.kernel(v.entry).unwrap();
            let m = buffers
                .measure(&gpu, &ours, Some(&theirs), v, &plan(3), Some(&cublas))
                .unwrap();
            for (side, check) in [
                ("ours", &m.ours.check),
                ("theirs", &m.theirs.unwrap().check),
            ] {
                let h = check.hashes.as_ref().expect("hashed");
                eprintln!("{dims:?} {} {}", v.label, summary(side, h));
                assert!(check.passed, "{} {side}: {}", v.label, check.what);
                assert_eq!(h.samples, 3);
                assert!(in_race_range(h.race_launches), "{}", h.race_launches);
                assert!(h.bit_deterministic(), "{} {side}: {}", v.label, check.what);
            }
            cublas_timed.push(m.cublas.expect("cuBLAS timed").1);
        }
        let lines = cublas_timed.len() as u32;
        let check = buffers.verify_cublas(&gpu, &cublas, cublas_timed).unwrap();
        let h = check.hashes.as_ref().expect("cuBLAS hashed");
        eprintln!("{dims:?} {}", summary("cuBLAS", h));
        assert!(check.passed, "cuBLAS: {}", check.what);
        assert_eq!(h.samples, 3 * lines);
        assert!(in_race_range(h.race_launches), "{}", h.race_launches);
        assert!(!h.bits_required);
    }
}
