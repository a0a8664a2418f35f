//! The timed sides of one GEMM problem, whatever its element type: ours, the compared module's
//! and cuBLAS's, each launching into a C of its own, timed together with their samples
//! interleaved (`sampling::time_sampled`), and every element of each side's output judged
//! against the problem's f64 reference (`gemm_check`). The FP32 family (`gemm.rs`) and the BF16
//! one (`bf16_gemm.rs`) differ only in what [`GemmKind`] says: the input element, the
//! variant table, the launch, the cuBLAS call, the check's record and the peak.
//!
//! What is checked is what was timed: after the interleaved timing each C holds that side's
//! last timed launch (alpha=1, beta=0). One more launch per side at alpha=1.5, beta=0.5 on a
//! fresh C checks the epilogue's C term, which the timed launch skips. The other launches are
//! accounted for by hashes of C (`gemm_hashes.rs`): after every timed sample, and after each
//! launch of an untimed race check, each against the hash of the verified launch. A row passes
//! when all three pass.
//!
//! Beside them: the energy phase's view of the sides (`gemm_sides_energy.rs`), a figure timed
//! where the epilogue reads C (`gemm_sides_reading_c.rs`), and one untimed launch of our
//! kernel's traced build per row, after the checks (`gemm_sides_trace.rs`).

use cudarc::driver::CudaSlice;

use super::error::ExperimentError;
use super::gemm_check::{Checked, GemmChecker, GemmReference};
use super::gemm_hashes::{
    account, race_check_done, with_hashes, HashSlots, RaceCheck, SampleHashes, RACE_LAUNCHES,
};
use super::measurement::{Measurement, Peak};
use super::residency::residency_of;
use crate::cuda::{
    prepare, Cublas, CudaError, Gpu, Kernel, LaunchShape, LibraryKernel, LibraryKernelError,
};
use crate::results::{Check, GemmDims, Timing};
use crate::sampling::{time_sampled, Sampled, SamplingConfig, SamplingPlan};

/// alpha and beta of the timed launches (the blog's plain product).
pub const TIMED: (f32, f32) = (1.0, 0.0);
/// alpha and beta of the extra checked launch: both terms of the epilogue are exercised.
pub const EPILOGUE: (f32, f32) = (1.5, 0.5);
/// What every timed side's C holds before the timing: a finite value no correct element comes
/// near (so an element a kernel never writes fails), whose product with beta = 0 is 0 (the FP32
/// seed kernel reads C even then).
pub(super) const UNWRITTEN: f32 = f32::MAX;

/// The launch of each check, in the records' words.
const TIMED_LAUNCH: &str = "the last timed launch";
const EPILOGUE_LAUNCH: &str = "one more launch on a fresh C";

/// What a GEMM family brings to the shared sides: its input element, its variant table's line,
/// how one of its kernels and cuBLAS are launched, how its checks are recorded, and its peak.
pub trait GemmKind {
    /// The element of A and B on the device (C is always f32).
    type Elem;
    /// A line of the family's variant table.
    type Variant;

    /// The launch shape of `variant` over an M x N output: the table's grid, threads and
    /// dynamic shared memory.
    fn launch_shape(variant: &Self::Variant, dims: GemmDims) -> LaunchShape;

    /// Enqueues one launch of `kernel` (already [`prepare`]d for `shape`) over `ops`.
    fn launch(
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        shape: LaunchShape,
        ops: Operands<'_, Self::Elem>,
    ) -> Result<(), CudaError>;

    /// Enqueues cuBLAS's GEMM for this element type over `ops`.
    fn launch_cublas(
        gpu: &Gpu,
        cublas: &Cublas,
        ops: Operands<'_, Self::Elem>,
    ) -> Result<(), CudaError>;

    /// The record of one or more checked outputs of the same problem.
    fn record(dims: GemmDims, parts: &[Checked]) -> Check;

    /// The peak a throughput of this family is held against.
    fn peak(gpu: &Gpu) -> Peak;
}

/// How a side's kernel is launched over a problem's operands: the family's
/// [`GemmKind::launch`], or a closure holding what a line needs beyond the operands (the wgmma
/// lines' tensor maps, encoded once per problem).
pub type Launcher<'l, E> =
    &'l dyn Fn(&Gpu, &Kernel<'_>, LaunchShape, Operands<'_, E>) -> Result<(), CudaError>;

