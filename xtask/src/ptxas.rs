//! ptxas: where to find it and how to run it. Its resource report is read by the `ptxas-report`
//! crate (shared with the running host), re-exported here.

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxas_report::run::{run, RunError};
use ptxas_report::toolkit;
pub use ptxas_report::{parse_report, EntryReport, ReportError};

#[derive(Debug, thiserror::Error)]
pub enum PtxasError {
    #[error(
        "ptxas not found (looked at $PTXAS, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin, pip's nvidia wheels); install the CUDA \
         toolkit or `python3 -m pip install nvidia-cuda-nvcc==13.0.88` and set PTXAS to its nvidia/cu13/bin/ptxas"
    )]
    NotFound,
    #[error("could not run {path}: {source}")]
    Spawn {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("ptxas failed on {input}:\n{stderr}")]
    Failed { input: PathBuf, stderr: String },
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// The ptxas to use: `$PTXAS`, `$CUDA_PATH/bin/ptxas`, `ptxas` on PATH, `/usr/local/cuda/bin/ptxas`,
/// then the one in pip's `nvidia-cuda-nvcc` wheel ([`toolkit::PTXAS`]).
pub fn find() -> Option<PathBuf> {
    toolkit::PTXAS.find(&toolkit::ProcessEnv, &Path::is_file)
}

