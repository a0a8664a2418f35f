//! Rust -> PTX with rustc's own `nvptx64-nvidia-cuda` target, and PTX directive patching.
//!
//! The recipe: `cargo rustc --crate-type staticlib --emit=asm` with `-Zbuild-std=core`, fat LTO
//! and `panic = "abort"` (the `ptx` profile): the `.s` file is the whole module. A cdylib would
//! need the `llvm-bitcode-linker` component, which this nightly does not ship.

use std::path::{Path, PathBuf};
use std::process::Command;

use kernels_gpu::abi::Param;
use kernels_gpu::entries;
use kernels_gpu::variants::{self, REGS};
pub use ptxas_report::entry_params::PtxParam;
use ptxas_report::entry_params::PtxParamError;
use ptxas_report::ptx_entries::{entry_name, keep_entries, patch_entries, EntryError};

/// Target triple of rustc's PTX backend.
pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// Default `.target` of the PTX: Ampere and everything newer can JIT it.
pub const DEFAULT_ARCH: &str = "sm_80";

/// LLVM flags of the kernel build. The accumulator tiles are indexed by loop counters; only full
/// unrolling turns them into registers (otherwise they live in local memory, 128-1088 byte stack
/// frames), and LLVM's default unroll budget gives up on the larger tiles. Only the threshold is
/// raised: forcing an unroll count as well would also unroll the tile-staging loops, whose
/// trip count depends on the thread index, and LLVM then hoists one address per unrolled
/// iteration out of the K loop (D went from 242 registers to 255 and spilled).
pub const LLVM_ARGS: &[&str] = &["-unroll-threshold=100000"];

#[derive(Debug, thiserror::Error)]
pub enum PtxError {
    #[error("could not start `{cmd}`: {source}")]
    Spawn { cmd: String, source: std::io::Error },
    #[error("the kernel build failed (`{cmd}`):\n{stderr}")]
    Build { cmd: String, stderr: String },
    #[error("{path} targets `{found}`, not the requested {want}")]
    WrongTarget {
        path: PathBuf,
        want: String,
        found: String,
    },
    #[error("the kernel build produced no PTX under {0}")]
    NoOutput(PathBuf),
    #[error("reading {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("PTX entry `{0}` is not in the variant table (kernels-gpu/src/variants.rs)")]
    UnknownEntry(String),
    #[error("variant table entry `{0}` is missing from the PTX")]
    MissingEntry(String),
    #[error("malformed PTX: {0}")]
    Entries(#[from] EntryError),
    #[error(transparent)]
    Params(#[from] PtxParamError),
    #[error(
        "PTX entry `{entry}` takes ({found}), but the table's abi line declares ({declared}) \
         (kernels-gpu/src/variants.rs)"
    )]
    ParamMismatch {
        entry: String,
        found: String,
        declared: String,
    },
}

/// What to compile and where.
#[derive(Debug, Clone)]
pub struct PtxBuild {
    /// Workspace root (holds Cargo.toml and kernels-gpu/).
    pub workspace: PathBuf,
    /// `sm_XX`: the PTX `.target` and LLVM's target-cpu.
    pub arch: String,
    /// Cargo target directory for the nvptx build (kept apart from the host's).
    pub target_dir: PathBuf,
    /// More rustc flags for the kernels crate (the sm_90a build's features and cfg).
    pub extra_rustc_args: Vec<String>,
}

/// `.target` of the Hopper module: wgmma needs the architecture-specific `sm_90a`.
pub const HOPPER_ARCH: &str = "sm_90a";

impl PtxBuild {
    pub fn new(workspace: &Path, arch: &str) -> Self {
        Self {
            workspace: workspace.to_path_buf(),
            arch: arch.to_string(),
            // One folder per arch: cargo keeps one `.s` per flag set and this build picks the
            // newest, so two archs sharing a folder could hand back the other's PTX.
            target_dir: workspace.join("target").join("ptx").join(arch),
            extra_rustc_args: Vec::new(),
        }
    }

    /// The sm_90a build: PTX ISA 8.0 (wgmma's) and `--cfg lab_sm90a`, which compiles the
    /// sm_90a lines' entries in and every other entry out (kernels-gpu's `kernel_entry!`).
    pub fn hopper(workspace: &Path) -> Self {
        let mut build = Self::new(workspace, HOPPER_ARCH);
        build.extra_rustc_args = ["-Ctarget-feature=+ptx80", "--cfg", "lab_sm90a"]
            .map(String::from)
            .to_vec();
        build
    }

