//! The built-in PTX modules assembled by `ptxas` in child processes, all at once, instead of by
//! the driver's JIT.
//!
//! Why: the driver compiles one module at a time, and holds every other module load of the
//! process while it does. With the tensor-core module compiling in the background, the first
//! experiment's own small loads waited behind it for about a minute
//! (`results/2026-12-03-h200-s16`, `logs/phase_deltas.txt`). A ptxas process per module runs
//! beside the others, each spreading its functions over the CPUs (`--split-compile`, see
//! `ptxas_report::run`); the driver then only loads the cubins. ptxas's `-v` report is the same
//! text as the JIT's info log (the JIT is the same compiler), so the register columns read it as
//! before.
//!
//! Where no ptxas is found, or one fails, the driver compiles the module as before: this is a
//! faster road to the same module, never a requirement. The ptxas used is the toolkit's search
//! (`ptxas_report::toolkit::PTXAS`: `$PTXAS`, `$CUDA_PATH/bin`, PATH, `/usr/local/cuda/bin`,
//! pip's wheel).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::JoinHandle;

use ptxas_report::run::{run, RunError};
use ptxas_report::toolkit::{self, ProcessEnv};

/// A module ptxas assembled: the cubin, its `-v` report, and which ptxas.
#[derive(Debug)]
pub struct Assembled {
    pub cubin: Vec<u8>,
    pub report: String,
    pub ptxas: PathBuf,
}

/// Why ptxas gave no cubin (the driver's JIT then compiles the module).
#[derive(Debug, thiserror::Error)]
pub enum AssemblyError {
    #[error("running {ptxas}: {source}")]
    Spawn {
        ptxas: PathBuf,
        source: std::io::Error,
    },
    #[error("{ptxas} -arch={arch} failed ({status}): {stderr}")]
    Failed {
        ptxas: PathBuf,
        arch: String,
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the ptxas of {0} panicked")]
    Panicked(String),
}

/// The `-arch` ptxas assembles `ptx` for on a device of compute capability `cc`: the device's
/// own (`sm_90` for 9.0, as the JIT compiles for the device it loads on), or the PTX's target
/// where that names an architecture-specific one (`sm_90a`), which only that target assembles.
pub fn arch_for(ptx: &str, (major, minor): (u32, u32)) -> String {
    let target = ptx
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix(".target"))
        .map(|t| {
            t.split([',', ' ', '\t'])
                .find(|w| !w.is_empty())
                .unwrap_or("")
        });
    match target {
        Some(t) if t.ends_with('a') && t.starts_with("sm_") => t.to_owned(),
        _ => format!("sm_{major}{minor}"),
    }
}

/// The ptxas found by the toolkit's search, if any.
pub fn find_ptxas() -> Option<PathBuf> {
    toolkit::PTXAS.find(&ProcessEnv, &Path::is_file)
}

/// Assembles `ptx` for `arch` with `ptxas` in folder `dir` (files named by `stem`), the report
/// verbose (`-v`) as the JIT's info log is.
pub fn assemble(
    ptxas: &Path,
    ptx: &str,
    arch: &str,
    (dir, stem): (&Path, &str),
) -> Result<Assembled, AssemblyError> {
    let io = |what, path: &Path| {
        let path = path.to_owned();
        move |source| AssemblyError::Io { what, path, source }
    };
    let (input, output) = (
        dir.join(format!("{stem}.ptx")),
        dir.join(format!("{stem}.cubin")),
    );
    std::fs::write(&input, ptx).map_err(io("writing", &input))?;
    let printed = run(ptxas, arch, &input, &output).map_err(|e| match e {
        RunError::Spawn { ptxas, source } => AssemblyError::Spawn { ptxas, source },
        RunError::Failed {
            ptxas,
            arch,
            status,
            printed,
        } => AssemblyError::Failed {
            ptxas,
            arch,
            status,
            stderr: printed
                .stderr
                .lines()
                .take(20)
                .collect::<Vec<_>>()
                .join("\n"),
        },
    })?;
    let cubin = std::fs::read(&output).map_err(io("reading", &output))?;
    // ptxas writes its report to stderr; stdout is kept too, should a version move it.
    let report = printed.stdout + &printed.stderr;
    Ok(Assembled {
        cubin,
        report,
        ptxas: ptxas.to_owned(),
    })
}

