//! An experiment's kernels planned from its flags and loaded on the GPU: the Rust-built PTX
//! embedded in the binary, or any PTX/cubin file exporting the entry interface (`--module`,
//! `--compare`); for the register experiment, one module per cap from a folder. Also finds the
//! compiler's report for a module.
//!
//! What the sources are and how a user's files are checked live in [`crate::kernel_source`];
//! this file stands above it because it reads the flags ([`ModuleFiles`]) and loads through the
//! driver ([`Gpu`], [`Module`]), both layers above that room, and reports through the
//! experiments' [`SourceError`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ptxas_report::ptx_entries::EntryError;
use ptxas_report::{parse_report, EntryReport};

use super::error::SourceError;
use crate::cuda::hopper::runs_sm90a;
use crate::cuda::{Compiler, CudaError, Gpu, Kernel, Module};
use crate::flags::{default_label, CliError, ModuleFiles};
use crate::kernel_source::builtin;
use crate::kernel_source::module_file::{
    cap_file, check_entries, check_module_file, check_module_folder,
};
use crate::kernel_source::name::BUILTIN;
use crate::kernel_source::sources::{CappedKernels, IsFile, Kernels, Needs, Sources};

impl Sources<Kernels> {
    /// Loads our module and the compared one, when there is one.
    pub fn load(&self, gpu: &Gpu) -> Result<(Loaded, Option<Loaded>), SourceError> {
        self.load_with(gpu, builtin::MAIN)
    }

    /// [`Self::load`], the built-in kernels being the PTX `builtin` (e.g. the tensor-core
    /// module).
    pub fn load_with(
        &self,
        gpu: &Gpu,
        builtin: &'static str,
    ) -> Result<(Loaded, Option<Loaded>), SourceError> {
        self.load_named(gpu, builtin, BUILTIN)
    }

    /// [`Sources::load`] for the mma microbenchmark: the built-in kernels are then its module
    /// (`builtin::MMA_ILP`, its entries of the tensor-core module, which is apart from the main
    /// one so that part I's modules still load on GPUs older than sm_80); a file holds every
    /// entry.
    pub fn load_mma_ilp(&self, gpu: &Gpu) -> Result<(Loaded, Option<Loaded>), SourceError> {
        let name = format!("{BUILTIN}, tensor cores");
        self.load_named(gpu, builtin::MMA_ILP, &name)
    }

    /// Both modules, the built-in kernels being the PTX `builtin`, named `name`.
    fn load_named(
        &self,
        gpu: &Gpu,
        builtin: &'static str,
        name: &str,
    ) -> Result<(Loaded, Option<Loaded>), SourceError> {
        let load = |k: &Kernels| load_in(gpu, k, builtin, name);
        let theirs = self.theirs.as_ref();
        let theirs = theirs.map(|k| load(k).map(|l| l.compared(k))).transpose()?;
        Ok((load(&self.ours)?, theirs))
    }

    /// The compared module's sm_90a companion ([`sm90a_companion`]), loaded where the device
    /// runs sm_90a: the kernels the compared build has for the rows that take theirs from the
    /// built-in sm_90a module. None without a compared file, a companion, or an sm_90a device.
    pub fn load_compared_sm90a(&self, gpu: &Gpu) -> Result<Option<Loaded>, SourceError> {
        let Some(Kernels::File(path)) = &self.theirs else {
            return Ok(None);
        };
        let Some(file) = sm90a_companion(path) else {
            return Ok(None);
        };
        if runs_sm90a(gpu.info().compute_capability).is_err() {
            return Ok(None);
        }
        let loaded = load_file(gpu, &file)?;
        loaded.module.mark_compared();
        Ok(Some(loaded))
    }
}

/// The sm_90a companion of a compared module: `NAME_sm90a.EXT` beside `NAME.EXT`, as
/// `nvcc/build.sh` writes nvcc's twin (`twin_sm90a.cubin` beside `twin.cubin`), when it exists.
pub fn sm90a_companion(module: &Path) -> Option<PathBuf> {
    let stem = module.file_stem()?.to_string_lossy();
    let ext = module.extension()?.to_string_lossy();
    let companion = module.with_file_name(format!("{stem}_sm90a.{ext}"));
    companion.is_file().then_some(companion)
}

