//! GPU-only check of the sampled persistent copies (`sections/copy_samples.rs`): one line's
//! `_sampled` entry run once as the `inflight` experiment runs it beside the timed copies
//! (`inflight/sampled_run.rs`), from the main module and from nvcc's twin where `LAB_TWIN_CUBIN`
//! names its cubin: the copy is exact, the warps had loads outstanding for a share of each round
//! in (0, 1], and a round's loads took 200 ns to 20 us at the clock the stamps give (a DRAM load
//! under a copy's traffic, not a clock misread by a factor of a thousand).
//!
//! Ignored by default; on a GPU of sm_80 or newer:
//! `cargo test --release -p host --test copy_samples_gpu -- --ignored --nocapture`.

use std::sync::Arc;

use host::cuda::{driver_present, Gpu, Module};
use host::experiments::copy::CopyBuffers;
use host::experiments::inflight::sampled_run::measure_sampled;
use host::experiments::module_source::Loaded;
use host::kernel_source::name::BUILTIN;
use kernels_gpu::variants::PERSISTENT_COPY;

/// The 32 KiB line at 1 block/SM over 128 MiB (the experiment's default copy) from `module`.
fn one_sampled_point(gpu: &Gpu, module: Module, whose: &str) {
    let line = PERSISTENT_COPY
        .iter()
        .find(|l| (l.threads, l.loads, l.width) == (256, 8, 4))
        .expect("the 32 KiB line of the table");
    let loaded = Loaded {
        module: Arc::new(module),
        report: None,
    };
    let mut buffers = CopyBuffers::new(gpu, (128 << 20) / 4, 17).unwrap();
    let s = measure_sampled(gpu, &mut buffers, &loaded, line, 1)
        .unwrap()
        .unwrap_or_else(|why| panic!("{whose}: no samples: {why}"));
    eprintln!(
        "{whose} {}: {} warps, {} rounds, outstanding {:.3}, {:.0} cycles = {:.0} ns at {:.3} \
         GHz, {:.1} GB/s sampled; {}",
        line.sampled,
        s.warps,
        s.rounds,
        s.outstanding,
        s.latency_cycles,
        s.latency_ns(),
        s.clock_ghz,
        s.gbps,
        s.check.what
    );
    assert!(s.check.passed, "{whose}: {}", s.check.what);
    assert_eq!(
        s.warps,
        gpu.info().sm_count,
        "{whose}: one sampled warp per block"
    );
    assert!(
        s.outstanding > 0.0 && s.outstanding <= 1.0,
        "{whose}: outstanding share {}",
        s.outstanding
    );
    let ns = s.latency_ns();
    assert!((200.0..=20_000.0).contains(&ns), "{whose}: latency {ns} ns");
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test copy_samples_gpu -- --ignored"]
fn a_sampled_persistent_copy_stamps_plausible_rounds_and_copies_exactly() {
    // Asked to run (--ignored) without a driver, the test fails: a GPU test never passes by
    // skipping (gpu_tests_fail_without_a_driver.rs holds every GPU test to that).
    assert!(
        driver_present(),
        "no CUDA driver on this machine: the sampled copies need a GPU"
    );
    let gpu = Gpu::open(0).unwrap_or_else(|e| {
        panic!("the sampled copy test needs a CUDA GPU (sm_80+), and device 0 could not be opened: {e}")
    });
    let ours = Module::load(&gpu, BUILTIN, host::kernel_source::builtin::MAIN.as_bytes()).unwrap();
    one_sampled_point(&gpu, ours, "ours");
    if let Some(cubin) = std::env::var_os("LAB_TWIN_CUBIN") {
        let bytes = std::fs::read(&cubin).unwrap();
        let twin = Module::load(&gpu, "twin", &bytes).unwrap();
        one_sampled_point(&gpu, twin, "nvcc's twin");
    }
}
