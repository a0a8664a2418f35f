//! The tensor-core sweep on the GPU: the only file of the experiment that touches the driver.
//!
//! The kernels are the variant table's `MMA_ILP` entries (`mma_bf16_ilp{ILP}`), from their own
//! module (`builtin::MMA_ILP`, or the files given), launched through `Launch` + `MmaParams` with one
//! output float per thread (whole blocks of whole warps: the kernels have no bounds check).
//! Residency is held by dynamic shared memory ([`hold_at_blocks`]); every figure is timed by
//! [`time_rotating`], the compared module's samples interleaved with ours; every thread of one
//! more launch per side is checked against the CPU model.

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::{MmaIlpVariant, MmaParams};

use super::plan::{mma_per_sm_cycle, sized_iters, tflops};
use super::reference::{check_mma, Fragments, INPUT_RANGE};
use super::row::{with_ceiling, Mma, MmaRow};
use super::spec::{kernel as mma_kernel, Plan, Spec, SweepArgs};
use super::wgmma::ClockedShare;
use crate::cuda::tensor_peak::peak_bf16_dense_gflops;
use crate::cuda::{CudaError, Gpu, Kernel, Launch, LaunchShape};
use crate::experiments::contract::{Registered, RunContext};
use crate::experiments::error::ExperimentError;
use crate::experiments::ilp_sweep::{layout_mismatch, place, SweepPoint};
use crate::experiments::measured::Measured;
use crate::experiments::measurement::{Measurement, Peak};
use crate::experiments::module_source::Loaded;
use crate::experiments::progress::progress_bar;
use crate::experiments::residency::{hold_at_blocks, residency_of};
use crate::experiments::sweep::{sweep, with_compared, Step};
use crate::results::DeviceInfo;
use crate::sampling::time_rotating;

/// Why a GPU older than sm_80 runs nothing: the kernels are `mma.sync` with bf16 inputs.
pub fn unsupported(info: &DeviceInfo) -> Option<String> {
    let (major, minor) = info.compute_capability;
    (info.compute_capability < (8, 0)).then(|| {
        format!(
            "mma.sync m16n8k16 with bf16 inputs needs sm_80 or newer; {} is sm_{major}{minor}",
            info.name
        )
    })
}

/// One side's launch of a point: a full wave of blocks, each warp running `iters` rounds.
#[derive(Debug, Clone, Copy)]
struct Shape {
    launch: LaunchShape,
    iters: i32,
}

impl Shape {
    fn threads(&self) -> u32 {
        self.launch.grid.0 * self.launch.threads
    }
}

/// The device's buffers: the fragments every warp reads, and one float per resident thread.
struct Buffers {
    a: CudaSlice<u32>,
    b: CudaSlice<u32>,
    out: CudaSlice<f32>,
}

fn launch(gpu: &Gpu, kernel: &Kernel<'_>, bufs: &mut Buffers, s: &Shape) -> Result<(), CudaError> {
    let mut l = Launch::new(gpu);
    let params = MmaParams {
        a: l.input(&bufs.a),
        b: l.input(&bufs.b),
        out: l.output(&mut bufs.out),
        iters: s.iters,
    };
    // SAFETY: an mma_bf16_ilp entry (a, b, out, iters): `a` holds 128 words and `b` 64 (a
    // fragment for every lane), `out` a float for every SM's most resident threads, at least
    // one a launched thread; the block is whole warps (the layout's).
    unsafe { l.launch(kernel, s.launch, &params) }
}

/// The spec peak a figure is held to (a throughput above it is flagged): the dense BF16 rate at
/// the device's maximum clock, or none where the lab does not know the rate.
fn spec_peak(info: &DeviceInfo) -> Peak {
    Peak {
        value: peak_bf16_dense_gflops(info.compute_capability, info.sm_count, info.sm_clock_khz)
            .map_or(0.0, |g| g / 1e3),
        unit: "TFLOP/s",
        what: "dense BF16",
    }
}

/// What every point of a run shares.
struct Sweeper<'a> {
    gpu: &'a Gpu,
    ctx: &'a RunContext,
    sweep: &'a SweepArgs,
    modules: (&'a Loaded, Option<&'a Loaded>),
    inputs: Fragments,
    bufs: Buffers,
}

