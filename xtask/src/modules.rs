//! The set of kernel modules the lab loads, written to one folder, and their ptxas manifest.
//!
//! | file                   | entries                                   | used by                  |
//! |------------------------|-------------------------------------------|--------------------------|
//! | `kernels.ptx`          | all but the tensor-core ones; `.maxntid` where the table fixes the block size (GEMM, memcpy) | the experiments |
//! | `kernels_tensor.ptx`   | the tensor-core entries (`mma.sync`: the BF16 GEMM lines and the MMA ILP kernels) | the tensor-core experiments (`gemm_bf16`, `mma`) |
//! | `kernels_cap{N}.ptx`   | the regs experiment's GEMM entry and its traced twin, `.maxnreg N`, no `.maxntid` | the `regs` experiment (one a cap) |
//! | `kernels_unbounded.ptx`| all but the tensor-core ones, no directives | the occupancy calculator |
//! | `kernels_check.ptx`    | the GEMM check's reference and comparison, `.maxntid` | every GEMM check, whatever module is timed |
//!
//! Beside them, from a second build for sm_90a: `kernels_sm90a.ptx`, the wgmma entries (see [`crate::hopper`]).

use std::path::{Path, PathBuf};

use kernels_gpu::entries::check_entries;
use kernels_gpu::variants::{
    GemmFamily, BF16_GEMM, CHASE, FMA, FMA_CONTROLS, GEMM, MEMCPY, MEMCPY_GRID, MMA_ILP, READ, REGS,
};
use serde::{Deserialize, Serialize};

use ptxas_report::ptx_entries::keep_entries;

use crate::ptx::{self, PtxError};
use crate::ptxas::{self, EntryReport, PtxasError};

#[derive(Debug, thiserror::Error)]
pub enum ModulesError {
    #[error(transparent)]
    Ptx(#[from] PtxError),
    #[error(transparent)]
    Ptxas(#[from] PtxasError),
    #[error("writing {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What a module is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModuleKind {
    /// Launch bounds on every entry, the tensor-core families' aside.
    Main,
    /// Register cap on every entry, no launch bounds.
    Capped { cap: u32 },
    /// Neither, the tensor-core families' entries aside.
    Unbounded,
    /// The GEMM check's entries only, with launch bounds: loaded beside any module under test
    /// (a user's file, a capped module), small enough to JIT in a moment.
    Checks,
    /// The tensor-core families' entries (BF16 GEMM, mma microbenchmarks), with launch bounds.
    Tensor,
}

/// One module file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Module {
    pub kind: ModuleKind,
    /// PTX file name inside the output folder.
    pub file: String,
}

impl Module {
    fn all() -> Vec<Module> {
        let mut v = vec![Module {
            kind: ModuleKind::Main,
            file: "kernels.ptx".into(),
        }];
        v.extend(REGS.caps.iter().map(|&cap| Module {
            kind: ModuleKind::Capped { cap },
            file: format!("kernels_cap{cap}.ptx"),
        }));
        v.push(Module {
            kind: ModuleKind::Unbounded,
            file: "kernels_unbounded.ptx".into(),
        });
        v.push(Module {
            kind: ModuleKind::Checks,
            file: "kernels_check.ptx".into(),
        });
        v.push(Module {
            kind: ModuleKind::Tensor,
            file: "kernels_tensor.ptx".into(),
        });
        v
    }

    /// The module's PTX from the compiler's plain PTX.
    pub fn render(&self, plain: &str) -> Result<String, PtxError> {
        match self.kind {
            ModuleKind::Main => ptx::with_launch_bounds_part_one(plain),
            ModuleKind::Capped { cap } => ptx::with_register_cap(plain, cap),
            ModuleKind::Unbounded => {
                ptx::check_matches_table(plain)?;
                let kept = keep_entries(plain, |e| !ptx::is_tensor_entry(e))?;
                Ok(kept)
            }
            ModuleKind::Checks => ptx::with_check_entries(plain),
            ModuleKind::Tensor => ptx::with_tensor_entries(plain),
        }
    }
}

/// Writes every module of the lab into `dir` and returns them.
pub fn write_all(plain: &str, dir: &Path) -> Result<Vec<Module>, ModulesError> {
    std::fs::create_dir_all(dir).map_err(|source| ModulesError::Io {
        path: dir.into(),
        source,
    })?;
    let modules = Module::all();
    for m in &modules {
        let path = dir.join(&m.file);
        let text = m.render(plain)?;
        write_if_changed(&path, &text)?;
    }
    Ok(modules)
}

/// Writes only when the content differs, so that unchanged modules keep their timestamps.
fn write_if_changed(path: &Path, text: &str) -> Result<(), ModulesError> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|source| ModulesError::Io {
        path: path.into(),
        source,
    })
}

