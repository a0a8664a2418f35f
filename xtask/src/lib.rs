//! The kernel build shared by `cargo xtask` and the host's build script.
//!
//! - [`ptx`]: compile `kernels-gpu` to PTX with rustc's nvptx64 backend and add the directives
//!   rustc cannot express (launch bounds, register caps);
//! - [`ptxas`]: find ptxas, assemble a module, parse its resource report (also the driver JIT's);
//! - [`hopper`]: the sm_90a module (the wgmma entries) and the bars its ptxas report must clear;
//! - [`modules`]: the set of modules the lab uses, written to a folder with a manifest;
//! - [`traced`]: the GEMM lines' traced twins held to their entries' resources;
//! - [`driver`]: whether the NVIDIA driver is installed;
//! - [`arch_flag`]: the `--arch` values that exist and that the ptxas at hand takes.
//! - [`nvcc`], [`twin_header`], [`twin`]: nvcc's twin of the kernels (`nvcc/twin.cu`), its
//!   header generated from the variant table, its build and its checks against the table.

pub mod arch_flag;
pub mod driver;
pub mod hopper;
pub mod modules;
pub mod nvcc;
pub mod ptx;
pub mod ptxas;
pub mod traced;
pub mod twin;
pub mod twin_header;