/// Runs the tensor-core sweep on `gpu` as `p` asks, timing every figure by `ctx.timing`; on a
/// GPU without bf16 `mma.sync`, runs nothing and says why.
pub fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Mma, ExperimentError> {
    let info = gpu.info();
    let mut result = Mma {
        input_range: INPUT_RANGE,
        rows: Vec::new(),
        skipped: Vec::new(),
        not_run: unsupported(info),
        wgmma: None,
    };
    if result.not_run.is_some() {
        return Ok(result);
    }
    let (ours, theirs) = p.sources.load_mma_ilp(gpu)?;
    let inputs = Fragments::draw(ctx.seed);
    let bufs = Buffers {
        a: gpu.upload(&inputs.a)?,
        b: gpu.upload(&inputs.b)?,
        out: gpu.zeros::<f32>((info.sm_count * info.max_threads_per_sm) as usize)?,
    };
    let mut sweeper = Sweeper {
        gpu,
        ctx,
        sweep: &p.sweep,
        modules: (&ours, theirs.as_ref()),
        inputs,
        bufs,
    };
    let points = p.sweep.grid.points();
    let bar = progress_bar(ctx, points.len(), Spec::NAME);
    let name = |&(ilp, warps): &(u32, u32)| format!("mma_bf16_ilp{ilp} at {warps} warps/SM");
    let swept = sweep(&bar, points, name, |&(ilp, warps)| {
        sweeper.point(ilp, warps)
    })?;
    if !p.sweep.no_wgmma {
        bar.set_message("wgmma (sm_90a)");
        // The compared build's sm_90a module, where it has one, for the wgmma lines.
        let theirs_sm90a = p.sources.load_compared_sm90a(gpu)?;
        let per_sm = &p.sweep.warpgroups_per_sm;
        let theirs = theirs_sm90a.as_ref();
        result.wgmma = Some(super::wgmma_run::run(gpu, ctx, per_sm, theirs)?);
    }
    bar.finish_and_clear();
    result.rows = with_ceiling(swept.rows);
    result.skipped = swept.skipped;
    Ok(result)
}