/// ptxas's report on every module for one arch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub arch: String,
    pub ptxas: String,
    pub modules: Vec<ModuleReport>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleReport {
    #[serde(flatten)]
    pub module: Module,
    pub cubin: String,
    pub entries: Vec<EntryReport>,
}

impl Manifest {
    /// Where the tensor-core entries are: the lab's own build has a module for them, nvcc's
    /// twin keeps every entry in its main module.
    pub fn tensor_kind(&self) -> ModuleKind {
        if self
            .modules
            .iter()
            .any(|m| m.module.kind == ModuleKind::Tensor)
        {
            ModuleKind::Tensor
        } else {
            ModuleKind::Main
        }
    }

    /// The file name of the module of `kind`, for messages ("(none)" when the manifest has none).
    pub fn file_of(&self, kind: ModuleKind) -> &str {
        self.modules
            .iter()
            .find(|m| m.module.kind == kind)
            .map_or("(none)", |m| m.module.file.as_str())
    }

    /// The report of `entry` in the module of `kind`.
    pub fn entry(&self, kind: ModuleKind, entry: &str) -> Option<&EntryReport> {
        self.modules
            .iter()
            .find(|m| m.module.kind == kind)?
            .entries
            .iter()
            .find(|e| e.name == entry)
    }
}

/// Assembles every module in `dir` for `arch` (cubins beside the PTX, `manifest_{arch}.json`).
pub fn assemble_all(
    ptxas_path: &Path,
    modules: &[Module],
    dir: &Path,
    arch: &str,
) -> Result<Manifest, ModulesError> {
    let mut reports = Vec::with_capacity(modules.len());
    for m in modules {
        let cubin = m.file.replace(".ptx", &format!(".{arch}.cubin"));
        let entries = ptxas::assemble(ptxas_path, &dir.join(&m.file), arch, &dir.join(&cubin))?;
        reports.push(ModuleReport {
            module: m.clone(),
            cubin,
            entries,
        });
    }
    let manifest = Manifest {
        arch: arch.to_string(),
        ptxas: ptxas::version(ptxas_path)?,
        modules: reports,
    };
    let path = dir.join(format!("manifest_{arch}.json"));
    let json = serde_json::to_string_pretty(&manifest).expect("manifest serializes");
    std::fs::write(&path, json).map_err(|source| ModulesError::Io { path, source })?;
    Ok(manifest)
}

/// Registers a thread may hold under `.maxntid threads` (the register file of 64K 32-bit
/// registers shared by one block, at most 255).
fn register_budget(threads: u32) -> u32 {
    (65_536 / threads).min(255)
}

/// Whether a grid copy's registers fit its budget under its launch bound: every staged float,
/// a 64-bit address per load (all loads are issued before the first store, so their addresses
/// are live together), and a few for the index and the bound. Such a copy must not spill. The
/// rest (e.g. 32 x 16-byte loads at 1024 threads: 128 floats against 64 registers) spill by
/// construction.
pub fn fits_registers(p: &kernels_gpu::variants::MemcpyPoint) -> bool {
    p.loads * p.width + 2 * p.loads + GRID_INDEX_REGISTERS <= register_budget(p.threads)
}

/// Registers a copy needs besides its staged floats and load addresses.
const GRID_INDEX_REGISTERS: u32 = 8;

/// The grid copies that spill in the main module: one line each, for the record.
pub fn grid_spills(m: &Manifest) -> Vec<String> {
    MEMCPY_GRID
        .iter()
        .filter_map(|p| {
            let e = m.entry(ModuleKind::Main, p.entry)?;
            (e.spill_stores != 0 || e.spill_loads != 0).then(|| {
                format!(
                    "{}: {} ({} floats staged, {} registers at {} threads): {} regs, {} B spill stores, {} B spill loads",
                    m.arch,
                    p.entry,
                    p.loads * p.width,
                    register_budget(p.threads),
                    p.threads,
                    e.registers,
                    e.spill_stores,
                    e.spill_loads
                )
            })
        })
        .collect()
}

