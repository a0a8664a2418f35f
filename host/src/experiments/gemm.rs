//! The GEMM kernel family on the host: its parameter list, buffers with random inputs, the
//! launch in the variant table's shape (grid, threads, dynamic shared memory), the timing (with
//! the compared module and cuBLAS interleaved) and the check. Shared by the occupancy experiment
//! (every variant, and cuBLAS) and the register experiment (one variant under register caps).
//!
//! What is checked is what was timed: each timed side (ours, the compared module, cuBLAS)
//! launches into a C of its own, so that after the interleaved timing each C holds that side's
//! last timed launch (alpha=1, beta=0), and every element of it is judged against the f64
//! reference of the problem (`gemm_check`), computed once on the GPU when the buffers are made.
//! One more launch per side at alpha=1.5, beta=0.5 on a fresh C checks the epilogue's C term,
//! which the timed launch skips; a row passes when both pass.

use cudarc::driver::CudaSlice;
use kernels_gpu::gemm_tolerance::Tally;
use kernels_gpu::variants::{GemmParams, GemmVariant};

use super::error::ExperimentError;
use super::gemm_check::{record, Checked, GemmChecker, GemmReference};
use super::inputs::random_floats;
use super::measurement::{Measurement, Peak};
use super::residency::residency_of;
use crate::cuda::{
    prepare, Cublas, CudaError, Gpu, Kernel, Launch, LaunchShape, LibraryKernel, LibraryKernelError,
};
use crate::results::{Check, GemmDims, Timing};
use crate::sampling::{time_rotating, SamplingConfig};

/// alpha and beta of the timed launches (the blog's plain product).
pub const TIMED: (f32, f32) = (1.0, 0.0);
/// alpha and beta of the extra checked launch: both terms of the epilogue are exercised.
pub const EPILOGUE: (f32, f32) = (1.5, 0.5);
/// What every timed side's C holds before the timing: a finite value no correct element comes
/// near (so an element a kernel never writes fails), whose product with beta = 0 is 0 (the seed
/// kernel reads C even then).
const UNWRITTEN: f32 = f32::MAX;

/// The launch of each check, in the records' words.
const TIMED_LAUNCH: &str = "the last timed launch";
const EPILOGUE_LAUNCH: &str = "one more launch on a fresh C";

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
/// them with the check of cuBLAS's last timed launch among them.
pub struct GemmMeasured {
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

/// Device buffers of one GEMM problem (A is M x K, B is K x N, C0 and every C are M x N,
/// row-major), its f64 reference and the check kernels.
pub struct GemmBuffers {
    dims: GemmDims,
    a: CudaSlice<f32>,
    b: CudaSlice<f32>,
    c0: CudaSlice<f32>,
    /// One C per side, allocated when the side is first timed.
    c: [Option<CudaSlice<f32>>; 3],
    checker: GemmChecker,
    reference: GemmReference,
}

impl GemmBuffers {
    /// Random A, B and initial C in [-1, 1), seeded (at M = N = K the inputs are those of the
    /// square runs before `MxNxK` sizes), and their f64 reference, computed on the GPU.
    pub fn new(gpu: &Gpu, dims: GemmDims, seed: u64) -> Result<Self, ExperimentError> {
        let (m, n, k) = (dims.m as usize, dims.n as usize, dims.k as usize);
        let a = gpu.upload(&random_floats(m * k, seed))?;
        let b = gpu.upload(&random_floats(k * n, seed.wrapping_add(1)))?;
        let c0 = gpu.upload(&random_floats(m * n, seed.wrapping_add(2)))?;
        let checker = GemmChecker::new(gpu)?;
        let reference = checker.reference(gpu, dims, &a, &b)?;
        Ok(Self {
            dims,
            a,
            b,
            c0,
            c: [None, None, None],
            checker,
            reference,
        })
    }

    /// The C of `side`, allocated on first use.
    fn c_of(&mut self, gpu: &Gpu, side: Side) -> Result<&mut CudaSlice<f32>, CudaError> {
        let slot = &mut self.c[side as usize];
        if slot.is_none() {
            *slot = Some(gpu.zeros(self.dims.m as usize * self.dims.n as usize)?);
        }
        Ok(slot.as_mut().expect("allocated above"))
    }

