//! The `ilp` experiment on the GPU: the only file of the experiment that touches the driver.
//!
//! The kernels are the variant table's `variants::FMA` entries (`fma_ilp{ILP}`), launched
//! through `Launch` + `FmaParams` with one output float per thread (whole blocks: the kernels
//! have no bounds check); `iters` is always a multiple of `FMA_UNROLL`, so the rounds run are
//! the rounds counted. Residency is held by the hold the `bandwidth` experiment uses
//! ([`hold_at_blocks`]), and every figure is timed by [`time_sides`] (the compared module's
//! samples interleaved with ours).

use std::collections::BTreeMap;

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::{FmaOp, FmaParams, FmaVariant};

use super::dip;
use super::output::Ilp;
use super::plan::{gflops, sized_iters};
use super::reference::{check_fma, ChainTable, DEFAULT_A, DEFAULT_B};
use super::row::{volkov_table, IlpRow, VOLKOV_FRACTION};
use super::spec::{Plan, Spec, SweepArgs};
use crate::cuda::{peak_fp32_gflops, CudaError, Gpu, Kernel, Launch as KernelLaunch, LaunchShape};
use crate::experiments::contract::{Registered, RunContext};
use crate::experiments::error::ExperimentError;
use crate::experiments::ilp_sweep::{layout, layout_mismatch, mean_clock_mhz, place, SweepPoint};
use crate::experiments::measured::Measured;
use crate::experiments::measurement::{Measurement, Peak};
use crate::experiments::module_source::Loaded;
use crate::experiments::progress::progress_bar;
use crate::experiments::residency::{hold_at_blocks, residency_of};
use crate::experiments::sweep::{sweep, with_compared, Step};
use crate::results::{Check, Timing};
use crate::sampling::{time_sides, Side};

/// FP32 lanes per SM of sm_80 and later as the sizing of `iters` assumes it (the peak itself
/// comes from `crate::cuda::peak_fp32_gflops`, which knows the architectures).
const SIZING_LANES: u32 = 128;

/// One point's launch: a full wave of `grid` blocks.
#[derive(Debug, Clone, Copy)]
struct Shape {
    grid: u32,
    threads: u32,
    dyn_smem: u32,
    /// Rounds per chain, as the kernel's `i32` parameter (`sized_iters` keeps it in range).
    iters: i32,
    /// The kernel's op, which sets the `a` and `b` it is launched with.
    op: FmaOp,
}

fn launch(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    out: &mut CudaSlice<f32>,
    s: &Shape,
) -> Result<(), CudaError> {
    let mut l = KernelLaunch::new(gpu);
    let (a, b) = s.op.launch_args(DEFAULT_A, DEFAULT_B);
    let params = FmaParams {
        out: l.output(out),
        a,
        b,
        iters: s.iters,
    };
    let shape = LaunchShape {
        grid: (s.grid, 1),
        threads: s.threads,
        dyn_smem: s.dyn_smem,
    };
    // SAFETY: an fma_ilp family entry (out, a, b, iters), one output float per thread, whole
    // warps: `out` holds at least grid x threads floats (allocated for every SM at its most
    // resident threads), and `threads` is whole warps (`layout`).
    unsafe { l.launch(kernel, shape, &params) }
}

/// One launch into a zeroed `out`, every thread's result checked against `table`.
fn verify(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    out: &mut CudaSlice<f32>,
    s: &Shape,
    ilp: u32,
    table: &ChainTable,
) -> Result<Check, CudaError> {
    gpu.clear(out)?;
    launch(gpu, kernel, out, s)?;
    let host = gpu.download(out)?;
    Ok(check_fma(&host, s.grid * s.threads, ilp, s.iters, table))
}

/// The CPU's chain table of each op the sweep runs: the rounds (`iters`) of every point of
/// that op it may run, up to its largest ILP, with the `a` and `b` its kernels are launched with.
fn chain_tables(
    sweep: &SweepArgs,
    warp_size: u32,
    max_block: u32,
    max_blocks: u32,
    lanes: u32,
) -> BTreeMap<FmaOp, ChainTable> {
    let mut by_op: BTreeMap<FmaOp, (Vec<i32>, u32)> = BTreeMap::new();
    for (v, warps) in sweep.points() {
        if layout(warps, warp_size, max_block, max_blocks).is_some() {
            let iters = sized_iters(v.ilp, warps, lanes, warp_size, sweep.target_cycles);
            let e = by_op.entry(v.op).or_default();
            e.0.push(i32::try_from(iters).expect("sized_iters stays within i32"));
            e.1 = e.1.max(v.ilp);
        }
    }
    by_op
        .into_iter()
        .map(|(op, (iters, max_ilp))| (op, ChainTable::of(op, iters, max_ilp)))
        .collect()
}

