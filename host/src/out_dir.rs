//! `--out DIR`, and the rule that keeps a run from being lost to another: a folder is written
//! into only when it is new, empty, or holds what is being written already.
//!
//! What a folder holds is read from its files: a `results.json` whose `meta` has a date and a
//! command is a run (the same run when both are equal), a `report.md` that starts with the
//! merged report's heading is a merge of several runs, and anything else is unrelated files. A
//! new run of the experiments owns no existing run; `host report A --out B` owns B when B holds
//! A's run; a merge owns an earlier merge. `--force` writes anyway. The folder is created only
//! after every other flag and file has passed ([`create_out`]).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::flags::CliError;
use crate::regular_file::read_regular;
use crate::run_json::{read_run_json, RESULTS_JSON, RESULTS_JSON_GZ};

/// The first line of a merged report (`host report A B --out C`), by which a merge's folder is
/// known.
pub const MERGED_HEADING: &str = "# Occupancy lab: runs side by side";
/// The largest results.json read to tell whose run a folder holds.
pub const MAX_RESULTS_BYTES: u64 = 256 << 20;
/// How many of a folder's unrelated files a refusal names.
const NAMED_FILES: usize = 3;

/// What is about to be written into an `--out` folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Incoming<'a> {
    /// A new run of the experiments.
    Run,
    /// A run regenerated from its results.json (`host report A --out B`): its date and command.
    Regenerated { date: &'a str, command: &'a str },
    /// Several runs merged (`host report A B... --out C`).
    Merge,
}

/// What an `--out` folder holds before anything is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holds {
    /// Nothing: it does not exist, or is empty (save for this tool's own leftover temporary files).
    Nothing,
    /// A run's results, known by its date and command.
    Run { date: String, command: String },
    /// A merged report.
    Merge,
    /// Files of something else: the first few names and how many there are.
    Other { names: Vec<String>, count: usize },
}

#[derive(Deserialize)]
struct RunIdentity {
    meta: MetaIdentity,
}

#[derive(Deserialize)]
struct MetaIdentity {
    date: String,
    command: String,
}

fn out_error(dir: &Path, reason: String) -> CliError {
    let (flag, path) = ("--out", dir.to_owned());
    CliError::Out { flag, path, reason }
}

/// A temporary file this tool writes and renames (`.NAME.tmp-PID`) or its write probe: left
/// behind only by a killed run, and no one's data.
fn is_leftover(name: &str) -> bool {
    name.starts_with(".host-write-check-")
        || (name.starts_with('.')
            && name
                .rsplit_once(".tmp-")
                .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())))
}

/// What `dir` holds now.
pub fn holds(dir: &Path) -> Result<Holds, CliError> {
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Holds::Nothing),
        Err(e) => return Err(out_error(dir, format!("cannot be looked at: {e}"))),
    };
    if !meta.is_dir() {
        return Err(out_error(dir, "exists and is not a folder".to_owned()));
    }
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| out_error(dir, format!("cannot be listed: {e}")))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !is_leftover(n))
        .collect();
    if names.is_empty() {
        return Ok(Holds::Nothing);
    }
    names.sort();
    let results = read_run_json(dir, MAX_RESULTS_BYTES).1.ok();
    if let Some(run) = results.and_then(|b| serde_json::from_slice::<RunIdentity>(&b).ok()) {
        let MetaIdentity { date, command } = run.meta;
        return Ok(Holds::Run { date, command });
    }
    let report = read_regular(&dir.join("report.md"), MAX_RESULTS_BYTES).unwrap_or_default();
    if !names
        .iter()
        .any(|n| n == RESULTS_JSON || n == RESULTS_JSON_GZ)
        && String::from_utf8_lossy(&report).lines().next() == Some(MERGED_HEADING)
    {
        return Ok(Holds::Merge);
    }
    let count = names.len();
    names.truncate(NAMED_FILES);
    let names = names.iter().map(|n| crate::flag_values::shown(n)).collect();
    Ok(Holds::Other { names, count })
}

