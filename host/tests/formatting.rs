//! The experiment folders are declared by the list's macro in `experiments/mod.rs`
//! (`with_experiments!(folders)`), so `cargo fmt` does not reach them from the crate root: this
//! test holds them to rustfmt's layout, with the edition `cargo fmt` uses for the rest of the crate.

use std::path::{Path, PathBuf};
use std::process::Command;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_experiment_folders_are_formatted_as_cargo_fmt_would() {
    let rustfmt = std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".into());
    if Command::new(&rustfmt).arg("--version").output().is_err() {
        eprintln!("SKIPPED: no {rustfmt} on PATH (rustup component add rustfmt)");
        return;
    }
    let experiments = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/experiments");
    let mut files = Vec::new();
    for name in host::experiments::registry::NAMES {
        rust_files(&experiments.join(name), &mut files);
    }
    assert!(
        files.len() > host::experiments::registry::NAMES.len(),
        "the experiment folders hold no Rust files: {}",
        experiments.display()
    );
    let out = Command::new(&rustfmt)
        .args(["--edition", "2021", "--check"])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "rustfmt would change these experiment files (run `rustfmt --edition 2021` on them):\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
