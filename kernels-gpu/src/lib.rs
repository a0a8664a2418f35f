//! The lab's GPU kernels and the variant table that drives the whole project.
//!
//! Compiled twice: for `nvptx64-nvidia-cuda` (the kernels, see `xtask/src/ptx.rs`), and for the
//! host, which sees everything but the kernels and their plumbing. Every entry point, launch
//! bound, register cap, host launch and report row comes from the table in [`variants`].
//!
//! - [`variants`]: the table's lines; [`entries`]: the entries they make, in table order;
//!   [`abi`]: the kernel ABI each family's parameter list becomes.
//! - [`sections`]: what a line of each section describes and the checks it must pass;
//!   `table_macros`: the macros that expand the table into constants, checks and entries.
//! - [`shapes`]: the GEMM families' index arithmetic, shared by the kernels and the host.
//! - [`models`]: what the host checks the kernels' results against.
//! - `kernels` and `gpu` (nvptx64 only): the kernels, and the inline PTX they run on.
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
// The sm_90a build (`--cfg lab_sm90a`) compiles only the sm_90a lines' entries (`kernel_entry!`):
// there the plain entries' kernels and plumbing are dead code. The plain build still warns of any.
#![cfg_attr(lab_sm90a, allow(dead_code))]

#[macro_use]
mod table_macros;
#[macro_use]
pub mod sections;
pub mod abi;
pub mod entries;
#[cfg(not(target_arch = "nvptx64"))]
pub mod experiment_names;
pub mod models;
pub mod shapes;
pub mod variants;

// The kernels and their GPU plumbing exist only in the nvptx64 build.
#[cfg(target_arch = "nvptx64")]
mod gpu;
#[cfg(target_arch = "nvptx64")]
mod kernels;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    gpu::trap()
}
