//! The BF16 GEMM family on the host, as `gemm.rs` is the FP32 one: device buffers of one problem
//! and what the shared sides (`gemm_sides.rs`: the
//! timing of ours, the compared module's and cuBLAS's `cublasGemmEx` interleaved, and the check
//! of every element of each timed side's output) need of BF16: the launch of a table line in its
//! shape, the tensor-core rule of `bf16_tolerance.rs` and the dense BF16 peak. Shared by the BF16
//! experiment, the register experiment's BF16 lines, the shape sweep and the line choice.

use kernels_gpu::variants::{Bf16GemmParams, Bf16GemmVariant};

use super::bf16_inputs::Bf16Inputs;
use super::bf16_tolerance::{record, spread_factor};
use super::gemm::gemm_kind;
use super::gemm_check::GemmChecker;
use super::gemm_sides::GemmSides;
use super::measurement::Peak;
use crate::cuda::tensor_peak::peak_bf16_dense_gflops;
use crate::cuda::{CudaError, Gpu, LaunchShape};
use crate::results::GemmDims;

pub use super::gemm_sides::{gflops, EPILOGUE, TIMED};

/// The launch shape of `variant` over an M x N output: the table's grid, threads and dynamic
/// shared memory.
pub fn launch_shape(variant: &Bf16GemmVariant, dims: GemmDims) -> LaunchShape {
    LaunchShape {
        grid: variant.grid(dims.m, dims.n),
        threads: variant.threads(),
        dyn_smem: variant.dynamic_shared_bytes(),
    }
}

/// The BF16 family: bf16 operands (as bits) with f32 C, the `BF16_GEMM` table, cuBLAS's
/// `cublasGemmEx`, the tensor-core check and the dense BF16 peak.
pub struct Bf16;

gemm_kind! {
    Bf16 { elem: u16, line: Bf16GemmVariant, params: Bf16GemmParams, shape: launch_shape,
        record: record, peak: bf16_peak }
}

/// The dense BF16 tensor-core peak; unknown, no flag (the check is `value > peak` for a positive
/// peak only).
fn bf16_peak(gpu: &Gpu) -> Peak {
    let info = gpu.info();
    let peak = peak_bf16_dense_gflops(info.compute_capability, info.sm_count, info.sm_clock_khz);
    Peak {
        value: peak.unwrap_or(0.0),
        unit: "GFLOP/s",
        what: "dense BF16 tensor-core",
    }
}

/// Device buffers of one BF16 problem: A (M x K) and B (K x N) as bf16 bits, C0 and every C
/// (M x N) f32, all row-major; the f64 reference of the widened inputs, its spread scaled to the
/// tensor-core rule; the check kernels.
pub type Bf16GemmBuffers = GemmSides<Bf16>;

impl GemmSides<Bf16> {
    /// The problem of `seed` ([`Bf16Inputs::new`]) on the device, with its reference.
    pub fn new(gpu: &Gpu, dims: GemmDims, seed: u64) -> Result<Self, CudaError> {
        Self::from_inputs(gpu, &Bf16Inputs::new(dims, seed))
    }

    /// `inputs` on the device; the reference computed on the GPU from the widened inputs (which
    /// stay on the device only for that), its spread scaled by F(K).
    pub fn from_inputs(gpu: &Gpu, inputs: &Bf16Inputs) -> Result<Self, CudaError> {
        let dims = inputs.dims;
        let checker = GemmChecker::new(gpu)?;
        let mut reference = {
            let a_wide = gpu.upload(&inputs.a.wide)?;
            let b_wide = gpu.upload(&inputs.b.wide)?;
            checker.reference(gpu, dims, &a_wide, &b_wide)?
        };
        reference.scale_spread(gpu, spread_factor(dims.k))?;
        let operands = (
            gpu.upload(&inputs.a.bits)?,
            gpu.upload(&inputs.b.bits)?,
            gpu.upload(&inputs.c0)?,
        );
        Ok(Self::from_parts(dims, operands, checker, reference))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_gpu::variants::{BF16_GEMM, SHARED_WITHOUT_OPT_IN};

    /// Every line's launch comes from the table: the grid rounded up over any size, x over N,
    /// and the dynamic shared memory, with the opt-in where a line's stages pass 48 KB.
    #[test]
    fn launch_shapes_come_from_the_bf16_table() {
        let (m, n, k) = (333, 250, 80);
        let dims = GemmDims { m, n, k };
        for v in BF16_GEMM {
            let s = launch_shape(v, dims);
            assert_eq!(
                s.grid,
                (250u32.div_ceil(v.shape.bn), 333u32.div_ceil(v.shape.bm)),
                "{}",
                v.label
            );
            assert_eq!(
                (s.threads, s.dyn_smem),
                (v.threads(), v.shape.shared_bytes())
            );
            assert_eq!(
                s.dyn_smem_opt_in().is_some(),
                v.dynamic_shared_bytes() > SHARED_WITHOUT_OPT_IN
            );
            assert_eq!(launch_shape(v, GemmDims { m: 1, n: 1, k: 8 }).grid, (1, 1));
        }
    }
}
