//! The BF16 tensor-core GEMM family on the host (the `gemm_bf16` lines of the variant table,
//! `kernels-gpu/src/gemm_mma.rs`), the pieces an experiment builds its rows from:
//! - [`inputs`]: random bf16 A and B (the FP32 problem's inputs rounded to bf16) and their exact
//!   f32 widening;
//! - [`buffers`]: the problem on the device, a line's launch in the table's shape, ours, the
//!   compared module's and cuBLAS's BF16 GEMM timed interleaved, every element of each checked,
//!   and the kernel cuBLAS runs, read through CUPTI;
//! - [`tolerance`]: the rule a tensor-core output is held to, and why.

pub mod buffers;
pub mod inputs;
#[cfg(test)]
mod margins;
#[cfg(test)]
mod tensor_core_model;
pub mod tolerance;

pub use buffers::{launch_shape, Bf16GemmBuffers, EPILOGUE, TIMED};
pub use inputs::Bf16Inputs;
