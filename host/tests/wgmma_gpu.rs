//! GPU-only checks and table of the wgmma microbenchmark (sm_90a, the variant table's
//! `wgmma_bf16` section), launched through the host's plumbing (the built-in sm_90a module,
//! `Launch`, the params struct the table generates):
//! - the driver's JIT reports every wgmma entry without spills, stack or serialized wgmma;
//! - every line's 64 x N tile, every element of every block, bit for bit against the CPU model
//!   (`kernels_gpu::models::wgmma_tile`), at 0, 1 and 37 rounds;
//! - the table: TFLOP/s and % of the dense BF16 spec peak against warpgroups per SM (held by
//!   dynamic shared memory, confirmed by the occupancy API), N and groups in flight; every timed
//!   output is checked like the above. Printed, not asserted: a timing never decides a test.
//!
//! Ignored by default; on an H100/H200 (compute capability 9.0):
//! `cargo test --release -p host --test wgmma_gpu -- --ignored --nocapture --test-threads 1`.
//! Anywhere else they fail with the reason ("needs sm_90a"); they never skip.

use std::sync::Arc;

use cudarc::driver::CudaSlice;
use host::cuda::hopper::hopper_module;
use host::cuda::tensor_peak::peak_bf16_dense_gflops;
use host::cuda::{Gpu, Module};
use host::experiments::mma::wgmma_run::launch;
use host::experiments::residency::hold_at_blocks;
use host::sampling::{time_launches, SamplingConfig, SamplingPlan, TimingPlan};
use kernels_gpu::models::wgmma_tile::WgmmaTile;
use kernels_gpu::variants::{WgmmaVariant, WARPGROUP_THREADS, WGMMA_BF16};

/// Device 0 and its sm_90a module, or a panic that says why not.
fn hopper() -> (Gpu, Arc<Module>) {
    let gpu = Gpu::open(0).unwrap_or_else(|e| {
        panic!("the wgmma tests need a CUDA GPU (sm_90a), and device 0 could not be opened: {e}")
    });
    let module = hopper_module(&gpu).unwrap_or_else(|e| panic!("the wgmma tests: {e}"));
    (gpu, module)
}