/// `--module`, `--compare` and `--compare-label` checked: the files exist, are modules and
/// export what `needs` says. Gives our kernels, the compared ones and the compared module's label.
pub fn plan_files(files: &ModuleFiles, needs: Needs<'_>) -> Result<Sources<Kernels>, CliError> {
    let file = |flag: &'static str, p: &PathBuf| -> Result<Kernels, CliError> {
        check_module_file(flag, p)?;
        check_entries(flag, p, needs.entries, needs.signature)?;
        Ok(Kernels::File(p.clone()))
    };
    let ours = match &files.module {
        Some(p) => file("--module", p)?,
        None => Kernels::Builtin,
    };
    let theirs = files.compare.as_ref().map(|p| {
        let label = default_label(&files.compare_label, p);
        file("--compare", p).map(|k| (k, label))
    });
    let theirs = theirs.transpose()?;
    Ok(Sources::new(ours, theirs))
}

/// Per-cap folders checked for every cap asked for: a folder must hold exactly one module per
/// cap, each recognisably a module; without a folder, the built-in kernels must have every cap
/// (`builtin_has` says which they have).
pub fn plan_folders(
    caps: &[u32],
    (module_flag, module): (&'static str, &Option<PathBuf>),
    (compare_flag, compare): (&'static str, &Option<PathBuf>),
    label: &Option<String>,
    needs: Needs<'_>,
    builtin_has: impl Fn(u32) -> bool,
) -> Result<Sources<CappedKernels>, CliError> {
    let folder = |flag: &'static str, dir: &Path| -> Result<CappedKernels, CliError> {
        check_module_folder(flag, dir)?;
        for &cap in caps {
            let file = cap_file(dir, cap).map_err(|e| CliError::CapFolder {
                flag,
                reason: e.to_string(),
            })?;
            check_module_file(flag, &file)?;
            check_entries(flag, &file, needs.entries, needs.signature)?;
        }
        Ok(CappedKernels::Folder(dir.to_owned()))
    };
    let ours = match module {
        Some(dir) => folder(module_flag, dir)?,
        None => {
            if let Some(&cap) = caps.iter().find(|&&c| !builtin_has(c)) {
                return Err(CliError::NoBuiltinCap {
                    cap,
                    available: builtin_caps(),
                });
            }
            CappedKernels::Builtin
        }
    };
    let theirs = match compare {
        Some(dir) => Some((folder(compare_flag, dir)?, default_label(label, dir))),
        None => None,
    };
    Ok(Sources::new(ours, theirs))
}

/// The compiler's resource report for a module's entries, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompilerReport {
    pub source: String,
    pub entries: Vec<EntryReport>,
}

impl CompilerReport {
    pub fn entry(&self, name: &str) -> Option<&EntryReport> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// A loaded module with its compiler report, when one is known.
pub struct Loaded {
    /// Shared with the run's other experiments when it is a built-in module.
    pub module: Arc<Module>,
    pub report: Option<CompilerReport>,
}

impl Loaded {
    fn new(module: Arc<Module>) -> Self {
        let report = jit_report(&module);
        Loaded { module, report }
    }

    /// This module, loaded from `from` as the one compared with ours: a fault in it is named
    /// so. (A built-in module is shared with ours, and stays ours.)
    pub fn compared<K: IsFile>(self, from: &K) -> Self {
        if from.is_file() {
            self.module.mark_compared();
        }
        self
    }

