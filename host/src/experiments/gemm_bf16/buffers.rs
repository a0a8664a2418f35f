//! Device buffers of one BF16 GEMM problem, the launch of a table line in its shape, the timing
//! of ours, the compared module's and cuBLAS's `cublasGemmEx` interleaved, and the check of
//! every element of each timed side's output (as `gemm.rs` does for FP32, under the tensor-core
//! rule of `tolerance.rs`).

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::{Bf16GemmParams, Bf16GemmVariant};

use super::super::gemm_check::{Checked, GemmChecker, GemmReference};
use super::super::measurement::{Measurement, Peak};
use super::super::residency::residency_of;
use super::super::ExperimentError;
use super::inputs::Bf16Inputs;
use super::tolerance::{record, spread_factor};
use crate::cuda::tensor_peak::peak_bf16_dense_gflops;
use crate::cuda::{
    prepare, Cublas, CudaError, Gpu, Kernel, Launch, LaunchShape, LibraryKernel, LibraryKernelError,
};
use crate::results::{Check, GemmDims, Timing};
use crate::sampling::{time_rotating, SamplingConfig};

/// alpha and beta of the timed launches (the plain product).
pub const TIMED: (f32, f32) = (1.0, 0.0);
/// alpha and beta of the extra checked launch: both terms of the epilogue are exercised.
pub const EPILOGUE: (f32, f32) = (1.5, 0.5);
/// What every timed side's C holds before the timing: a finite value no correct element comes
/// near, so that an element a kernel never writes fails (beta = 0: no kernel reads it).
const UNWRITTEN: f32 = f32::MAX;

const TIMED_LAUNCH: &str = "the last timed launch";
const EPILOGUE_LAUNCH: &str = "one more launch on a fresh C";

/// The launch shape of `variant` over an M x N output: the table's grid, threads and dynamic
/// shared memory.
pub fn launch_shape(variant: &Bf16GemmVariant, dims: GemmDims) -> LaunchShape {
    LaunchShape {
        grid: variant.grid(dims.m, dims.n),
        threads: variant.threads(),
        dyn_smem: variant.dynamic_shared_bytes(),
    }
}

/// GFLOP/s of a product of `dims` at `timing`'s median.
pub fn gflops(dims: GemmDims, timing: &Timing) -> f64 {
    dims.flops() / (timing.median_ms * 1e-3) / 1e9
}

/// One line's figures: ours, the compared module's, and cuBLAS's samples interleaved with them
/// with the check of cuBLAS's last timed launch among them. Throughputs in GFLOP/s.
pub struct Bf16Measured {
    pub ours: Measurement,
    pub theirs: Option<Measurement>,
    pub cublas: Option<(Timing, Checked)>,
}

/// A timed side, and the index of its C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Ours = 0,
    Theirs = 1,
    Cublas = 2,
}

/// Device buffers of one BF16 problem: A (M x K) and B (K x N) as bf16 bits, C0 and every C
/// (M x N) f32, all row-major; the f64 reference of the widened inputs, its spread scaled to the
/// tensor-core rule; the check kernels.
pub struct Bf16GemmBuffers {
    dims: GemmDims,
    a: CudaSlice<u16>,
    b: CudaSlice<u16>,
    c0: CudaSlice<f32>,
    /// One C per side, allocated when the side is first used.
    c: [Option<CudaSlice<f32>>; 3],
    checker: GemmChecker,
    reference: GemmReference,
}

