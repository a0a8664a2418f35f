//! The sm_90a module (`kernel_source::builtin::HOPPER`, the wgmma entries): loaded only on a device of compute
//! capability 9.0, the only one whose architecture-specific features (`sm_90a`) it may use;
//! anywhere else the rows that need it say "needs sm_90a".

use std::sync::Arc;

use super::device::Gpu;
use super::error::CudaError;
use super::module::Module;

#[derive(Debug, thiserror::Error)]
pub enum HopperError {
    #[error("needs sm_90a (a compute capability 9.0 device: H100, H200, GH200); this device is sm_{}{}", .0.0, .0.1)]
    NeedsSm90a((u32, u32)),
    #[error(transparent)]
    Cuda(#[from] CudaError),
}

/// Whether a device of compute capability `cc` can run the sm_90a module.
pub fn runs_sm90a(cc: (u32, u32)) -> Result<(), HopperError> {
    if cc == (9, 0) {
        Ok(())
    } else {
        Err(HopperError::NeedsSm90a(cc))
    }
}

/// The built-in sm_90a module on `gpu` (compiled once, shared), or why it cannot be loaded
/// there.
pub fn hopper_module(gpu: &Gpu) -> Result<Arc<Module>, HopperError> {
    runs_sm90a(gpu.info().compute_capability)?;
    Ok(gpu.builtin_module(
        "built-in sm_90a kernels",
        crate::kernel_source::builtin::HOPPER,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_compute_capability_9_0_runs_the_sm90a_module() {
        assert!(runs_sm90a((9, 0)).is_ok());
        for cc in [(8, 0), (8, 9), (10, 0), (12, 0)] {
            let why = runs_sm90a(cc).unwrap_err().to_string();
            assert!(why.starts_with("needs sm_90a"), "{why}");
            assert!(why.contains(&format!("sm_{}{}", cc.0, cc.1)), "{why}");
        }
    }
}