/// Every element of every block's tile against the model; the first mismatch panics.
fn check_tiles(v: &WgmmaVariant, iters: u32, got: &[f32], what: &str) {
    let model = WgmmaTile::new(v, iters).expect("the rounds keep every sum exact");
    let per_block = v.outputs_per_block();
    for (i, x) in got.iter().enumerate() {
        let want = model.element(i % per_block);
        assert_eq!(
            x.to_bits(),
            want.to_bits(),
            "{} {what}, iters {iters}: block {} element ({}, {}) is {x}, the model says {want}",
            v.entry,
            i / per_block,
            (i % per_block) / v.n as usize,
            i % v.n as usize
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU (sm_90a): cargo test --release -p host --test wgmma_gpu -- --ignored"]
fn the_jit_reports_every_wgmma_entry_without_spills_or_serialization() {
    let (_gpu, module) = hopper();
    let log = module.info_log();
    let warnings = xtask::hopper::serialization_warnings(log);
    assert!(
        warnings.is_empty(),
        "the JIT serialized wgmma: {warnings:?}"
    );
    let report = ptxas_report::parse_report(log).expect("the JIT's report parses");
    for v in WGMMA_BF16 {
        let e = report
            .iter()
            .find(|e| e.name == v.entry)
            .unwrap_or_else(|| panic!("{} missing from the JIT log", v.entry));
        assert_eq!(
            (e.stack_frame, e.spill_stores, e.spill_loads),
            (0, 0, 0),
            "{}",
            v.entry
        );
        eprintln!("{}: {} registers", v.entry, e.registers);
    }
}

#[test]
#[ignore = "needs a CUDA GPU (sm_90a): cargo test --release -p host --test wgmma_gpu -- --ignored"]
fn every_wgmma_line_matches_the_model_bit_for_bit() {
    let (gpu, module) = hopper();
    let blocks = 2 * gpu.info().sm_count + 1;
    for v in WGMMA_BF16 {
        let kernel = module.kernel(v.entry).unwrap();
        for iters in [0, 1, 37] {
            let mut out: CudaSlice<f32> = gpu
                .upload(&vec![f32::NAN; blocks as usize * v.outputs_per_block()])
                .unwrap();
            launch(&gpu, &kernel, &mut out, (blocks, v.operand_bytes()), iters).unwrap();
            check_tiles(v, iters, &gpu.download(&out).unwrap(), "bit check");
        }
        eprintln!(
            "{}: {blocks} blocks, every element bit-exact at 0, 1, 37 rounds",
            v.entry
        );
    }
}

/// MMAs each warpgroup issues per timed launch: enough to run for milliseconds at the peak,
/// few enough that every sum stays exact (16 products of magnitude 1 per MMA, under 2^24).
const MMAS_PER_WARPGROUP: u32 = 1 << 14;

#[test]
#[ignore = "needs a CUDA GPU (sm_90a): cargo test --release -p host --test wgmma_gpu -- --ignored"]
fn wgmma_throughput_against_warpgroups_per_sm_n_and_groups_in_flight() {
    let (gpu, module) = hopper();
    let info = gpu.info().clone();
    let peak = peak_bf16_dense_gflops(info.compute_capability, info.sm_count, info.sm_clock_khz)
        .expect("sm_90 has a known BF16 rate");
    let timing = SamplingConfig {
        plan: SamplingPlan::Fixed(TimingPlan {
            iters: 5,
            samples: 5,
        }),
        ..SamplingConfig::default()
    };
    println!(
        "wgmma m64nNk16 BF16 -> f32, {} SMs, dense BF16 peak {:.0} TFLOP/s at {} MHz",
        info.sm_count,
        peak / 1e3,
        info.sm_clock_khz / 1000
    );
    println!(
        "| Entry | N | Groups | Warpgroups/SM | Occupancy | Regs | TFLOP/s | % of peak | Check |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for v in WGMMA_BF16 {
        let kernel = module.kernel(v.entry).unwrap();
        let regs = kernel.num_regs().unwrap();
        let iters = MMAS_PER_WARPGROUP / v.groups;
        for per_sm in [1u32, 2, 3, 4, 8] {
            let dyn_smem = match hold_at_blocks(&kernel, WARPGROUP_THREADS, per_sm, gpu.limits()) {
                Ok(bytes) => {
                    // Raising it to the operands' size could change the residency just confirmed.
                    assert!(
                        bytes >= v.operand_bytes(),
                        "{}: {per_sm}/SM leaves {bytes} B",
                        v.entry
                    );
                    bytes
                }
                Err(e) => {
                    println!(
                        "| {} | {} | {} | {per_sm} | | {regs} | not held: {e} | | |",
                        v.entry, v.n, v.groups
                    );
                    continue;
                }
            };
            let blocks = per_sm * info.sm_count;
            let mut out: CudaSlice<f32> = gpu
                .upload(&vec![f32::NAN; blocks as usize * v.outputs_per_block()])
                .unwrap();
            let t = time_launches(&gpu, &timing, || {
                launch(&gpu, &kernel, &mut out, (blocks, dyn_smem), iters)
            })
            .unwrap();
            check_tiles(v, iters, &gpu.download(&out).unwrap(), "timed");
            let flops = f64::from(blocks) * f64::from(iters * v.groups) * v.mma_flops() as f64;
            let gflops = flops / (t.median_ms * 1e-3) / 1e9;
            let occupancy =
                f64::from(per_sm * WARPGROUP_THREADS) / f64::from(info.max_threads_per_sm);
            println!(
                "| {} | {} | {} | {per_sm} | {:.2}% | {regs} | {:.1} | {:.1}% | bit-exact |",
                v.entry,
                v.n,
                v.groups,
                100.0 * occupancy,
                gflops / 1e3,
                100.0 * gflops / peak
            );
        }
    }
}
