//! GPU-only checks of the pieces the experiments stand on. Where the build found no CUDA driver
//! (build.rs sets `lab_gpu` when it finds libcuda), `cargo test` lists them as ignored with the
//! reason; asked to run anyway (`--ignored`) without a driver, they fail.

mod support;

use std::process::Command;

use host::cuda::{driver_present, CudaError, Gpu, Module};
use host::experiments::residency::{hold_at_blocks, BLOCKS_PER_SM};
use kernels_gpu::variants::{GEMM, MEMCPY, REGS};

/// Fails a GPU-only test asked to run (`--ignored`, or a build that found libcuda) on a machine
/// without a driver: it must not pass without having run.
fn require_driver() {
    assert!(
        driver_present(),
        "no CUDA driver: this GPU-only test was asked to run and cannot (it fails rather than \
         passing untested)"
    );
}

/// Device 0 (see [`require_driver`]).
fn gpu() -> Gpu {
    require_driver();
    Gpu::open(0).expect("open device 0")
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn the_built_in_module_has_every_entry_and_the_jit_reports_them() {
    let gpu = gpu();
    let module = support::main_module(&gpu);
    let report = ptxas_report::parse_report(module.info_log()).unwrap();
    for entry in GEMM
        .iter()
        .map(|v| v.entry)
        .chain(MEMCPY.iter().map(|v| v.entry))
    {
        let k = module.kernel(entry).unwrap();
        let jit = report.iter().find(|e| e.name == entry);
        let jit = jit
            .unwrap_or_else(|| panic!("{entry} missing from the JIT log:\n{}", module.info_log()));
        assert_eq!(jit.registers, k.num_regs().unwrap(), "{entry}");
    }
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_missing_entry_is_named_with_the_entries_the_module_has() {
    let gpu = gpu();
    let module = support::main_module(&gpu);
    let Err(e) = module.kernel("gemm_tm3_tn3") else {
        panic!("found a missing entry")
    };
    assert!(matches!(e, CudaError::MissingEntry { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("gemm_tm3_tn3") && msg.contains("gemm_tm8_tn8"),
        "{msg}"
    );
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn every_copy_variant_is_held_at_two_blocks_per_sm() {
    let gpu = gpu();
    let module = support::main_module(&gpu);
    for v in MEMCPY {
        let k = module.kernel(v.entry).unwrap();
        let dyn_smem = hold_at_blocks(&k, v.threads, BLOCKS_PER_SM, gpu.limits()).unwrap();
        assert_eq!(
            k.max_active_blocks(v.threads, dyn_smem).unwrap(),
            BLOCKS_PER_SM,
            "{}",
            v.label
        );
    }
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn every_cap_module_respects_its_cap() {
    let gpu = gpu();
    for &cap in REGS.caps {
        let ptx = host::kernel_source::builtin::capped(cap).expect("a module per cap");
        let module = Module::load(&gpu, "capped", ptx.as_bytes()).unwrap();
        let regs = module
            .kernel(REGS.gemm().entry)
            .unwrap()
            .num_regs()
            .unwrap();
        assert!(regs <= cap, "cap {cap}: {regs} registers");
    }
}

/// Runs `host ARGS --format json --compare M`, M being the built-in module written to a file,
/// expects exit 0 and gives the results.
fn run_against_itself(what: &str, args: &[&str]) -> host::experiments::RunResults {
    let dir = std::env::temp_dir().join(format!("host-{what}-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join("same.ptx");
    std::fs::write(&ptx, host::kernel_source::builtin::MAIN).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_host"))
        .arg(what)
        .args(args)
        .args(["--format", "json", "--compare"])
        .arg(&ptx)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `--compare` with the same kernels: both sides verified, ratios near 1 (not asserted: timings
/// never decide a test).
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn compare_with_a_module_file_fills_the_comparison() {
    require_driver();
    let r = run_against_itself(
        "occupancy",
        &[
            "--size",
            "256",
            "--iters",
            "2",
            "--samples",
            "2",
            "--variants",
            "A,C",
        ],
    );
    for row in r.occupancy.unwrap().rows {
        let c = row.measured.compare.expect("comparison filled");
        assert!(c.check.passed);
        assert_eq!(c.regs, row.figures.regs, "same module, same registers");
        assert!(c.ratio.is_finite() && c.ratio > 0.0);
        assert_eq!(row.figures.timing.samples_ms.len(), 2, "our samples");
        assert_eq!(
            c.timing.samples_ms.len(),
            2,
            "their samples, interleaved with ours"
        );
    }
}

/// `bandwidth --compare`: ours held at 2 blocks/SM, both sides verified, each with its samples.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn bandwidth_compare_holds_and_checks_both_sides() {
    require_driver();
    let r = run_against_itself(
        "bandwidth",
        &[
            "--copy-mib",
            "16",
            "--iters",
            "2",
            "--samples",
            "3",
            "--variants",
            "T1,T8f4",
        ],
    );
    let rows = r.bandwidth.expect("bandwidth ran").rows;
    assert_eq!(rows.len(), 2);
    for row in rows {
        assert_eq!(row.blocks_per_sm, 2, "{}", row.variant);
        let c = row.measured.compare.expect("comparison filled");
        assert!(
            row.measured.check.passed && c.check.passed,
            "{}",
            row.variant
        );
        assert_eq!(c.timing.samples_ms.len(), 3);
    }
}

/// The sweeps against their own module: every point that runs is compared (the same build can
/// be held wherever ours is), both sides verified, the compared registers ours, each side with
/// its samples, and no point says its compared module was not timed.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn sweeps_compare_every_point_they_run() {
    require_driver();
    let plan = ["--iters", "2", "--samples", "3"];
    let ilp = [
        "--ilp",
        "1,4",
        "--warps-per-sm",
        "1,8",
        "--controls",
        "none",
        "--target-cycles",
        "100000",
    ];
    let r = run_against_itself("ilp", &[&plan[..], &ilp[..]].concat()).ilp;
    let ilp_rows: Vec<(String, u32, host::experiments::measured::Measured)> = r
        .expect("ilp ran")
        .rows
        .into_iter()
        .map(|x| (x.point.entry, x.point.regs, x.measured))
        .collect();
    let copy = [
        "--threads",
        "32,256",
        "--loads",
        "1,4",
        "--widths",
        "1",
        "--warps-per-sm",
        "8",
        "--every-block-size",
        "--copy-mib",
        "16",
        "--chase-steps",
        "20000",
        "--chase-mib",
        "64",
        // The register-held grid only: the rings in shared memory run whatever threads, loads and
        // widths are asked for, and the bulk copies live in the sm_90a module, which has no
        // compared build (smem_copy_gpu checks the rings).
        "--no-smem",
    ];
    let r = run_against_itself("inflight", &[&plan[..], &copy[..]].concat()).inflight;
    let copy_rows: Vec<(String, u32, host::experiments::measured::Measured)> = r
        .expect("inflight ran")
        .rows
        .into_iter()
        .map(|x| (x.entry, x.regs, x.measured))
        .collect();
    assert_eq!((ilp_rows.len(), copy_rows.len()), (4, 4));
    for (entry, regs, m) in ilp_rows.iter().chain(&copy_rows) {
        let c = m
            .compare
            .as_ref()
            .unwrap_or_else(|| panic!("{entry}: not compared"));
        assert!(m.check.passed && c.check.passed, "{entry}");
        assert_eq!(c.regs, *regs, "{entry}: same module, same registers");
        assert_eq!(c.timing.samples_ms.len(), 3, "{entry}");
        assert!(
            !m.flags.iter().any(|f| f.contains("not timed")),
            "{entry}: {:?}",
            m.flags
        );
    }
}

/// Runs `host occupancy ARGS` quickly and gives the results (exit 0 expected).
fn occupancy(args: &[&str]) -> host::experiments::RunResults {
    support::quick_json_run("occupancy", args)
}

fn tuned_labels() -> String {
    GEMM.iter()
        .filter(|v| v.size_multiple().is_none())
        .map(|v| v.label)
        .collect::<Vec<_>>()
        .join(",")
}

/// Every tuned line launched and verified against the f64 reference at a size that tiles and at
/// sizes that do not (edge blocks in M and N, a K that no BK divides); cuBLAS is not timed here.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn tuned_variants_pass_at_tiling_and_non_tiling_sizes() {
    require_driver();
    let labels = tuned_labels();
    for size in ["512", "333x250x77", "1x1x1", "257x129x1000"] {
        let r = occupancy(&["--size", size, "--variants", &labels, "--no-cublas"]);
        let rows = r.occupancy.expect("experiment 1 ran").rows;
        assert_eq!(rows.len(), labels.split(',').count(), "{size}");
        for row in rows {
            assert!(
                row.measured.check.passed,
                "{size} {}: {:?}",
                row.variant, row.measured.check
            );
            assert!(!row.is_seed());
            assert!(row.figures.occupancy > 0.0);
        }
    }
}

/// cuBLAS runs beside the variants: its row verified, its version recorded, a ratio on every row.
/// The run asks for cuBLAS, so a machine without it fails the test.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn cublas_row_is_present_and_verified() {
    require_driver();
    let r = occupancy(&["--size", "384x256x200", "--variants", "R1,R4"]);
    let run = r.occupancy.expect("experiment 1 ran");
    match run.cublas.expect("cuBLAS asked for") {
        host::experiments::gemm_cublas::CublasOutcome::Measured(c) => {
            assert!(c.check.passed, "{:?}", c.check);
            assert!(!c.version.is_empty() && c.gflops > 0.0);
            assert_eq!(
                c.timing.samples_ms.len(),
                2 * 3,
                "3 samples per variant, pooled"
            );
            for row in &run.rows {
                assert!(row.vs_cublas.is_some_and(|x| x > 0.0), "{}", row.variant);
            }
        }
        host::experiments::gemm_cublas::CublasOutcome::Unavailable { reason } => {
            panic!("cuBLAS was asked for and is not on this machine: {reason}")
        }
    }
}
