//! Reading a file the user named without risk: only a regular file is opened (opening a FIFO
//! blocks until a writer comes, and `/dev/zero` never ends), and no more than a stated bound is
//! read, so a check can neither hang nor fill the memory.

use std::fs::{File, FileType};
use std::io::Read;
use std::path::Path;

/// Why a named file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FileError {
    #[error("does not exist")]
    Missing,
    /// What it is instead, e.g. "a folder" or "a FIFO (named pipe)".
    #[error("is {0}, not a regular file")]
    NotRegular(&'static str),
    #[error("is larger than the {limit} bytes read at most")]
    TooLarge { limit: u64 },
    #[error("cannot be read: {0}")]
    Io(String),
}

/// What a file that is not a regular one is, in words.
fn kind_of(t: FileType) -> &'static str {
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// Opens `path` when it is a regular file (a link to one is followed).
fn open(path: &Path) -> Result<File, FileError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => FileError::Missing,
        _ => FileError::Io(e.to_string()),
    })?;
    if !meta.is_file() {
        return Err(FileError::NotRegular(kind_of(meta.file_type())));
    }
    let file = File::open(path).map_err(|e| FileError::Io(e.to_string()))?;
    // The path may have been replaced between the look and the open: ask the open file too.
    let meta = file.metadata().map_err(|e| FileError::Io(e.to_string()))?;
    if !meta.is_file() {
        return Err(FileError::NotRegular(kind_of(meta.file_type())));
    }
    Ok(file)
}

/// Reads at most `limit` bytes from `reader`; more than that is an error.
fn read_bounded(reader: impl Read, limit: u64) -> Result<Vec<u8>, FileError> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| FileError::Io(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge { limit });
    }
    Ok(bytes)
}

/// The whole of a regular file of at most `limit` bytes.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    read_bounded(open(path)?, limit)
}

/// The gzip-compressed regular file at `path`, decompressed: at most `limit` bytes of it (the
/// bound is on what it holds, so a small file that would expand without end is refused too).
pub fn read_gzip(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    read_bounded(flate2::read::GzDecoder::new(open(path)?), limit)
}

/// The first `n` bytes of a regular file (fewer when it is shorter).
pub fn read_head(path: &Path, n: usize) -> Result<Vec<u8>, FileError> {
    let mut head = Vec::with_capacity(n);
    open(path)?
        .take(n as u64)
        .read_to_end(&mut head)
        .map_err(|e| FileError::Io(e.to_string()))?;
    Ok(head)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A new, empty folder for one test, `host-{name}-{pid}` in the temporary folder.
    pub(crate) fn scratch(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("host-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// `bytes` gzip-compressed, as a committed run's results.json.gz holds them.
    pub(crate) fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(bytes).unwrap();
        z.finish().unwrap()
    }

    #[test]
    fn a_regular_file_is_read_whole_or_by_its_head() {
        let d = scratch("plain");
        let f = d.join("a.txt");
        std::fs::write(&f, b"0123456789").unwrap();
        assert_eq!(read_regular(&f, 10).unwrap(), b"0123456789");
        assert_eq!(read_head(&f, 4).unwrap(), b"0123");
        assert_eq!(read_head(&f, 100).unwrap(), b"0123456789");
        assert_eq!(read_regular(&f, 9), Err(FileError::TooLarge { limit: 9 }));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_gzip_file_is_read_decompressed_within_its_bound() {
        let d = scratch("gzip");
        let f = d.join("a.json.gz");
        let text = b"{\"a\": 1}\n".repeat(1000);
        let packed = gzip(&text);
        assert!(packed.len() < text.len() / 10, "{}", packed.len());
        std::fs::write(&f, &packed).unwrap();
        assert_eq!(read_gzip(&f, text.len() as u64).unwrap(), text);
        // The bound is on the decompressed bytes.
        assert_eq!(
            read_gzip(&f, packed.len() as u64 + 1),
            Err(FileError::TooLarge {
                limit: packed.len() as u64 + 1
            })
        );
        // Not gzip: an error that says so, not bytes.
        std::fs::write(&f, b"plain text").unwrap();
        assert!(matches!(read_gzip(&f, 100), Err(FileError::Io(_))));
        assert_eq!(read_gzip(&d.join("none"), 4), Err(FileError::Missing));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn folders_devices_and_missing_paths_are_refused_without_reading() {
        let d = scratch("special");
        assert_eq!(read_regular(&d, 10), Err(FileError::NotRegular("a folder")));
        assert_eq!(read_head(&d.join("none"), 4), Err(FileError::Missing));
        #[cfg(unix)]
        {
            // /dev/zero never ends: refused before a byte is read.
            assert_eq!(
                read_regular(Path::new("/dev/zero"), 1 << 40),
                Err(FileError::NotRegular("a character device"))
            );
            // Opening a FIFO with no writer would block: refused before it is opened.
            let fifo = d.join("pipe");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert_eq!(
                    read_head(&fifo, 4),
                    Err(FileError::NotRegular("a FIFO (named pipe)"))
                );
            }
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
