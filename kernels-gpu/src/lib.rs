//! The lab's GPU kernels and the variant table that drives the whole project.
//!
//! Compiled twice: for `nvptx64-nvidia-cuda` (the kernels, see `xtask/src/ptx.rs`), and for the
//! host, where only the [`variants`] table and the tuned family's index arithmetic ([`tuned_shape`]) are visible. Every entry point, launch bound, register
//! cap, host launch and report row comes from the table in `variants.rs`.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, core_intrinsics)
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

#[macro_use]
mod table;
pub mod tuned_shape;
pub mod variants;

#[cfg(target_arch = "nvptx64")]
mod gemm;
#[cfg(target_arch = "nvptx64")]
mod gemm_tuned;
#[cfg(target_arch = "nvptx64")]
mod gpu;
#[cfg(target_arch = "nvptx64")]
mod memcpy;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    gpu::trap()
}
