//! What the tensor-core GPU tests share: device 0 checked for sm_80 (mma.sync bf16, ldmatrix,
//! cp.async), and the built-in tensor-core module.

// Each test crate that includes this uses part of it.
#![allow(dead_code)]

use host::cuda::{Gpu, Module};

/// Device 0, or a panic that says why `what` cannot run here.
pub fn sm80_gpu(what: &str) -> Gpu {
    let gpu = Gpu::open(0).unwrap_or_else(|e| {
        panic!("{what} need a CUDA GPU (sm_80 or newer), and device 0 could not be opened: {e}")
    });
    let cc = gpu.info().compute_capability;
    assert!(
        cc >= (8, 0),
        "{what} need sm_80 or newer (mma.sync bf16, ldmatrix, cp.async); device 0 is sm_{}{}",
        cc.0,
        cc.1
    );
    gpu
}

/// The built-in tensor-core kernels (`kernels_tensor.ptx`).
pub fn built_in(gpu: &Gpu) -> Module {
    Module::load(
        gpu,
        "built-in tensor-core kernels",
        host::kernel_source::builtin::TENSOR.as_bytes(),
    )
    .expect("loading the built-in module")
}