/// What every point of a run shares: the device, the timing, the modules, the output buffer
/// and the CPU's chains.
struct Sweeper<'a> {
    gpu: &'a Gpu,
    ctx: &'a RunContext,
    sweep: &'a SweepArgs,
    modules: (&'a Loaded, Option<&'a Loaded>),
    out: CudaSlice<f32>,
    tables: BTreeMap<FmaOp, ChainTable>,
}

/// Runs the `ilp` experiment on `gpu` as `p` asks, timing every figure by `ctx.timing`.
pub fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Ilp, ExperimentError> {
    let info = gpu.info();
    let (ours, theirs) = p.sources.load(gpu)?;
    let points = p.sweep.points();
    let bar = progress_bar(ctx, points.len(), Spec::NAME);
    // Every chain of the sweep on the CPU first, once: then every thread of every launch can be
    // checked against it.
    bar.set_message("CPU reference chains");
    let tables = chain_tables(
        &p.sweep,
        info.warp_size,
        gpu.limits().max_threads_per_block,
        info.max_blocks_per_sm,
        SIZING_LANES,
    );
    let mut sweeper = Sweeper {
        gpu,
        ctx,
        sweep: &p.sweep,
        modules: (&ours, theirs.as_ref()),
        out: gpu.zeros::<f32>((info.sm_count * info.max_threads_per_sm) as usize)?,
        tables,
    };
    let name = |&(v, warps): &(&FmaVariant, u32)| format!("{} at {warps} warps/SM", v.entry);
    let mut swept = sweep(&bar, points, name, |&(v, warps)| sweeper.point(v, warps))?;
    bar.finish_and_clear();
    dip::fill(&mut swept.rows);
    Ok(Ilp {
        a: DEFAULT_A,
        b: DEFAULT_B,
        volkov: volkov_table(&swept.rows, VOLKOV_FRACTION),
        rows: swept.rows,
        skipped: swept.skipped,
    })
}