impl Bf16GemmBuffers {
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
            let a_wide = gpu.upload(&inputs.a_wide)?;
            let b_wide = gpu.upload(&inputs.b_wide)?;
            checker.reference(gpu, dims, &a_wide, &b_wide)?
        };
        reference.scale_spread(gpu, spread_factor(dims.k))?;
        Ok(Self {
            dims,
            a: gpu.upload(&inputs.a)?,
            b: gpu.upload(&inputs.b)?,
            c0: gpu.upload(&inputs.c0)?,
            c: [None, None, None],
            checker,
            reference,
        })
    }

    pub fn dims(&self) -> GemmDims {
        self.dims
    }

    /// The C of `side`, allocated on first use.
    fn c_of(&mut self, gpu: &Gpu, side: Side) -> Result<&mut CudaSlice<f32>, CudaError> {
        let slot = &mut self.c[side as usize];
        if slot.is_none() {
            *slot = Some(gpu.zeros(self.dims.m as usize * self.dims.n as usize)?);
        }
        Ok(slot.as_mut().expect("allocated above"))
    }

    /// Enqueues one launch of `kernel` (already [`prepare`]d) over `side`'s C in the line's
    /// shape.
    fn launch(
        &mut self,
        gpu: &Gpu,
        side: Side,
        kernel: &Kernel<'_>,
        variant: &Bf16GemmVariant,
        (alpha, beta): (f32, f32),
    ) -> Result<(), CudaError> {
        let shape = launch_shape(variant, self.dims);
        self.c_of(gpu, side)?;
        let Self { dims, a, b, c, .. } = self;
        let c = c[side as usize].as_mut().expect("allocated by c_of");
        let mut l = Launch::new(gpu);
        let params = Bf16GemmParams {
            a: l.input(a),
            b: l.input(b),
            c: l.output(c),
            m: dims.m as i32,
            n: dims.n as i32,
            k: dims.k as i32,
            alpha,
            beta,
        };
        // SAFETY: A, B and C hold M*K and K*N bf16 and M*N floats (cudarc's allocations are
        // aligned far beyond the 16 bytes the kernel's copies need); the lines take any size and
        // each dimension is at most 32768, so M*K etc. fit the kernels' 32-bit indices; the shape
        // is the table's for this line, the kernel allowed its dynamic shared memory by `prepare`.
        unsafe { l.launch(kernel, shape, &params) }
    }

    /// Enqueues cuBLAS's BF16 GEMM over the same inputs into cuBLAS's C.
    fn launch_cublas(
        &mut self,
        gpu: &Gpu,
        cublas: &Cublas,
        (alpha, beta): (f32, f32),
    ) -> Result<(), CudaError> {
        self.c_of(gpu, Side::Cublas)?;
        let Self { dims, a, b, c, .. } = self;
        let c = c[Side::Cublas as usize]
            .as_mut()
            .expect("allocated by c_of");
        cublas.gemm_bf16_row_major(gpu, (dims.m, dims.n, dims.k), alpha, a, b, beta, c)
    }

    /// Judges every element of `side`'s C as the output of a launch at `setting`.
    fn check_side(
        &self,
        gpu: &Gpu,
        side: Side,
        launch: &str,
        setting: (f32, f32),
    ) -> Result<Checked, CudaError> {
        let c = self.c[side as usize]
            .as_ref()
            .expect("a side is checked after it ran");
        let tally = self
            .checker
            .tally(gpu, &self.reference, &self.c0, c, setting)?;
        Ok(Checked {
            launch: launch.to_owned(),
            alpha: setting.0,
            beta: setting.1,
            tally,
        })
    }

    /// Resets `side`'s C to C0, for a launch with beta != 0.
    fn fresh_c(&mut self, gpu: &Gpu, side: Side) -> Result<(), CudaError> {
        self.c_of(gpu, side)?;
        let Self { c0, c, .. } = self;
        gpu.copy_device(c0, c[side as usize].as_mut().expect("allocated by c_of"))
    }

    /// Times `kernel` (alpha=1, beta=0), with `other` and cuBLAS when given (samples
    /// interleaved, each side into its own C), checks every element of each side's last timed
    /// launch, then each kernel again after one launch at alpha=1.5, beta=0.5 on a fresh C
    /// (cuBLAS's once per problem: [`Self::verify_cublas`]).
    pub fn measure(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        other: Option<&Kernel<'_>>,
        variant: &Bf16GemmVariant,
        plan: &SamplingConfig,
        cublas: Option<&Cublas>,
    ) -> Result<Bf16Measured, ExperimentError> {
        let shape = launch_shape(variant, self.dims);
        prepare(kernel, shape)?;
        if let Some(k) = other {
            prepare(k, shape)?;
        }
        let sides = [Side::Ours]
            .into_iter()
            .chain(other.map(|_| Side::Theirs))
            .chain(cublas.map(|_| Side::Cublas));
        for side in sides {
            // An earlier line's right output must not stand in for an element this one never
            // writes.
            let c = self.c_of(gpu, side)?;
            gpu.fill(c, UNWRITTEN)?;
        }
        let kernels: Vec<(Side, &Kernel<'_>)> = std::iter::once((Side::Ours, kernel))
            .chain(other.map(|k| (Side::Theirs, k)))
            .collect();
        let count = kernels.len() + usize::from(cublas.is_some());
        let mut timings = time_rotating(gpu, plan, count, |i| match kernels.get(i) {
            Some(&(side, k)) => self.launch(gpu, side, k, variant, TIMED),
            None => self.launch_cublas(gpu, cublas.expect("the last side is cuBLAS"), TIMED),
        })?
        .into_iter();
        let ours = timings.next().expect("ours is timed");
        let theirs = other.and_then(|_| timings.next());
        let cublas = match timings.next() {
            Some(t) => Some((t, self.check_side(gpu, Side::Cublas, TIMED_LAUNCH, TIMED)?)),
            None => None,
        };
        let ours = self.finish(gpu, Side::Ours, kernel, variant, ours)?;
        let theirs = match (other, theirs) {
            (Some(k), Some(t)) => Some(self.finish(gpu, Side::Theirs, k, variant, t)?),
            _ => None,
        };
        Ok(Bf16Measured {
            ours,
            theirs,
            cublas,
        })
    }

    /// `kernel`'s figures from its `timing`: residency, GFLOP/s and the check of its timed
    /// output and of one launch at alpha=1.5, beta=0.5.
    fn finish(
        &mut self,
        gpu: &Gpu,
        side: Side,
        kernel: &Kernel<'_>,
        variant: &Bf16GemmVariant,
        timing: Timing,
    ) -> Result<Measurement, ExperimentError> {
        let resident = residency_of(
            gpu,
            kernel,
            variant.threads(),
            variant.dynamic_shared_bytes(),
        )?;
        let timed = self.check_side(gpu, side, TIMED_LAUNCH, TIMED)?;
        self.fresh_c(gpu, side)?;
        self.launch(gpu, side, kernel, variant, EPILOGUE)?;
        let epilogue = self.check_side(gpu, side, EPILOGUE_LAUNCH, EPILOGUE)?;
        let info = gpu.info();
        let peak =
            peak_bf16_dense_gflops(info.compute_capability, info.sm_count, info.sm_clock_khz);
        let throughput = gflops(self.dims, &timing);
        // Unknown peak: no flag (the check is `value > peak` for a positive peak only).
        let peak = Peak {
            value: peak.unwrap_or(0.0),
            unit: "GFLOP/s",
            what: "dense BF16 tensor-core",
        };
        Ok(Measurement::new(
            resident,
            timing,
            throughput,
            record(self.dims, &[timed, epilogue]),
            peak,
        ))
    }

    /// cuBLAS's record: the checks of its timed launches (`timed`, one per line it was
    /// interleaved with, from [`Bf16Measured::cublas`]) and of one call at alpha=1.5, beta=0.5
    /// on a fresh C.
    pub fn verify_cublas(
        &mut self,
        gpu: &Gpu,
        cublas: &Cublas,
        timed: Vec<Checked>,
    ) -> Result<Check, CudaError> {
        self.fresh_c(gpu, Side::Cublas)?;
        self.launch_cublas(gpu, cublas, EPILOGUE)?;
        let mut parts = timed;
        parts.push(self.check_side(gpu, Side::Cublas, EPILOGUE_LAUNCH, EPILOGUE)?);
        Ok(record(self.dims, &parts))
    }

    /// The kernel cuBLAS runs for this problem (one timed call into cuBLAS's C, recorded through
    /// CUPTI) and its theoretical occupancy. Overwrites cuBLAS's C: call it before
    /// [`Self::measure`] or after [`Self::verify_cublas`].
    pub fn cublas_kernel(
        &mut self,
        gpu: &Gpu,
        cublas: &Cublas,
    ) -> Result<LibraryKernel, LibraryKernelError> {
        self.c_of(gpu, Side::Cublas)?;
        LibraryKernel::read(gpu, || self.launch_cublas(gpu, cublas, TIMED))
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
        let dims = GemmDims {
            m: 333,
            n: 250,
            k: 80,
        };
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

    #[test]
    fn throughput_is_the_products_flops_over_the_median() {
        let t = Timing {
            samples_ms: vec![2.0],
            median_ms: 2.0,
            min_ms: 2.0,
            max_ms: 2.0,
            sm_clock_mhz_before: None,
            sm_clock_mhz_after: None,
            noise: None,
            noise_target: None,
            launches_per_sample: None,
            clock_dropped_samples: 0,
            flags: Vec::new(),
        };
        // 2 * 4096^3 flops in 2 ms: 68.7 TFLOP/s.
        let g = gflops(GemmDims::square(4096), &t);
        assert!((g - 68_719.476_736).abs() < 1e-6, "{g}");
    }
}
