//! The GEMM kernel family on the host: its parameter list, buffers with random inputs, the
//! launch in the variant table's shape (grid, threads, dynamic shared memory), the timing (with
//! the compared module and cuBLAS interleaved) and the check. Shared by experiment 1 (every
//! variant, and cuBLAS) and experiment 3 (one variant under register caps).

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::{GemmParams, GemmVariant};

use super::inputs::random_floats;
use super::verify::{check_gemm, gemm_sample_points, GemmInputs, GEMM_RANDOM_SAMPLES};
use super::{ExperimentError, Measured};
use crate::cuda::{prepare, Cublas, CudaError, Gpu, Kernel, Launch, LaunchShape};
use crate::results::{Check, GemmDims, Timing};
use crate::sampling::{time_rotating, SamplingConfig};

/// alpha and beta of the timed launches (the blog's plain product).
const TIMED: (f32, f32) = (1.0, 0.0);
/// alpha and beta of the verification launch: both terms of the epilogue are exercised.
const VERIFIED: (f32, f32) = (1.5, 0.5);
/// Tile of the sampled check points (every tile corner; the tuned tiles are multiples of it).
const CHECK_TILE: u32 = 64;

/// The launch shape of `variant` over an M x N output: the variant table's grid, threads and
/// dynamic shared memory.
pub fn launch_shape(variant: &GemmVariant, dims: GemmDims) -> LaunchShape {
    LaunchShape {
        grid: variant.grid(dims.m, dims.n),
        threads: variant.threads(),
        dyn_smem: variant.dynamic_shared_bytes(),
    }
}

/// One variant's figures: ours, the compared module's, and the cuBLAS samples interleaved with
/// them.
pub struct GemmMeasured {
    pub ours: Measured,
    pub theirs: Option<Measured>,
    pub cublas: Option<Timing>,
}

/// Device and host copies of one GEMM problem: A is M x K, B is K x N, C is M x N, row-major.
pub struct GemmBuffers {
    dims: GemmDims,
    a_host: Vec<f32>,
    b_t_host: Vec<f32>,
    c0_host: Vec<f32>,
    a: CudaSlice<f32>,
    b: CudaSlice<f32>,
    c: CudaSlice<f32>,
    points: Vec<(u32, u32)>,
}

impl GemmBuffers {
    /// Random A, B and initial C in [-1, 1), seeded. At M = N = K the inputs are those of the
    /// square runs before `MxNxK` sizes.
    pub fn new(gpu: &Gpu, dims: GemmDims, seed: u64) -> Result<Self, ExperimentError> {
        let (m, n, k) = (dims.m as usize, dims.n as usize, dims.k as usize);
        let a_host = random_floats(m * k, seed);
        let b_host = random_floats(k * n, seed.wrapping_add(1));
        let c0_host = random_floats(m * n, seed.wrapping_add(2));
        let mut b_t_host = vec![0.0f32; k * n];
        for (r, row) in b_host.chunks_exact(n).enumerate() {
            for (c, &x) in row.iter().enumerate() {
                b_t_host[c * k + r] = x;
            }
        }
        Ok(Self {
            dims,
            a: gpu.upload(&a_host)?,
            b: gpu.upload(&b_host)?,
            c: gpu.upload(&c0_host)?,
            points: gemm_sample_points((dims.m, dims.n), CHECK_TILE, GEMM_RANDOM_SAMPLES, seed),
            a_host,
            b_t_host,
            c0_host,
        })
    }

    /// Enqueues one launch of `kernel` over the whole C, in the variant table's shape (the
    /// kernel already [`prepare`]d for it).
    fn launch(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        variant: &GemmVariant,
        (alpha, beta): (f32, f32),
    ) -> Result<(), CudaError> {
        let shape = launch_shape(variant, self.dims);
        let mut l = Launch::new(gpu);
        let params = GemmParams {
            a: l.input(&self.a),
            b: l.input(&self.b),
            c: l.output(&mut self.c),
            m: self.dims.m as i32,
            n: self.dims.n as i32,
            k: self.dims.k as i32,
            alpha,
            beta,
        };
        // SAFETY: A, B and C hold M*K, K*N and M*N floats; the sizes tile where the variant's
        // family needs it (checked at parse time: `flags::check_tiling`), each dimension is at
        // most 32768 (so M*K etc. fit the kernels' 32-bit indices); the shape is the variant
        // table's for this entry, the kernel allowed its dynamic shared memory by `prepare`.
        unsafe { l.launch(kernel, shape, &params) }
    }