    /// Compiles kernels-gpu and returns the module's PTX text (entries carry no directives).
    pub fn compile(&self) -> Result<String, PtxError> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(&self.workspace)
            .args([
                "rustc",
                "--quiet",
                "-p",
                "kernels-gpu",
                "--profile",
                "ptx",
                "--target",
                TARGET,
            ])
            .args([
                "-Zbuild-std=core",
                "--crate-type",
                "staticlib",
                "--target-dir",
            ])
            .arg(&self.target_dir)
            .arg("--manifest-path")
            .arg(self.workspace.join("Cargo.toml"))
            .args(["--", "--emit=asm"])
            .arg(format!("-Ctarget-cpu={}", self.arch));
        for arg in LLVM_ARGS {
            cmd.arg(format!("-Cllvm-args={arg}"));
        }
        cmd.args(&self.extra_rustc_args);
        // A build script's environment describes the host build; none of it applies here.
        for var in [
            "RUSTFLAGS",
            "CARGO_ENCODED_RUSTFLAGS",
            "CARGO_BUILD_TARGET",
            "CARGO_TARGET_DIR",
            "CARGO_BUILD_RUSTFLAGS",
            "RUSTC_WORKSPACE_WRAPPER",
            "RUSTC_WRAPPER",
            "CARGO_MAKEFLAGS",
            "MAKEFLAGS",
            "MFLAGS",
            "CARGO_PRIMARY_PACKAGE",
            "CARGO_PROFILE_RELEASE_LTO",
        ] {
            cmd.env_remove(var);
        }
        let shown = format!("{cmd:?}");
        let out = cmd.output().map_err(|source| PtxError::Spawn {
            cmd: shown.clone(),
            source,
        })?;
        if !out.status.success() {
            return Err(PtxError::Build {
                cmd: shown,
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        let deps = self.target_dir.join(TARGET).join("ptx").join("deps");
        let newest = newest_asm(&deps)?.ok_or_else(|| PtxError::NoOutput(deps.clone()))?;
        let ptx = std::fs::read_to_string(&newest).map_err(|source| PtxError::Io {
            path: newest.clone(),
            source,
        })?;
        match ptx.lines().find_map(|l| l.trim().strip_prefix(".target ")) {
            Some(target) if target.split(',').next().map(str::trim) == Some(self.arch.as_str()) => {
                Ok(declare_dynamic_shared(&ptx))
            }
            found => Err(PtxError::WrongTarget {
                path: newest,
                want: self.arch.clone(),
                found: found.unwrap_or("none").to_string(),
            }),
        }
    }
}

/// The symbol of the kernels' dynamic shared memory (kernels-gpu/src/gpu.rs, `dynamic_shared_base`).
pub const DYNAMIC_SHARED_SYMBOL: &str = "lab_dyn_smem";

/// The module with its dynamic shared memory declared, when an entry uses it. PTX allows
/// `.extern .shared` only at module scope, out of reach of inline asm, so the kernels name the
/// array and the build declares it, after the module header (`.address_size`).
pub fn declare_dynamic_shared(ptx: &str) -> String {
    let declaration = format!(".extern .shared .align 16 .b8 {DYNAMIC_SHARED_SYMBOL}[];");
    if !ptx.contains(DYNAMIC_SHARED_SYMBOL) || ptx.contains(&declaration) {
        return ptx.to_string();
    }
    let mut out = String::with_capacity(ptx.len() + declaration.len() + 2);
    let mut declared = false;
    for line in ptx.lines() {
        out.push_str(line);
        out.push('\n');
        if !declared && line.trim_start().starts_with(".address_size") {
            out.push_str(&declaration);
            out.push('\n');
            declared = true;
        }
    }
    out
}

/// The most recently written `kernels_gpu-*.s` (cargo keeps older ones from other flag sets).
fn newest_asm(deps: &Path) -> Result<Option<PathBuf>, PtxError> {
    let entries = std::fs::read_dir(deps).map_err(|source| PtxError::Io {
        path: deps.into(),
        source,
    })?;
    let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if !(name.starts_with("kernels_gpu-") && name.ends_with(".s")) {
            continue;
        }
        let modified = entry
            .metadata()
            .and_then(|m| m.modified())
            .map_err(|source| PtxError::Io {
                path: path.clone(),
                source,
            })?;
        if best.as_ref().is_none_or(|(t, _)| modified > *t) {
            best = Some((modified, path));
        }
    }
    Ok(best.map(|(_, p)| p))
}

/// Names of the `.entry` functions of a PTX module, in order.
pub fn entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(entry_name)
        .map(str::to_string)
        .collect()
}

/// The launch bound of a table entry: `Some(None)` for an entry launched with several block sizes.
pub fn table_threads(entry: &str) -> Option<Option<u32>> {
    entries::entry(entry).map(|e| e.max_threads)
}

/// Entries of the register-capped modules: the regs experiment's GEMM variant and its traced
/// twin (nothing else is launched from them, and every other entry would only grow the modules
/// the host embeds).
pub fn capped_entries() -> Vec<&'static str> {
    vec![REGS.gemm().entry, REGS.gemm().traced_entry()]
}

