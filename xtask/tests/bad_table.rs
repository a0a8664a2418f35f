//! A variant table line that cannot work is rejected at compile time with its label.
//! Each case copies kernels-gpu to a scratch folder, adds one bad line, and `cargo check`s it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Checks kernels-gpu with `line` added after `anchor`; returns cargo's stderr on failure.
fn check_with_line(case: &str, anchor: &str, line: &str) -> Result<(), String> {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let scratch: PathBuf = ws.join("target").join("bad-table").join(case);
    let _ = std::fs::remove_dir_all(&scratch);
    copy_dir(&ws.join("kernels-gpu"), &scratch.join("kernels-gpu"));
    let table = scratch.join("kernels-gpu/src/variants.rs");
    let text = std::fs::read_to_string(&table).unwrap();
    assert!(
        text.contains(anchor),
        "anchor `{anchor}` not in variants.rs"
    );
    std::fs::write(
        &table,
        text.replacen(anchor, &format!("{anchor}\n        {line}"), 1),
    )
    .unwrap();
    // A standalone workspace: edition and version are spelled out, not inherited.
    let manifest = scratch.join("kernels-gpu/Cargo.toml");
    let toml = std::fs::read_to_string(&manifest).unwrap();
    let toml = toml
        .replace("edition.workspace = true", "edition = \"2021\"")
        .replace("version.workspace = true", "version = \"0.0.0\"")
        .replace("license.workspace = true", "")
        + "\n[workspace]\n";
    std::fs::write(&manifest, toml).unwrap();
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["check", "--quiet", "--offline", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(scratch.join("target"))
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

const GEMM_ANCHOR: &str = "(\"D+\",    16, 16),";
const COPY_ANCHOR: &str = "(\"T14f4\",     32,    14,     4),";

#[test]
fn a_good_extra_line_compiles() {
    check_with_line("good", GEMM_ANCHOR, "(\"E\", 4, 8),")
        .expect("a valid new tile shape is accepted");
}

#[test]
fn more_than_1024_threads_is_rejected() {
    let err = check_with_line("threads", GEMM_ANCHOR, "(\"X1\", 1, 2),").unwrap_err();
    assert!(
        err.contains("gemm variant X1") && err.contains("1024"),
        "{err}"
    );
}

#[test]
fn a_sub_tile_that_does_not_divide_is_rejected() {
    let err = check_with_line("divide", GEMM_ANCHOR, "(\"X3\", 3, 4),").unwrap_err();
    assert!(
        err.contains("gemm variant X3") && err.contains("does not divide"),
        "{err}"
    );
}

#[test]
fn a_width_other_than_1_2_4_is_rejected() {
    let err = check_with_line("width", COPY_ANCHOR, "(\"W3\", 64, 8, 3),").unwrap_err();
    assert!(
        err.contains("memcpy variant W3") && err.contains("WIDTH"),
        "{err}"
    );
}

#[test]
fn more_than_1024_copy_threads_is_rejected() {
    let err = check_with_line("copythreads", COPY_ANCHOR, "(\"Big\", 2048, 1, 1),").unwrap_err();
    assert!(err.contains("memcpy variant Big"), "{err}");
}
