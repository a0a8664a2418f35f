//! nvcc's twin of the lab's kernels (`nvcc/twin.cu`): its build into one folder and its checks
//! against the variant table.
//!
//! The build regenerates `nvcc/variants.h` and `nvcc/variants_sm90a.h` from the table, then runs
//! `nvcc/build.sh` (`twin.ptx`, `twin.cubin`, `twin_cap{N}.cubin` with the register experiment's
//! GEMM entry under each cap, the sm_90a module `twin_sm90a.cubin`, ptxas's reports beside them)
//! and writes `manifest_{arch}.json` (the main and capped reports in the Rust build's manifest
//! format). The checks hold the twin to the table as the Rust modules are held: exactly the
//! table's entries, each with its family's parameter list and its line's launch bounds, and the
//! Rust build's bars ([`bars`]: spills and register caps; for sm_90a, no spill and no serialized
//! wgmma).

use std::path::{Path, PathBuf};

use kernels_gpu::abi::Param;
use kernels_gpu::entries;
use kernels_gpu::variants::{
    SmemCopyParams, SmemPath, WgemmParams, WgmmaParams, SMEM_COPY, WGMMA_BF16,
};

use crate::hopper;
use crate::modules::{self, GridBar, Manifest, Module, ModuleKind, ModuleReport};
use crate::nvcc::{self, Built, NvccError};
use crate::ptx::{self, PtxError};
use crate::ptxas::{self, PtxasError};
use crate::twin_header::{self, HeaderError};

/// File stem of the twin's modules.
pub const STEM: &str = "twin";
/// File stem of the twin's sm_90a module, beside the others.
pub const HOPPER_STEM: &str = "twin_sm90a";