    /// `entry` of this module, or `None` where the module does not export it (a compared
    /// module built without a family).
    pub fn kernel_if_present(&self, entry: &str) -> Result<Option<Kernel<'_>>, CudaError> {
        match self.module.kernel(entry) {
            Ok(k) => Ok(Some(k)),
            Err(CudaError::MissingEntry { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `entry` of this module and, when there is a compared module (`other`), of that one.
    pub fn entry_pair<'m>(
        &'m self,
        other: Option<&'m Loaded>,
        entry: &str,
    ) -> Result<(Kernel<'m>, Option<Kernel<'m>>), CudaError> {
        let theirs = other.map(|o| o.module.kernel(entry)).transpose()?;
        Ok((self.module.kernel(entry)?, theirs))
    }
}

/// Loads one module.
pub fn load(gpu: &Gpu, kernels: &Kernels) -> Result<Loaded, SourceError> {
    load_in(gpu, kernels, builtin::MAIN, BUILTIN)
}

/// Loads one module, the built-in kernels being the PTX `builtin`, named `name`.
fn load_in(
    gpu: &Gpu,
    kernels: &Kernels,
    builtin: &'static str,
    name: &str,
) -> Result<Loaded, SourceError> {
    match kernels {
        Kernels::Builtin => load_builtin(gpu, builtin, name),
        Kernels::File(path) => load_file(gpu, path),
    }
}

/// Loads the module capped at `cap` registers; `builtin` is the built-in one's PTX (`None`
/// where the built-in kernels have no such cap).
pub fn load_capped(
    gpu: &Gpu,
    kernels: &CappedKernels,
    cap: u32,
    builtin: impl FnOnce(u32) -> Result<Option<String>, EntryError>,
) -> Result<Loaded, SourceError> {
    match kernels {
        CappedKernels::Builtin => {
            let ptx = builtin(cap)?.ok_or_else(|| SourceError::NoBuiltinCap {
                cap,
                available: builtin_caps(),
            })?;
            // Built per line (its entries alone), small, and compiled once per cap and line
            // anyway: not shared.
            let name = format!("{BUILTIN}, cap {cap}");
            let module = Module::load(gpu, &name, builtin_text(&ptx)?.as_bytes())?;
            Ok(Loaded::new(Arc::new(module)))
        }
        CappedKernels::Folder(folder) => load_file(gpu, &cap_file(folder, cap)?),
    }
}

/// The register caps the built-in kernels have a module for, listed.
pub fn builtin_caps() -> String {
    let caps: Vec<String> = builtin::CAPPED.iter().map(|(c, _)| c.to_string()).collect();
    if caps.is_empty() {
        "none".to_owned()
    } else {
        caps.join(", ")
    }
}

/// A built-in module: compiled on the first load of the run, shared after
/// ([`Gpu::builtin_module`]).
fn load_builtin(gpu: &Gpu, ptx: &'static str, name: &str) -> Result<Loaded, SourceError> {
    Ok(Loaded::new(gpu.builtin_module(name, builtin_text(ptx)?)?))
}

/// A built-in module's PTX, or the error of a build that embedded none.
fn builtin_text(ptx: &str) -> Result<&str, SourceError> {
    if ptx.trim().is_empty() {
        Err(SourceError::NoBuiltin)
    } else {
        Ok(ptx)
    }
}

fn load_file(gpu: &Gpu, path: &Path) -> Result<Loaded, SourceError> {
    let image = std::fs::read(path).map_err(|source| SourceError::Io {
        path: path.to_owned(),
        source,
    })?;
    let module = Module::load(gpu, &path.display().to_string(), &image)?;
    let report = jit_report(&module).or_else(|| sidecar_report(path));
    Ok(Loaded {
        module: Arc::new(module),
        report,
    })
}

fn jit_report(module: &Module) -> Option<CompilerReport> {
    let entries = parse_report(module.info_log()).ok()?;
    let source = match module.compiler() {
        Compiler::DriverJit => "driver JIT info log".to_owned(),
        Compiler::Ptxas(path) => format!("{} -v", path.display()),
    };
    (!entries.is_empty()).then_some(CompilerReport { source, entries })
}

/// The `ptxas -v` report written beside a module: `NAME.ptxas.txt` for `NAME.cubin`.
pub fn sidecar_path(module: &Path) -> PathBuf {
    let stem = module
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    module.with_file_name(format!("{stem}.ptxas.txt"))
}

fn sidecar_report(module: &Path) -> Option<CompilerReport> {
    let path = sidecar_path(module);
    let text = std::fs::read_to_string(&path).ok()?;
    let entries = parse_report(&text).ok()?;
    Some(CompilerReport {
        source: path.display().to_string(),
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sm90a_companion_is_the_file_beside_with_the_suffix() {
        let dir = std::env::temp_dir().join(format!("lab-sm90a-companion-{}", std::process::id()));
        let (twin, companion) = (dir.join("twin.cubin"), dir.join("twin_sm90a.cubin"));
        assert_eq!(sm90a_companion(&twin), None, "nothing there");
        for (file, found) in [(&twin, None), (&companion, Some(companion.clone()))] {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(file, b"x").unwrap();
            assert_eq!(sm90a_companion(&twin), found);
        }
        assert_eq!(
            sm90a_companion(&dir.join("twin.ptx")),
            None,
            "same extension only"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sidecar_is_beside_the_module() {
        assert_eq!(
            sidecar_path(Path::new("/p/peer_cap32.cubin")),
            Path::new("/p/peer_cap32.ptxas.txt")
        );
    }
}
