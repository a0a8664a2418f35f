//! The kernels themselves (nvptx64 only: `lib.rs` declares this module under that one `cfg`).
//! Each is a generic function over a line's numbers, instantiated once per line of the variant
//! table by its entry (`table_macros/`); what a line describes and the formulas a kernel shares
//! with the host are in `sections/` and `shapes/`, the inline PTX they run on in `gpu`.

pub(crate) mod block_trace;
pub(crate) mod chase;
pub(crate) mod fma;
pub(crate) mod fma_controls;
pub(crate) mod gemm;
pub(crate) mod gemm_epilogue;
pub(crate) mod gemm_hash;
pub(crate) mod gemm_judge;
pub(crate) mod gemm_mma;
pub(crate) mod gemm_pipeline;
pub(crate) mod gemm_ref;
pub(crate) mod gemm_tuned;
pub(crate) mod memcpy;
pub(crate) mod mma_ilp;
pub(crate) mod over_shape;
pub(crate) mod persistent_copy;
pub(crate) mod read;
pub(crate) mod smem_copy;
pub(crate) mod strided;
// Only the sm_90a module's build (xtask/src/ptx.rs, `PtxBuild::hopper`) sets `--cfg lab_sm90a`.
#[cfg(lab_sm90a)]
pub(crate) mod sm90a;
