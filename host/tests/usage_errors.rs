//! Every usage error exits 2 with one message that names the flag or file and what is valid,
//! says its cause once and does not repeat a long value back; a results.json that is damaged or
//! holds impossible figures is one too. No GPU needed.

mod support;

use std::path::Path;

use support::{fixture_dir, host, path, scratch, stderr};

/// Runs `args`, expecting exit code 2 and a message containing each of `named`.
fn refused(args: &[&str], named: &[&str]) -> String {
    let o = host(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    for n in named {
        assert!(err.contains(n), "{args:?}: `{n}` missing from: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(o.stdout.is_empty(), "{args:?}");
    err
}

#[test]
fn calc_refuses_impossible_kernels_as_usage_errors() {
    refused(
        &["calc", "--threads", "0"],
        &["--threads: 0 is not in 1..=1024"],
    );
    refused(
        &["calc", "--regs", "256"],
        &["--regs: 256 is not in 0..=255"],
    );
    refused(
        &["calc", "--arch", "sm_91"],
        &["--arch", "unknown architecture `sm_91`", "sm_90"],
    );
    refused(
        &["calc", "--threads", "99999999999"],
        &["--threads: 99999999999 is not in 1..=1024"],
    );
    refused(
        &["calc", "--carveout", "101"],
        &["--carveout: 101 is not in 0..=100"],
    );
    // A configuration the architecture cannot hold is the user's input too.
    refused(&["calc", "--smem", "1M"], &["cannot launch this kernel"]);
}

#[test]
fn long_values_are_not_repeated_back() {
    let huge = format!("1{}", "0".repeat(308));
    for flag in ["--threads", "--smem"] {
        let err = refused(&["calc", flag, &huge], &[flag, "(309 characters)"]);
        assert!(!err.contains(&huge[..60]), "{err}");
    }
    let err = refused(
        &["occupancy", "--size", &huge],
        &["--size", "(309 characters)"],
    );
    assert!(!err.contains(&huge[..60]), "{err}");
    let err = refused(
        &["regs", &format!("--{}", "x".repeat(300))],
        &["(302 characters)"],
    );
    assert!(err.len() < 400, "{err}");
}

#[test]
fn a_negative_size_is_refused_by_its_own_flag() {
    refused(
        &["occupancy", "--size", "-1"],
        &["--size", "`-1` is not a GEMM size"],
    );
    refused(
        &["bandwidth", "--copy-mib", "-5"],
        &["--copy-mib: -5 is not in 1..=1048576"],
    );
}

#[test]
fn an_empty_list_is_refused_not_read_as_all() {
    for list in ["", ",,,", "A,,C", " "] {
        refused(
            &["occupancy", "--variants", list, "--check-only"],
            &["--variants", "empty item"],
        );
        refused(
            &["all", "--variants", list, "--check-only"],
            &["--variants", "empty item"],
        );
    }
}

#[test]
fn the_warps_targets_of_both_sweeps_are_bounded_alike() {
    refused(
        &["inflight", "--warps-per-sm", "65"],
        &["--warps-per-sm: 65 is not in 1..=64"],
    );
    refused(
        &["ilp", "--warps-per-sm", "65"],
        &["--warps-per-sm: 65 is not in 1..=64"],
    );
    refused(
        &["all", "--inflight-warps-per-sm", "128"],
        &["not in 1..=64"],
    );
}

#[test]
fn report_usage_errors_exit_2_saying_their_cause_once() {
    let err = refused(
        &["report", "/nonexistent"],
        &["/nonexistent/results.json does not exist"],
    );
    assert_eq!(err.matches("does not exist").count(), 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let f = fixture_dir();
    refused(&["report", path(&f), path(&f)], &["--out DIR is required"]);
}

/// A copy of the fixture's results.json with `edit` applied, in `dir`.
fn edited(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let text = std::fs::read_to_string(fixture_dir().join("results.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut v);
    std::fs::write(dir.join("results.json"), v.to_string()).unwrap();
    path(dir).to_owned()
}

#[test]
fn a_damaged_or_impossible_results_json_is_refused_naming_the_field() {
    let root = scratch("bad-results");
    let cut = root.join("cut");
    std::fs::create_dir_all(&cut).unwrap();
    let text = std::fs::read_to_string(fixture_dir().join("results.json")).unwrap();
    std::fs::write(cut.join("results.json"), &text[..text.len() / 2]).unwrap();
    refused(
        &["report", path(&cut)],
        &["results.json is not a results file:", "EOF while parsing"],
    );
    let neg = edited(&root.join("neg"), |v| {
        v["occupancy"][0]["gflops"] = (-11630.0).into()
    });
    refused(
        &["report", &neg],
        &["occupancy[0].gflops is -11630.0; it must be a number above zero"],
    );
    let zero = edited(&root.join("zero"), |v| v["device"]["sm_count"] = 0.into());
    refused(&["report", &zero], &["device.sm_count is 0"]);
    // serde_json writes a NaN as null: the row is named where it does not read (the field too,
    // unless it is one the row embeds with `flatten`, which serde reads from a buffer: then the
    // error says what type was expected and where in the file).
    let nan = edited(&root.join("nan"), |v| {
        v["regs"][0]["gflops"] = serde_json::Value::Null
    });
    refused(
        &["report", &nan],
        &["results.json is not a results file: regs[0]: invalid type: null, expected f64 at line"],
    );
    let cap = edited(&root.join("cap"), |v| {
        v["regs"][0]["cap"] = serde_json::Value::Null
    });
    refused(
        &["report", &cap],
        &["results.json is not a results file: regs[0].cap: invalid type: null"],
    );
    // Nothing was drawn from them.
    for d in ["cut", "neg", "zero", "nan", "cap"] {
        assert!(!root.join(d).join("report.md").exists(), "{d}");
    }
    // Also when merged, or regenerated elsewhere; and --out is not created.
    let f = fixture_dir();
    let out = root.join("out");
    refused(
        &["report", path(&f), &neg, "--out", path(&out)],
        &["gflops"],
    );
    refused(&["report", &zero, "--out", path(&out)], &["sm_count"]);
    assert!(!out.exists());
    std::fs::remove_dir_all(&root).unwrap();
}

/// Every list flag (comma-separated values) of every subcommand, with its defaults as typed.
fn list_flags() -> Vec<(String, String, Vec<String>)> {
    let cmd = host::cli::definition();
    let mut out = Vec::new();
    for sub in cmd.get_subcommands() {
        for arg in sub
            .get_arguments()
            .filter(|a| a.get_value_delimiter() == Some(','))
        {
            let defaults = arg
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect();
            let flag = format!("--{}", arg.get_long().expect("a long flag"));
            out.push((sub.get_name().to_owned(), flag, defaults));
        }
    }
    assert!(out.len() > 20, "only {} list flags found", out.len());
    out
}

/// `host SUB FLAG VALUE`, with what the flag needs to have an effect (calc's lists, the check
/// against the driver).
fn with_flag<'a>(sub: &'a str, flag: &'a str, value: &'a str) -> Vec<&'a str> {
    let mut args = vec!["host", sub, flag, value];
    if sub == "calc" {
        args.push("--verify");
    }
    args
}

/// Parses `args` in-process, expecting a usage error (exit code 2); its message.
fn parse_refused(args: &[&str]) -> String {
    let e = host::cli::parse(args).expect_err(&format!("{args:?} parsed"));
    assert_eq!(e.exit_code(), 2, "{args:?}: {e}");
    e.to_string()
}

#[test]
fn every_list_flag_refuses_an_item_twice_naming_itself() {
    for (sub, flag, defaults) in list_flags() {
        // A valid item: its first default, else one every list without a default takes (a
        // label parses as any text; 32 is a register cap).
        let item = defaults.first().cloned().unwrap_or_else(|| "32".to_owned());
        for twice in [format!("{item},{item}"), format!("{item}, {item} ")] {
            let e = parse_refused(&with_flag(&sub, &flag, &twice));
            assert!(
                e.contains(&format!("{flag}: `{item}` is listed twice")),
                "{sub} {flag} {twice}: {e}"
            );
        }
    }
    // Numbers are compared as numbers.
    let e = parse_refused(&["host", "inflight", "--threads", "32,+032"]);
    assert!(e.contains("--threads: `+032` is listed twice"), "{e}");
}

#[test]
fn a_negative_item_in_any_numeric_list_names_its_flag() {
    for (sub, flag, defaults) in list_flags() {
        let Some(first) = defaults.first().filter(|d| d.parse::<u64>().is_ok()) else {
            continue;
        };
        let list = format!("-1,{first}");
        let e = parse_refused(&with_flag(&sub, &flag, &list));
        assert!(
            e.contains(flag.as_str()) && !e.contains("unexpected argument"),
            "{sub} {flag} {list}: {e}"
        );
    }
    let e = parse_refused(&["host", "ilp", "--control-warps-per-sm", "-1,2"]);
    assert!(
        e.contains("--control-warps-per-sm: -1 is not in 1..=64"),
        "{e}"
    );
}

#[test]
fn list_defaults_are_printed_as_they_are_typed() {
    let mut cmd = host::cli::definition();
    let mut checked = 0;
    for (sub, flag, defaults) in list_flags() {
        if defaults.len() < 2 {
            continue;
        }
        let sub_cmd = cmd.find_subcommand_mut(&sub).unwrap();
        let typed = format!("[default: {}]", defaults.join(","));
        for help in [
            sub_cmd.render_help().to_string(),
            sub_cmd.render_long_help().to_string(),
        ] {
            assert!(
                help.contains(&typed),
                "{sub} {flag}: {typed} not in its help"
            );
            assert!(
                !help.contains(&format!("[default: {}]", defaults.join(" "))),
                "{sub} {flag}"
            );
        }
        // And the default, typed back, is taken.
        let typed_back = defaults.join(",");
        host::cli::parse(with_flag(&sub, &flag, &typed_back))
            .unwrap_or_else(|e| panic!("{sub} {flag} {}: {e}", defaults.join(",")));
        checked += 1;
    }
    assert!(checked > 10, "only {checked} list defaults checked");
}

#[test]
fn a_flag_that_does_nothing_in_the_mode_given_is_refused() {
    for (args, named) in [
        (
            &["calc", "--ptx", "/dev/zero"][..],
            &["--verify|--record-golden"][..],
        ),
        (
            &["calc", "--reg-caps", "0,32"],
            &["--verify|--record-golden"],
        ),
        (&["calc", "--all-entries"], &["--verify|--record-golden"]),
        (
            &["calc", "--verify", "--threads", "64"],
            &["--verify", "--threads"],
        ),
        (
            &["calc", "--record-golden", "g.csv", "--curves"],
            &["--record-golden", "--curves"],
        ),
        (
            &["calc", "--block-size-limit", "32"],
            &["--max-potential-block-size"],
        ),
        (
            &["all", "--compare-label", "x"],
            &["--compare <FILE>|--compare-caps"],
        ),
        (
            &["inflight", "--blocks-per-sm", "2", "--every-block-size"],
            &["--every-block-size", "--blocks-per-sm"],
        ),
        (
            &[
                "occupancy",
                "--iters",
                "5",
                "--samples",
                "3",
                "--noise",
                "1",
            ],
            &["--iters", "--noise"],
        ),
        // clap drops --samples' need of --iters when a flag conflicting with --iters is given.
        (
            &["held", "--samples", "5", "--min-samples", "2"],
            &["--samples", "--min-samples"],
        ),
    ] {
        let err = refused(args, named);
        assert!(!err.contains("no CUDA driver"), "{args:?}: {err}");
    }
}

/// `--launch-timeout` is a whole number of seconds, at least 1, on every experiment and `all`;
/// `--help` states its default.
#[test]
fn the_launch_timeout_is_validated_like_the_other_flags() {
    for cmd in ["occupancy", "held", "all"] {
        refused(
            &[cmd, "--launch-timeout", "0"],
            &["--launch-timeout", "0 is not in 1..=86400"],
        );
        refused(
            &[cmd, "--launch-timeout", "-1"],
            &["--launch-timeout", "-1"],
        );
        refused(&[cmd, "--launch-timeout", "1.5"], &["--launch-timeout"]);
    }
    let o = host(&["occupancy", "--launch-timeout", "5", "--check-only"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let help = host(&["occupancy", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("--launch-timeout <SECONDS>"), "{text}");
    assert!(text.contains("[default: 60]"), "{text}");
}
