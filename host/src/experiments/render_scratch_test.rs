//! What the experiments' render tests share: a run written as a results folder into a fresh
//! scratch folder, and that folder merged with a copy of itself.

use std::path::{Path, PathBuf};

use super::RunResults;

/// `r` written as a results folder into a fresh scratch folder named for `name` and the process.
pub(crate) fn written(name: &str, r: &RunResults) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    crate::report::write_run(&dir, r).unwrap();
    dir
}

/// The run in `dir` merged with the same run in a second folder (one folder twice is refused),
/// then `dir` removed.
pub(crate) fn merged_with_itself(dir: &Path) {
    let again = dir.join("again");
    std::fs::create_dir_all(&again).unwrap();
    std::fs::copy(dir.join("results.json"), again.join("results.json")).unwrap();
    crate::report::merge::merge(&[dir.to_path_buf(), again], &dir.join("merged")).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}