#[derive(Debug, thiserror::Error)]
pub enum TwinError {
    #[error(transparent)]
    Header(#[from] HeaderError),
    #[error(transparent)]
    Nvcc(#[from] NvccError),
    #[error(transparent)]
    Ptxas(#[from] PtxasError),
    #[error("{0}: ptxas's report names no architecture")]
    NoArch(PathBuf),
    #[error("reading the twin's PTX {path}: {source}")]
    ReadPtx {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the twin's PTX {path}: {source}")]
    Ptx { path: PathBuf, source: PtxError },
    #[error("writing {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A built twin: where its files are, ptxas's reports as a manifest, and its PTX.
#[derive(Debug, Clone)]
pub struct Twin {
    pub dir: PathBuf,
    pub built: Built,
    pub manifest: Manifest,
    pub ptx: String,
    /// Whether this build rewrote a header (the table had changed since it was written).
    pub header_rewritten: bool,
    /// The sm_90a module, where `build.sh` built it (an nvcc that takes sm_90a).
    pub hopper: Option<HopperTwin>,
}

/// The twin's sm_90a module: its cubin, its PTX and ptxas's report of it.
#[derive(Debug, Clone)]
pub struct HopperTwin {
    pub cubin: PathBuf,
    pub ptx: String,
    pub report: String,
}

impl HopperTwin {
    /// The module `build.sh` wrote into `dir`, if it wrote one.
    pub fn read(dir: &Path) -> Result<Option<HopperTwin>, TwinError> {
        let file = |ext: &str| dir.join(format!("{HOPPER_STEM}.{ext}"));
        let cubin = file("cubin");
        if !cubin.is_file() {
            return Ok(None);
        }
        let read = |path: PathBuf| {
            std::fs::read_to_string(&path).map_err(|source| TwinError::ReadPtx { path, source })
        };
        Ok(Some(HopperTwin {
            ptx: read(file("ptx"))?,
            report: read(file("ptxas.txt"))?,
            cubin,
        }))
    }
}

/// Regenerates the header and builds the twin for `arch` (`sm_XX`, or `native`: GPU 0's) into
/// `dir` with `nvcc`.
pub fn build(workspace: &Path, nvcc: &Path, arch: &str, dir: &Path) -> Result<Twin, TwinError> {
    let header_rewritten = twin_header::write(workspace)?;
    let source = workspace.join(twin_header::SOURCE);
    nvcc::build(workspace, nvcc, &source, arch, dir, nvcc::Sm90a::Build)?;
    let mut twin = load(&source, dir, &ptxas::version(nvcc)?)?;
    twin.header_rewritten = header_rewritten;
    let path = dir.join(format!("manifest_{}.json", twin.manifest.arch));
    let json = serde_json::to_string_pretty(&twin.manifest).expect("manifest serializes");
    std::fs::write(&path, json).map_err(|source| TwinError::Io { path, source })?;
    Ok(twin)
}

/// A twin that `nvcc/build.sh` built from `source` into `dir` (`compiler`: nvcc's version line).
pub fn load(source: &Path, dir: &Path, compiler: &str) -> Result<Twin, TwinError> {
    let built = nvcc::read_built(source, dir)?;
    let ptx = std::fs::read_to_string(&built.ptx).map_err(|e| TwinError::ReadPtx {
        path: built.ptx.clone(),
        source: e,
    })?;
    let manifest = manifest(&built, compiler)?;
    Ok(Twin {
        dir: dir.to_owned(),
        built,
        manifest,
        ptx,
        header_rewritten: false,
        hopper: HopperTwin::read(dir)?,
    })
}

/// ptxas's reports of a build, as the Rust build's manifest (its arch: the one ptxas names).
pub fn manifest(built: &Built, compiler: &str) -> Result<Manifest, TwinError> {
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let report = |kind: ModuleKind, file: &Path, text: &str| -> Result<ModuleReport, TwinError> {
        Ok(ModuleReport {
            module: Module {
                kind,
                file: name(file),
            },
            cubin: name(file),
            entries: ptxas::parse_report(text).map_err(PtxasError::from)?,
        })
    };
    let mut modules = vec![report(
        ModuleKind::Main,
        &built.main.cubin,
        &built.main.report,
    )?];
    for (cap, m) in &built.capped {
        modules.push(report(
            ModuleKind::Capped { cap: *cap },
            &m.cubin,
            &m.report,
        )?);
    }
    let arch = modules[0]
        .entries
        .iter()
        .find_map(|e| e.arch.clone())
        .ok_or_else(|| TwinError::NoArch(built.main.cubin.clone()))?;
    Ok(Manifest {
        arch,
        ptxas: compiler.to_owned(),
        modules,
    })
}

/// How the twin departs from the table: one line per problem, empty when it matches. Entries,
/// parameter lists and launch bounds are read from the PTX; the entries of each cubin from
/// ptxas's report.
pub fn mismatches(twin: &Twin) -> Result<Vec<String>, TwinError> {
    let want = twin_header::twin_entries()?;
    let mut bad = Vec::new();
    let found = ptx::entries(&twin.ptx);
    for name in &found {
        if !want.contains(&name.as_str()) {
            bad.push(format!(
                "twin.ptx exports `{name}`, which is not a table entry"
            ));
        }
    }
    for name in &want {
        if !found.iter().any(|f| f == name) {
            bad.push(format!("twin.ptx lacks the table entry `{name}`"));
        }
    }
    let params = ptx::entry_params(&twin.ptx).map_err(|source| TwinError::Ptx {
        path: twin.dir.join(format!("{STEM}.ptx")),
        source,
    })?;
    for (name, found) in &params {
        let Some(decl) = entries::entry(name) else {
            continue;
        };
        // nvcc marks no parameter `.ptr`: compare the types, in order.
        let types = |ps: &[ptx::PtxParam]| ps.iter().map(|p| p.ty.clone()).collect::<Vec<_>>();
        let declared = ptx::declared_ptx_params(decl.params());
        if types(found) != types(&declared) {
            bad.push(format!(
                "`{name}` takes ({}), but the table's abi line declares ({})",
                types(found).join(", "),
                types(&declared).join(", ")
            ));
        }
        let bound = launch_bound(&twin.ptx, name);
        if bound != decl.max_threads {
            bad.push(format!(
                "`{name}` has launch bound {bound:?}, the table's line {:?}",
                decl.max_threads
            ));
        }
    }
    for m in &twin.manifest.modules {
        let expected: Vec<&str> = match m.module.kind {
            ModuleKind::Capped { .. } => ptx::capped_entries(),
            ModuleKind::Main | ModuleKind::Unbounded => want.clone(),
            // The GEMM check's kernels are the lab's own, whatever module is timed.
            ModuleKind::Checks | ModuleKind::Tensor => continue,
        };
        let mut got: Vec<&str> = m.entries.iter().map(|e| e.name.as_str()).collect();
        let mut expected_sorted = expected.clone();
        got.sort_unstable();
        expected_sorted.sort_unstable();
        if got != expected_sorted {
            bad.push(format!(
                "{}: ptxas reports {} entries, the table has {} for it",
                m.module.file,
                got.len(),
                expected.len()
            ));
        }
    }
    if let Some(h) = &twin.hopper {
        bad.extend(hopper_mismatches(h)?);
    }
    Ok(bad)
}

/// The parameter list the table declares for an entry of the sm_90a module.
fn hopper_params(entry: &str) -> Option<&'static [Param]> {
    if WGMMA_BF16.iter().any(|v| v.entry == entry) {
        Some(WgmmaParams::PARAMS)
    } else if hopper::wgemm_line(entry).is_some() {
        Some(WgemmParams::PARAMS)
    } else if SMEM_COPY
        .iter()
        .any(|l| l.path == SmemPath::Bulk && l.entry == entry)
    {
        Some(SmemCopyParams::PARAMS)
    } else {
        None
    }
}

/// How the twin's sm_90a module departs from the Rust one: exactly its entries, each with its
/// section's parameter list and the launch bounds xtask gives the Rust entry
/// ([`hopper::launch_bounds`]: `.maxntid`, `.minnctapersm` for the GEMM lines and
/// `.reqnctapercluster` for a cluster line); the entries
/// of the cubin from ptxas's report.
pub fn hopper_mismatches(h: &HopperTwin) -> Result<Vec<String>, TwinError> {
    let file = format!("{HOPPER_STEM}.ptx");
    let want: Vec<&str> = hopper::hopper_entries().collect();
    let mut bad = Vec::new();
    let found = ptx::entries(&h.ptx);
    for name in &found {
        if !want.contains(&name.as_str()) {
            bad.push(format!(
                "{file} exports `{name}`, which is not an entry of the sm_90a module"
            ));
        }
    }
    for name in &want {
        if !found.iter().any(|f| f == name) {
            bad.push(format!("{file} lacks the sm_90a entry `{name}`"));
        }
    }
    let params = ptx::entry_params(&h.ptx).map_err(|source| TwinError::Ptx {
        path: PathBuf::from(&file),
        source,
    })?;
    let types = |ps: &[ptx::PtxParam]| ps.iter().map(|p| p.ty.clone()).collect::<Vec<_>>();
    for (name, found) in &params {
        let Some(declared) = hopper_params(name) else {
            continue;
        };
        let declared = ptx::declared_ptx_params(declared);
        if types(found) != types(&declared) {
            bad.push(format!(
                "`{name}` takes ({}), but the table's abi line declares ({})",
                types(found).join(", "),
                types(&declared).join(", ")
            ));
        }
        let want_bounds = hopper::launch_bounds(name);
        let head = entry_head(&h.ptx, name).unwrap_or_default();
        let bounds: Vec<&str> = head
            .lines()
            .map(str::trim)
            .filter(|l| {
                l.starts_with(".maxntid")
                    || l.starts_with(".minnctapersm")
                    || l.starts_with(".reqnctapercluster")
            })
            .collect();
        if bounds.join("\n") != want_bounds {
            bad.push(format!(
                "`{name}` has launch bounds {:?}, the Rust entry {:?}",
                bounds.join("; "),
                want_bounds.replace('\n', "; ")
            ));
        }
    }
    let reported: Vec<String> = ptxas::parse_report(&h.report)
        .map_err(PtxasError::from)?
        .into_iter()
        .map(|e| e.name)
        .collect();
    if reported.len() != want.len() || want.iter().any(|w| !reported.iter().any(|r| r == w)) {
        bad.push(format!(
            "{HOPPER_STEM}.cubin: ptxas reports {} entries, the sm_90a module has {}",
            reported.len(),
            want.len()
        ));
    }
    Ok(bad)
}

/// The bars the Rust build is held to, for the twin (spill-free GEMM, FMA, chase and labelled
/// copies, caps that bind). The other points of the copy grid are held to nothing: the twin keeps
/// all of a thread's loads in flight as the Rust copy does, and where nvcc's allocation of that
/// spills ([`grid_spills`]) is a measured difference between the compilers, not a fault of the
/// twin. Entries the header leaves out ([`twin_header::Line::NotMeasured`]) are not looked for.
pub fn bars(twin: &Twin) -> Vec<String> {
    let left_out: Vec<&str> = entries::entries()
        .filter_map(|e| match twin_header::line(&e) {
            Ok(twin_header::Line::NotMeasured { name, .. }) => Some(name),
            _ => None,
        })
        .collect();
    let mut bad: Vec<String> = modules::check_bars_with(&twin.manifest, GridBar::LabelledOnly)
        .into_iter()
        .filter(|bad| {
            !left_out
                .iter()
                .any(|name| bad.contains(&format!(" {name} missing from ")))
        })
        .collect();
    // The sm_90a module's bars, as the Rust build holds its own (the messages name the Rust
    // module's file; the report read is the twin's).
    if let Some(h) = &twin.hopper {
        bad.extend(
            hopper::check_bars(&h.report)
                .into_iter()
                .map(|b| format!("{HOPPER_STEM}: {b}")),
        );
    }
    bad
}

/// The copy grid's points that spill in the twin's launch-bounded module, one line each.
pub fn grid_spills(twin: &Twin) -> Vec<String> {
    modules::grid_spills(&twin.manifest)
}

/// The head of `entry` in a PTX module: from `.entry NAME(` to its body's `{`.
fn entry_head<'a>(ptx: &'a str, entry: &str) -> Option<&'a str> {
    let start = ptx.find(&format!(".entry {entry}("))?;
    let head = &ptx[start..];
    Some(&head[..head.find('{')?])
}

/// The `.maxntid` x of `entry` in a PTX module (None without one, or without the entry).
pub fn launch_bound(ptx: &str, entry: &str) -> Option<u32> {
    let head = entry_head(ptx, entry)?;
    let rest = head.split(".maxntid").nth(1)?;
    rest.split(',').next()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_bounds_are_read_from_the_entry_head() {
        let ptx = ".visible .entry a(\n.param .u64 a_param_0\n)\n.maxntid 256, 1, 1\n{\nret;\n}\n\
                   .visible .entry b(\n.param .u64 b_param_0\n)\n{\nret;\n}\n";
        assert_eq!(launch_bound(ptx, "a"), Some(256));
        assert_eq!(launch_bound(ptx, "b"), None, "b's body, not a's bound");
        assert_eq!(launch_bound(ptx, "c"), None);
    }
}
