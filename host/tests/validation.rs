//! Everything a run is given is checked before any GPU work, so none of these needs a driver:
//! each bad flag or file is refused with exit code 2 (usage) and a message naming it (`fuzz.rs`
//! runs thousands of random command lines through the same checks).

mod support;

use std::path::PathBuf;

use clap::{CommandFactory, Parser};
use host::cli::Cli;
use support::{host, stderr};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("host-validation-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_command_line_definition_is_consistent() {
    Cli::command().debug_assert();
    host::cli::definition().debug_assert();
}

#[test]
fn an_unwritable_out_is_refused_before_the_driver_is_looked_for() {
    let o = host(&["all", "--out", "/proc/x"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--out: /proc/x"), "{err}");
    assert!(
        !err.contains("no CUDA driver"),
        "checked before the driver: {err}"
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn a_cap_without_a_built_in_module_is_refused_naming_the_built_in_caps() {
    let o = host(&["regs", "--caps", "20"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let caps: Vec<String> = kernels_gpu::variants::REGS
        .caps
        .iter()
        .map(u32::to_string)
        .collect();
    assert!(
        err.contains("register cap 20") && err.contains(&caps.join(", ")),
        "{err}"
    );
    // The same through `all`.
    let o = host(&["all", "--caps", "32,20"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("register cap 20"), "{}", stderr(&o));
}

#[test]
fn a_text_file_is_not_a_module() {
    let dir = temp("text-module");
    let text = dir.join("notes.ptx");
    std::fs::write(&text, "these are notes, not PTX\n").unwrap();
    for flag in ["--module", "--compare"] {
        let o = host(&["occupancy", flag, text.to_str().unwrap()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(flag) && err.contains("is not a kernel module"),
            "{err}"
        );
    }
    // A folder of per-cap modules must hold a module for every cap asked for.
    support::cubin(
        &dir,
        "peer_cap32",
        &[kernels_gpu::variants::REGS.gemm().entry],
    );
    let o = host(&[
        "regs",
        "--caps",
        "32,64",
        "--compare",
        dir.to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cap64") || err.contains("cap 64"), "{err}");
    // ... and each of them must be a module.
    std::fs::write(dir.join("peer_cap64.cubin"), "text").unwrap();
    let o = host(&[
        "regs",
        "--caps",
        "32,64",
        "--compare",
        dir.to_str().unwrap(),
    ]);
    assert!(
        stderr(&o).contains("is not a kernel module"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_module_without_the_entries_or_with_other_parameters_is_refused() {
    let dir = temp("entries");
    let ptx = dir.join("small.ptx");
    std::fs::write(
        &ptx,
        ".version 8.5\n.target sm_90\n.address_size 64\n\
         .visible .entry gemm_tm2_tn2(\n\t.param .u64 .ptr .align 1 a,\n\t.param .u32 m\n)\n{\n}\n",
    )
    .unwrap();
    let path = ptx.to_str().unwrap();
    let o = host(&["occupancy", "--variants", "A", "--module", path]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("has no entry `gemm_tm4_tn4`") && err.contains("gemm_tm2_tn2"),
        "{err}"
    );
    let o = host(&["occupancy", "--variants", "S", "--compare", path]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`gemm_tm2_tn2` takes parameters [Pointer, Bits32]"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_real_ptx_module_passes_the_checks() {
    let dir = temp("ptx-module");
    let ptx = dir.join("kernels.ptx");
    std::fs::write(&ptx, host::kernel_source::builtin::MAIN).unwrap();
    let cli =
        Cli::try_parse_from(["host", "occupancy", "--compare", ptx.to_str().unwrap()]).unwrap();
    let plan = cli.command.plan("test").unwrap().expect("a plan");
    assert_eq!(plan.experiments.len(), 1);
    assert_eq!(
        plan.experiments[0].modules().label.as_deref(),
        Some("kernels")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_calculator_refuses_sizes_that_would_overflow() {
    let o = host(&[
        "calc",
        "--max-potential-block-size",
        "--sms",
        "4294967295",
        "--block-size-limit",
        "32",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--sms") && err.contains("1..=1024"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for bad in ["0", "1025"] {
        let o = host(&["calc", "--sms", bad]);
        assert_eq!(o.status.code(), Some(2), "--sms {bad}");
    }
    // The largest accepted values give the exact grid.
    let o = host(&[
        "calc",
        "--max-potential-block-size",
        "--sms",
        "1024",
        "--block-size-limit",
        "32",
        "--regs",
        "16",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("minimum grid 32768 blocks"), "{out}");
}

#[test]
fn calc_takes_every_format() {
    for (format, marker) in [
        ("table", "+--"),
        ("markdown", "|--"),
        ("csv", "limit,blocks/SM"),
    ] {
        let o = host(&["calc", "--format", format]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{format}: {}", stderr(&o));
        assert!(out.contains(marker), "{format}:\n{out}");
    }
    let o = host(&["calc", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["occupancy"]["blocks_per_sm"].is_number());
}

#[test]
fn help_names_the_exit_codes_and_each_experiment_its_variants() {
    let o = host(&["--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("Exit codes") && out.contains("3 no CUDA driver"),
        "{out}"
    );
    let o = host(&["occupancy", "--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("S, A1, A, B, C, D, D+"), "{out}");
    let o = host(&["bandwidth", "--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("T1, T2, T4"), "{out}");
    let o = host(&["all", "--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("occupancy: S, A1") && out.contains("bandwidth: T1"),
        "{out}"
    );
}

/// A compared build of the seed kernels (nvcc's peer) has no tuned entries: it is accepted, and
/// those rows run uncompared; a tuned entry it does have is held to the GEMM signature. Our own
/// `--module` must have every entry.
#[test]
fn a_compared_module_needs_the_seed_entries_only() {
    use kernels_gpu::variants::GEMM;
    let dir = temp("seed-only-compare");
    let gemm = "(\n\t.param .u64 a,\n\t.param .u64 b,\n\t.param .u64 c,\n\t.param .u32 m,\n\t\
                .param .u32 n,\n\t.param .u32 k,\n\t.param .f32 alpha,\n\t.param .f32 beta\n)\n{\n}\n";
    let mut seed_only = String::from(".version 8.5\n.target sm_90\n.address_size 64\n");
    for v in GEMM.iter().filter(|v| v.size_multiple().is_some()) {
        seed_only.push_str(&format!(".visible .entry {}{gemm}", v.entry));
    }
    let ptx = dir.join("peer.ptx");
    std::fs::write(&ptx, &seed_only).unwrap();
    let path = ptx.to_str().unwrap();
    let o = host(&["occupancy", "--compare", path, "--check-only"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = host(&["occupancy", "--module", path, "--check-only"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--module") && err.contains("has no entry `sgemm_"),
        "{err}"
    );
    // A tuned entry with other parameters is refused in the compared module too.
    let r4 = GEMM.iter().find(|v| v.label == "R4").unwrap().entry;
    let bad = format!("{seed_only}.visible .entry {r4}(\n\t.param .u64 a\n)\n{{\n}}\n");
    std::fs::write(&ptx, bad).unwrap();
    let o = host(&["occupancy", "--compare", path, "--check-only"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("`{r4}` takes parameters")), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
