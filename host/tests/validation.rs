//! Everything a run is given is checked before any GPU work, so none of these needs a driver:
//! each bad flag or file is refused with exit code 2 (usage) and a message naming it, and a
//! fuzz of random command lines finds no panic in the parser and the checks.

mod support;

use std::path::PathBuf;
use std::process::{Command, Output};

use clap::{CommandFactory, Parser};
use host::cli::Cli;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_host"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run the host binary")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

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
    std::fs::write(&ptx, host::modules::MAIN).unwrap();
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

/// Random command lines: a subcommand, then flags of every subcommand (so most are foreign to
/// the one chosen), each with a valid, borderline or invalid value. Every line is parsed and, when
/// it parses, validated into a plan (and, for `calc`, computed): no panic, whatever the input.
#[test]
fn a_thousand_random_command_lines_never_panic() {
    let scratch = temp("fuzz");
    let module = scratch.join("m.ptx");
    std::fs::write(&module, host::modules::MAIN).unwrap();
    let junk = scratch.join("junk.cubin");
    std::fs::write(&junk, "junk").unwrap();
    let caps = scratch.join("caps");
    std::fs::create_dir_all(&caps).unwrap();
    std::fs::write(caps.join("x_cap32.ptx"), host::modules::MAIN).unwrap();
    let out_ok = scratch.join("out");
    let paths = [
        module.display().to_string(),
        junk.display().to_string(),
        caps.display().to_string(),
        out_ok.display().to_string(),
        "/proc/x".into(),
        "/nonexistent/file".into(),
        String::new(),
    ];
    let subcommands = [
        "occupancy",
        "bandwidth",
        "regs",
        "inflight",
        "ilp",
        "all",
        "calc",
        "info",
        "report",
        "bogus",
    ];
    let numbers = [
        "0",
        "1",
        "16",
        "20",
        "32",
        "64",
        "100",
        "255",
        "256",
        "1000",
        "1024",
        "4096",
        "32768",
        "32769",
        "4294967295",
        "4294967296",
        "-1",
        "18446744073709551615",
        "1e3",
        "x",
        "",
    ];
    let lists = [
        "S,A", "T1", "S,S", "X9", "S,T1", "", ",", "32,64", "32,20", "D+",
    ];
    let number_flags = [
        "--device",
        "--iters",
        "--samples",
        "--seed",
        "--size",
        "--copy-mib",
        "--threads",
        "--regs",
        "--smem",
        "--dyn-smem",
        "--carveout",
        "--sms",
        "--block-size-limit",
        "--noise",
        "--min-samples",
        "--max-samples",
        "--max-time-ms",
        "--chase-steps",
        "--blocks-per-sm",
        "--target-cycles",
        "--inflight-copy-mib",
    ];
    let list_flags = [
        "--variants",
        "--caps",
        "--reg-caps",
        "--loads",
        "--widths",
        "--warps-per-sm",
        "--ilp",
        "--inflight-loads",
        "--ilp-warps-per-sm",
    ];
    let path_flags = [
        "--out",
        "--module",
        "--compare",
        "--module-caps",
        "--compare-caps",
        "--ptx",
    ];
    let other = [
        "--format",
        "--arch",
        "--compare-label",
        "--cliff",
        "--curves",
        "--json",
        "--max-potential-block-size",
        "--help",
        "--version",
        "--nonsense",
    ];
    let words = [
        "table", "markdown", "csv", "json", "sm_90", "sm_61", "peer", "", "x\ny",
    ];
    let mut rng = StdRng::seed_from_u64(0x0CC_2010);
    let mut parsed = 0;
    for _ in 0..1200 {
        let mut args = vec!["host".to_string()];
        args.push(subcommands[rng.gen_range(0..subcommands.len())].to_string());
        for _ in 0..rng.gen_range(0..6) {
            match rng.gen_range(0..5) {
                0 => {
                    args.push(number_flags[rng.gen_range(0..number_flags.len())].into());
                    args.push(numbers[rng.gen_range(0..numbers.len())].into());
                }
                1 => {
                    args.push(list_flags[rng.gen_range(0..list_flags.len())].into());
                    args.push(lists[rng.gen_range(0..lists.len())].into());
                }
                2 => {
                    args.push(path_flags[rng.gen_range(0..path_flags.len())].into());
                    args.push(paths[rng.gen_range(0..paths.len())].clone());
                }
                3 => {
                    args.push(other[rng.gen_range(0..other.len())].into());
                    if rng.gen_bool(0.5) {
                        args.push(words[rng.gen_range(0..words.len())].into());
                    }
                }
                _ => args.push(paths[rng.gen_range(0..paths.len())].clone()),
            }
        }
        let line = args.join(" ");
        let outcome = std::panic::catch_unwind(|| {
            let Ok(cli) = Cli::try_parse_from(&args) else {
                return false;
            };
            if let host::cli::Command::Calc(a) = &cli.command {
                if a.device.is_none() && !a.verify && a.record_golden.is_none() {
                    let _ = host::calculator::run(a);
                }
            }
            let _ = cli.command.plan(&line);
            true
        });
        match outcome {
            Ok(ok) => parsed += usize::from(ok),
            Err(_) => panic!("panicked on: {args:?}"),
        }
    }
    // Both paths were exercised: lines that parse (and were validated) and lines that do not.
    assert!(parsed > 100 && parsed < 1100, "{parsed} of 1200 parsed");
    std::fs::remove_dir_all(&scratch).unwrap();
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