    /// Enqueues cuBLAS's SGEMM over the same buffers.
    fn launch_cublas(
        &mut self,
        gpu: &Gpu,
        cublas: &Cublas,
        (alpha, beta): (f32, f32),
    ) -> Result<(), CudaError> {
        let d = self.dims;
        cublas.sgemm_row_major(
            gpu,
            (d.m, d.n, d.k),
            alpha,
            &self.a,
            &self.b,
            beta,
            &mut self.c,
        )
    }

    /// Times `kernel` (alpha=1, beta=0), with `other` and cuBLAS when given (samples
    /// interleaved), then checks each kernel with one launch with alpha=1.5, beta=0.5 on a fresh
    /// C (cuBLAS is checked once per run: [`Self::verify_cublas`]).
    pub fn measure(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        other: Option<&Kernel<'_>>,
        variant: &GemmVariant,
        plan: &SamplingConfig,
        cublas: Option<&Cublas>,
    ) -> Result<GemmMeasured, ExperimentError> {
        let shape = launch_shape(variant, self.dims);
        prepare(kernel, shape)?;
        if let Some(k) = other {
            prepare(k, shape)?;
        }
        let (ours, theirs, cublas_timing) = self.time(gpu, plan, kernel, other, variant, cublas)?;
        let ours = self.finish(gpu, kernel, variant, ours)?;
        let theirs = match (other, theirs) {
            (Some(k), Some(t)) => Some(self.finish(gpu, k, variant, t)?),
            _ => None,
        };
        Ok(GemmMeasured {
            ours,
            theirs,
            cublas: cublas_timing,
        })
    }

    /// Times `kernel`, the compared module's `other` and cuBLAS, whichever are present, together:
    /// their samples interleaved in rotating order (`sampling::time_rotating`), each sampled
    /// until every side meets the noise target (or a cap). Gives ours, theirs and cuBLAS's timing.
    fn time(
        &mut self,
        gpu: &Gpu,
        plan: &SamplingConfig,
        kernel: &Kernel<'_>,
        other: Option<&Kernel<'_>>,
        variant: &GemmVariant,
        cublas: Option<&Cublas>,
    ) -> Result<(Timing, Option<Timing>, Option<Timing>), CudaError> {
        // Sides in order: ours, theirs (when compared), cuBLAS (when timed).
        let kernels: Vec<&Kernel<'_>> = std::iter::once(kernel).chain(other).collect();
        let sides = kernels.len() + usize::from(cublas.is_some());
        let mut timings = time_rotating(gpu, plan, sides, |side| match kernels.get(side) {
            Some(k) => self.launch(gpu, k, variant, TIMED),
            None => self.launch_cublas(gpu, cublas.expect("the last side is cuBLAS"), TIMED),
        })?
        .into_iter();
        let ours = timings.next().expect("ours is timed");
        let theirs = other.and_then(|_| timings.next());
        Ok((ours, theirs, timings.next()))
    }

