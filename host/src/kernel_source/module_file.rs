//! The checks a `--module`/`--compare` file or folder gets before any GPU work: a regular file
//! (never a FIFO or a device, which would block or never end), told PTX, cubin or fatbin by its
//! first bytes and only then read whole, within a size bound, checked through
//! ([`image`](super::image)) and holding the entries a run launches. Its errors are its own
//! ([`ModuleFileError`]), which the flags' error carries: the checks stand below the flags.

use std::path::{Path, PathBuf};

use kernels_gpu::abi::Param;

use super::image::{self, HEADER_BYTES};
use super::kind::ModuleKind;
use super::ptx_params::{ptx_accepts, ptx_entry_params};
use crate::regular_file::{read_head, read_regular, FileError};

/// A module file or folder that is not what it should be; `flag` is the flag that named it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ModuleFileError {
    #[error("{flag}: {path} does not exist")]
    MissingPath { flag: &'static str, path: PathBuf },
    #[error("{flag}: {path} is a folder; expected a PTX, cubin or fatbin file")]
    NotAFile { flag: &'static str, path: PathBuf },
    #[error("{flag}: {path} is {what}; expected a regular file (PTX, cubin or fatbin)")]
    NotRegular {
        flag: &'static str,
        path: PathBuf,
        what: &'static str,
    },
    #[error(
        "{flag}: {path} is not a folder; expected a folder of per-cap modules (e.g. peer_cap32.cubin)"
    )]
    NotAFolder { flag: &'static str, path: PathBuf },
    #[error("{flag}: {path} cannot be read: {reason}")]
    Unreadable {
        flag: &'static str,
        path: PathBuf,
        reason: String,
    },
    #[error("{flag}: {path} is not a kernel module: {reason}")]
    NotAModule {
        flag: &'static str,
        path: PathBuf,
        reason: String,
    },
    #[error("{flag}: {path} has no entry `{entry}`; entries in it: {available}")]
    MissingEntry {
        flag: &'static str,
        path: PathBuf,
        entry: String,
        available: String,
    },
    #[error(
        "{flag}: {path}: `{entry}` takes parameters {found}; the lab launches it with {expected}"
    )]
    WrongSignature {
        flag: &'static str,
        path: PathBuf,
        entry: String,
        found: String,
        expected: String,
    },
}

/// The largest module file read: far above any kernel module, and a bound on what a check reads.
pub const MAX_MODULE_BYTES: u64 = 1 << 30;

fn file_error(flag: &'static str, path: &Path, e: FileError) -> ModuleFileError {
    let path = path.to_owned();
    match e {
        FileError::Missing => ModuleFileError::MissingPath { flag, path },
        FileError::NotRegular("a folder") => ModuleFileError::NotAFile { flag, path },
        FileError::NotRegular(what) => ModuleFileError::NotRegular { flag, path, what },
        other => ModuleFileError::Unreadable {
            flag,
            path,
            reason: other.to_string(),
        },
    }
}

/// A module file's bytes and kind: its first bytes must announce PTX text, a cubin or a
/// fatbinary before the rest is read, and the whole must then be one.
pub fn read_module(
    flag: &'static str,
    path: &Path,
) -> Result<(ModuleKind, Vec<u8>), ModuleFileError> {
    let not_a_module = |e: image::NotAModule| ModuleFileError::NotAModule {
        flag,
        path: path.to_owned(),
        reason: e.to_string(),
    };
    let head = read_head(path, HEADER_BYTES).map_err(|e| file_error(flag, path, e))?;
    image::announced(&head).map_err(not_a_module)?;
    let image = read_regular(path, MAX_MODULE_BYTES).map_err(|e| file_error(flag, path, e))?;
    let kind = image::recognise(&image).map_err(not_a_module)?;
    Ok((kind, image))
}

/// A module file: a regular file that is recognisably PTX, a cubin or a fatbinary.
pub fn check_module_file(flag: &'static str, path: &Path) -> Result<ModuleKind, ModuleFileError> {
    read_module(flag, path).map(|(kind, _)| kind)
}

