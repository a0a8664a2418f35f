//! One run of ptxas as both of the lab's callers ask for it (xtask's build of the PTX modules and
//! the host's assembly of its built-in modules at a run's start): `-arch=ARCH -v INPUT -o CUBIN`,
//! with `--split-compile=0` where this ptxas takes it, its resource report (stderr, where ptxas
//! writes it) and stdout kept whole. What a failure means is the caller's to say: each maps
//! [`RunError`] into its own error.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::Mutex;

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

/// The flag that has ptxas optimize a module's functions on every CPU at once. On the lab's
/// modules (sm_80, sm_90, sm_90a, capped) and nvcc's twin, ptxas 13.0 writes the same SASS and the
/// same report (compile times apart) with it as without; the host's start and the tests' builds
/// wait on ptxas, so it runs with it wherever the ptxas takes it.
pub const SPLIT_COMPILE: &str = "--split-compile=0";

/// Whether `ptxas` lists `--split-compile` in its help (asked once per path; a ptxas that cannot
/// be asked is run without it).
pub fn takes_split_compile(ptxas: &Path) -> bool {
    static ASKED: Mutex<Option<HashMap<PathBuf, bool>>> = Mutex::new(None);
    let mut asked = ASKED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *asked
        .get_or_insert_with(HashMap::new)
        .entry(ptxas.to_owned())
        .or_insert_with(|| {
            Command::new(ptxas)
                .arg("--help")
                .output()
                .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("--split-compile"))
        })
}

/// Runs `ptxas -arch=ARCH -v INPUT -o CUBIN` (and [`SPLIT_COMPILE`] where ptxas takes it); on
/// success the cubin is at `cubin`.
pub fn run(ptxas: &Path, arch: &str, input: &Path, cubin: &Path) -> Result<Printed, RunError> {
    let mut cmd = Command::new(ptxas);
    cmd.arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(input)
        .arg("-o")
        .arg(cubin);
    if takes_split_compile(ptxas) {
        cmd.arg(SPLIT_COMPILE);
    }
    let out = cmd.output().map_err(|source| RunError::Spawn {
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
    /// cubin and a report, and fails when the input's name says so; its `--help` prints `help`.
    fn fake(name: &str, help: &str) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("ptxas-run-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (script, ptxas) = (dir.join("ptxas.sh"), dir.join("ptxas"));
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\ncase \"$1\" in --help) echo '{help}'; exit 0;; esac\n\
                 echo \"$@\" > \"$(dirname \"$0\")/args\"\n\
                 case \"$3\" in *bad*) echo 'error: bad PTX' >&2; exit 2;; esac\n\
                 echo out; echo 'ptxas info    : Used 8 registers' >&2; : > \"$5\"\n"
            ),
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
        let (dir, ptxas) = fake("ok", "--gpu-name");
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

    /// A ptxas whose help lists `--split-compile` gets it, after the arguments the others get.
    #[test]
    fn a_ptxas_that_splits_compiles_is_asked_to() {
        let (dir, ptxas) = fake("split", "--split-compile <N>  (-split-compile)");
        let (input, cubin) = (dir.join("m.ptx"), dir.join("m.cubin"));
        run(&ptxas, "sm_90", &input, &cubin).unwrap();
        let args = std::fs::read_to_string(dir.join("args")).unwrap();
        assert_eq!(
            args.trim(),
            format!(
                "-arch=sm_90 -v {} -o {} {SPLIT_COMPILE}",
                input.display(),
                cubin.display()
            )
        );
        assert!(!takes_split_compile(&dir.join("no-ptxas")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failure_keeps_what_ptxas_said_and_a_missing_ptxas_is_named() {
        let (dir, ptxas) = fake("bad", "--gpu-name");
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
