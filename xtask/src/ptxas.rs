//! ptxas: where to find it and how to run it. Its resource report is read by the `ptxas-report`
//! crate (shared with the running host), re-exported here.

use std::path::{Path, PathBuf};
use std::process::Command;

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
/// then the one in pip's `nvidia-cuda-nvcc` wheel.
pub fn find() -> Option<PathBuf> {
    let exe = |p: PathBuf| p.is_file().then_some(p);
    if let Some(p) = std::env::var_os("PTXAS").map(PathBuf::from).and_then(exe) {
        return Some(p);
    }
    if let Some(p) =
        std::env::var_os("CUDA_PATH").and_then(|c| exe(Path::new(&c).join("bin/ptxas")))
    {
        return Some(p);
    }
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(p) = std::env::split_paths(&path).find_map(|d| exe(d.join("ptxas"))) {
            return Some(p);
        }
    }
    exe(PathBuf::from("/usr/local/cuda/bin/ptxas")).or_else(pip_wheel_ptxas)
}

/// ptxas from pip's `nvidia-cuda-nvcc` wheel (`<site-packages>/nvidia/cu13/bin/ptxas`), if installed.
fn pip_wheel_ptxas() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ])
        .output()
        .ok()?;
    let site = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    ["cu13", "cu12"]
        .iter()
        .map(|v| site.join("nvidia").join(v).join("bin/ptxas"))
        .find(|p| p.is_file())
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
pub fn assemble(
    ptxas: &Path,
    input: &Path,
    arch: &str,
    cubin: &Path,
) -> Result<Vec<EntryReport>, PtxasError> {
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(input)
        .arg("-o")
        .arg(cubin)
        .output()
        .map_err(|source| PtxasError::Spawn {
            path: ptxas.into(),
            source,
        })?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(PtxasError::Failed {
            input: input.into(),
            stderr,
        });
    }
    Ok(parse_report(&stderr)?)
}
