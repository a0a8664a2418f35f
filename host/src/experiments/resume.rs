//! Going on after a kernel's fault. A fault loses the CUDA context, and the driver makes no new
//! one in the same process afterwards, not even after resetting the device (seen on the H200:
//! `cuCtxCreate` and `cuDevicePrimaryCtxReset` then a retain both fail with the fault). So the run
//! goes on in a new process: the host runs itself again with the same command line and
//! `--resume FILE`, FILE holding the results so far and every fault met. The new process skips
//! the experiments done or faulted, runs `occupancy` without the lines that faulted, and writes
//! the whole run.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use super::earlier_fault::Fault;
use super::registry::RunResults;

/// What a process that goes on after a fault starts from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    pub results: RunResults,
    pub faults: Vec<Fault>,
}

#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a run to resume: {source}", path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("starting the process that goes on with the run: {0}")]
    Spawn(std::io::Error),
}

impl Resume {
    pub fn read(path: &Path) -> Result<Self, ResumeError> {
        let text = std::fs::read_to_string(path).map_err(|source| ResumeError::Io {
            path: path.to_owned(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| ResumeError::Json {
            path: path.to_owned(),
            source,
        })
    }

    pub fn write(&self, path: &Path) -> Result<(), ResumeError> {
        let json = serde_json::to_string(self).map_err(|source| ResumeError::Json {
            path: path.to_owned(),
            source,
        })?;
        std::fs::write(path, json).map_err(|source| ResumeError::Io {
            path: path.to_owned(),
            source,
        })
    }
}

/// Goes on with the run in a new process: this program, its command line with `--resume` and a
/// file holding `resume` (removed once it has ended). Its output is the run's; gives how it
/// ended.
pub fn go_on(resume: &Resume) -> Result<std::process::ExitStatus, ResumeError> {
    let file = std::env::temp_dir().join(format!("host-resume-{}.json", std::process::id()));
    resume.write(&file)?;
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let status = std::env::current_exe().and_then(|exe| {
        std::process::Command::new(exe)
            .args(continued_args(&args, &file))
            .status()
    });
    let _ = std::fs::remove_file(&file);
    status.map_err(ResumeError::Spawn)
}

/// The command line of the process that goes on: `args` (without the program) with
/// `--resume FILE`, in place of a `--resume` given before.
pub fn continued_args(args: &[OsString], file: &Path) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len() + 2);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == OsStr::new("--resume") {
            it.next();
        } else if a.to_str().is_some_and(|s| s.starts_with("--resume=")) {
        } else {
            out.push(a.clone());
        }
    }
    out.push("--resume".into());
    out.push(file.as_os_str().to_owned());
    out
}

/// Whether experiment `name` is done in `results` (its output is there, or it faulted as a whole).
pub fn done(results: &RunResults, name: &str) -> bool {
    results.has_output(name)
        || results
            .missing
            .iter()
            .any(|m| m.experiment == name && m.faulted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_process_gets_the_same_line_and_the_newest_resume() {
        let line = |words: &[&str]| words.iter().map(OsString::from).collect::<Vec<_>>();
        for (args, file, next) in [
            (
                &["all", "--compare", "bad.ptx", "--resume", "/tmp/a.json"][..],
                "/tmp/b.json",
                &["all", "--compare", "bad.ptx", "--resume", "/tmp/b.json"][..],
            ),
            (
                &["occupancy", "--resume=/tmp/a.json"],
                "/tmp/c.json",
                &["occupancy", "--resume", "/tmp/c.json"],
            ),
        ] {
            assert_eq!(continued_args(&line(args), Path::new(file)), line(next));
        }
    }
}
