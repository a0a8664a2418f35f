//! The lab's GPU kernels and the variant table that drives the whole project.
//!
//! Compiled twice: for `nvptx64-nvidia-cuda` (the kernels, see `xtask/src/ptx.rs`), and for the
//! host, where the [`variants`] table, the kernel ABI ([`abi`]), the tuned and tensor-core GEMM
//! families' index arithmetic ([`tuned_shape`], [`mma_shape`], [`tma_mma_shape`], [`block_order`]), the mma fragment layouts
//! ([`mma_layout`]) and the CPU references of the kernels' results ([`reference`],
//! [`mma_reference`]) are visible. Every entry point, launch bound, register cap, host launch and report row comes
//! from the table in `variants.rs`.
#![no_std]
// `core::f64::math` (fused multiply-add and square root without std): the GEMM check's rule
// (`gemm_tolerance`) runs the same arithmetic on the GPU and in the host's CPU twin.
#![feature(core_float_math)]
// The memcpy grid's cartesian product recurses once per (threads, loads) pair.
#![recursion_limit = "256"]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, core_intrinsics)
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

#[macro_use]
mod table;
pub mod wgmma_lines;
#[macro_use]
pub mod wgemm_lines;
pub mod smem_copy_lines;
#[macro_use]
mod table_sections;
pub mod abi;
pub mod block_order;
pub mod check_kernels;
mod copy_lines;
pub mod entries;
#[cfg(not(target_arch = "nvptx64"))]
pub mod experiment_names;
mod gemm_lines;
pub mod gemm_tolerance;
mod limits;
pub mod mma_layout;
#[cfg(not(target_arch = "nvptx64"))]
pub mod mma_reference;
pub mod mma_shape;
pub mod output_hash;
mod probe_lines;
mod read_lines;
#[cfg(not(target_arch = "nvptx64"))]
pub mod reference;
mod table_rules;
mod tensor_variants;
mod text_rules;
pub mod tma_mma_shape;
pub mod tuned_shape;
pub mod variants;
#[cfg(not(target_arch = "nvptx64"))]
pub mod wgmma_reference;

/// Declares the modules that exist only in the nvptx64 build (the kernels themselves and their
/// GPU plumbing) under one `cfg`, keeping each module at its crate-root path (`crate::gemm`,
/// ...) so the kernels' code, and so their PTX, does not depend on how they are declared.
macro_rules! nvptx_only {
    ($($(#[$attr:meta])* mod $name:ident;)*) => {
        $( $(#[$attr])* #[cfg(target_arch = "nvptx64")] mod $name; )*
    };
}

nvptx_only! {
    mod chase;
    mod fma;
    mod fma_controls;
    mod gemm;
    mod gemm_check;
    mod gemm_epilogue;
    mod gemm_hash;
    mod gemm_mma;
    mod gemm_ref;
    mod gemm_tuned;
    mod gpu;
    mod memcpy;
    mod mma_ilp;
    mod read;
    mod smem_copy;
    mod strided;
    // Only the sm_90a module's build (xtask/src/ptx.rs, `PtxBuild::hopper`) sets `--cfg lab_sm90a`.
    #[cfg(lab_sm90a)]
    mod gemm_tma_mma;
    #[cfg(lab_sm90a)]
    mod gemm_wgmma;
    #[cfg(lab_sm90a)]
    mod tma_copy;
    #[cfg(lab_sm90a)]
    mod tma_ring;
    #[cfg(lab_sm90a)]
    mod wgmma;
}

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    gpu::trap()
}
