//! What can go wrong while an experiment runs: the driver, a module source, a residency that
//! cannot be held, a launch the variant table's shape does not fit; each error says in which
//! variant and which experiment it happened. The errors of a module source and of a residency
//! are here too, so that this file imports none of the files that report errors through it.

use std::path::PathBuf;

use ptxas_report::ptx_entries::EntryError;

use crate::cuda::hopper::HopperError;
use crate::cuda::tensor_map::TensorMapError;
use crate::cuda::CudaError;
use crate::kernel_source::module_file::CapFileError;
use crate::occupancy::HoldError;

#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    #[error(transparent)]
    Cuda(#[from] CudaError),
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Residency(#[from] ResidencyError),
    /// The sm_90a module (the wgmma lines).
    #[error(transparent)]
    Hopper(#[from] HopperError),
    /// A wgmma line's tensor maps.
    #[error(transparent)]
    TensorMap(#[from] TensorMapError),
    #[error(
        "`{entry}` in {module}: launches with at most {max} threads per block but the variant \
         needs {threads} (the module's launch bounds do not match the variant table)"
    )]
    BlockTooLarge {
        entry: String,
        module: String,
        max: u32,
        threads: u32,
    },
    #[error(
        "`{entry}` in {module}: not one block of {threads} threads fits on an SM \
         ({regs} registers/thread, {dyn_smem} B dynamic shared memory)"
    )]
    NoResidency {
        entry: String,
        module: String,
        threads: u32,
        regs: u32,
        dyn_smem: u32,
    },
    #[error(
        "the copy needs a source and a destination of {mib} MiB each but the device has \
         {have_mib} MiB in all; use --copy-mib {max_mib} or less"
    )]
    CopyTooLarge {
        mib: u64,
        have_mib: u64,
        max_mib: u64,
    },
    #[error(
        "`{entry}`: {blocks} blocks are needed for {floats} floats, more than a grid's \
         2147483647; use a smaller copy buffer"
    )]
    GridTooLarge {
        entry: String,
        blocks: u64,
        floats: u64,
    },
    #[error(
        "`{entry}` at {blocks_per_sm} blocks/SM: its rings need {need} B of shared memory a \
         block, and the driver holds fewer blocks with that much than the {held} B that hold \
         the residency"
    )]
    RingTooLarge {
        entry: String,
        blocks_per_sm: u32,
        need: u32,
        held: u32,
    },
    /// What failed, and in which variant.
    #[error("variant {variant}: {source}")]
    InVariant {
        variant: String,
        #[source]
        source: Box<ExperimentError>,
    },
    /// What failed, and in which experiment.
    #[error("experiment {experiment}: {source}")]
    InExperiment {
        experiment: &'static str,
        #[source]
        source: Box<ExperimentError>,
    },
}

impl ExperimentError {
    /// This error, said to have happened in `variant`.
    pub fn in_variant(self, variant: impl Into<String>) -> Self {
        ExperimentError::InVariant {
            variant: variant.into(),
            source: Box::new(self),
        }
    }

    /// Whether it only means a kernel cannot be placed at the residency asked for (a block size
    /// it cannot launch, or registers or threads allowing fewer blocks): a sweep skips the point.
    pub fn is_unplaceable(&self) -> bool {
        match self {
            ExperimentError::Residency(_)
            | ExperimentError::BlockTooLarge { .. }
            | ExperimentError::NoResidency { .. }
            | ExperimentError::RingTooLarge { .. } => true,
            ExperimentError::InVariant { source, .. } => source.is_unplaceable(),
            _ => false,
        }
    }

    /// The driver's error this one comes from (directly, or through loading a module), inside
    /// the variant and experiment it happened in.
    fn driver_cause(&self) -> Option<&CudaError> {
        match self.innermost() {
            ExperimentError::Cuda(e) | ExperimentError::Source(SourceError::Cuda(e)) => Some(e),
            _ => None,
        }
    }

    /// Whether a kernel faulted: the context is lost, the run goes on in a fresh one.
    pub fn is_fault(&self) -> bool {
        self.driver_cause().is_some_and(CudaError::is_fault)
    }

    /// Whether a kernel never completed (the run ends).
    pub fn is_timeout(&self) -> bool {
        self.driver_cause().is_some_and(CudaError::is_timeout)
    }

    /// The experiment it happened in, where it names one.
    pub fn experiment(&self) -> Option<&'static str> {
        match self {
            ExperimentError::InExperiment { experiment, .. } => Some(experiment),
            _ => None,
        }
    }

    /// The variant it happened in, where it names one.
    pub fn variant(&self) -> Option<&str> {
        match self {
            ExperimentError::InVariant { variant, .. } => Some(variant),
            ExperimentError::InExperiment { source, .. } => source.variant(),
            _ => None,
        }
    }

    /// The error without the variant and experiment it happened in.
    pub fn innermost(&self) -> &ExperimentError {
        match self {
            ExperimentError::InVariant { source, .. }
            | ExperimentError::InExperiment { source, .. } => source.innermost(),
            e => e,
        }
    }

    /// Whether the cause is a missing driver.
    pub fn is_no_driver(&self) -> bool {
        matches!(self.innermost(), ExperimentError::Cuda(CudaError::NoDriver))
    }
}

/// Attaches the variant to an error of one variant's measurement.
pub(crate) trait InVariant<T> {
    fn in_variant(self, variant: &str) -> Result<T, ExperimentError>;
}

impl<T, E: Into<ExperimentError>> InVariant<T> for Result<T, E> {
    fn in_variant(self, variant: &str) -> Result<T, ExperimentError> {
        self.map_err(|e| e.into().in_variant(variant))
    }
}

/// What can go wrong getting a run's kernels: reading a module, finding one for a register cap,
/// the built-in PTX.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("reading {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    CapFile(#[from] CapFileError),
    #[error("the built-in kernels have no module for register cap {cap}; built caps: {available}")]
    NoBuiltinCap { cap: u32, available: String },
    #[error("the built-in PTX: {0}")]
    BuiltinEntry(#[from] EntryError),
    #[error(
        "the built-in kernels are missing from this binary (the host build embeds them; rebuild \
         with `cargo build -p host`)"
    )]
    NoBuiltin,
    #[error(transparent)]
    Cuda(#[from] CudaError),
}

/// What can go wrong holding a kernel at a residency (`residency.rs`).
#[derive(Debug, thiserror::Error)]
pub enum ResidencyError {
    #[error("`{entry}`: {source}")]
    Calculator {
        entry: String,
        #[source]
        source: HoldError,
    },
    #[error(
        "`{entry}` at {threads} threads: the occupancy API gives {got} block(s)/SM with {dyn_smem} \
         B of dynamic shared memory, not {blocks}{hint}"
    )]
    DriverDisagrees {
        entry: String,
        threads: u32,
        dyn_smem: u32,
        got: u32,
        blocks: u32,
        hint: &'static str,
    },
    #[error(transparent)]
    Cuda(#[from] CudaError),
}