/// One assembly in flight per image, each in a thread of its own waiting on its ptxas; an image
/// is taken (its thread joined) once, by whoever loads it first.
#[derive(Default)]
pub struct AssemblyJobs {
    jobs: Mutex<HashMap<&'static [u8], Job>>,
}

/// A thread waiting on one image's ptxas.
type Job = JoinHandle<Result<Assembled, AssemblyError>>;

impl AssemblyJobs {
    /// Starts ptxas on each of `images` not started before, for a device of compute capability
    /// `cc`, each in a temporary folder of its own (this process's id and the image's place in
    /// `images`), which its job removes.
    pub fn start(&self, ptxas: &Path, images: &[&'static str], cc: (u32, u32)) {
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        for (i, &ptx) in images.iter().enumerate() {
            if jobs.contains_key(ptx.as_bytes()) {
                continue;
            }
            let dir = std::env::temp_dir()
                .join(format!("occupancy-lab-ptxas-{}-{i}", std::process::id()));
            let (ptxas, arch) = (ptxas.to_owned(), arch_for(ptx, cc));
            let job = std::thread::spawn(move || {
                std::fs::create_dir_all(&dir).map_err(|source| AssemblyError::Io {
                    what: "creating",
                    path: dir.clone(),
                    source,
                })?;
                let done = assemble(&ptxas, ptx, &arch, (&dir, "builtin"));
                let _ = std::fs::remove_dir_all(&dir);
                done
            });
            jobs.insert(ptx.as_bytes(), job);
        }
    }

    /// The assembly of `image`, waited for; `None` where none was started or it was taken.
    pub fn take(&self, image: &[u8]) -> Option<Result<Assembled, AssemblyError>> {
        let job = {
            let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
            jobs.remove(image)?
        };
        Some(
            job.join()
                .unwrap_or_else(|_| Err(AssemblyError::Panicked(format!("{} bytes", image.len())))),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arch_is_the_devices_unless_the_ptx_targets_an_a_variant() {
        let plain = ".version 8.0\n.target sm_80\n.address_size 64\n";
        assert_eq!(arch_for(plain, (9, 0)), "sm_90");
        assert_eq!(arch_for(plain, (8, 9)), "sm_89");
        let hopper = "// comment\n.version 8.0\n.target sm_90a, debug\n";
        assert_eq!(arch_for(hopper, (9, 0)), "sm_90a");
        assert_eq!(arch_for("no target at all", (9, 0)), "sm_90");
    }

    /// Needs a ptxas (the README's requirement; `.ci/run` installs one), and fails without it: the
    /// check module assembles for sm_90 with a report whose entries the register columns read, and
    /// a bad PTX fails with ptxas's words.
    #[test]
    fn ptxas_assembles_a_builtin_module_with_the_reports_the_columns_read() {
        let ptxas = find_ptxas().expect("ptxas (set PTXAS; see the README)");
        let ptx = crate::kernel_source::builtin::CHECKS;
        let jobs = AssemblyJobs::default();
        jobs.start(&ptxas, &[ptx], (9, 0));
        let a = jobs
            .take(ptx.as_bytes())
            .expect("started")
            .expect("assembled");
        assert!(a.cubin.starts_with(b"\x7fELF"), "a cubin is an ELF file");
        let entries = ptxas_report::parse_report(&a.report).expect("a -v report");
        assert!(!entries.is_empty(), "{}", a.report);
        assert!(jobs.take(ptx.as_bytes()).is_none(), "taken once");

        let dir = std::env::temp_dir().join(format!("lab-ptxas-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = assemble(
            &ptxas,
            ".version 8.0\n.target sm_90\nnonsense",
            "sm_90",
            (&dir, "x"),
        );
        let _ = std::fs::remove_dir_all(&dir);
        assert!(matches!(bad, Err(AssemblyError::Failed { .. })), "{bad:?}");
    }
}