/// Whether `incoming` may be written into `dir` (with `force`, anything that is a folder or can
/// be one may). Creates nothing.
pub fn check_out(dir: &Path, incoming: Incoming<'_>, force: bool) -> Result<(), CliError> {
    let held = holds(dir)?;
    if force {
        return Ok(());
    }
    let refuse = |what: String, force_does: &str| {
        Err(out_error(
            dir,
            format!(
                "holds {what}; nothing was written. Give a new or empty folder, or add --force \
                 to {force_does}"
            ),
        ))
    };
    match (held, incoming) {
        (Holds::Nothing, _) | (Holds::Merge, Incoming::Merge) => Ok(()),
        (
            Holds::Run { date, command },
            Incoming::Regenerated {
                date: d,
                command: c,
            },
        ) if date == d && command == c => Ok(()),
        (Holds::Run { date, command }, _) => refuse(
            format!(
                "another run (`{}`, {date})",
                crate::flag_values::shown(&command)
            ),
            "replace its files",
        ),
        (Holds::Merge, _) => refuse(
            "a merged report of several runs".to_owned(),
            "replace its report and plots",
        ),
        (Holds::Other { names, count }, _) => {
            let more = (count > names.len()).then(|| format!(" and {} more", count - names.len()));
            let listed = names.join(", ") + &more.unwrap_or_default();
            refuse(
                format!("files that are not this lab's results ({listed})"),
                "write beside them",
            )
        }
    }
}

/// The folders [`create_out`] made, removed again (`undo`) where they should not stay: after the
/// plan's probe of `--out`, and after a run, of those it left empty.
#[derive(Debug)]
pub struct CreatedOut {
    made: Vec<PathBuf>,
}

