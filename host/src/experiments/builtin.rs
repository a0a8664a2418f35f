//! The kernels built into the binary (PTX from rustc's nvptx64 backend, embedded by build.rs).

pub use crate::modules::{CAPPED, MAIN};

/// What built the kernels, for the results.
pub const TOOLCHAIN: &str = crate::modules::RUSTC;
/// The `.target` of the embedded PTX.
pub const PTX_ARCH: &str = crate::modules::PTX_ARCH;
