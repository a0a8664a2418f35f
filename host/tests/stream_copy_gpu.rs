//! GPU-only check of the persistent copies (the variant table's `persistent_copy` lines, entries
//! `stream_copy_*`, experiment 4's evidence for Little's law): every line copies every whole
//! vector of a copy that is not a whole number of its rounds, nor of its vectors, exactly, at 1
//! and (where its registers allow) 2 blocks per SM (the last, partial round and the tail), from
//! the main module and from nvcc's twin where `LAB_TWIN_CUBIN` names its cubin.
//!
//! Ignored by default; on a GPU of sm_80 or newer:
//! `cargo test --release -p host --test stream_copy_gpu -- --ignored --nocapture --test-threads 1`.

use host::cuda::{Gpu, Module};
use host::experiments::copy::{CopyBuffers, CopyKernel};
use host::kernel_source::name::BUILTIN;
use kernels_gpu::variants::PERSISTENT_COPY;

fn gpu() -> Gpu {
    Gpu::open(0).unwrap_or_else(|e| {
        panic!("the persistent copy tests need a CUDA GPU (sm_80+), and device 0 could not be opened: {e}")
    })
}

/// Every line from `module` copies a ragged copy exactly at 1 block per SM, and at 2 where the
/// driver can hold 2 (a line of many loads has too many registers for two blocks of 256
/// threads); at least one line runs at 2.
fn ragged_copies(gpu: &Gpu, module: &Module, whose: &str) {
    // Not a whole number of any line's rounds on any GPU's SMs (a prime number of vectors of
    // 4 floats, then a tail of 3 floats that width 4 leaves and widths 1 and 2 copy).
    let floats = 4 * 1_000_003 + 3;
    let mut buffers = CopyBuffers::new(gpu, floats, 13).unwrap();
    let mut at_two = 0;
    for line in PERSISTENT_COPY {
        let kernel = module.kernel(line.entry).unwrap();
        let most = kernel.max_active_blocks(line.threads, 0).unwrap();
        for blocks in [1, 2].into_iter().filter(|&b| b <= most) {
            at_two += usize::from(blocks == 2);
            let held = buffers
                .hold(gpu, &kernel, CopyKernel::Persistent(line), blocks)
                .unwrap_or_else(|e| panic!("{whose} {} at {blocks} blocks/SM: {e}", line.entry));
            buffers.launch(gpu, &held).unwrap();
            let check = buffers.check_and_clear(gpu, line.width).unwrap();
            assert!(
                check.passed,
                "{whose} {} at {blocks} blocks/SM: {}",
                line.entry, check.what
            );
            eprintln!(
                "{whose} {} at {blocks} blocks/SM: {}",
                line.entry, check.what
            );
        }
    }
    assert!(at_two > 0, "{whose}: no line could be held at 2 blocks/SM");
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test stream_copy_gpu -- --ignored"]
fn every_persistent_line_copies_a_ragged_copy_exactly() {
    let gpu = gpu();
    let module =
        Module::load(&gpu, BUILTIN, host::kernel_source::builtin::MAIN.as_bytes()).unwrap();
    ragged_copies(&gpu, &module, "ours");
    if let Some(cubin) = std::env::var_os("LAB_TWIN_CUBIN") {
        let bytes = std::fs::read(&cubin).unwrap();
        let twin = Module::load(&gpu, "twin", &bytes).unwrap();
        ragged_copies(&gpu, &twin, "nvcc's twin");
    }
}
