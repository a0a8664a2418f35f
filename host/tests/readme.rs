//! Every `host` command the README shows, run as a user would run it from a fresh clone: the
//! GPU-free ones (the calculator, `report`, `--help`) must succeed here; the GPU ones must get past
//! their flag checks, so on a machine without a driver they end with code 3 (no driver), never 2
//! (a usage error in the README).

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The arguments of every `cargo run --release -p host -- ...` line of the README's code blocks,
/// comments cut off.
fn readme_commands() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let mut in_code = false;
    let mut out = Vec::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let Some(rest) = line
            .strip_prefix("cargo run --release -p host -- ")
            .filter(|_| in_code)
        else {
            continue;
        };
        let args = rest.split('#').next().unwrap_or_default();
        out.push(args.split_whitespace().map(str::to_owned).collect());
    }
    out
}

/// Whether the command needs a GPU to do its work.
fn needs_gpu(args: &[String]) -> bool {
    match args.first().map(String::as_str) {
        Some("calc") => args.iter().any(|a| a == "--device"),
        Some("report") => false,
        _ => true,
    }
}

/// The command with every `/tmp/...` path replaced by a fresh folder of this test's, paths into
/// the repository made absolute (the test runs in `host/`), and the user's own modules the README
/// names (`mine.cubin`, `caps_folder/`) made from the built-in kernels.
fn localised(args: &[String], scratch: &Path) -> Vec<String> {
    args.iter()
        .map(|a| {
            if a == "mine.cubin" {
                let own = scratch.join("mine.ptx");
                std::fs::write(&own, host::kernel_source::builtin::MAIN).unwrap();
                own.display().to_string()
            } else if a == "caps_folder/" {
                let caps = scratch.join("caps_folder");
                std::fs::create_dir_all(&caps).unwrap();
                for (cap, ptx) in host::kernel_source::builtin::CAPPED {
                    std::fs::write(caps.join(format!("mine_cap{cap}.ptx")), ptx).unwrap();
                }
                caps.display().to_string()
            } else if a == "DIR" {
                scratch.join("DIR").display().to_string()
            } else if let Some(rest) = a.strip_prefix("/tmp/") {
                scratch.join(rest).display().to_string()
            } else if a.starts_with("results/") {
                workspace().join(a).display().to_string()
            } else {
                a.clone()
            }
        })
        .collect()
}

#[test]
fn every_gpu_free_readme_command_runs_and_the_others_pass_their_checks() {
    let commands = readme_commands();
    assert!(
        commands.len() >= 10,
        "the README's host commands were not found ({})",
        commands.len()
    );
    let scratch = std::env::temp_dir().join(format!("host-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let driver = host::cuda::driver_present();
    let mut ran_gpu_free = 0;
    for args in &commands {
        let local = localised(args, &scratch);
        let out = Command::new(env!("CARGO_BIN_EXE_host"))
            .args(&local)
            .output()
            .unwrap();
        let code = out.status.code();
        let said = String::from_utf8_lossy(&out.stderr);
        if !needs_gpu(args) {
            assert_eq!(code, Some(0), "host {}: {said}", args.join(" "));
            ran_gpu_free += 1;
        } else if !driver {
            assert_eq!(
                code,
                Some(3),
                "host {}: want 'no driver' after the flag checks: {said}",
                args.join(" ")
            );
        }
        // Every subcommand the README names has a --help that prints and exits 0.
        let help = Command::new(env!("CARGO_BIN_EXE_host"))
            .args([args[0].as_str(), "--help"])
            .output()
            .unwrap();
        assert!(help.status.success(), "host {} --help", args[0]);
    }
    assert!(ran_gpu_free >= 4, "{ran_gpu_free} GPU-free commands ran");
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The README is a user's guide, not a lab notebook: at most 1,500 words (whitespace-separated, as
/// `wc -w` counts them); figures beyond a small excerpt belong in docs/runs/.
#[test]
fn the_readme_stays_a_short_guide() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let words = readme.split_whitespace().count();
    assert!(words <= 1500, "README.md has {words} words (at most 1,500)");
}

/// `.ci/run` installs every pip wheel into a folder of its own (`--target`), never into the
/// system's site-packages (an externally managed python refuses that), and the README lists the
/// python3 and pip it needs.
#[test]
fn ci_installs_wheels_into_its_own_folder_and_the_readme_lists_python() {
    let ci = std::fs::read_to_string(workspace().join(".ci/run")).unwrap();
    let installs: Vec<String> = ci
        .replace("\\\n", " ")
        .lines()
        .filter(|l| l.contains("pip install"))
        .map(str::to_owned)
        .collect();
    assert!(installs.len() >= 3, "{installs:?}");
    for line in &installs {
        assert!(
            line.contains("--target \"$"),
            "not into a folder of its own: {line}"
        );
    }
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    assert!(
        readme.contains("python3") && readme.contains(" pip "),
        "README: python3 and pip"
    );
}

/// The README's note under experiment 1's table: on the seed blog's GPU (sm_89) the calculator
/// counts D+'s 16-thread blocks (255 registers, the seed GEMM's 4 KiB of shared memory) as 8
/// warps of 48, 16.7%, where the blog, counting threads, gives 8.3%.
#[test]
fn the_readmes_seed_occupancy_note_is_what_the_calculator_gives() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    assert!(
        readme.contains("16.7% for D+'s 16-thread blocks") && readme.contains("gives 8.3%"),
        "the README's note on D+"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_host"))
        .args([
            "calc",
            "--arch",
            "sm_89",
            "--threads",
            "16",
            "--regs",
            "255",
            "--smem",
            "4K",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let occupancy = json["occupancy"]["occupancy"].as_f64().unwrap();
    assert!((occupancy * 100.0 - 16.7).abs() < 0.05, "{occupancy}");
}

/// The README's example of a new table line is new: its label is none of the GEMM table's (a line
/// of the same label fails to compile, and the command after it would run the old line), and the
/// command that follows times it.
#[test]
fn the_readmes_example_line_is_not_in_the_table_and_its_command_runs_it() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let line = (readme.lines())
        .find(|l| l.starts_with("(\"") && l.contains("tuned {"))
        .expect("the README's example table line");
    let label = line.split('"').nth(1).unwrap();
    assert!(
        !kernels_gpu::variants::GEMM.iter().any(|v| v.label == label),
        "the README's example line {label} is already in the table: pick a new label"
    );
    assert!(
        readme.contains(&format!("--variants R4,{label}`")),
        "the README's command after the example should time {label}"
    );
}