    /// Enqueues one launch of `kernel` over `side`'s C, in the variant table's shape (the
    /// kernel already [`prepare`]d for it).
    fn launch(
        &mut self,
        gpu: &Gpu,
        side: Side,
        kernel: &Kernel<'_>,
        variant: &GemmVariant,
        (alpha, beta): (f32, f32),
    ) -> Result<(), CudaError> {
        let shape = launch_shape(variant, self.dims);
        self.c_of(gpu, side)?;
        let Self { dims, a, b, c, .. } = self;
        let c = c[side as usize].as_mut().expect("allocated by c_of");
        let mut l = Launch::new(gpu);
        let params = GemmParams {
            a: l.input(a),
            b: l.input(b),
            c: l.output(c),
            m: dims.m as i32,
            n: dims.n as i32,
            k: dims.k as i32,
            alpha,
            beta,
        };
        // SAFETY: A, B and C hold M*K, K*N and M*N floats; the sizes tile where the variant's
        // family needs it (checked at parse time: `flags::check_tiling`), each dimension is at
        // most 32768 (so M*K etc. fit the kernels' 32-bit indices); the shape is the variant
        // table's for this entry, the kernel allowed its dynamic shared memory by `prepare`.
        unsafe { l.launch(kernel, shape, &params) }
    }

    /// Enqueues cuBLAS's SGEMM over the same inputs, into cuBLAS's C.
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
        cublas.sgemm_row_major(gpu, (dims.m, dims.n, dims.k), alpha, a, b, beta, c)
    }