/// `ptxas --version`'s last line, e.g. "Cuda compilation tools, release 13.0, V13.0.88".
pub fn version(ptxas: &Path) -> Result<String, PtxasError> {
    let out = Command::new(ptxas)
        .arg("--version")
        .output()
        .map_err(|source| PtxasError::Spawn {
            path: ptxas.into(),
            source,
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .lines()
        .rfind(|l| l.contains("release"))
        .unwrap_or("unknown")
        .trim()
        .to_string())
}

/// Assembles `input` (PTX) for `arch` into `cubin` and returns the per-entry report.
///
/// ptxas is the slow part of a warm test run (every module, for two architectures), so its
/// report is kept beside the cubin (`*.ptxas.txt`) under a key of everything that decides it: the
/// PTX text, the arch, the ptxas binary (path, size, modification time) and whether it splits its
/// compile. When the key and the cubin are both there, the kept report is parsed again instead of
/// running ptxas.
pub fn assemble(
    ptxas: &Path,
    input: &Path,
    arch: &str,
    cubin: &Path,
) -> Result<Vec<EntryReport>, PtxasError> {
    Ok(parse_report(&assemble_log(ptxas, input, arch, cubin)?)?)
}

/// [`assemble`], returning ptxas's whole log (the report and any warnings) instead of the parsed
/// report.
pub fn assemble_log(
    ptxas: &Path,
    input: &Path,
    arch: &str,
    cubin: &Path,
) -> Result<String, PtxasError> {
    let key = cache_key(ptxas, input, arch);
    let kept = cubin.with_extension("ptxas.txt");
    if let (Some(key), Ok(text)) = (&key, std::fs::read_to_string(&kept)) {
        if let Some(report) = text.strip_prefix(key.as_str()) {
            if cubin.is_file() {
                return Ok(report.to_string());
            }
        }
    }
    let stderr = match run(ptxas, arch, input, cubin) {
        Ok(printed) => printed.stderr,
        Err(RunError::Spawn { ptxas, source }) => {
            return Err(PtxasError::Spawn {
                path: ptxas,
                source,
            })
        }
        Err(RunError::Failed { printed, .. }) => {
            return Err(PtxasError::Failed {
                input: input.into(),
                stderr: printed.stderr,
            })
        }
    };
    if let Some(key) = key {
        // A cache that cannot be written only costs the next run its time.
        let _ = std::fs::write(&kept, format!("{key}{stderr}"));
    }
    Ok(stderr)
}

/// The first line of a kept report: what must be equal for the report to be reused. None when the
/// input or ptxas cannot be read (then nothing is kept or reused).
fn cache_key(ptxas: &Path, input: &Path, arch: &str) -> Option<String> {
    use std::hash::{Hash, Hasher};
    let ptx = std::fs::read(input).ok()?;
    let tool = std::fs::metadata(ptxas).ok()?;
    // std's SipHash with its fixed keys: stable for one toolchain, which is all a cache inside
    // target/ needs (the toolchain is pinned; a different one at worst misses the cache).
    let mut h = std::collections::hash_map::DefaultHasher::new();
    ptx.hash(&mut h);
    Some(format!(
        "// ptxas-cache arch={arch} ptx={:016x} len={} ptxas={} size={} mtime={:?} split={}\n",
        h.finish(),
        ptx.len(),
        ptxas.display(),
        tool.len(),
        tool.modified().ok()?,
        ptxas_report::run::takes_split_compile(ptxas),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_names_the_places_of_the_search_in_its_order() {
        let text = PtxasError::NotFound.to_string();
        let places = format!("(looked at {})", toolkit::PTXAS.looked_at());
        assert!(text.contains(&places), "{text}\n{places}");
    }

    /// A stand-in ptxas that counts its runs (not the questions about its flags), writes a cubin
    /// and prints a one-entry report.
    fn fake_ptxas(dir: &Path) -> PathBuf {
        let path = dir.join("ptxas");
        let script = format!(
            "#!/bin/sh\ncase \"$1\" in --help) exit 0;; esac\necho run >> {runs}\n\
             for a; do out=$a; done\n: > \"$out\"\n\
             echo \"ptxas info    : Compiling entry function 'k' for 'sm_90'\" >&2\n\
             echo \"ptxas info    : Function properties for k\" >&2\n\
             echo \"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\" >&2\n\
             echo \"ptxas info    : Used 12 registers, used 0 barriers, 360 bytes cmem[0]\" >&2\n",
            runs = dir.join("runs").display()
        );
        let source = dir.join("ptxas.sh");
        std::fs::write(&source, script).unwrap();
        // Made executable by another process: a file this multi-threaded test process writes
        // can be held open for writing by a sibling test's fork until it execs, and running it
        // then fails with "text file busy".
        let made = std::process::Command::new("install")
            .args(["-m", "755"])
            .arg(&source)
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        path
    }

    fn runs(dir: &Path) -> usize {
        std::fs::read_to_string(dir.join("runs"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    /// The kept report is reused only while the PTX, the arch and the cubin are unchanged.
    #[test]
    fn a_kept_report_is_reused_only_for_the_same_input() {
        let dir = std::env::temp_dir().join(format!("xtask-ptxas-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let ptxas = fake_ptxas(&dir);
        let (ptx, cubin) = (dir.join("m.ptx"), dir.join("m.sm_90.cubin"));
        std::fs::write(&ptx, ".version 8.0\n.target sm_80\n").unwrap();

        let first = assemble(&ptxas, &ptx, "sm_90", &cubin).unwrap();
        assert_eq!((first.len(), first[0].registers, runs(&dir)), (1, 12, 1));
        assert_eq!(assemble(&ptxas, &ptx, "sm_90", &cubin).unwrap(), first);
        assert_eq!(runs(&dir), 1, "same PTX, arch and ptxas: the kept report");

        assemble(&ptxas, &ptx, "sm_80", &cubin).unwrap();
        assert_eq!(runs(&dir), 2, "another arch runs ptxas");
        std::fs::write(&ptx, ".version 8.0\n.target sm_80\n// changed\n").unwrap();
        assemble(&ptxas, &ptx, "sm_80", &cubin).unwrap();
        assert_eq!(runs(&dir), 3, "changed PTX runs ptxas");
        std::fs::remove_file(&cubin).unwrap();
        assemble(&ptxas, &ptx, "sm_80", &cubin).unwrap();
        assert_eq!(runs(&dir), 4, "a missing cubin runs ptxas");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