/// A module file exports `entries`, and, where it is PTX (whose parameter lists can be read), each
/// with `signature`. A fatbinary whose images are compressed cannot be listed and is left to the
/// driver, which names a missing entry when it is looked up.
pub fn check_entries(
    flag: &'static str,
    path: &Path,
    entries: &[&str],
    signature: &[Param],
) -> Result<(), ModuleFileError> {
    let (kind, image) = read_module(flag, path)?;
    let Some(available) = image::listed_entries(&image) else {
        return Ok(());
    };
    for &entry in entries {
        if !available.iter().any(|a| a == entry) {
            return Err(ModuleFileError::MissingEntry {
                flag,
                path: path.to_owned(),
                entry: entry.to_owned(),
                available: joined_or_none(&available),
            });
        }
        if kind == ModuleKind::Ptx {
            let found = ptx_entry_params(&String::from_utf8_lossy(&image), entry);
            if !found.as_deref().is_some_and(|f| ptx_accepts(f, signature)) {
                return Err(ModuleFileError::WrongSignature {
                    flag,
                    path: path.to_owned(),
                    entry: entry.to_owned(),
                    found: found
                        .map_or_else(|| "of unknown types".to_owned(), |f| format!("{f:?}")),
                    expected: format!("{signature:?}"),
                });
            }
        }
    }
    Ok(())
}

/// A folder of per-cap modules: exists, is a folder.
pub fn check_module_folder(flag: &'static str, path: &Path) -> Result<(), ModuleFileError> {
    if !path.exists() {
        return Err(ModuleFileError::MissingPath {
            flag,
            path: path.to_owned(),
        });
    }
    if !path.is_dir() {
        return Err(ModuleFileError::NotAFolder {
            flag,
            path: path.to_owned(),
        });
    }
    Ok(())
}

/// `--compare`'s signature of the `entries` it exports: a compared build may lack a family (the
/// rows of those entries run uncompared), but what it has is launched.
pub fn check_compared_entries(
    path: &Path,
    entries: &[&str],
    signature: &[Param],
) -> Result<(), ModuleFileError> {
    let listed = std::fs::read(path)
        .map(|image| image::module_entries(&image))
        .unwrap_or_default();
    let present: Vec<&str> = entries
        .iter()
        .copied()
        .filter(|e| listed.iter().any(|l| l == e))
        .collect();
    check_entries("--compare", path, &present, signature)
}

/// Why a folder of per-cap modules has not exactly one module for a cap.
#[derive(Debug, thiserror::Error)]
pub enum CapFileError {
    #[error("reading {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{folder}: no module for register cap {cap} (expected a .ptx, .cubin or .fatbin file whose \
         name contains `cap{cap}` followed by a non-digit, e.g. peer_cap{cap}.cubin); modules \
         there: {found}"
    )]
    NoCapFile {
        folder: PathBuf,
        cap: u32,
        found: String,
    },
    #[error("{folder}: several modules for register cap {cap}: {files}; keep one")]
    AmbiguousCap {
        folder: PathBuf,
        cap: u32,
        files: String,
    },
}

