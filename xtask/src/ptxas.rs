//! ptxas: where to find it, how to run it, and how to read its resource report.
//!
//! The report format (`ptxas -v`, `nvcc -Xptxas -v`, and the driver JIT's info log):
//! ```text
//! ptxas info    : Compiling entry function 'gemm_tm8_tn8' for 'sm_90'
//! ptxas info    : Function properties for gemm_tm8_tn8
//!     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//! ptxas info    : Used 168 registers, used 1 barriers, 4384 bytes smem, 400 bytes cmem[0]
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// One entry's resources as ptxas reports them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryReport {
    pub name: String,
    /// `sm_XX` it was compiled for, when the report says.
    pub arch: Option<String>,
    pub registers: u32,
    pub stack_frame: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// Static shared memory, bytes.
    pub shared: u32,
    pub barriers: u32,
}

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
    #[error("ptxas report: entry `{0}` has a `Used ... registers` line but no `Function properties` block")]
    MissingProperties(String),
    #[error("ptxas report: no `Used ... registers` line for entry `{0}`")]
    MissingUsage(String),
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
    parse_report(&stderr)
}

static COMPILING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Compiling entry function '([^']+)' for '([^']+)'").unwrap());
static PROPERTIES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Function properties for (\S+)").unwrap());
static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
        .unwrap()
});
static USED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"Used (\d+) registers(.*)").unwrap());
static BARRIERS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"used (\d+) barriers").unwrap());
static SMEM: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(\d+) bytes smem").unwrap());

/// Parses a ptxas `-v` report (or a driver JIT info log) into one record per entry function.
/// Device functions (properties without a `Compiling entry function` line) are skipped.
pub fn parse_report(text: &str) -> Result<Vec<EntryReport>, PtxasError> {
    #[derive(Default)]
    struct Partial {
        name: String,
        arch: Option<String>,
        frame: Option<(u32, u32, u32)>,
        properties_seen: bool,
    }
    let num = |s: &str| s.parse::<u32>().unwrap_or(u32::MAX);
    let mut out = Vec::new();
    let mut current: Option<Partial> = None;
    let mut in_properties_of: Option<String> = None;
    for line in text.lines() {
        if let Some(c) = COMPILING.captures(line) {
            current = Some(Partial {
                name: c[1].to_string(),
                arch: Some(c[2].to_string()),
                ..Default::default()
            });
            in_properties_of = None;
        } else if let Some(c) = PROPERTIES.captures(line) {
            in_properties_of = Some(c[1].to_string());
            if let Some(p) = current.as_mut().filter(|p| p.name == c[1]) {
                p.properties_seen = true;
            }
        } else if let Some(c) = FRAME.captures(line) {
            if let (Some(p), Some(of)) = (current.as_mut(), in_properties_of.as_deref()) {
                if p.name == of {
                    p.frame = Some((num(&c[1]), num(&c[2]), num(&c[3])));
                }
            }
        } else if let Some(c) = USED.captures(line) {
            let Some(p) = current.take() else { continue };
            let (stack_frame, spill_stores, spill_loads) = p
                .frame
                .ok_or_else(|| PtxasError::MissingProperties(p.name.clone()))?;
            let rest = &c[2];
            out.push(EntryReport {
                name: p.name,
                arch: p.arch,
                registers: num(&c[1]),
                stack_frame,
                spill_stores,
                spill_loads,
                shared: SMEM.captures(rest).map_or(0, |s| num(&s[1])),
                barriers: BARRIERS.captures(rest).map_or(0, |s| num(&s[1])),
            });
            in_properties_of = None;
        }
    }
    if let Some(p) = current {
        return Err(PtxasError::MissingUsage(p.name));
    }
    Ok(out)
}
