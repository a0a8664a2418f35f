//! `nvcc/build.sh` run with a stand-in nvcc (a shell script that logs its arguments and writes
//! empty outputs): which of its steps get ptxas's `--split-compile=0`, whatever way the real nvcc
//! writes its answers. No CUDA toolkit is needed.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use kernels_gpu::variants::REGS;
use xtask::nvcc::{self, Sm90a};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A stand-in nvcc in `dir`: its help and its list of GPU codes are long (several pipe buffers)
/// and open with the line a caller looks for, so that a reader that stops at the first match
/// leaves it writing; `splits` says whether its help lists `--split-compile`. Every compiling call
/// appends its arguments, one line per call, to `dir/calls` and creates its `-o` file.
fn stand_in(dir: &Path, splits: bool) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let flag = if splits {
        "--split-compile <N>  (-split-compile)"
    } else {
        "--no-such-flag"
    };
    let script = format!(
        r#"#!/usr/bin/env bash
long() {{ echo "$1"; for i in $(seq 1 20000); do echo "filler line $i of a long answer"; done; }}
case "$1" in
  --help) long "{flag}"; exit 0 ;;
  --list-gpu-code) long sm_90; exit 0 ;;
  --version) echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0 ;;
esac
echo "$*" >> "{calls}"
out=
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then out=$2; fi
  shift
done
: > "$out"
echo "ptxas info    : Used 32 registers" >&2
"#,
        calls = dir.join("calls").display()
    );
    let path = dir.join("nvcc");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Runs the recipe on the twin with a stand-in nvcc; gives the compiling calls' argument lines.
fn calls(name: &str, splits: bool) -> Vec<String> {
    let dir = workspace().join("target/test-nvcc-recipe").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let nvcc = stand_in(&dir, splits);
    let ws = workspace();
    nvcc::build(
        &ws,
        &nvcc,
        &ws.join("nvcc/twin.cu"),
        "sm_90",
        &dir.join("out"),
        Sm90a::Build,
    )
    .expect("build.sh with the stand-in nvcc");
    std::fs::read_to_string(dir.join("calls"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn ptxas_splits_the_twins_ptx_but_never_a_compile_from_the_source() {
    let calls = calls("splits", true);
    let split = |c: &&String| c.contains("--split-compile=0");
    let from_ptx: Vec<&String> = calls
        .iter()
        .filter(|c| c.contains("-cubin") && c.contains(".ptx"))
        .collect();
    // The twin's PTX and its sm_90a module's: both assembled, both split.
    assert_eq!(from_ptx.len(), 2, "{calls:#?}");
    assert!(from_ptx.iter().all(split), "{from_ptx:#?}");
    assert!(
        from_ptx.iter().any(|c| c.contains("-arch=sm_90a")),
        "the sm_90a module is built: {from_ptx:#?}"
    );
    // The capped modules come from the source in one step, where splitting changes the SASS.
    let capped: Vec<&String> = calls
        .iter()
        .filter(|c| c.contains("-maxrregcount"))
        .collect();
    assert_eq!(capped.len(), REGS.caps.len(), "{calls:#?}");
    assert!(!capped.iter().any(split), "{capped:#?}");
    // The front end's PTX is never split either.
    let to_ptx: Vec<&String> = calls.iter().filter(|c| c.starts_with("-ptx")).collect();
    assert_eq!(to_ptx.len(), 2, "{calls:#?}");
    assert!(!to_ptx.iter().any(split), "{to_ptx:#?}");
}

#[test]
fn an_nvcc_without_split_compile_is_not_asked_to() {
    let calls = calls("no-split", false);
    assert!(calls.iter().any(|c| c.contains("-cubin")), "{calls:#?}");
    assert!(
        !calls.iter().any(|c| c.contains("--split-compile")),
        "{calls:#?}"
    );
}
