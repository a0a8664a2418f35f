//! The driver side of the calculator, through [`crate::cuda`]: a device's attributes and limits,
//! and PTX JIT-compiled under a register cap (the driver's own occupancy answer is
//! [`Kernel::max_active_blocks`](crate::cuda::Kernel::max_active_blocks)).
//!
//! [`Gpu::open`] checks that the CUDA driver library can be loaded before touching it, so a
//! machine without a GPU gets [`CudaError::NoDriver`] instead of a panic.

use crate::cuda::{CudaError, Gpu, JitOptions, Module};
use crate::occupancy::arch::Limits;
use crate::occupancy::device_limits::DeviceAttributes;

/// The attributes the occupancy arithmetic needs, as the driver reported them when `gpu` was
/// opened, for a golden file's record.
pub fn device_attributes(gpu: &Gpu) -> DeviceAttributes {
    let limits = gpu.limits();
    DeviceAttributes::from_device_info(
        gpu.info(),
        limits.max_threads_per_block,
        limits.reserved_smem_per_block,
    )
}

/// Limits of GPU `ordinal`, read from the driver.
pub fn limits_of_device(ordinal: u32) -> Result<Limits, CudaError> {
    Ok(Gpu::open(ordinal)?.limits().clone())
}

/// JIT-compiles `ptx` on `gpu`, under a cap of `reg_cap` registers per thread (0: no cap).
pub fn jit(gpu: &Gpu, name: &str, ptx: &str, reg_cap: u32) -> Result<Module, CudaError> {
    let jit = JitOptions {
        max_registers: (reg_cap > 0).then_some(reg_cap),
    };
    Module::load_with(gpu, name, ptx.as_bytes(), jit)
}