impl Sweeper<'_> {
    /// One (ILP, warps per SM) point: laid out as whole blocks, held there, timed (the compared
    /// module's build interleaved where it can be held there too), every thread checked.
    fn point(&mut self, variant: &FmaVariant, warps: u32) -> Result<Step<IlpRow>, ExperimentError> {
        let info = self.gpu.info().clone();
        let (ilp, name) = (variant.ilp, variant.entry);
        let placed = match place(self.gpu, name, warps) {
            Ok(placed) => placed,
            Err(note) => return Ok(Step::Skipped(note)),
        };
        let (ours, theirs) = self.modules;
        let (kernel, other) = ours.entry_pair(theirs, name)?;
        let iters = sized_iters(
            ilp,
            warps,
            SIZING_LANES,
            info.warp_size,
            self.sweep.target_cycles,
        );
        let shape = Shape {
            grid: info.sm_count * placed.blocks_per_sm,
            threads: placed.threads,
            dyn_smem: 0,
            iters: i32::try_from(iters).expect("sized_iters stays within i32"),
            op: variant.op,
        };
        let mut flags = Vec::new();
        let (mine, compared, dyn_smem) = with_compared(other.as_ref(), &mut flags, |other| {
            self.time(variant, placed.blocks_per_sm, shape, (&kernel, other))
        })?;
        flags.extend(mine.flags.iter().cloned());
        let sm_clock = mean_clock_mhz(&mine.timing);
        if sm_clock.is_none() {
            flags.push("SM clock not readable: % of peak at the spec clock".to_owned());
        }
        let clock_khz = sm_clock.map_or(info.sm_clock_khz, |m| (m * 1000.0) as u32);
        // The FP32 peak counts 2 FLOPs a lane and cycle; an op of 1 FLOP peaks at half of it.
        let peak = peak_fp32_gflops(info.compute_capability, info.sm_count, clock_khz)
            * variant.op.flops() as f64
            / 2.0;
        flags.extend(layout_mismatch(mine.blocks_per_sm, &placed));
        Ok(Step::Row(IlpRow {
            op: variant.op.name().to_owned(),
            point: SweepPoint::launched(ilp, name.to_owned(), placed, &mine, dyn_smem, iters),
            gflops: mine.throughput,
            sm_clock_mhz: sm_clock,
            peak_gflops: peak,
            fraction_of_peak: mine.throughput / peak,
            timing: mine.timing.clone(),
            scheduler_model: None,
            measured: Measured::new(&mine, flags, compared.map(|m| (m, None))),
        }))
    }

    /// `kernel`, and `other` with it (samples interleaved), each held at `blocks_per_sm` by its
    /// own dynamic shared memory, timed in `shape`, then each checked on every thread. Gives
    /// each side's figures and our dynamic shared memory.
    fn time(
        &mut self,
        variant: &FmaVariant,
        blocks_per_sm: u32,
        shape: Shape,
        (kernel, other): (&Kernel<'_>, Option<&Kernel<'_>>),
    ) -> Result<(Measurement, Option<Measurement>, u32), ExperimentError> {
        let gpu = self.gpu;
        let limits = gpu.limits();
        let hold = |k: &Kernel<'_>| hold_at_blocks(k, shape.threads, blocks_per_sm, limits);
        let mine = Shape {
            dyn_smem: hold(kernel)?,
            ..shape
        };
        let other = other
            .map(|k| hold(k).map(|dyn_smem| (k, Shape { dyn_smem, ..shape })))
            .transpose()?;
        let out = &mut self.out;
        let (timing, compared) =
            time_sides(gpu, &self.ctx.timing, other.is_some(), |side| {
                match (side, &other) {
                    (Side::Theirs, Some((k, s))) => launch(gpu, k, out, s),
                    _ => launch(gpu, kernel, out, &mine),
                }
            })?;
        let flops = variant.flops(u64::from(mine.grid) * u64::from(mine.threads), mine.iters);
        let table = &self.tables[&variant.op];
        let ilp = variant.ilp;
        let mut figures = |k: &Kernel<'_>, s: &Shape, t: Timing| {
            let resident = residency_of(gpu, k, s.threads, s.dyn_smem)?;
            let check = verify(gpu, k, &mut self.out, s, ilp, table)?;
            let value = gflops(flops as f64, t.median_ms);
            let peak = Peak::fp32(gpu.info());
            Ok::<_, ExperimentError>(Measurement::new(resident, t, value, check, peak))
        };
        let ours = figures(kernel, &mine, timing)?;
        let theirs = match (other, compared) {
            (Some((k, s)), Some(t)) => Some(figures(k, &s, t)?),
            _ => None,
        };
        Ok((ours, theirs, mine.dyn_smem))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::summarize;

    #[test]
    fn the_chain_table_covers_every_point_of_the_sweep() {
        // Every ILP and warps target, sized to few rounds so that the CPU's chains are quick.
        let sweep: SweepArgs =
            crate::flag_values::parse_flags(&["--target-cycles", "1000"]).unwrap();
        let tables = chain_tables(&sweep, 32, 1024, 32, SIZING_LANES);
        assert_eq!(
            tables.len(),
            FmaOp::ALL.len(),
            "the FFMA and every control op"
        );
        for (v, warps) in sweep.points() {
            let iters = sized_iters(v.ilp, warps, SIZING_LANES, 32, sweep.target_cycles);
            assert!(
                tables[&v.op].expected(v.ilp, iters as i32).is_some(),
                "{} at {warps} warps/SM ({iters} rounds) has no reference",
                v.entry
            );
        }
    }

    #[test]
    fn the_clock_is_the_mean_of_the_readings() {
        let t = summarize(vec![1.0], Some(1980), Some(1940));
        assert_eq!(mean_clock_mhz(&t), Some(1960.0));
        let t = summarize(vec![1.0], None, Some(1940));
        assert_eq!(mean_clock_mhz(&t), Some(1940.0));
        assert_eq!(mean_clock_mhz(&summarize(vec![], None, None)), None);
    }
}
