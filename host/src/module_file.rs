//! The checks a `--module`/`--compare` file or folder gets before any GPU work: a regular file
//! (never a FIFO or a device, which would block or never end), told PTX, cubin or fatbin by its
//! first bytes and only then read whole, within a size bound, checked through
//! ([`crate::kernel_source::image`]) and holding the entries a run launches.

use std::path::Path;

use kernels_gpu::abi::Param;

use crate::cuda::{ptx_accepts, ptx_entry_params};
use crate::flags::CliError;
use crate::kernel_source::image::{self, HEADER_BYTES};
use crate::kernel_source::kind::ModuleKind;
use crate::regular_file::{read_head, read_regular, FileError};

/// The largest module file read: far above any kernel module, and a bound on what a check reads.
pub const MAX_MODULE_BYTES: u64 = 1 << 30;

fn file_error(flag: &'static str, path: &Path, e: FileError) -> CliError {
    let path = path.to_owned();
    match e {
        FileError::Missing => CliError::MissingPath { flag, path },
        FileError::NotRegular("a folder") => CliError::NotAFile { flag, path },
        FileError::NotRegular(what) => CliError::NotRegular { flag, path, what },
        other => CliError::Unreadable {
            flag,
            path,
            reason: other.to_string(),
        },
    }
}

/// A module file's bytes and kind: its first bytes must announce PTX text, a cubin or a
/// fatbinary before the rest is read, and the whole must then be one.
pub fn read_module(flag: &'static str, path: &Path) -> Result<(ModuleKind, Vec<u8>), CliError> {
    let not_a_module = |e: image::NotAModule| CliError::NotAModule {
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
pub fn check_module_file(flag: &'static str, path: &Path) -> Result<ModuleKind, CliError> {
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
) -> Result<(), CliError> {
    let (kind, image) = read_module(flag, path)?;
    let Some(available) = image::listed_entries(&image) else {
        return Ok(());
    };
    for &entry in entries {
        if !available.iter().any(|a| a == entry) {
            return Err(CliError::MissingEntry {
                flag,
                path: path.to_owned(),
                entry: entry.to_owned(),
                available: if available.is_empty() {
                    "none".to_owned()
                } else {
                    available.join(", ")
                },
            });
        }
        if kind == ModuleKind::Ptx {
            let found = ptx_entry_params(&String::from_utf8_lossy(&image), entry);
            if !found.as_deref().is_some_and(|f| ptx_accepts(f, signature)) {
                return Err(CliError::WrongSignature {
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
pub fn check_module_folder(flag: &'static str, path: &Path) -> Result<(), CliError> {
    if !path.exists() {
        return Err(CliError::MissingPath {
            flag,
            path: path.to_owned(),
        });
    }
    if !path.is_dir() {
        return Err(CliError::NotAFolder {
            flag,
            path: path.to_owned(),
        });
    }
    Ok(())
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
        assert!(matches!(e, CliError::NotAFile { .. }), "{e}");
        let e = check_module_file("--module", &d.join("none.ptx")).unwrap_err();
        assert!(matches!(e, CliError::MissingPath { .. }), "{e}");
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
}
