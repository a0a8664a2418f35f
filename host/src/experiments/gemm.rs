//! The GEMM kernel family on the host: its parameter list, buffers with random inputs, the
//! launch, the timing and the check. Shared by experiment 1 (every variant) and experiment 3 (one
//! variant under register caps).

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::{GemmParams, GemmVariant, BM};

use super::inputs::random_floats;
use super::verify::{check_gemm, gemm_sample_points, GemmInputs, GEMM_RANDOM_SAMPLES};
use super::{ExperimentError, Measured};
use crate::cuda::{CudaError, Gpu, Kernel, Launch, LaunchShape};
use crate::results::{Check, Timing};
use crate::sampling::{time_sides, SamplingConfig, Side};

/// alpha and beta of the timed launches (the blog's plain product).
const TIMED: (f32, f32) = (1.0, 0.0);
/// alpha and beta of the verification launch: both terms of the epilogue are exercised.
const VERIFIED: (f32, f32) = (1.5, 0.5);

/// Device and host copies of one GEMM problem, M = N = K = `size`.
pub struct GemmBuffers {
    size: u32,
    a_host: Vec<f32>,
    b_t_host: Vec<f32>,
    c0_host: Vec<f32>,
    a: CudaSlice<f32>,
    b: CudaSlice<f32>,
    c: CudaSlice<f32>,
    points: Vec<(u32, u32)>,
}

impl GemmBuffers {
    /// Random A, B and initial C in [-1, 1), seeded.
    pub fn new(gpu: &Gpu, size: u32, seed: u64) -> Result<Self, ExperimentError> {
        let n = size as usize;
        let a_host = random_floats(n * n, seed);
        let b_host = random_floats(n * n, seed.wrapping_add(1));
        let c0_host = random_floats(n * n, seed.wrapping_add(2));
        let mut b_t_host = vec![0.0f32; n * n];
        for (r, row) in b_host.chunks_exact(n).enumerate() {
            for (c, &x) in row.iter().enumerate() {
                b_t_host[c * n + r] = x;
            }
        }
        Ok(Self {
            size,
            a: gpu.upload(&a_host)?,
            b: gpu.upload(&b_host)?,
            c: gpu.upload(&c0_host)?,
            points: gemm_sample_points(size, BM, GEMM_RANDOM_SAMPLES, seed),
            a_host,
            b_t_host,
            c0_host,
        })
    }

    /// Enqueues one launch of `kernel` over the whole C, in the variant table's shape.
    fn launch(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        variant: &GemmVariant,
        (alpha, beta): (f32, f32),
    ) -> Result<(), CudaError> {
        let dim = self.size as i32;
        let shape = LaunchShape {
            grid: variant.grid(self.size, self.size),
            threads: variant.threads(),
            dyn_smem: 0,
        };
        let mut l = Launch::new(gpu);
        let params = GemmParams {
            a: l.input(&self.a),
            b: l.input(&self.b),
            c: l.output(&mut self.c),
            m: dim,
            n: dim,
            k: dim,
            alpha,
            beta,
        };
        // SAFETY: A, B and C hold size*size floats, M = N = K = size is a multiple of the block
        // tile (checked at parse time), and the shape is the variant table's for this entry.
        unsafe { l.launch(kernel, shape, &params) }
    }

    /// Times `kernel` (alpha=1, beta=0), and `other` with it when there is one (samples
    /// interleaved), then checks each with one launch with alpha=1.5, beta=0.5 on a fresh C.
    pub fn measure(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        other: Option<&Kernel<'_>>,
        variant: &GemmVariant,
        plan: &SamplingConfig,
    ) -> Result<(Measured, Option<Measured>), ExperimentError> {
        let (ours, theirs) = time_sides(gpu, plan, other.is_some(), |side| {
            let k = match (side, other) {
                (Side::Theirs, Some(k)) => k,
                _ => kernel,
            };
            self.launch(gpu, k, variant, TIMED)
        })?;
        let ours = self.finish(gpu, kernel, variant, ours)?;
        let theirs = match (other, theirs) {
            (Some(k), Some(t)) => Some(self.finish(gpu, k, variant, t)?),
            _ => None,
        };
        Ok((ours, theirs))
    }

    /// `kernel`'s figures from its `timing`: residency, GFLOP/s and the check.
    fn finish(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        variant: &GemmVariant,
        timing: Timing,
    ) -> Result<Measured, ExperimentError> {
        let resident = super::residency_of(gpu, kernel, variant.threads(), 0)?;
        let check = self.verify(gpu, kernel, variant)?;
        let n = f64::from(self.size);
        let throughput = 2.0 * n * n * n / (timing.median_ms * 1e-3) / 1e9;
        Ok(Measured::new(
            resident,
            timing,
            throughput,
            check,
            gpu.info().peak_fp32_gflops,
            "GFLOP/s",
            "FP32",
        ))
    }

    fn verify(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        variant: &GemmVariant,
    ) -> Result<Check, ExperimentError> {
        gpu.overwrite(&self.c0_host, &mut self.c)?;
        self.launch(gpu, kernel, variant, VERIFIED)?;
        gpu.synchronize()?;
        let c = gpu.download(&self.c)?;
        Ok(check_gemm(
            &GemmInputs {
                size: self.size,
                a: &self.a_host,
                b_t: &self.b_t_host,
                c0: &self.c0_host,
                alpha: VERIFIED.0,
                beta: VERIFIED.1,
            },
            &c,
            &self.points,
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::cuda::{ptx_entry_params, PtxParam};
    use kernels_gpu::abi::ParamKind;
    use kernels_gpu::variants::{entries, REGS};

    /// Every family's declared parameter list against the PTX of each of its entries in every
    /// module the lab builds (launch-bounded, unbounded, capped): the launch pushes what the
    /// table declares, so the two must agree.
    #[test]
    fn every_entry_takes_its_familys_parameters() {
        let modules = [crate::modules::MAIN, crate::modules::UNBOUNDED]
            .into_iter()
            .chain(crate::modules::CAPPED.iter().map(|(_, ptx)| *ptx));
        let mut checked = 0;
        for ptx in modules {
            for e in entries() {
                if let Some(found) = ptx_entry_params(ptx, e.name) {
                    // rustc marks every pointer `.ptr`: the kinds match one for one.
                    let declared: Vec<PtxParam> = e
                        .params()
                        .iter()
                        .map(|p| match p.kind {
                            ParamKind::Ptr => PtxParam::Pointer,
                            ParamKind::U64 => PtxParam::Bits64,
                            ParamKind::I32 | ParamKind::U32 => PtxParam::Bits32,
                            ParamKind::F32 => PtxParam::F32,
                        })
                        .collect();
                    assert_eq!(found, declared, "{}", e.name);
                    checked += 1;
                }
            }
        }
        // Not vacuous: the main module has every entry, each capped module the regs variant.
        for e in entries() {
            assert!(
                ptx_entry_params(crate::modules::MAIN, e.name).is_some(),
                "{}",
                e.name
            );
        }
        for (cap, ptx) in crate::modules::CAPPED {
            assert!(
                ptx_entry_params(ptx, REGS.gemm().entry).is_some(),
                "cap {cap}"
            );
        }
        assert!(checked > entries().count());
    }
}