/// Which of the memcpy grid's points a build must hold spill-free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridBar {
    /// Every point whose staged floats and addresses fit its register budget
    /// ([`fits_registers`]): the Rust build keeps them spill-free by construction.
    FittingPoints,
    /// Only the labelled points (the `bandwidth` experiment's variants); the rest are recorded by
    /// [`grid_spills`]. For another compiler's build of the same copies (nvcc's twin), whose
    /// register allocation the lab measures rather than promises.
    LabelledOnly,
}

/// The bars every build must clear (issue: accumulators in registers, caps that bind, traced
/// twins built as their entries). Returns one line per violation; empty when all hold.
pub fn check_bars(m: &Manifest) -> Vec<String> {
    check_bars_with(m, GridBar::FittingPoints)
}

/// [`check_bars`], with the grid held to `grid`.
pub fn check_bars_with(m: &Manifest, grid: GridBar) -> Vec<String> {
    let mut bad = Vec::new();
    // GEMM variants up to the register file's reach, every tuned and BF16 tensor-core variant,
    // the labelled memcpy variants, the read lines, every FMA and mma kernel and the chase: no
    // stack, no spills.
    // The largest seed tiles (more accumulators than 255 registers can hold) are expected to
    // spill; so are the grid's copies that stage more than their block size leaves registers for
    // (see `grid_spills`).
    let entries = GEMM
        .iter()
        .filter(|v| v.family == GemmFamily::Tuned || v.accumulators() <= 128)
        .map(|v| v.entry)
        .chain(MEMCPY.iter().map(|v| v.entry))
        .chain(
            MEMCPY_GRID
                .iter()
                .filter(|p| grid == GridBar::FittingPoints && fits_registers(p))
                .map(|p| p.entry),
        )
        // The read lines: each holds its copy's loads in registers, or its bytes in flight are
        // not its copy's.
        .chain(READ.iter().map(|p| p.entry))
        .chain(FMA.iter().chain(FMA_CONTROLS).map(|v| v.entry))
        .chain([CHASE.entry])
        .chain(check_entries())
        .map(|e| (ModuleKind::Main, e))
        .chain(
            BF16_GEMM
                .iter()
                .map(|v| v.entry)
                .chain(MMA_ILP.iter().map(|v| v.entry))
                .map(|e| (m.tensor_kind(), e)),
        );
    for (kind, entry) in entries {
        match m.entry(kind, entry) {
            None => bad.push(format!(
                "{}: {entry} missing from {}'s report",
                m.arch,
                m.file_of(kind)
            )),
            Some(e) if e.stack_frame != 0 || e.spill_stores != 0 || e.spill_loads != 0 => bad.push(format!(
                "{}: {entry} has a {} byte stack frame, {} bytes spill stores, {} bytes spill loads (want 0)",
                m.arch, e.stack_frame, e.spill_stores, e.spill_loads
            )),
            Some(_) => {}
        }
    }
    // Every module's traced twins: the timed entry's resources, or the trace is not its.
    for module in &m.modules {
        bad.extend(crate::traced::check(&module.module.file, &module.entries).bad);
    }
    let capped = REGS.gemm().entry;
    let mut previous: Option<(u32, u32)> = None;
    for &cap in REGS.caps {
        let Some(e) = m.entry(ModuleKind::Capped { cap }, capped) else {
            bad.push(format!(
                "{}: {capped} missing from {}'s report",
                m.arch,
                m.file_of(ModuleKind::Capped { cap })
            ));
            continue;
        };
        if e.registers > cap {
            bad.push(format!(
                "{}: cap {cap}: {capped} uses {} registers",
                m.arch, e.registers
            ));
        }
        if let Some((prev_cap, prev_regs)) = previous {
            if prev_regs > e.registers {
                bad.push(format!(
                    "{}: registers rise as the cap falls: cap {prev_cap} -> {prev_regs}, cap {cap} -> {}",
                    m.arch, e.registers
                ));
            }
        }
        previous = Some((cap, e.registers));
    }
    if let (Some(&lowest), Some(&highest)) = (REGS.caps.first(), REGS.caps.last()) {
        if let Some(e) = m.entry(ModuleKind::Capped { cap: lowest }, capped) {
            if e.spill_stores == 0 {
                bad.push(format!(
                    "{}: cap {lowest}: {capped} does not spill, so the cap does not bind",
                    m.arch
                ));
            }
        }
        if let Some(e) = m.entry(ModuleKind::Capped { cap: highest }, capped) {
            if e.spill_stores != 0 || e.spill_loads != 0 {
                bad.push(format!(
                    "{}: cap {highest}: {capped} spills ({} bytes stored)",
                    m.arch, e.spill_stores
                ));
            }
        }
    }
    bad
}