/// One kernel side's launch: whose C it writes, the kernel (already [`prepare`]d for
/// `shape`), and how it is launched.
pub(super) struct SideLaunch<'s, 'k, E> {
    pub(super) side: Side,
    pub(super) kernel: &'s Kernel<'k>,
    pub(super) shape: LaunchShape,
    pub(super) launcher: Launcher<'s, E>,
}

/// What one launch computes: C = alpha A B + beta C over M x K A and K x N B (row-major), at
/// `setting` = (alpha, beta).
pub struct Operands<'a, E> {
    pub dims: GemmDims,
    pub a: &'a CudaSlice<E>,
    pub b: &'a CudaSlice<E>,
    pub c: &'a mut CudaSlice<f32>,
    pub setting: (f32, f32),
}

/// One line's figures: ours, the compared module's, and cuBLAS's samples interleaved with
/// them, with the check of cuBLAS's last timed launch among them.
pub struct GemmMeasured {
    pub ours: Measurement,
    pub theirs: Option<Measurement>,
    pub cublas: Option<(Timing, Checked)>,
}

/// A timed side, and the index of its C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Ours = 0,
    Theirs = 1,
    Cublas = 2,
}

/// Whose launch: one of the kernel sides', or cuBLAS's.
pub(super) enum Who<'a, 's, 'k, E> {
    Kernel(&'a SideLaunch<'s, 'k, E>),
    Cublas(&'a Cublas),
}

impl<E> Clone for Who<'_, '_, '_, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for Who<'_, '_, '_, E> {}

impl<E> Who<'_, '_, '_, E> {
    pub(super) fn side(self) -> Side {
        match self {
            Who::Kernel(how) => how.side,
            Who::Cublas(_) => Side::Cublas,
        }
    }
}

/// One side's figure: its timing and the hashes of its C after each sample.
struct Timed {
    timing: Timing,
    hashes: SampleHashes,
}

/// The timing's view of the sides: side `i` of the timing is `who[i]`, launched at `setting`,
/// its C hashed into `slots[i]` after each sample; where `afresh` (a setting whose launches read
/// C), its C put back to C0 after the warm-up and after each sample's hash, so that every sample
/// makes the same launches from the same C (`gemm_sides_reading_c.rs`).
pub(super) struct Sampling<'a, 'b, 's, 'k, K: GemmKind> {
    pub(super) gpu: &'a Gpu,
    pub(super) sides: &'a mut GemmSides<K>,
    pub(super) who: &'a [Who<'b, 's, 'k, K::Elem>],
    pub(super) slots: Vec<HashSlots>,
    pub(super) setting: (f32, f32),
    pub(super) afresh: bool,
}

impl<K: GemmKind> Sampled for Sampling<'_, '_, '_, '_, K> {
    fn launch(&mut self, side: usize) -> Result<(), CudaError> {
        self.sides
            .launch_who(self.gpu, self.who[side], self.setting)
    }

    fn after_warm_up(&mut self, side: usize) -> Result<(), CudaError> {
        if self.afresh {
            self.sides.fresh_c(self.gpu, self.who[side].side())?;
        }
        Ok(())
    }

    fn after_sample(&mut self, side: usize) -> Result<(), CudaError> {
        let s = self.who[side].side();
        let c = self.sides.c[s as usize]
            .as_ref()
            .expect("a side is hashed after it ran");
        self.slots[side].push(self.gpu, &self.sides.checker, c)?;
        if self.afresh {
            self.sides.fresh_c(self.gpu, s)?;
        }
        Ok(())
    }
}

/// Hash slots for `sides` sides, each with room for the samples `plan` takes at most.
pub(super) fn sample_slots(
    gpu: &Gpu,
    plan: &SamplingConfig,
    sides: usize,
) -> Result<Vec<HashSlots>, CudaError> {
    let expected = match plan.plan {
        SamplingPlan::Fixed(p) => p.samples,
        SamplingPlan::Noise(t) => t.max_samples.max(t.min_samples),
    };
    (0..sides)
        .map(|_| HashSlots::new(gpu, expected as usize))
        .collect()
}

/// Device buffers of one GEMM problem (A is M x K, B is K x N, C0 and every C are M x N,
/// row-major), its f64 reference and the check kernels.
pub struct GemmSides<K: GemmKind> {
    dims: GemmDims,
    a: CudaSlice<K::Elem>,
    b: CudaSlice<K::Elem>,
    c0: CudaSlice<f32>,
    /// One C per side, allocated when the side is first used.
    c: [Option<CudaSlice<f32>>; 3],
    checker: GemmChecker,
    reference: GemmReference,
    /// cuBLAS's hashes of each figure it was timed in, until [`Self::verify_cublas`] judges
    /// them with its race check.
    cublas_hashes: Vec<SampleHashes>,
}

