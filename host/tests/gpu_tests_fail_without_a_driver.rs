//! Every GPU-only test fails, rather than passing untested, when it is asked to run (`--ignored`)
//! on a machine without a CUDA driver: each `tests/*_gpu.rs` binary is run here with `--ignored`
//! and none of its tests may pass. A test that returns early on a missing driver (printing SKIP,
//! say) passes there, and fails this. Where the build found a driver (`lab_gpu`) the GPU tests
//! run for real, and this one is ignored.
//!
//! The binaries are the ones `cargo test` built beside this one (in the same `deps` folder); one
//! older than a source its dep-info lists is refused as stale rather than trusted.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// The GPU test files: `tests/*_gpu.rs`, by stem.
fn gpu_test_stems() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut stems: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().ok()?;
            name.strip_suffix("_gpu.rs").map(|s| format!("{s}_gpu"))
        })
        .collect();
    stems.sort();
    stems
}

fn modified(p: &Path) -> SystemTime {
    std::fs::metadata(p).and_then(|m| m.modified()).unwrap()
}

/// The newest test binary `stem-<hash>` in `deps` (cargo names them so).
fn test_binary(deps: &Path, stem: &str) -> Option<PathBuf> {
    std::fs::read_dir(deps)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name()?.to_str()?;
            let hash = name.strip_prefix(stem)?.strip_prefix('-')?;
            (hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then_some(p)
        })
        .max_by_key(|p| modified(p))
}

/// The newest of the sources `bin` was built from, as its dep-info file (`bin.d`, written by
/// cargo beside it) lists them, relative to the workspace; `None` without one.
fn newest_source(bin: &Path) -> Option<SystemTime> {
    let info = std::fs::read_to_string(bin.with_extension("d")).ok()?;
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    info.lines()
        .next()?
        .split_once(": ")?
        .1
        .split_whitespace()
        .map(|src| modified(&workspace.join(src)))
        .max()
}

/// libtest's summary: (passed, failed, ignored).
fn summary(output: &str) -> Option<(u32, u32, u32)> {
    let line = output.lines().find(|l| l.starts_with("test result:"))?;
    let count = |what: &str| -> Option<u32> {
        let before = line.split(&format!(" {what}")).next()?;
        before.rsplit(' ').next()?.parse().ok()
    };
    Some((count("passed;")?, count("failed;")?, count("ignored;")?))
}

#[test]
#[cfg_attr(
    lab_gpu,
    ignore = "the build found a CUDA driver: the GPU tests run for real there"
)]
fn every_gpu_test_fails_when_asked_to_run_without_a_driver() {
    assert!(
        !host::cuda::driver_present(),
        "a CUDA driver is present although the build found none: rebuild (build.rs looks for \
         libcuda) so that the GPU tests run for real"
    );
    let me = std::env::current_exe().unwrap();
    let deps = me.parent().unwrap();
    let stems = gpu_test_stems();
    assert!(stems.len() >= 10, "GPU test files found: {stems:?}");
    let mut wrong = Vec::new();
    for stem in &stems {
        let Some(bin) = test_binary(deps, stem) else {
            wrong.push(format!(
                "{stem}: no test binary in {} (build them: cargo test -p host --no-run)",
                deps.display()
            ));
            continue;
        };
        if newest_source(&bin).is_none_or(|newest| modified(&bin) < newest) {
            wrong.push(format!(
                "{stem}: {} is older than its sources (build it: cargo test -p host --no-run)",
                bin.display()
            ));
            continue;
        }
        let out = Command::new(&bin)
            .args(["--ignored", "--test-threads", "2"])
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        match summary(&text) {
            Some((0, failed, 0)) if failed > 0 && !out.status.success() => {
                eprintln!("{stem}: all {failed} fail without a driver")
            }
            Some((passed, failed, ignored)) => wrong.push(format!(
                "{stem}: {passed} passed, {failed} failed, {ignored} ignored with --ignored and \
                 no driver (each must fail)"
            )),
            None => wrong.push(format!("{stem}: no test summary in {text:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_summary_is_read_as_libtest_writes_it() {
    let line = "test result: FAILED. 0 passed; 9 failed; 1 ignored; 0 measured; 0 filtered out";
    assert_eq!(summary(line), Some((0, 9, 1)));
    let line = "test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out";
    assert_eq!(summary(line), Some((4, 0, 0)));
}
