//! nvcc: finding it, and building CUDA C++ that exports the lab's entries through the lab's one
//! nvcc recipe, `nvcc/build.sh` (which also runs by hand on a machine without Rust): nvcc's twin
//! of the kernels (`nvcc/twin.cu`) or any other file (`cargo xtask sweep --compare-nvcc FILE.cu`).

mod find;

use std::path::{Path, PathBuf};
use std::process::Command;

use kernels_gpu::variants::REGS;

pub use find::find;

/// What to do when [`find`] finds nothing.
pub const NOT_FOUND: &str = "nvcc not found (looked at $NVCC, $CUDA_PATH/bin, PATH, \
     /usr/local/cuda/bin); install the CUDA toolkit, or nvcc 13.0 from pip with a matching \
     front end: `python3 -m pip install --target DIR nvidia-cuda-nvcc==13.0.88 \
     nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-cuda-runtime==13.0.96` and set \
     NVCC=DIR/nvidia/cu13/bin/nvcc";

/// The build script, relative to the workspace root.
pub const BUILD_SCRIPT: &str = "nvcc/build.sh";

#[derive(Debug, thiserror::Error)]
pub enum NvccError {
    #[error("{NOT_FOUND}")]
    NotFound,
    #[error("could not run `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("`{command}` failed:\n{stderr}")]
    Failed { command: String, stderr: String },
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One module `build.sh` wrote: the cubin and ptxas's report of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltModule {
    pub cubin: PathBuf,
    pub report: String,
}

/// What `build.sh` wrote for one source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// The launch-bounded module.
    pub main: BuiltModule,
    /// Per register cap of the table's register experiment, the capped module.
    pub capped: Vec<(u32, BuiltModule)>,
    /// The launch-bounded module's PTX.
    pub ptx: PathBuf,
}

/// Whether `build.sh`, building nvcc's twin, also builds the twin's sm_90a module (which is the
/// same whatever the main module's architecture).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sm90a {
    Build,
    /// Left out (`LAB_TWIN_SM90A=skip`): for a caller that has it from another build.
    Skip,
}

/// Runs `nvcc/build.sh OUT ARCH SOURCE` with `nvcc` and reads back what it wrote.
pub fn build(
    workspace: &Path,
    nvcc: &Path,
    source: &Path,
    arch: &str,
    out: &Path,
    sm90a: Sm90a,
) -> Result<Built, NvccError> {
    let mut cmd = Command::new("bash");
    cmd.arg(workspace.join(BUILD_SCRIPT))
        .arg(out)
        .arg(arch)
        .arg(source)
        .env("NVCC", nvcc);
    if sm90a == Sm90a::Skip {
        cmd.env("LAB_TWIN_SM90A", "skip");
    }
    let command = format!("{cmd:?}");
    let done = cmd.output().map_err(|source| NvccError::Spawn {
        command: command.clone(),
        source,
    })?;
    if !done.status.success() {
        return Err(NvccError::Failed {
            command,
            stderr: String::from_utf8_lossy(&done.stderr).into_owned(),
        });
    }
    read_built(source, out)
}

/// The files `build.sh` writes into `out` for `source` (see the script's header).
pub fn read_built(source: &Path, out: &Path) -> Result<Built, NvccError> {
    let stem = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let module = |name: String| -> Result<BuiltModule, NvccError> {
        let path = out.join(format!("{name}.ptxas.txt"));
        let report =
            std::fs::read_to_string(&path).map_err(|source| NvccError::Read { path, source })?;
        Ok(BuiltModule {
            cubin: out.join(format!("{name}.cubin")),
            report,
        })
    };
    let capped = REGS
        .caps
        .iter()
        .map(|&cap| Ok((cap, module(format!("{stem}_cap{cap}"))?)))
        .collect::<Result<_, NvccError>>()?;
    Ok(Built {
        main: module(stem.clone())?,
        capped,
        ptx: out.join(format!("{stem}.ptx")),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn not_found_names_the_places_of_the_search_in_its_order() {
        let places = format!("(looked at {})", ptxas_report::toolkit::NVCC.looked_at());
        assert!(super::NOT_FOUND.contains(&places), "{places}");
    }
}