/// Whether a file name is a module for register cap `cap`: a `.ptx`, `.cubin` or `.fatbin` whose
/// name contains `cap{cap}` followed by a non-digit.
pub fn is_cap_module(file_name: &str, cap: u32) -> bool {
    if !is_module_file(file_name) {
        return false;
    }
    let needle = format!("cap{cap}");
    file_name.match_indices(&needle).any(|(i, _)| {
        !file_name[i + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

fn is_module_file(file_name: &str) -> bool {
    [".ptx", ".cubin", ".fatbin"]
        .iter()
        .any(|ext| file_name.ends_with(ext))
}

/// Names joined by ", ", or "none".
fn joined_or_none(names: &[impl AsRef<str>]) -> String {
    if names.is_empty() {
        return "none".to_owned();
    }
    names
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The one module for `cap` in `folder`.
pub fn cap_file(folder: &Path, cap: u32) -> Result<PathBuf, CapFileError> {
    let io = |source| CapFileError::Io {
        path: folder.to_owned(),
        source,
    };
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .map_err(io)?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let matching: Vec<&String> = names.iter().filter(|n| is_cap_module(n, cap)).collect();
    match matching.as_slice() {
        [one] => Ok(folder.join(one)),
        [] => {
            let modules: Vec<&String> = names.iter().filter(|n| is_module_file(n)).collect();
            Err(CapFileError::NoCapFile {
                folder: folder.to_owned(),
                cap,
                found: joined_or_none(&modules),
            })
        }
        many => Err(CapFileError::AmbiguousCap {
            folder: folder.to_owned(),
            cap,
            files: joined_or_none(many),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        crate::regular_file::tests::scratch(&format!("modfile-{name}"))
    }

    #[test]
    fn only_regular_files_that_are_modules_pass() {
        let d = scratch("kinds");
        let e = check_module_file("--module", &d).unwrap_err();
        assert!(matches!(e, ModuleFileError::NotAFile { .. }), "{e}");
        let e = check_module_file("--module", &d.join("none.ptx")).unwrap_err();
        assert!(matches!(e, ModuleFileError::MissingPath { .. }), "{e}");
        #[cfg(unix)]
        {
            let e = check_module_file("--compare", Path::new("/dev/zero")).unwrap_err();
            assert_eq!(
                e.to_string(),
                "--compare: /dev/zero is a character device; expected a regular file (PTX, \
                 cubin or fatbin)"
            );
        }
        let ptx = d.join("k.ptx");
        std::fs::write(&ptx, crate::kernel_source::builtin::MAIN).unwrap();
        assert_eq!(check_module_file("--module", &ptx), Ok(ModuleKind::Ptx));
        let junk = d.join("junk.cubin");
        std::fs::write(&junk, [0u8, 1, 2, 3, 0xff]).unwrap();
        let e = check_module_file("--module", &junk)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("is not a kernel module: it is binary data"),
            "{e}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_missing_entry_is_named_with_the_ones_there() {
        let d = scratch("entries");
        let ptx = d.join("k.ptx");
        std::fs::write(
            &ptx,
            ".version 8.5\n.target sm_90\n.visible .entry only_one(.param .u64 a)\n{\n}\n",
        )
        .unwrap();
        let e = check_entries("--module", &ptx, &["wanted"], &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--module: {} has no entry `wanted`; entries in it: only_one",
                ptx.display()
            )
        );
        let u64_param = Param {
            name: "a",
            kind: kernels_gpu::abi::ParamKind::U64,
        };
        assert!(check_entries("--module", &ptx, &["only_one"], &[u64_param]).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn cap_names_match_the_peer_and_ours_and_a_folder_has_one_per_cap() {
        assert!(is_cap_module("peer_cap32.cubin", 32));
        assert!(is_cap_module("kernels_cap32.ptx", 32));
        assert!(is_cap_module("cap255.fatbin", 255));
        assert!(
            !is_cap_module("peer_cap32.ptxas.txt", 32),
            "reports are not modules"
        );
        assert!(!is_cap_module("peer_cap320.cubin", 32));
        assert!(!is_cap_module("peer_cap3.cubin", 32));
        assert!(!is_cap_module("peer.cubin", 32));
        // A folder's one module for a cap is found; the others are named when it is missing.
        let dir = scratch("capfile");
        for f in [
            "peer_cap32.cubin",
            "peer_cap32.ptxas.txt",
            "peer_cap48.cubin",
            "peer.cubin",
        ] {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
        assert_eq!(cap_file(&dir, 32).unwrap(), dir.join("peer_cap32.cubin"));
        let e = cap_file(&dir, 64).unwrap_err().to_string();
        assert!(e.contains("cap64") && e.contains("peer_cap48.cubin"), "{e}");
        std::fs::write(dir.join("kernels_cap48.ptx"), b"x").unwrap();
        let e = cap_file(&dir, 48).unwrap_err().to_string();
        assert!(e.contains("several"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
