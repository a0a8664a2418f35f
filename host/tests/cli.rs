//! The `host` binary's command line: the no-driver path, flag validation, and (on a GPU) a tiny
//! end-to-end run.

mod support;

use std::process::Stdio;
use std::time::Duration;

use host::cuda::driver_present as has_driver;
use support::{host, host_until, stderr};

/// How long the small runs on a GPU may take before they are killed and the test fails (a hang
/// guard, far above what they take).
const GPU_RUN: Duration = Duration::from_secs(600);

#[test]
#[cfg_attr(
    lab_gpu,
    ignore = "a CUDA driver is present: the no-driver path needs a machine without one"
)]
fn no_driver_is_one_line_and_exit_code_3() {
    assert!(
        !has_driver(),
        "a CUDA driver is present: the no-driver path cannot be seen here (asked to run, the \
         test fails rather than passing untested)"
    );
    for args in [
        &["info"][..],
        &["regs"],
        &["all", "--size", "128"],
        &["occupancy"],
        &["calc", "--device", "0"],
        &["calc", "--verify"],
    ] {
        let o = host(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line, got {err:?}");
        assert!(err.contains("no CUDA driver"), "{err}");
        assert!(
            !err.contains("panicked") && !err.contains("backtrace"),
            "{err}"
        );
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn a_size_that_does_not_tile_names_the_valid_values() {
    let o = host(&["occupancy", "--size", "1000"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("1000 does not tile"), "{err}");
    assert!(
        err.contains("multiple of 64") && err.contains("64..=32768"),
        "{err}"
    );
}

#[test]
fn zero_iterations_are_refused_with_the_range() {
    let o = host(&["regs", "--iters", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("0 is not in 1..=1000000"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_unknown_variant_names_the_valid_labels() {
    let o = host(&["occupancy", "--variants", "S,Q"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("unknown GEMM variant `Q`"), "{err}");
    assert!(err.contains("S, A1, A, B, C, D, D+"), "{err}");
    // A memcpy label is not a GEMM variant.
    let o = host(&["occupancy", "--variants", "T1"]);
    assert!(
        stderr(&o).contains("unknown GEMM variant `T1`"),
        "{}",
        stderr(&o)
    );
    // gemm_bf16 takes mma.sync and wgmma lines alike, and names both when the label is neither.
    let o = host(&["gemm_bf16", "--variants", "W1,W99"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("unknown BF16 GEMM variant `W99`")
            && err.contains("M1, M2")
            && err.contains("W1, W2")
            && err.contains("MT1"),
        "{err}"
    );
    // `all` takes both kinds, and names both tables when the label is in neither.
    let o = host(&["all", "--variants", "S,T1,X9"]);
    let err = stderr(&o);
    assert!(
        err.contains("`X9`") && err.contains("bandwidth T1, T2") && err.contains("occupancy S, A1"),
        "{err}"
    );
}

#[test]
fn a_cap_outside_what_ptxas_accepts_is_refused() {
    let o = host(&["regs", "--caps", "32,8"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("16..=255"), "{}", stderr(&o));
}

#[test]
fn a_missing_module_file_is_named() {
    let o = host(&["occupancy", "--module", "/nonexistent/peer.cubin"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--module: /nonexistent/peer.cubin does not exist"),
        "{}",
        stderr(&o)
    );
    // regs wants a folder of per-cap modules.
    let file = env!("CARGO_MANIFEST_DIR").to_owned() + "/Cargo.toml";
    let o = host(&["regs", "--module", &file]);
    assert!(stderr(&o).contains("is not a folder"), "{}", stderr(&o));
}

#[test]
fn help_lists_the_experiments_and_the_common_flags() {
    let o = host(&["--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    for c in [
        "occupancy",
        "bandwidth",
        "regs",
        "inflight",
        "ilp",
        "mma",
        "all",
        "info",
    ] {
        assert!(out.contains(c), "{out}");
    }
    let o = host(&["all", "--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    for f in [
        "--device",
        "--iters",
        "--variants",
        "--format",
        "--out",
        "--size",
        "--copy-mib",
        "--module",
        "--compare",
        "--noise",
        "--samples",
        "--inflight-copy-mib",
        "--inflight-loads",
        "--ilp-warps-per-sm",
        "--mma-warps-per-sm",
    ] {
        assert!(out.contains(f), "{f} missing from:\n{out}");
    }
    assert!(
        out.contains("[default: 0.5]") && out.contains("[default: 4096]"),
        "{out}"
    );
}

/// On a GPU: a small run of every experiment writes a results folder and passes its checks.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn small_run_on_the_gpu_writes_a_results_folder() {
    assert!(
        has_driver(),
        "no CUDA driver: this GPU-only test was asked to run and cannot (it fails rather than \
         passing untested)"
    );
    let dir = std::env::temp_dir().join(format!("host-cli-run-{}", std::process::id()));
    let o = host_until(
        &[
            "all",
            "--size",
            "256",
            "--copy-mib",
            "16",
            "--iters",
            "2",
            "--samples",
            "3",
            "--variants",
            "A,C,T1,T14f4",
            "--caps",
            "64,128",
            "--inflight-copy-mib",
            "16",
            "--inflight-loads",
            "1,8",
            "--inflight-warps-per-sm",
            "2,8",
            "--ilp-warps-per-sm",
            "4,8",
            "--mma-warps-per-sm",
            "4,8",
            "--format",
            "csv",
            "--out",
            dir.to_str().unwrap(),
        ],
        GPU_RUN,
        Stdio::piped(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for f in [
        "results.json",
        "tables.md",
        "occupancy.csv",
        "bandwidth.csv",
        "regs.csv",
        "inflight.csv",
        "ilp.csv",
        "inflight.svg",
        "ilp.svg",
        "mma.csv",
        "mma.svg",
        "report.md",
        "curve_registers.svg",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let r = host::results_io::read_results(&dir.join("results.json")).unwrap();
    // The Limiter column is the occupancy calculator's, and it agrees with the driver.
    let occ = r.occupancy.as_ref().unwrap();
    let regs = r.regs.as_ref().unwrap();
    let cells = occ
        .rows
        .iter()
        .map(|x| (&x.figures.limiter, &x.measured.flags))
        .chain(regs.iter().map(|x| (&x.figures.limiter, &x.measured.flags)))
        .chain(
            r.bandwidth
                .as_ref()
                .unwrap()
                .rows
                .iter()
                .map(|x| (&x.limiter, &x.measured.flags)),
        );
    for (limiter, flags) in cells {
        assert!(!limiter.is_empty() && limiter != "?", "{limiter}");
        assert!(
            !flags.iter().any(|f| f.contains("calculator says")),
            "{flags:?}"
        );
    }
    assert_eq!(r.occupancy.as_ref().unwrap().rows.len(), 2);
    assert_eq!(r.bandwidth.as_ref().unwrap().rows.len(), 2);
    assert!(r
        .bandwidth
        .unwrap()
        .rows
        .iter()
        .all(|row| row.blocks_per_sm == 2));
    assert_eq!(r.regs.unwrap().len(), 2);
    let inflight = r.inflight.as_ref().unwrap();
    assert!(!inflight.rows.is_empty() && inflight.latency.check.passed);
    let ilp = r.ilp.as_ref().unwrap();
    assert_eq!(
        ilp.rows.len(),
        2 * kernels_gpu::variants::FMA.len()
            + kernels_gpu::variants::FMA_CONTROLS.len()
                * host::experiments::ilp::DEFAULT_CONTROL_WARPS_PER_SM.len()
    );
    let mma = r.mma.as_ref().unwrap();
    assert_eq!(mma.rows.len(), 2 * kernels_gpu::variants::MMA_ILP.len());
    assert!(r.missing.is_empty(), "{:?}", r.missing);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// On a GPU: experiment 2 fails at run time (a copy larger than the device's memory), after
/// experiment 1 finished: experiment 1 stays on disk, the note says what is missing and why, the
/// error names the experiment, and the exit code is 4.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_failure_in_one_experiment_keeps_the_ones_before_it() {
    assert!(
        has_driver(),
        "no CUDA driver: this GPU-only test was asked to run and cannot (it fails rather than \
         passing untested)"
    );
    let dir = std::env::temp_dir().join(format!("host-cli-fail-{}", std::process::id()));
    let o = host_until(
        &[
            "all",
            "--size",
            "256",
            "--copy-mib",
            "1048576",
            "--iters",
            "2",
            "--samples",
            "3",
            "--variants",
            "A,T1",
            "--caps",
            "64",
            "--out",
            dir.to_str().unwrap(),
        ],
        GPU_RUN,
        Stdio::piped(),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("experiment bandwidth"), "{err}");
    let r = host::results_io::read_results(&dir.join("results.json")).unwrap();
    assert_eq!(r.occupancy.as_ref().map(|o| o.rows.len()), Some(1));
    assert!(r.bandwidth.is_none() && r.regs.is_none());
    let missing: Vec<&str> = r.missing.iter().map(|m| m.experiment.as_str()).collect();
    // Every experiment after the first is missing (the list is the registry's, in its order).
    assert_eq!(missing, host::experiments::registry::NAMES[1..]);
    assert!(
        r.missing[0].reason.starts_with("failed:"),
        "{:?}",
        r.missing
    );
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("Incomplete run"), "{report}");
    assert!(dir.join("occupancy.csv").is_file() && !dir.join("bandwidth.csv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--size MxNxK`: a size the seed variants cannot tile is refused before anything runs, naming
/// them and the tuned labels; with the tuned variants alone it passes the checks.
#[test]
fn a_rectangular_size_that_does_not_tile_is_refused_for_the_seed_variants_only() {
    let o = host(&["occupancy", "--size", "2048x8192x1000", "--check-only"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("2048x8192x1000 does not tile for the seed variant(s) S, A1, A, B, C, D, D+")
            && err.contains("--variants R1,"),
        "{err}"
    );
    let o = host(&[
        "occupancy",
        "--size",
        "2048x8192x1000",
        "--variants",
        "C,R4",
        "--check-only",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("seed variant(s) C of"),
        "{}",
        stderr(&o)
    );
    for size in ["2048x8192x1000", "1", "333x250x77"] {
        let o = host(&[
            "occupancy",
            "--size",
            size,
            "--variants",
            "R1,R4",
            "--check-only",
        ]);
        assert_eq!(o.status.code(), Some(0), "{size}: {}", stderr(&o));
    }
    let o = host(&["occupancy", "--size", "2048x8192x1024", "--check-only"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Experiment 3 rebuilds a seed variant: `all` refuses a size it cannot tile.
    let o = host(&[
        "all",
        "--size",
        "100",
        "--variants",
        "R1,R4",
        "--check-only",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("experiment 3 (regs)"), "{}", stderr(&o));
    let o = host(&["occupancy", "--size", "64x64", "--check-only"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("N or MxNxK"), "{}", stderr(&o));
}

#[test]
fn regs_caps_any_gemm_line_named_by_variant() {
    // An unknown line is refused, naming every line of both GEMM tables.
    let o = host(&["regs", "--variant", "Z9"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("--variant: unknown GEMM line `Z9`"), "{err}");
    assert!(
        err.contains("S, A1") && err.contains("R4") && err.contains("M1"),
        "{err}"
    );
    // The table's line has the build's caps only; another line takes any cap, made on demand.
    let o = host(&["regs", "--caps", "40"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("register cap 40"), "{}", stderr(&o));
    // A BF16 line runs any size; an FP32 seed line only those it tiles.
    let o = host(&["regs", "--variant", "C", "--size", "1000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("1000 does not tile"), "{}", stderr(&o));
    if !has_driver() {
        // Planned: the run stops only at the missing driver.
        for args in [
            &["regs", "--variant", "M1", "--caps", "40", "--size", "1000"][..],
            &["regs", "--variant", "R4", "--caps", "40,255"],
        ] {
            let o = host(args);
            assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        }
    }
}
