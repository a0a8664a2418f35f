//! Where a results folder keeps its run: `results.json`, as the lab writes it, or
//! `results.json.gz`, as the repository keeps its committed runs (their plain JSON would outgrow
//! what a GPU call may carry; `scripts/pack-committed-results.sh` compresses them). Reading takes
//! the plain file first. Below the report and the output folder's checks, which both read it.

use std::path::{Path, PathBuf};

use crate::regular_file::{read_gzip, read_regular, FileError};

/// The results file a folder is read from.
pub const RESULTS_JSON: &str = "results.json";
/// The same file gzip-compressed.
pub const RESULTS_JSON_GZ: &str = "results.json.gz";

/// Whether `dir` holds a run's results, plain or packed.
pub fn holds_run_json(dir: &Path) -> bool {
    dir.join(RESULTS_JSON).is_file() || dir.join(RESULTS_JSON_GZ).is_file()
}

/// The bytes of `dir`'s [`RESULTS_JSON`], or where it has none of its [`RESULTS_JSON_GZ`]
/// decompressed, at most `limit` bytes; with the path read (the plain one when neither is there).
pub fn read_run_json(dir: &Path, limit: u64) -> (PathBuf, Result<Vec<u8>, FileError>) {
    let plain = dir.join(RESULTS_JSON);
    match read_regular(&plain, limit) {
        Err(FileError::Missing) => {
            let packed = dir.join(RESULTS_JSON_GZ);
            match read_gzip(&packed, limit) {
                Err(FileError::Missing) => (plain, Err(FileError::Missing)),
                read => (packed, read),
            }
        }
        read => (plain, read),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regular_file::tests::{gzip, scratch};

    #[test]
    fn the_plain_file_is_read_first_then_the_packed_one() {
        let d = scratch("run-json");
        assert!(!holds_run_json(&d));
        let (path, read) = read_run_json(&d, 100);
        assert_eq!(
            (path, read),
            (d.join(RESULTS_JSON), Err(FileError::Missing))
        );
        std::fs::write(d.join(RESULTS_JSON_GZ), gzip(b"{\"packed\": 1}")).unwrap();
        assert!(holds_run_json(&d));
        let (path, read) = read_run_json(&d, 100);
        assert_eq!(
            (path, read.unwrap()),
            (d.join(RESULTS_JSON_GZ), b"{\"packed\": 1}".to_vec())
        );
        std::fs::write(d.join(RESULTS_JSON), b"{\"plain\": 1}").unwrap();
        let (path, read) = read_run_json(&d, 100);
        assert_eq!(
            (path, read.unwrap()),
            (d.join(RESULTS_JSON), b"{\"plain\": 1}".to_vec())
        );
        // A plain file that cannot be read is that file's error, not a reason to read the other.
        assert_eq!(
            read_run_json(&d, 3).1,
            Err(FileError::TooLarge { limit: 3 })
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