impl<K: GemmKind> GemmSides<K> {
    /// The sides of a problem whose operands and reference are already on the device.
    pub(super) fn from_parts(
        dims: GemmDims,
        (a, b, c0): (CudaSlice<K::Elem>, CudaSlice<K::Elem>, CudaSlice<f32>),
        checker: GemmChecker,
        reference: GemmReference,
    ) -> Self {
        Self {
            dims,
            a,
            b,
            c0,
            c: [None, None, None],
            checker,
            reference,
            cublas_hashes: Vec::new(),
        }
    }

    pub fn dims(&self) -> GemmDims {
        self.dims
    }

    /// GFLOP/s of this problem at `timing`'s median.
    pub fn gflops(&self, timing: &Timing) -> f64 {
        gflops(self.dims, timing)
    }

    /// A and B on the device (what a line's tensor maps describe).
    pub fn inputs(&self) -> (&CudaSlice<K::Elem>, &CudaSlice<K::Elem>) {
        (&self.a, &self.b)
    }

    /// The problem's f64 reference on the device.
    pub fn reference(&self) -> &GemmReference {
        &self.reference
    }

    /// The C of `side`, allocated on first use.
    pub(super) fn c_of(&mut self, gpu: &Gpu, side: Side) -> Result<&mut CudaSlice<f32>, CudaError> {
        let slot = &mut self.c[side as usize];
        if slot.is_none() {
            *slot = Some(gpu.zeros(self.dims.m as usize * self.dims.n as usize)?);
        }
        Ok(slot.as_mut().expect("allocated above"))
    }

    /// Enqueues one launch of `who` over its side's C at `setting`.
    pub(super) fn launch_who(
        &mut self,
        gpu: &Gpu,
        who: Who<'_, '_, '_, K::Elem>,
        setting: (f32, f32),
    ) -> Result<(), CudaError> {
        self.c_of(gpu, who.side())?;
        let Self { dims, a, b, c, .. } = self;
        let c = c[who.side() as usize].as_mut().expect("allocated by c_of");
        let ops = Operands {
            dims: *dims,
            a,
            b,
            c,
            setting,
        };
        match who {
            Who::Kernel(how) => (how.launcher)(gpu, how.kernel, how.shape, ops),
            Who::Cublas(cublas) => K::launch_cublas(gpu, cublas, ops),
        }
    }

    /// The hash of `side`'s C as it is now (waits for the GPU).
    pub(super) fn hash_now(&self, gpu: &Gpu, side: Side) -> Result<u64, CudaError> {
        let c = self.c[side as usize]
            .as_ref()
            .expect("a side is hashed after it ran");
        let mut slot = HashSlots::new(gpu, 1)?;
        slot.push(gpu, &self.checker, c)?;
        Ok(slot.read(gpu)?[0])
    }

    /// The race check of `who`: untimed launches at alpha=1, beta=0 until [`race_check_done`], each on
    /// a C filled first with [`UNWRITTEN`] and followed by a hash compared with `verified`; a
    /// launch whose hash differs is checked element by element before the next overwrites it.
    fn race_check(
        &mut self,
        gpu: &Gpu,
        who: Who<'_, '_, '_, K::Elem>,
        verified: u64,
    ) -> Result<RaceCheck, CudaError> {
        let side = who.side();
        let mut slots = HashSlots::new(gpu, RACE_LAUNCHES as usize)?;
        let mut checked = Vec::new();
        let start = std::time::Instant::now();
        let mut i = 0;
        while !race_check_done(i, start.elapsed()) {
            gpu.fill(self.c_of(gpu, side)?, UNWRITTEN)?;
            self.launch_who(gpu, who, TIMED)?;
            let c = self.c[side as usize].as_ref().expect("allocated above");
            slots.push(gpu, &self.checker, c)?;
            // One word per launch: the hashes so far come back, this launch's last.
            let hash = *slots.read(gpu)?.last().expect("pushed above");
            if hash != verified {
                let launch = format!("race launch {i}");
                checked.push((i, self.check_side(gpu, side, &launch, TIMED)?));
            }
            i += 1;
        }
        Ok(RaceCheck {
            verified,
            hashes: slots.read(gpu)?,
            checked,
        })
    }

