//! Where a run's kernels came from: the built-in Rust kernels, a module file, or a folder of one
//! module per register cap, for each experiment of the run. `results.json` has always stored
//! this as one line ("rust (built-in)", "peer.cubin; regs: peer/*cap{N}*"), and still does: the
//! line is this struct's serialized form, read back into the struct, so nothing downstream
//! parses it again.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Name of the built-in module in results and messages.
pub const BUILTIN: &str = "rust (built-in)";

/// How a cap folder is written: its path, then the pattern its files are found by.
const CAP_PATTERN: &str = "/*cap{N}*";

/// Where one experiment's kernels came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModuleSource {
    /// The Rust-built kernels embedded in the binary.
    BuiltIn,
    /// A PTX, cubin or fatbin file (`--module`, `--compare`).
    File(PathBuf),
    /// A folder holding one module per register cap, each named with `cap{N}`.
    CapFolder(PathBuf),
}

impl ModuleSource {
    /// Reads the form [`fmt::Display`] writes.
    fn parse(text: &str) -> Self {
        if text == BUILTIN {
            ModuleSource::BuiltIn
        } else if let Some(folder) = text.strip_suffix(CAP_PATTERN) {
            ModuleSource::CapFolder(PathBuf::from(folder))
        } else {
            ModuleSource::File(PathBuf::from(text))
        }
    }

    /// A short name: the file's stem or the folder's name (the built-in module's own name).
    pub fn stem(&self) -> String {
        let path: &Path = match self {
            ModuleSource::BuiltIn => return BUILTIN.to_owned(),
            ModuleSource::File(p) | ModuleSource::CapFolder(p) => p,
        };
        path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        )
    }
}

impl fmt::Display for ModuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModuleSource::BuiltIn => f.write_str(BUILTIN),
            ModuleSource::File(p) => write!(f, "{}", p.display()),
            ModuleSource::CapFolder(p) => write!(f, "{}{CAP_PATTERN}", p.display()),
        }
    }
}

/// The modules of a run: the first experiment's, and each later experiment whose module is
/// another. Stored as "first; experiment: other; ...".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub struct RunModules {
    pub first: ModuleSource,
    /// (experiment name, its module) for each experiment whose module is not `first`.
    pub others: Vec<(String, ModuleSource)>,
}

impl RunModules {
    /// One module for every experiment.
    pub fn single(source: ModuleSource) -> Self {
        Self {
            first: source,
            others: Vec::new(),
        }
    }

    /// The modules of the experiments in run order, each named; None when there are none.
    pub fn of(experiments: Vec<(&str, ModuleSource)>) -> Option<Self> {
        let mut each = experiments.into_iter();
        let (_, first) = each.next()?;
        let others = each
            .filter(|(_, m)| *m != first)
            .map(|(name, m)| (name.to_owned(), m))
            .collect();
        Some(Self { first, others })
    }

    /// The module experiment `name` ran.
    pub fn of_experiment(&self, name: &str) -> &ModuleSource {
        self.others
            .iter()
            .find(|(n, _)| n == name)
            .map_or(&self.first, |(_, m)| m)
    }
}

impl Default for RunModules {
    fn default() -> Self {
        Self::single(ModuleSource::BuiltIn)
    }
}

impl fmt::Display for RunModules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.first)?;
        for (name, m) in &self.others {
            write!(f, "; {name}: {m}")?;
        }
        Ok(())
    }
}

/// Whether `part` (after a "; ") begins another experiment's entry, "name: module".
fn experiment_entry(part: &str) -> Option<(&str, &str)> {
    let (name, rest) = part.split_once(": ")?;
    let is_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    is_name.then_some((name, rest))
}

impl From<String> for RunModules {
    /// Reads the stored line; a "; " not followed by an experiment's name belongs to a path.
    fn from(text: String) -> Self {
        let mut parts = text.split("; ");
        let mut first = parts.next().unwrap_or_default().to_owned();
        let mut others: Vec<(String, String)> = Vec::new();
        for part in parts {
            match (experiment_entry(part), others.last_mut()) {
                (Some((name, m)), _) => others.push((name.to_owned(), m.to_owned())),
                (None, Some((_, last))) => *last = format!("{last}; {part}"),
                (None, None) => first = format!("{first}; {part}"),
            }
        }
        Self {
            first: ModuleSource::parse(&first),
            others: others
                .into_iter()
                .map(|(n, m)| (n, ModuleSource::parse(&m)))
                .collect(),
        }
    }
}

impl From<&str> for RunModules {
    fn from(text: &str) -> Self {
        Self::from(text.to_owned())
    }
}

impl From<RunModules> for String {
    fn from(m: RunModules) -> Self {
        m.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> RunModules {
        RunModules::from(text.to_owned())
    }

    fn file(path: &str) -> ModuleSource {
        ModuleSource::File(path.into())
    }

    fn folder(path: &str) -> ModuleSource {
        ModuleSource::CapFolder(path.into())
    }

    /// The lines the committed runs hold read into the struct and write back unchanged.
    #[test]
    fn stored_lines_read_into_the_struct_and_back() {
        let run = read("/tmp/work/peer/peer.cubin; regs: /tmp/work/peer/*cap{N}*");
        assert_eq!(run.first, file("/tmp/work/peer/peer.cubin"));
        assert_eq!(run.others, [("regs".to_owned(), folder("/tmp/work/peer"))]);
        assert_eq!(run.of_experiment("regs"), &folder("/tmp/work/peer"));
        assert_eq!(
            run.of_experiment("bandwidth"),
            &file("/tmp/work/peer/peer.cubin")
        );
        for line in [
            "rust (built-in)",
            "/tmp/work/peer/peer.cubin; regs: /tmp/work/peer/*cap{N}*",
            "hand-made test fixture",
            "peer//*cap{N}*",
            "odd; name.cubin; regs: rust (built-in)",
        ] {
            assert_eq!(read(line).to_string(), line);
            let json = serde_json::to_string(&read(line)).unwrap();
            assert_eq!(json, serde_json::to_string(line).unwrap());
        }
        assert_eq!(read("rust (built-in)").first, ModuleSource::BuiltIn);
        assert_eq!(read("odd; name.cubin").first, file("odd; name.cubin"));
    }

    #[test]
    fn a_run_lists_the_experiments_whose_module_differs() {
        let run = RunModules::of(vec![
            ("occupancy", file("peer.cubin")),
            ("regs", folder("peer")),
            ("ilp", file("peer.cubin")),
        ])
        .unwrap();
        assert_eq!(run.to_string(), "peer.cubin; regs: peer/*cap{N}*");
        assert_eq!(RunModules::of(vec![]), None);
    }

    #[test]
    fn a_module_is_named_by_its_stem() {
        assert_eq!(read("/tmp/work/peer/peer.cubin").first.stem(), "peer");
        assert_eq!(read("/tmp/work/peer/*cap{N}*").first.stem(), "peer");
        assert_eq!(ModuleSource::BuiltIn.stem(), BUILTIN);
    }
}
