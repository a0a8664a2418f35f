//! What the kernels compute, as the host checks it: CPU models of the probes' and the
//! microbenchmarks' results (host only), and the GEMM check's rule and output hash, which are
//! compiled for the GPU too so that both sides run the very same arithmetic.

pub mod gemm_tolerance;
#[cfg(not(target_arch = "nvptx64"))]
pub mod mma_sync;
pub mod output_hash;
#[cfg(not(target_arch = "nvptx64"))]
pub mod probe_results;
#[cfg(not(target_arch = "nvptx64"))]
pub mod wgmma_tile;