/// Every entry's `.param` list, in module order (read by [`ptxas_report::entry_params`], the reader
/// the host checks module files with).
pub fn entry_params(ptx: &str) -> Result<Vec<(String, Vec<PtxParam>)>, PtxError> {
    let all = ptxas_report::entry_params::entry_params(ptx)?;
    Ok(all.into_iter().map(|e| (e.name, e.params)).collect())
}

/// The PTX a declared parameter list compiles to.
pub fn declared_ptx_params(params: &[Param]) -> Vec<PtxParam> {
    params
        .iter()
        .map(|p| PtxParam {
            ty: p.kind.ptx_type().to_string(),
            ptr: p.kind.is_ptr(),
        })
        .collect()
}

/// Every entry's `.param` list is its family's declared list (kinds and order).
pub fn check_params(ptx: &str) -> Result<(), PtxError> {
    let show = |ps: &[PtxParam]| {
        ps.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (entry, found) in entry_params(ptx)? {
        let decl = entries::entry(&entry).ok_or_else(|| PtxError::UnknownEntry(entry.clone()))?;
        let declared = declared_ptx_params(decl.params());
        if found != declared {
            return Err(PtxError::ParamMismatch {
                entry,
                found: show(&found),
                declared: show(&declared),
            });
        }
    }
    Ok(())
}

/// The module with launch bounds: every entry launched with one block size gets
/// `.maxntid THREADS, 1, 1` from its table line, as nvcc's `__launch_bounds__(THREADS)` would,
/// and `.minnctapersm` where a GEMM line asks for it (`GemmVariant::min_blocks_per_sm`); the
/// others (fma, chase) none; a traced entry those of the entry it traces. Entries and table must
/// match one to one.
pub fn with_launch_bounds(ptx: &str) -> Result<String, PtxError> {
    check_matches_table(ptx)?;
    patch_entries(ptx, |name| {
        let decl = entries::entry(name).ok_or_else(|| PtxError::UnknownEntry(name.to_string()))?;
        let threads = decl.max_threads;
        // A traced entry is bounded as the entry it traces.
        let timed = decl.traces.unwrap_or(name);
        let min_blocks = variants::GEMM
            .iter()
            .find(|v| v.entry == timed)
            .and_then(|v| v.min_blocks_per_sm());
        Ok(threads.map(|t| match min_blocks {
            Some(blocks) => format!(".maxntid {t}, 1, 1\n.minnctapersm {blocks}"),
            None => format!(".maxntid {t}, 1, 1"),
        }))
    })
}

/// The module under a register cap: the [`capped_entries`], each with `.maxnreg CAP` and no
/// launch bounds (ptxas ignores a register cap on an entry that carries `.maxntid`).
pub fn with_register_cap(ptx: &str, cap: u32) -> Result<String, PtxError> {
    check_matches_table(ptx)?;
    let capped = capped_entries();
    let kept = keep_entries(ptx, |e| capped.contains(&e))?;
    patch_entries(&kept, |_| Ok(Some(format!(".maxnreg {cap}"))))
}

/// Whether `entry` belongs to a tensor-core family (the BF16 GEMM lines, the mma
/// microbenchmarks): those live in a module of their own, so that loading part I's kernels does
/// not JIT-compile them (they need more registers than the calculator's lowest caps allow, and
/// double the module's compile time).
pub fn is_tensor_entry(entry: &str) -> bool {
    entries::entry(entry).is_some_and(|e| {
        matches!(
            e.family,
            entries::Family::Bf16Gemm | entries::Family::MmaIlp
        )
    })
}

/// The part I modules' entries: launch bounds on each (see [`with_launch_bounds`]), no
/// tensor-core entry.
pub fn with_launch_bounds_part_one(ptx: &str) -> Result<String, PtxError> {
    Ok(keep_entries(&with_launch_bounds(ptx)?, |e| {
        !is_tensor_entry(e)
    })?)
}

/// The tensor-core module: the tensor-core entries only, with their launch bounds.
pub fn with_tensor_entries(ptx: &str) -> Result<String, PtxError> {
    Ok(keep_entries(&with_launch_bounds(ptx)?, is_tensor_entry)?)
}

/// The module of the GEMM check: its reference and comparison entries only, with their launch
/// bounds.
pub fn with_check_entries(ptx: &str) -> Result<String, PtxError> {
    let bounded = with_launch_bounds(ptx)?;
    let checks = entries::check_entries();
    Ok(keep_entries(&bounded, |e| checks.contains(&e))?)
}

/// Every PTX entry is a table entry, every table entry (traced twins included) is a PTX entry,
/// and every entry's parameter list is the one its family declares.
pub fn check_matches_table(ptx: &str) -> Result<(), PtxError> {
    let found = entries(ptx);
    if let Some(extra) = found.iter().find(|e| table_threads(e).is_none()) {
        return Err(PtxError::UnknownEntry(extra.clone()));
    }
    for entry in entries::all_entries() {
        if !found.iter().any(|e| e == entry.name) {
            return Err(PtxError::MissingEntry(entry.name.to_string()));
        }
    }
    check_params(ptx)
}
