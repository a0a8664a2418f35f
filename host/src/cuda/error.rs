//! The cuda layer's failures: the driver's ([`CudaError`]), and those of the libraries loaded
//! beside it ([`CublasError`], [`CuptiError`]), which a [`CudaError`] carries. Below every file
//! that fails: it imports only leaves (the driver check, the symbol loader, the fault's suspects,
//! CUPTI's oldest usable version).

use cudarc::driver::DriverError;
use ptxas_report::toolkit;

use super::cupti_record::MIN_API_VERSION;
use super::driver::driver_present;
use super::dynamic_library::MissingSymbol;
use super::fault;

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
    /// A download into a host buffer of another length (a bug of the caller's).
    #[error("{what}: the host buffer holds {host} elements, the device buffer {device}")]
    Size {
        what: String,
        host: usize,
        device: usize,
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

/// Why cuBLAS cannot be used.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum CublasError {
    #[error("cuBLAS not found: none of {} could be loaded ({reason})", toolkit::CUBLAS.files.join(", "))]
    NotFound { reason: String },
    #[error(transparent)]
    MissingSymbol(#[from] MissingSymbol),
    #[error("cuBLAS {call} failed with status {status}")]
    Call { call: &'static str, status: i32 },
}

/// Why CUPTI cannot read kernels.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum CuptiError {
    #[error("CUPTI not found: none of {tried} could be loaded ({reason})")]
    NotFound { tried: String, reason: String },
    #[error(transparent)]
    MissingSymbol(#[from] MissingSymbol),
    #[error(
        "CUPTI ({library}) has API version {version}; its kernel records lack fields the lab \
         reads before version {MIN_API_VERSION} (CUDA 11.8)"
    )]
    TooOld { library: String, version: u32 },
    #[error("CUPTI {call} failed: {message} (status {status})")]
    Call {
        call: &'static str,
        status: i32,
        message: String,
    },
}
