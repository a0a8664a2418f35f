//! Which kernels a plan runs, as data: the built-in modules, a user's module file, or a folder of
//! one module per register cap; ours and the compared module's; and the entries and parameter
//! list a run needs of them. The plan checks them ([`module_file`](super::module_file)); the
//! experiments load them (`experiments/module_source.rs`, above the driver).

use std::path::PathBuf;

use kernels_gpu::abi::Param;

use super::name::ModuleSource;

/// Where an experiment's kernels come from, for the run's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleNames {
    pub ours: ModuleSource,
    pub theirs: Option<ModuleSource>,
    /// The compared module's name in tables, plots and legends (`--compare-label`).
    pub label: Option<String>,
}

/// Kernels of one module: the built-in PTX, or a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kernels {
    Builtin,
    File(PathBuf),
}

/// Kernels of one module per register cap: the built-in capped PTX, or a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CappedKernels {
    Builtin,
    /// A folder holding one module per cap, named with `cap{N}` (e.g. `peer_cap32.cubin`).
    Folder(PathBuf),
}

/// A source of kernels that can say where it comes from (a built-in module, a file, a folder).
pub trait DescribeModule {
    fn describe(&self) -> ModuleSource;
}

impl DescribeModule for Kernels {
    fn describe(&self) -> ModuleSource {
        match self {
            Kernels::Builtin => ModuleSource::BuiltIn,
            Kernels::File(p) => ModuleSource::File(p.clone()),
        }
    }
}

impl DescribeModule for CappedKernels {
    fn describe(&self) -> ModuleSource {
        match self {
            CappedKernels::Builtin => ModuleSource::BuiltIn,
            CappedKernels::Folder(p) => ModuleSource::CapFolder(p.clone()),
        }
    }
}

/// Where a plan's kernels come from: ours, the compared module's (`--compare`) and the name the
/// compared module goes by in tables, plots and legends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sources<K> {
    pub ours: K,
    pub theirs: Option<K>,
    pub label: Option<String>,
}

impl<K> Sources<K> {
    /// Ours, and the compared module with its label when there is one.
    pub fn new(ours: K, theirs: Option<(K, String)>) -> Self {
        let (theirs, label) = theirs.unzip();
        Sources {
            ours,
            theirs,
            label,
        }
    }
}

impl<K: DescribeModule> Sources<K> {
    /// The modules' names, for the run's record.
    pub fn names(&self) -> ModuleNames {
        ModuleNames {
            ours: self.ours.describe(),
            theirs: self.theirs.as_ref().map(DescribeModule::describe),
            label: self.label.clone(),
        }
    }
}

/// The entries a run will launch from a module, and the parameter list it will launch them with.
#[derive(Debug, Clone, Copy)]
pub struct Needs<'a> {
    pub entries: &'a [&'a str],
    pub signature: &'a [Param],
}

/// Whether kernels come from a file of the user's (not the built-in modules).
pub trait IsFile {
    fn is_file(&self) -> bool;
}

impl IsFile for Kernels {
    fn is_file(&self) -> bool {
        matches!(self, Kernels::File(_))
    }
}

impl IsFile for CappedKernels {
    fn is_file(&self) -> bool {
        matches!(self, CappedKernels::Folder(_))
    }
}
