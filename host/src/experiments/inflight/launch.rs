//! Launching a table kernel with the arguments of its family's params struct
//! (`kernels_gpu::variants::{MemcpyParams, FmaParams, ChaseParams}`): the order and the kinds of
//! the arguments come from the table's `abi:` line, not from a hand-written pointer array.

use std::ffi::c_void;

use kernels_gpu::abi::KernelArg;

use crate::cuda::{CudaError, Gpu, Kernel};

/// Launches `kernel` on `grid` blocks of `threads` threads with `dyn_smem` bytes of dynamic
/// shared memory and `args` (a params struct's `args()`, in parameter order).
///
/// # Safety
/// `args` must be the arguments of `kernel`'s family and satisfy its launch contract (the
/// buffers they point at are live device allocations of the sizes the contract asks for).
pub unsafe fn launch_args<const N: usize>(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    grid: (u32, u32),
    threads: u32,
    dyn_smem: u32,
    mut args: [KernelArg; N],
) -> Result<(), CudaError> {
    // `cuLaunchKernel` reads each argument through its pointer before it returns; `args` stays
    // in place (neither moved nor dropped) until then.
    let mut params: [*mut c_void; N] = args.each_mut().map(|a| a.value_ptr());
    // SAFETY: the caller's contract; `params` points into `args`, alive for the call.
    unsafe { kernel.launch(gpu, grid, threads, dyn_smem, &mut params) }
}
