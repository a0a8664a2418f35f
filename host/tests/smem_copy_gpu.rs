//! GPU-only checks of the copies whose bytes in flight live in shared memory (the variant
//! table's `smem_copy` lines, experiment 4):
//! - every line copies every whole 16-byte vector of a copy that is not a whole number of its
//!   tiles, exactly, at 1 block per SM and at 2 where its rings fit twice (the tail and the
//!   persistent grid's last tiles):
//!   the `cp.async` lines from the main module on any sm_80+, the bulk-copy (`tma_copy`) lines
//!   from the sm_90a module (that test fails elsewhere, saying why);
//! - experiment 4's sweep runs them beside a register-held copy at 1 to 8 warps per SM, every
//!   copy checked, and prints their rows and the verdict on one warp per SM (printed, not
//!   asserted: a timing never decides a test).
//!
//! Ignored by default; on a GPU of sm_80 or newer (an H100/H200 for the bulk copies):
//! `cargo test --release -p host --test smem_copy_gpu -- --ignored --nocapture --test-threads 1`.

mod support;

use host::cuda::hopper::hopper_module;
use host::cuda::{Gpu, Module};
use host::experiments::contract::Report;
use host::experiments::copy::{CopyBuffers, CopyKernel};
use host::experiments::inflight;
use host::kernel_source::name::BUILTIN;
use kernels_gpu::variants::{SmemPath, SMEM_COPY};

fn gpu() -> Gpu {
    Gpu::open(0).unwrap_or_else(|e| {
        panic!("the shared-memory copy tests need a CUDA GPU (sm_80+), and device 0 could not be opened: {e}")
    })
}

/// Every line of `path` from `module` copies a ragged copy exactly at 1 block per SM, and at 2
/// where the SM holds two (a line that does not is named).
fn ragged_copies(gpu: &Gpu, module: &Module, path: SmemPath) {
    // Not a whole number of tiles of any line, nor of 16-byte vectors (the tail of 3 floats is
    // left, as the width-4 register copies leave it).
    let floats = 3 * 1024 * 1024 + 4 * 777 + 3;
    let mut buffers = CopyBuffers::new(gpu, floats, 11).unwrap();
    for line in SMEM_COPY.iter().filter(|l| l.path == path) {
        let kernel = module.kernel(line.entry).unwrap();
        for blocks in [1, 2] {
            let held = match buffers.hold(gpu, &kernel, CopyKernel::Shared(line), blocks) {
                Ok(h) => h,
                Err(e) => {
                    eprintln!("{} at {blocks} blocks/SM not held: {e}", line.entry);
                    assert!(
                        blocks > 1,
                        "{}: one block per SM must hold: {e}",
                        line.entry
                    );
                    continue;
                }
            };
            buffers.launch(gpu, &held).unwrap();
            let check = buffers.check_and_clear(gpu, 4).unwrap();
            assert!(
                check.passed,
                "{} at {blocks} blocks/SM: {}",
                line.entry, check.what
            );
            eprintln!("{} at {blocks} blocks/SM: {}", line.entry, check.what);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test smem_copy_gpu -- --ignored"]
fn every_cp_async_line_copies_a_ragged_copy_exactly() {
    let gpu = gpu();
    let module =
        Module::load(&gpu, BUILTIN, host::kernel_source::builtin::MAIN.as_bytes()).unwrap();
    ragged_copies(&gpu, &module, SmemPath::CpAsync);
}

#[test]
#[ignore = "needs a CUDA GPU (sm_90a): cargo test --release -p host --test smem_copy_gpu -- --ignored"]
fn every_bulk_copy_line_copies_a_ragged_copy_exactly() {
    let gpu = gpu();
    let module = hopper_module(&gpu).unwrap_or_else(|e| panic!("the bulk copies: {e}"));
    ragged_copies(&gpu, &module, SmemPath::Bulk);
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test smem_copy_gpu -- --ignored"]
fn the_sweep_runs_the_smem_lines_verified_and_judges_one_warp_per_sm() {
    let gpu = gpu();
    let ctx = support::fixed_context(&gpu, 5, 5);
    let r = support::run_verified::<inflight::Spec>(
        &gpu,
        &ctx,
        &[
            "inflight",
            "--threads",
            "32",
            "--loads",
            "14",
            "--widths",
            "4",
            "--warps-per-sm",
            "1,2,4,8",
            "--copy-mib",
            "256",
            "--chase-steps",
            "20000",
            "--loaded-steps",
            "0",
            "--sizes-mib",
            "0",
        ],
    );
    println!("D2D copy {:.0} GB/s over 1 GiB", r.copy.gbps);
    println!(
        "| Entry | Blocks/SM | Warps/SM | Regs | In flight/SM (B) | GB/s | % of D2D | Check |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for row in &r.rows {
        println!(
            "| {} | {} | {} | {} | {} | {:.0} | {:.1}% | {} |",
            row.entry,
            row.blocks_per_sm,
            row.warps_per_sm,
            row.regs,
            row.bytes_in_flight_per_sm,
            row.gbps,
            100.0 * row.fraction_of_copy,
            row.measured.check.what
        );
    }
    for s in &r.skipped {
        println!("skipped: {s}");
    }
    // Every line ran at one block per SM (its rings fit any sm_80+ SM's shared memory): the
    // cp.async lines on any device, the bulk copies where the sm_90a module loads.
    let hopper = hopper_module(&gpu).is_ok();
    for line in SMEM_COPY
        .iter()
        .filter(|l| l.path == SmemPath::CpAsync || hopper)
    {
        assert!(
            r.rows
                .iter()
                .any(|row| row.entry == line.entry && row.blocks_per_sm == 1),
            "{} did not run at 1 block/SM; skipped: {:?}",
            line.entry,
            r.skipped
        );
    }
    for v in inflight::Spec::claims(Some(&r)) {
        println!(
            "{}: {:?}\n  rule: {}\n  evidence: {}",
            v.key, v.holds, v.rule, v.evidence
        );
    }
}
