//! The CUDA driver API, through `cudarc`, reduced to what the experiments need: a device with its
//! limits, kernel modules loaded with the JIT's info log, kernel handles and events; and the
//! libraries beside it: cuBLAS, and CUPTI for the kernel a cuBLAS call really ran.
//!
//! Check [`driver_present`] before anything else here: without the driver library every other
//! call fails.

mod clocks;
mod cublas;
pub mod cupti;
pub mod cupti_record;
pub mod deadline;
mod device;
mod dynamic_library;
pub mod fault;
pub mod hopper;
pub mod launch;
pub mod library_kernel;
mod module;
mod module_cache;
mod side_stream;
pub mod tensor_map;
pub mod tensor_peak;

pub use cublas::{
    version_text, ColumnMajorGemm, Cublas, CublasError, GemmInput, Routine, CUBLAS_NAMES,
};
pub use cupti::{cupti, Cupti, CuptiError};
pub use cupti_record::KernelRecord;
pub use device::{peak_dram_gbps, peak_fp32_gflops, Gpu};
pub use dynamic_library::MissingSymbol;
pub use launch::{prepare, ptx_accepts, ptx_entry_params, Launch, LaunchShape, ParamClass};
pub use library_kernel::{LibraryKernel, LibraryKernelError};
pub use module::{JitOptions, Kernel, Module};
pub use side_stream::SideStream;

use cudarc::driver::DriverError;

/// Whether the CUDA driver library (`libcuda`) can be loaded on this machine.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names and closes it again.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Turns the driver's JIT cache off for this process (unless the user set `CUDA_CACHE_DISABLE`).
///
/// The register, spill and stack columns come from the JIT's info log, and a module the driver
/// finds in its cache (`~/.nv/ComputeCache`, e.g. from the previous run) is loaded without
/// compiling, hence without a log. Takes effect only before the driver initializes, so
/// `Gpu::open` calls it first.
pub fn disable_jit_cache() {
    if std::env::var_os("CUDA_CACHE_DISABLE").is_none() {
        // SAFETY (edition 2021 `set_var`): called before the driver, or any thread of ours that
        // reads the environment, starts.
        std::env::set_var("CUDA_CACHE_DISABLE", "1");
    }
}

/// A failure talking to the GPU.
#[derive(Debug, thiserror::Error)]
pub enum CudaError {
    #[error("no CUDA driver: libcuda could not be loaded (is the NVIDIA driver installed?)")]
    NoDriver,
    #[error("{what}: {}", driver_message(source))]
    Driver {
        what: String,
        #[source]
        source: DriverError,
    },
    /// A kernel faulted (e.g. an out-of-bounds access): the context is lost. Names the kernels
    /// that were in flight.
    #[error("{what}: {suspects}: {}", driver_message(source))]
    Fault {
        what: String,
        #[source]
        source: DriverError,
        suspects: fault::Suspects,
    },
    /// A wait for the GPU passed `--launch-timeout`: a kernel never completed.
    #[error(
        "{what}: the GPU had not finished after {} s (--launch-timeout); {}",
        limit.as_secs_f64(),
        running(suspects)
    )]
    Timeout {
        what: String,
        limit: std::time::Duration,
        suspects: fault::Suspects,
    },
    #[error("device {ordinal} does not exist: this machine has {count} CUDA device(s) (valid: 0..{count})")]
    NoSuchDevice { ordinal: u32, count: u32 },
    #[error(
        "{module}: the driver could not load the module: {}\n{log}",
        driver_message(source)
    )]
    Load {
        module: String,
        log: String,
        #[source]
        source: DriverError,
    },
    #[error(
        "launching `{entry}`: the family's parameter list pushes {pushed}, its signature says \
         {declared}"
    )]
    Signature {
        entry: String,
        declared: String,
        pushed: String,
    },
    #[error(transparent)]
    Cublas(#[from] CublasError),
    #[error(transparent)]
    Cupti(#[from] CuptiError),
    #[error(
        "{module}: has no entry `{entry}`; entries in the module: {}",
        list_or_none(available)
    )]
    MissingEntry {
        module: String,
        entry: String,
        available: Vec<String>,
    },
}

impl CudaError {
    /// Whether a kernel's fault has lost the GPU's context (the run goes on in a fresh one).
    pub fn is_fault(&self) -> bool {
        matches!(self, CudaError::Fault { .. })
    }

    /// Whether a kernel never completed (the run cannot go on).
    pub fn is_timeout(&self) -> bool {
        matches!(self, CudaError::Timeout { .. })
    }
}

/// What was running when a wait timed out, in words.
fn running(suspects: &fault::Suspects) -> String {
    let names: Vec<String> = suspects.0.iter().map(ToString::to_string).collect();
    match names.as_slice() {
        [] => "no launch of ours was in flight".to_owned(),
        [one] => format!("{one} never completed"),
        _ => format!("one of {} never completed", names.join(", ")),
    }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "(none found)".to_owned()
    } else {
        names.join(", ")
    }
}

fn driver_message(e: &DriverError) -> String {
    // Asking the driver for the words needs the driver (an error built in a test has none).
    if !driver_present() {
        return format!("{:?}", e.0);
    }
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    match e.error_string() {
        Ok(s) => format!("{name} ({})", s.to_string_lossy()),
        Err(_) => name,
    }
}

/// Attaches what was being done to a driver error.
pub(crate) trait DriverContext<T> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T, CudaError>;
}

impl<T> DriverContext<T> for Result<T, DriverError> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T, CudaError> {
        self.map_err(|source| CudaError::Driver {
            what: what(),
            source,
        })
    }
}