impl CreatedOut {
    /// Removes the folders that were made, innermost first (each only if still empty).
    pub fn undo(self) {
        for dir in self.made.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Creates `dir` (with its parents) and checks that it can be written, by writing and removing a
/// file.
pub fn create_out(dir: &Path) -> Result<CreatedOut, CliError> {
    let mut made = Vec::new();
    let mut missing = Some(dir);
    while let Some(d) = missing.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        made.push(d.to_owned());
        missing = d.parent();
    }
    made.reverse();
    let created = CreatedOut { made };
    let checked = std::fs::create_dir_all(dir)
        .map_err(|e| out_error(dir, format!("cannot be created: {e}")))
        .and_then(|()| probe_writable(dir, "--out"));
    match checked {
        Ok(()) => Ok(created),
        Err(e) => {
            created.undo();
            Err(e)
        }
    }
}

/// Checks that files can be written into the folder `dir` (given by `flag`), by writing and
/// removing one; the refusal says that nothing was written.
pub fn probe_writable(dir: &Path, flag: &'static str) -> Result<(), CliError> {
    let probe = dir.join(format!(".host-write-check-{}", std::process::id()));
    let written = std::fs::write(&probe, b"ok");
    let _ = std::fs::remove_file(&probe);
    written.map_err(|e| CliError::Out {
        flag,
        path: dir.to_owned(),
        reason: format!("cannot be written into: {e}; nothing was written"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Why `check_out` refuses `d`.
    fn refused(d: &std::path::Path, incoming: Incoming<'_>, force: bool) -> String {
        check_out(d, incoming, force).unwrap_err().to_string()
    }

    /// Asserts that `check_out` refuses `d` saying `why`.
    fn assert_refused(d: &std::path::Path, incoming: Incoming<'_>, force: bool, why: &str) {
        let e = refused(d, incoming, force);
        assert!(e.contains(why), "{e}");
    }

    /// Writes `text` to `name` in `d`.
    fn put(d: &std::path::Path, name: &str, text: impl AsRef<[u8]>) {
        std::fs::write(d.join(name), text).unwrap();
    }

    fn scratch(name: &str) -> PathBuf {
        crate::regular_file::tests::scratch(&format!("outdir-{name}"))
    }

    fn run_json(date: &str, command: &str) -> String {
        format!(
            r#"{{"meta": {{"date": "{date}", "command": "{command}", "more": 1}}, "device": {{}}}}"#
        )
    }

    const NEW_RUN: Incoming<'static> = Incoming::Run;

    #[test]
    fn a_new_or_empty_folder_takes_anything() {
        let d = scratch("empty");
        assert_eq!(holds(&d.join("new")), Ok(Holds::Nothing));
        assert_eq!(holds(&d), Ok(Holds::Nothing));
        // A killed run's temporary files are no one's data.
        put(&d, ".results.json.tmp-1234", "{");
        put(&d, ".host-write-check-99", "ok");
        assert_eq!(holds(&d), Ok(Holds::Nothing));
        for incoming in [NEW_RUN, Incoming::Merge] {
            assert!(check_out(&d, incoming, false).is_ok());
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_folder_holding_another_run_is_refused_unless_forced() {
        let d = scratch("run");
        put(
            &d,
            "results.json",
            run_json("2026-11-29T10:00:00Z", "host all --out results/h200"),
        );
        put(&d, "occupancy.csv", "x");
        let e = refused(&d, NEW_RUN, false);
        assert!(
            e.starts_with(&format!(
                "--out: {} holds another run (`host all --out results/h200`, 2026-11-29T10:00:00Z)",
                d.display()
            )) && e.contains("nothing was written")
                && e.contains("--force"),
            "{e}"
        );
        assert!(check_out(&d, Incoming::Merge, false).is_err());
        // Regenerating that same run is not losing it; another run is.
        let regenerated = |date| Incoming::Regenerated {
            date,
            command: "host all --out results/h200",
        };
        assert!(check_out(&d, regenerated("2026-11-29T10:00:00Z"), false).is_ok());
        assert!(check_out(&d, regenerated("2026-11-30T10:00:00Z"), false).is_err());
        assert!(check_out(&d, NEW_RUN, true).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_committed_runs_packed_results_are_its_run() {
        let d = scratch("packed-run");
        let json = run_json("2026-12-03T15:00:00Z", "host all --out results/s17");
        let packed = crate::regular_file::tests::gzip(json.as_bytes());
        std::fs::write(d.join(RESULTS_JSON_GZ), packed).unwrap();
        put(&d, "report.md", "# x");
        assert_eq!(
            holds(&d),
            Ok(Holds::Run {
                date: "2026-12-03T15:00:00Z".into(),
                command: "host all --out results/s17".into()
            })
        );
        assert!(check_out(&d, NEW_RUN, false).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn unrelated_files_are_refused_and_named() {
        let d = scratch("other");
        for f in ["a.txt", "b.png", "c", "d", "e"] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        // A results.json that is not a run's is no run.
        put(&d, "results.json", "[1, 2");
        let e = refused(&d, NEW_RUN, false);
        assert!(
            e.contains("files that are not this lab's results (a.txt, b.png, c and 3 more)"),
            "{e}"
        );
        assert!(check_out(&d, Incoming::Merge, false).is_err());
        assert!(check_out(&d, Incoming::Merge, true).is_ok());
        // A file where the folder should be is refused even with --force.
        let f = d.join("a.txt");
        assert_refused(&f, NEW_RUN, true, "is not a folder");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_merge_may_replace_a_merge_only() {
        let d = scratch("merge");
        put(&d, "report.md", format!("{MERGED_HEADING}\n\n## Runs\n"));
        put(&d, "occupancy.svg", "<svg/>");
        assert_eq!(holds(&d), Ok(Holds::Merge));
        assert!(check_out(&d, Incoming::Merge, false).is_ok());
        assert_refused(&d, NEW_RUN, false, "a merged report");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn created_folders_are_probed_and_can_be_removed_again() {
        let d = scratch("create");
        let deep = d.join("a/b/c");
        let made = create_out(&deep).unwrap();
        assert!(deep.is_dir());
        let entries = std::fs::read_dir(&deep).unwrap().count();
        assert_eq!(entries, 0, "the probe is gone");
        made.undo();
        assert!(!d.join("a").exists(), "every folder made is removed");
        assert!(d.is_dir(), "the existing parent stays");
        // An existing folder is not removed by undo.
        create_out(&d).unwrap().undo();
        assert!(d.is_dir());
        #[cfg(target_os = "linux")]
        {
            let e = create_out(Path::new("/proc/x")).unwrap_err().to_string();
            assert!(e.starts_with("--out: /proc/x cannot be"), "{e}");
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
