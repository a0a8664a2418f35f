//! Writing a file so that no reader ever sees half of it: the text goes to a temporary file in
//! the same folder, which is then renamed over the target.

use std::path::{Path, PathBuf};

/// Writes `text` to `path` through a temporary file in the same folder and a rename, so the
/// folder never holds half a file. Returns `path`. On any error (the write failing half-way on a
/// full disk, or the rename) the temporary file is removed again.
pub fn write_atomic(path: &Path, text: &str) -> Result<PathBuf, std::io::Error> {
    write_atomic_with(path, text, |tmp, bytes| std::fs::write(tmp, bytes))
}

/// [`write_atomic`] with the write of the temporary file done by `write` (for the tests of its
/// error paths: a disk that fills half-way cannot be had on demand).
fn write_atomic_with(
    path: &Path,
    text: &str,
    write: impl FnOnce(&Path, &[u8]) -> std::io::Result<()>,
) -> Result<PathBuf, std::io::Error> {
    let tmp = temporary_name(path);
    write(&tmp, text.as_bytes())
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })?;
    Ok(path.to_owned())
}

/// The temporary name of `path` while it is written: `.NAME.tmp-PID` beside it.
fn temporary_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regular_file::tests::scratch;

    #[test]
    fn the_file_is_replaced_whole_and_no_temporary_file_is_left() {
        let dir = scratch("atomic");
        let path = dir.join("report.md");
        std::fs::write(&path, "old").unwrap();
        assert_eq!(write_atomic(&path, "new").unwrap(), path);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(names(&dir), ["report.md"]);
        let missing = dir.join("no-such-folder").join("x.md");
        assert!(write_atomic(&missing, "x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    }

    #[test]
    fn no_temporary_file_survives_a_write_failing_half_way_or_a_failed_rename() {
        let dir = scratch("atomic-fail");
        let path = dir.join("results.json");
        std::fs::write(&path, "old").unwrap();
        // The disk fills after half the text: the old file stays whole, no temporary file.
        let half_way = |tmp: &Path, bytes: &[u8]| {
            std::fs::write(tmp, &bytes[..bytes.len() / 2])?;
            Err(std::io::Error::from(std::io::ErrorKind::StorageFull))
        };
        let e = write_atomic_with(&path, "new text", half_way).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
        assert_eq!(names(&dir), ["results.json"]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        // The rename fails (the target is a folder that is not empty).
        let folder = dir.join("report.md");
        std::fs::create_dir_all(folder.join("inside")).unwrap();
        assert!(write_atomic(&folder, "x").is_err());
        assert_eq!(names(&dir), ["report.md", "results.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
