//! Writing a file so that no reader ever sees half of it: the text goes to a temporary file in
//! the same folder, which is then renamed over the target.

use std::path::{Path, PathBuf};

/// Writes `text` to `path` through a temporary file in the same folder and a rename, so the
/// folder never holds half a file. Returns `path`.
pub fn write_atomic(path: &Path, text: &str) -> Result<PathBuf, std::io::Error> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    Ok(path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_replaced_whole_and_no_temporary_file_is_left() {
        let dir = std::env::temp_dir().join(format!("host-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("report.md");
        std::fs::write(&path, "old").unwrap();
        assert_eq!(write_atomic(&path, "new").unwrap(), path);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["report.md"]);
        let missing = dir.join("no-such-folder").join("x.md");
        assert!(write_atomic(&missing, "x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