    /// Judges every element of `side`'s C as the output of a launch at `setting`.
    fn check_side(
        &mut self,
        gpu: &Gpu,
        side: Side,
        launch: &str,
        setting: (f32, f32),
    ) -> Result<Checked, CudaError> {
        let c = self.c[side as usize]
            .as_ref()
            .expect("a side is checked after it ran");
        let tally: Tally = self
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
    /// launch, then each kernel again after one launch with alpha=1.5, beta=0.5 on a fresh C
    /// (cuBLAS's is checked so once per run: [`Self::verify_cublas`]).
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
        let sides = [Side::Ours]
            .into_iter()
            .chain(other.map(|_| Side::Theirs))
            .chain(cublas.map(|_| Side::Cublas));
        for side in sides {
            // An earlier variant's correct output must not stand in for an element this one
            // never writes.
            self.c_of(gpu, side)?;
            gpu.fill(
                self.c[side as usize].as_mut().expect("allocated"),
                UNWRITTEN,
            )?;
        }
        let (ours, theirs, cublas_timing) = self.time(gpu, plan, kernel, other, variant, cublas)?;
        let cublas = match cublas_timing {
            Some(t) => Some((t, self.check_side(gpu, Side::Cublas, TIMED_LAUNCH, TIMED)?)),
            None => None,
        };
        let ours = self.finish(gpu, Side::Ours, kernel, variant, ours)?;
        let theirs = match (other, theirs) {
            (Some(k), Some(t)) => Some(self.finish(gpu, Side::Theirs, k, variant, t)?),
            _ => None,
        };
        Ok(GemmMeasured {
            ours,
            theirs,
            cublas,
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
        let kernels: Vec<(Side, &Kernel<'_>)> = std::iter::once((Side::Ours, kernel))
            .chain(other.map(|k| (Side::Theirs, k)))
            .collect();
        let sides = kernels.len() + usize::from(cublas.is_some());
        let mut timings = time_rotating(gpu, plan, sides, |i| match kernels.get(i) {
            Some(&(side, k)) => self.launch(gpu, side, k, variant, TIMED),
            None => self.launch_cublas(gpu, cublas.expect("the last side is cuBLAS"), TIMED),
        })?
        .into_iter();
        let ours = timings.next().expect("ours is timed");
        let theirs = other.and_then(|_| timings.next());
        Ok((ours, theirs, timings.next()))
    }

    /// `kernel`'s figures from its `timing`: residency, GFLOP/s and the check of its timed
    /// output and of one launch at alpha=1.5, beta=0.5.
    fn finish(
        &mut self,
        gpu: &Gpu,
        side: Side,
        kernel: &Kernel<'_>,
        variant: &GemmVariant,
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
        let check = record(self.dims, &[timed, epilogue]);
        let throughput = gflops(self.dims, &timing);
        let peak = Peak::fp32(gpu.info());
        Ok(Measurement::new(resident, timing, throughput, check, peak))
    }

    /// GFLOP/s of this problem at `timing`'s median.
    pub fn gflops(&self, timing: &Timing) -> f64 {
        gflops(self.dims, timing)
    }

    /// cuBLAS's record: the checks of its timed launches (`timed`, one per variant it was
    /// interleaved with, from [`GemmMeasured::cublas`]) and of one call at alpha=1.5, beta=0.5
    /// on a fresh C.
    pub fn verify_cublas(
        &mut self,
        gpu: &Gpu,
        cublas: &Cublas,
        timed: Vec<Checked>,
    ) -> Result<Check, ExperimentError> {
        self.fresh_c(gpu, Side::Cublas)?;
        self.launch_cublas(gpu, cublas, EPILOGUE)?;
        let mut parts = timed;
        parts.push(self.check_side(gpu, Side::Cublas, EPILOGUE_LAUNCH, EPILOGUE)?);
        Ok(record(self.dims, &parts))
    }

    /// The problem's f64 reference on the device.
    pub fn reference(&self) -> &GemmReference {
        &self.reference
    }

    /// The kernel cuBLAS's SGEMM runs for this problem (one timed call into cuBLAS's C,
    /// recorded through CUPTI) and its theoretical occupancy. Overwrites cuBLAS's C: call it
    /// before [`Self::measure`] or after [`Self::verify_cublas`].
    pub fn cublas_kernel(
        &mut self,
        gpu: &Gpu,
        cublas: &Cublas,
    ) -> Result<LibraryKernel, LibraryKernelError> {
        self.c_of(gpu, Side::Cublas)?;
        LibraryKernel::read(gpu, || self.launch_cublas(gpu, cublas, TIMED))
    }
}

/// GFLOP/s of a product of `dims` at `timing`'s median.
pub fn gflops(dims: GemmDims, timing: &Timing) -> f64 {
    dims.flops() / (timing.median_ms * 1e-3) / 1e9
}

#[cfg(test)]
mod tests {
    use super::launch_shape;
    use crate::cuda::{ptx_entry_params, ParamClass};
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
        let modules = [
            crate::modules::MAIN,
            crate::modules::UNBOUNDED,
            crate::modules::TENSOR,
        ]
        .into_iter()
        .chain(crate::modules::CAPPED.iter().map(|(_, ptx)| *ptx));
        let mut checked = 0;
        for ptx in modules {
            for e in entries() {
                if let Some(found) = ptx_entry_params(ptx, e.name) {
                    // rustc marks every pointer `.ptr`: the kinds match one for one.
                    let declared: Vec<ParamClass> = e
                        .params()
                        .iter()
                        .map(|p| match p.kind {
                            ParamKind::Ptr => ParamClass::Pointer,
                            ParamKind::U64 => ParamClass::Bits64,
                            ParamKind::I32 | ParamKind::U32 => ParamClass::Bits32,
                            ParamKind::F32 => ParamClass::F32,
                        })
                        .collect();
                    assert_eq!(found, declared, "{}", e.name);
                    checked += 1;
                }
            }
        }
        // Not vacuous: every entry is in the main module or the tensor-core one (exactly one of
        // the two), each capped module has the regs variant.
        for e in entries() {
            let in_main = ptx_entry_params(crate::modules::MAIN, e.name).is_some();
            let in_tensor = ptx_entry_params(crate::modules::TENSOR, e.name).is_some();
            assert!(in_main != in_tensor, "{}", e.name);
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