    /// Judges every element of `side`'s C as the output of a launch at `setting`.
    pub(super) fn check_side(
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
    pub(super) fn fresh_c(&mut self, gpu: &Gpu, side: Side) -> Result<(), CudaError> {
        self.c_of(gpu, side)?;
        let Self { c0, c, .. } = self;
        gpu.copy_device(c0, c[side as usize].as_mut().expect("allocated by c_of"))
    }

    /// Times `kernel` (alpha=1, beta=0), with `other` and cuBLAS when given (samples
    /// interleaved, each side into its own C, hashed after each sample), checks every element
    /// of each side's last timed launch, then each kernel again after one launch with
    /// alpha=1.5, beta=0.5 on a fresh C, and runs each kernel's race check (cuBLAS's epilogue
    /// and race check are once per problem: [`Self::verify_cublas`]).
    pub fn measure(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        other: Option<&Kernel<'_>>,
        variant: &K::Variant,
        plan: &SamplingConfig,
        cublas: Option<&Cublas>,
    ) -> Result<GemmMeasured, ExperimentError> {
        let shape = K::launch_shape(variant, self.dims);
        self.measure_by(gpu, (kernel, other), (shape, &K::launch), plan, cublas)
    }

    /// [`Self::measure`] in `shape` (the variant table's, or one with more dynamic shared memory
    /// than the kernel uses, which holds it at fewer resident blocks per SM), each kernel
    /// launched by `launcher` (the same for ours and the compared module's: the family's, or
    /// one for a line whose launch needs more than the operands).
    pub fn measure_by(
        &mut self,
        gpu: &Gpu,
        (kernel, other): (&Kernel<'_>, Option<&Kernel<'_>>),
        (shape, launcher): (LaunchShape, Launcher<'_, K::Elem>),
        plan: &SamplingConfig,
        cublas: Option<&Cublas>,
    ) -> Result<GemmMeasured, ExperimentError> {
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
            let c = self.c_of(gpu, side)?;
            gpu.fill(c, UNWRITTEN)?;
        }
        // Sides in order: ours, theirs (when compared); cuBLAS after them (when timed).
        let kernels: Vec<SideLaunch<'_, '_, K::Elem>> = std::iter::once((Side::Ours, kernel))
            .chain(other.map(|k| (Side::Theirs, k)))
            .map(|(side, kernel)| SideLaunch {
                side,
                kernel,
                shape,
                launcher,
            })
            .collect();
        let mut who: Vec<Who<'_, '_, '_, K::Elem>> = kernels.iter().map(Who::Kernel).collect();
        who.extend(cublas.map(Who::Cublas));
        let mut timed = self.time(gpu, plan, &who)?.into_iter();
        crate::phase_log::mark("  sides: timed");
        let ours = timed.next().expect("ours is timed");
        let theirs = (kernels.len() > 1).then(|| timed.next()).flatten();
        let cublas = match timed.next() {
            Some(t) => {
                // Judged with cuBLAS's race check, once per problem (`verify_cublas`).
                self.cublas_hashes.push(t.hashes);
                Some((
                    t.timing,
                    self.check_side(gpu, Side::Cublas, TIMED_LAUNCH, TIMED)?,
                ))
            }
            None => None,
        };
        // Our kernels use no atomics: their bits are required. The compared module's are not
        // ours to know.
        let ours = self.finish(gpu, &kernels[0], ours, true)?;
        crate::phase_log::mark("  sides: ours finished");
        let theirs = match (kernels.get(1), theirs) {
            (Some(k), Some(t)) => Some(self.finish(gpu, k, t, false)?),
            _ => None,
        };
        Ok(GemmMeasured {
            ours,
            theirs,
            cublas,
        })
    }

    /// Times `who` (ours, the compared module's when present, cuBLAS when present, in that
    /// order) together: their samples interleaved in rotating order (`sampling::time_sampled`),
    /// each sampled until every side meets the noise target (or a cap), each side's C hashed
    /// after each of its samples. Gives each side's timing and hashes, the verified launch's
    /// (its last) among them, in `who`'s order.
    fn time(
        &mut self,
        gpu: &Gpu,
        plan: &SamplingConfig,
        who: &[Who<'_, '_, '_, K::Elem>],
    ) -> Result<Vec<Timed>, CudaError> {
        let mut sampling = Sampling {
            gpu,
            sides: self,
            who,
            slots: sample_slots(gpu, plan, who.len())?,
            setting: TIMED,
            afresh: false,
        };
        let timings = time_sampled(gpu, plan, who.len(), &mut sampling)?;
        let slots = sampling.slots;
        let mut timed = Vec::with_capacity(who.len());
        for ((w, timing), slots) in who.iter().zip(timings).zip(slots) {
            let samples = slots.read(gpu)?;
            debug_assert_eq!(samples.len(), timing.samples_ms.len(), "one hash a sample");
            let verified = self.hash_now(gpu, w.side())?;
            timed.push(Timed {
                timing,
                hashes: SampleHashes { verified, samples },
            });
        }
        Ok(timed)
    }

    /// `how`'s kernel's figures from its `timed` figure: residency, GFLOP/s and the check of
    /// its timed output, of one launch at alpha=1.5, beta=0.5, and of its hashes with its race
    /// check's (`bits_required` for our kernels); for ours, after all that, its block trace
    /// (`gemm_sides_trace.rs`).
    fn finish(
        &mut self,
        gpu: &Gpu,
        how: &SideLaunch<'_, '_, K::Elem>,
        timed: Timed,
        bits_required: bool,
    ) -> Result<Measurement, ExperimentError> {
        let (side, shape) = (how.side, how.shape);
        let Timed { timing, hashes } = timed;
        let resident = residency_of(gpu, how.kernel, shape.threads, shape.dyn_smem)?;
        let timed = self.check_side(gpu, side, TIMED_LAUNCH, TIMED)?;
        self.fresh_c(gpu, side)?;
        self.launch_who(gpu, Who::Kernel(how), EPILOGUE)?;
        let epilogue = self.check_side(gpu, side, EPILOGUE_LAUNCH, EPILOGUE)?;
        crate::phase_log::mark("  sides: checks");
        let hashes_verified = hashes.verified;
        let race = self.race_check(gpu, Who::Kernel(how), hashes_verified)?;
        crate::phase_log::mark("  sides: race");
        let check = with_hashes(
            K::record(self.dims, &[timed, epilogue]),
            account(bits_required, &[hashes], &race),
            &race.checked,
            self.dims,
        );
        let throughput = gflops(self.dims, &timing);
        // Ours alone: a compared module's traced entry is not ours to know.
        let trace = if side == Side::Ours {
            Some(self.trace(gpu, how, hashes_verified, (throughput, K::peak(gpu)))?)
        } else {
            None
        };
        Ok(Measurement::new(resident, timing, throughput, check, K::peak(gpu)).with_trace(trace))
    }

    /// cuBLAS's record: the checks of its timed launches (`timed`, one per variant it was
    /// interleaved with, from [`GemmMeasured::cublas`]) and of one call at alpha=1.5, beta=0.5
    /// on a fresh C; the hashes after its samples in every figure it was timed in, and its race
    /// check (once per problem: every line times the same call), held to its last verified
    /// launch.
    pub fn verify_cublas(
        &mut self,
        gpu: &Gpu,
        cublas: &Cublas,
        timed: Vec<Checked>,
    ) -> Result<Check, ExperimentError> {
        let figures = std::mem::take(&mut self.cublas_hashes);
        let race = match figures.last() {
            Some(last) => Some(self.race_check(gpu, Who::Cublas(cublas), last.verified)?),
            None => None,
        };
        self.fresh_c(gpu, Side::Cublas)?;
        self.launch_who(gpu, Who::Cublas(cublas), EPILOGUE)?;
        let mut parts = timed;
        parts.push(self.check_side(gpu, Side::Cublas, EPILOGUE_LAUNCH, EPILOGUE)?);
        let check = K::record(self.dims, &parts);
        Ok(match race {
            Some(race) => with_hashes(
                check,
                account(false, &figures, &race),
                &race.checked,
                self.dims,
            ),
            None => check,
        })
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
        LibraryKernel::read(gpu, || self.launch_who(gpu, Who::Cublas(cublas), TIMED))
    }
}

/// GFLOP/s of a product of `dims` at `timing`'s median.
pub fn gflops(dims: GemmDims, timing: &Timing) -> f64 {
    dims.flops() / (timing.median_ms * 1e-3) / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_is_the_products_flops_over_the_median() {
        let t = Timing {
            samples_ms: vec![1.0, 2.0, 9.0],
            median_ms: 2.0,
            ..Timing::default()
        };
        // 2 * 4096^3 flops in 2 ms: 68.7 TFLOP/s.
        let g = gflops(GemmDims::square(4096), &t);
        assert!((g - 68_719.476_736).abs() < 1e-6, "{g}");
    }
}
