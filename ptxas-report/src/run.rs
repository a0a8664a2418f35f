//! One run of ptxas as both of the lab's callers ask for it (xtask's build of the PTX modules and
//! the host's assembly of its built-in modules at a run's start): `-arch=ARCH -v INPUT -o CUBIN`,
//! its resource report (stderr, where ptxas writes it) and stdout kept whole. What a failure means
//! is the caller's to say: each maps [`RunError`] into its own error.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// What a finished ptxas printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printed {
    pub stdout: String,
    /// The `-v` report, and any warnings.
    pub stderr: String,
}

/// Why ptxas gave no cubin.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("could not run {ptxas}: {source}")]
    Spawn {
        ptxas: PathBuf,
        source: std::io::Error,
    },
    #[error("{ptxas} -arch={arch} failed ({status}): {}", .printed.stderr)]
    Failed {
        ptxas: PathBuf,
        arch: String,
        status: ExitStatus,
        printed: Printed,
    },
}

/// Runs `ptxas -arch=ARCH -v INPUT -o CUBIN`; on success the cubin is at `cubin`.
pub fn run(ptxas: &Path, arch: &str, input: &Path, cubin: &Path) -> Result<Printed, RunError> {
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(input)
        .arg("-o")
        .arg(cubin)
        .output()
        .map_err(|source| RunError::Spawn {
            ptxas: ptxas.to_owned(),
            source,
        })?;
    let printed = Printed {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    if !out.status.success() {
        return Err(RunError::Failed {
            ptxas: ptxas.to_owned(),
            arch: arch.to_owned(),
            status: out.status,
            printed,
        });
    }
    Ok(printed)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A folder of this test's own with a fake ptxas that records its arguments, writes the
    /// cubin and a report, and fails when the input's name says so.
    fn fake(name: &str) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("ptxas-run-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (script, ptxas) = (dir.join("ptxas.sh"), dir.join("ptxas"));
        std::fs::write(
            &script,
            "#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/args\"\n\
             case \"$3\" in *bad*) echo 'error: bad PTX' >&2; exit 2;; esac\n\
             echo out; echo 'ptxas info    : Used 8 registers' >&2; : > \"$5\"\n",
        )
        .unwrap();
        // Made executable by another process: a file this multi-threaded test process writes
        // can be held open for writing by a sibling test's fork until it execs, and running it
        // then fails with "text file busy".
        let made = Command::new("install")
            .args(["-m", "755"])
            .arg(&script)
            .arg(&ptxas)
            .status()
            .unwrap();
        assert!(made.success());
        (dir, ptxas)
    }

    #[test]
    fn a_run_passes_the_arch_and_keeps_the_report() {
        let (dir, ptxas) = fake("ok");
        let (input, cubin) = (dir.join("m.ptx"), dir.join("m.cubin"));
        let printed = run(&ptxas, "sm_90a", &input, &cubin).unwrap();
        assert_eq!(printed.stdout, "out\n");
        assert_eq!(printed.stderr, "ptxas info    : Used 8 registers\n");
        assert!(cubin.is_file());
        let args = std::fs::read_to_string(dir.join("args")).unwrap();
        assert_eq!(
            args.trim(),
            format!("-arch=sm_90a -v {} -o {}", input.display(), cubin.display())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failure_keeps_what_ptxas_said_and_a_missing_ptxas_is_named() {
        let (dir, ptxas) = fake("bad");
        let e = run(
            &ptxas,
            "sm_90",
            &dir.join("bad.ptx"),
            &dir.join("bad.cubin"),
        )
        .unwrap_err();
        assert!(
            matches!(&e, RunError::Failed { printed, status, .. }
                if printed.stderr.contains("bad PTX") && status.code() == Some(2)),
            "{e:?}"
        );
        assert!(e.to_string().contains("-arch=sm_90 failed"), "{e}");
        let none = dir.join("no-ptxas");
        let e = run(&none, "sm_90", &dir.join("m.ptx"), &dir.join("m.cubin")).unwrap_err();
        assert!(matches!(e, RunError::Spawn { ref ptxas, .. } if *ptxas == none));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