impl Sweeper<'_> {
    /// One (ILP, warps per SM) point: laid out as whole blocks, held there, timed (the compared
    /// module's build interleaved where it can be held there too), every thread checked.
    fn point(&mut self, ilp: u32, warps: u32) -> Result<Step<MmaRow>, ExperimentError> {
        let info = self.gpu.info().clone();
        let Some(variant) = mma_kernel(ilp) else {
            return Ok(Step::Skipped(format!("no mma_bf16_ilp{ilp} kernel")));
        };
        let placed = match place(self.gpu, variant.entry, warps) {
            Ok(placed) => placed,
            Err(note) => return Ok(Step::Skipped(note)),
        };
        let (ours, theirs) = self.modules;
        let (kernel, other) = ours.entry_pair(theirs, variant.entry)?;
        let iters = sized_iters(
            ilp,
            warps,
            mma_per_sm_cycle(info.compute_capability),
            self.sweep.target_cycles,
            self.inputs.most_exact_iters(ilp),
        );
        let shape = Shape {
            launch: LaunchShape {
                grid: (info.sm_count * placed.blocks_per_sm, 1),
                threads: placed.threads,
                dyn_smem: 0,
            },
            iters: i32::try_from(iters).expect("the model's rounds stay within i32"),
        };
        let mut flags = Vec::new();
        let mut measured = with_compared(other.as_ref(), &mut flags, |other| {
            let sides: Vec<&Kernel<'_>> = std::iter::once(&kernel).chain(other).collect();
            self.measure(variant, placed.blocks_per_sm, shape, &sides)
        })?;
        let (mine, dyn_smem) = measured.remove(0);
        let compared = measured.pop().map(|(m, _)| (m, None));
        flags.extend(mine.flags.iter().cloned());
        let (share, unclocked) = ClockedShare::of(&info, &mine.timing, mine.throughput);
        flags.extend(unclocked);
        flags.extend(layout_mismatch(mine.blocks_per_sm, &placed));
        Ok(Step::Row(MmaRow {
            point: SweepPoint::launched(ilp, variant.entry.into(), placed, &mine, dyn_smem, iters),
            tflops: mine.throughput,
            sm_clock_mhz: share.sm_clock_mhz,
            spec_peak_tflops: share.spec_peak_tflops,
            fraction_of_spec: share.fraction_of_spec,
            fraction_of_ceiling: 0.0,
            timing: mine.timing.clone(),
            measured: Measured::new(&mine, flags, compared),
        }))
    }

    /// Each of `sides` (ours first) held at `blocks_per_sm` by its own dynamic shared memory,
    /// timed in `shape` with the samples interleaved, then checked on every thread: each side's
    /// figures and dynamic shared memory, in order.
    fn measure(
        &mut self,
        variant: &MmaIlpVariant,
        blocks_per_sm: u32,
        shape: Shape,
        sides: &[&Kernel<'_>],
    ) -> Result<Vec<(Measurement, u32)>, ExperimentError> {
        let gpu = self.gpu;
        let mut held = vec![shape; sides.len()];
        for (k, s) in sides.iter().zip(&mut held) {
            s.launch.dyn_smem =
                hold_at_blocks(k, shape.launch.threads, blocks_per_sm, gpu.limits())?;
        }
        let bufs = &mut self.bufs;
        let timings = time_rotating(gpu, &self.ctx.timing, sides.len(), |i| {
            launch(gpu, sides[i], bufs, &held[i])
        })?;
        let warps = u64::from(shape.threads()) / 32;
        let flops = variant.flops(warps, shape.iters) as f64;
        let expected = self.inputs.expected(variant.ilp, shape.iters);
        let mut out = Vec::with_capacity(sides.len());
        for ((k, s), timing) in sides.iter().zip(&held).zip(timings) {
            let resident = residency_of(gpu, k, s.launch.threads, s.launch.dyn_smem)?;
            // NaN first, so that a thread that writes nothing fails.
            gpu.fill(&mut self.bufs.out, f32::NAN)?;
            launch(gpu, k, &mut self.bufs, s)?;
            let host = gpu.download(&self.bufs.out)?;
            let check = check_mma(&host, s.threads(), (variant.ilp, s.iters), expected);
            let value = tflops(flops, timing.median_ms);
            let peak = spec_peak(gpu.info());
            let m = Measurement::new(resident, timing, value, check, peak);
            out.push((m, s.launch.dyn_smem));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests::has;

    fn device(cc: (u32, u32)) -> DeviceInfo {
        let mut d: DeviceInfo = serde_json::from_str(
            r#"{"ordinal":0,"name":"GPU","compute_capability":[7,5],"sm_count":40,
            "sm_clock_khz":1590000,"mem_clock_khz":5001000,"mem_bus_width_bits":256,
            "l2_bytes":4194304,"regs_per_sm":65536,"max_regs_per_block":65536,
            "smem_per_sm":65536,"smem_per_block":49152,"smem_per_block_optin":65536,
            "max_threads_per_sm":1024,"max_blocks_per_sm":16,"warp_size":32,
            "total_mem_bytes":16000000000,"driver_version":"x","peak_fp32_gflops":8141.0,
            "peak_dram_gbps":320.0}"#,
        )
        .unwrap();
        d.compute_capability = cc;
        d
    }

    #[test]
    fn a_gpu_before_sm_80_is_refused_with_the_reason() {
        let why = unsupported(&device((7, 5))).unwrap();
        has(&why, "needs sm_80 or newer; GPU is sm_75");
        assert_eq!(unsupported(&device((8, 0))), None);
        assert_eq!(unsupported(&device((9, 0))), None);
    }

    #[test]
    fn the_spec_peak_is_held_only_where_known() {
        let mut h200 = device((9, 0));
        h200.sm_count = 132;
        h200.sm_clock_khz = 1_980_000;
        let p = spec_peak(&h200);
        assert!((p.value - 1070.53).abs() < 0.01, "{}", p.value);
        assert_eq!(p.unit, "TFLOP/s");
        assert_eq!(
            spec_peak(&device((8, 9))).value,
            0.0,
            "no spec: nothing flagged"
        );
    }
}
