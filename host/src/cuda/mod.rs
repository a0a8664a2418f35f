//! The CUDA driver API, through `cudarc`, reduced to what the experiments need: a device with its
//! limits, kernel modules loaded with the JIT's info log, kernel handles and events; and the
//! libraries beside it: cuBLAS, and CUPTI for the kernel a cuBLAS call really ran.
//!
//! Check [`driver_present`] before anything else here: without the driver library every other
//! call fails.

pub mod clock_probe;
mod cublas;
pub mod cupti;
pub mod cupti_record;
pub mod deadline;
mod device;
mod driver;
mod dynamic_library;
mod error;
pub mod fault;
pub mod hopper;
pub mod launch;
pub mod library_kernel;
mod module;
mod module_cache;
mod module_global;
pub mod pitched_copy;
pub mod ptx_assembly;
mod side_stream;
mod sm_clock;
pub mod split_scratch;
pub mod tensor_map;
pub mod tensor_peak;
pub mod trace_global;

pub use cublas::{version_text, ColumnMajorGemm, Cublas, GemmInput, Routine};
pub use cupti::{cupti, Cupti};
pub use cupti_record::KernelRecord;
pub use device::{peak_dram_gbps, peak_fp32_gflops, Gpu, HostBuffer};
pub use driver::{disable_jit_cache, driver_present};
pub use dynamic_library::MissingSymbol;
pub use error::{CublasError, CudaError, CuptiError};
pub use launch::{prepare, Launch, LaunchShape};
pub use library_kernel::{LibraryKernel, LibraryKernelError};
pub use module::{Compiler, JitOptions, Kernel, Module};
pub use module_global::ModuleGlobal;
pub use side_stream::SideStream;