    /// `kernel`'s figures from its `timing`: residency, GFLOP/s and the check.
    fn finish(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        variant: &GemmVariant,
        timing: Timing,
    ) -> Result<Measured, ExperimentError> {
        let resident = super::residency_of(
            gpu,
            kernel,
            variant.threads(),
            variant.dynamic_shared_bytes(),
        )?;
        let check = self.verify(gpu, kernel, variant)?;
        let throughput = gflops(self.dims, &timing);
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

    /// GFLOP/s of this problem at `timing`'s median.
    pub fn gflops(&self, timing: &Timing) -> f64 {
        gflops(self.dims, timing)
    }

    fn verify(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        variant: &GemmVariant,
    ) -> Result<Check, ExperimentError> {
        gpu.overwrite(&self.c0_host, &mut self.c)?;
        self.launch(gpu, kernel, variant, VERIFIED)?;
        self.check_c(gpu)
    }

    /// Checks cuBLAS as the kernels are checked: one call with alpha=1.5, beta=0.5 on a fresh C.
    pub fn verify_cublas(&mut self, gpu: &Gpu, cublas: &Cublas) -> Result<Check, ExperimentError> {
        gpu.overwrite(&self.c0_host, &mut self.c)?;
        self.launch_cublas(gpu, cublas, VERIFIED)?;
        self.check_c(gpu)
    }

    fn check_c(&mut self, gpu: &Gpu) -> Result<Check, ExperimentError> {
        gpu.synchronize()?;
        let c = gpu.download(&self.c)?;
        Ok(check_gemm(
            &GemmInputs {
                dims: self.dims,
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

/// GFLOP/s of a product of `dims` at `timing`'s median.
pub fn gflops(dims: GemmDims, timing: &Timing) -> f64 {
    dims.flops() / (timing.median_ms * 1e-3) / 1e9
}

#[cfg(test)]
mod tests {
    use super::launch_shape;
    use crate::cuda::{ptx_entry_params, PtxParam};
    use crate::results::GemmDims;
    use kernels_gpu::variants::{find_gemm, GEMM, SHARED_WITHOUT_OPT_IN};

    /// The launch of every line comes from the table: the seed's exact grid, the tuned family's
    /// rounded-up grid at any size, and the dynamic shared memory that needs the opt-in attribute.
    #[test]
    fn launch_shapes_come_from_the_variant_table() {
        let d = find_gemm(GEMM, "D").unwrap();
        let s = launch_shape(d, GemmDims::square(4096));
        assert_eq!((s.grid, s.threads, s.dyn_smem), ((64, 64), 32, 0));
        assert_eq!(s.dyn_smem_opt_in(), None);

        let r4 = find_gemm(GEMM, "R4").unwrap();
        assert_eq!((r4.bm, r4.bn, r4.bk), (256, 128, 16));
        let dims = GemmDims {
            m: 2048,
            n: 8192,
            k: 1024,
        };
        let s = launch_shape(r4, dims);
        assert_eq!(s.grid, (8192 / 128, 2048 / 256), "x over N, y over M");
        assert_eq!(s.threads, 256);
        assert_eq!(s.dyn_smem, r4.dynamic_shared_bytes());
        assert!(s.dyn_smem > SHARED_WITHOUT_OPT_IN);
        assert_eq!(s.dyn_smem_opt_in(), Some(s.dyn_smem));
        // A size that does not tile: edge blocks round the grid up.
        let s = launch_shape(
            r4,
            GemmDims {
                m: 257,
                n: 129,
                k: 5,
            },
        );
        assert_eq!(s.grid, (2, 2));
        let s = launch_shape(r4, GemmDims::square(1));
        assert_eq!(s.grid, (1, 1));

        // Which lines need the opt-in is the table's, not a list here: the tuned lines whose
        // stages pass 48 KB (R2 and R4 in today's table), none of the seed lines.
        for v in GEMM {
            let s = launch_shape(v, GemmDims::square(4096));
            assert_eq!(
                s.dyn_smem_opt_in().is_some(),
                v.dynamic_shared_bytes() > SHARED_WITHOUT_OPT_IN,
                "{}",
                v.label
            );
            assert_eq!(s.threads, v.threads());
        }
        let opted: Vec<&str> = GEMM
            .iter()
            .filter(|v| {
                launch_shape(v, GemmDims::square(64))
                    .dyn_smem_opt_in()
                    .is_some()
            })
            .map(|v| v.label)
            .collect();
        assert!(opted.contains(&"R4") && !opted.contains(&"D"), "{opted:?}");
    }
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
