//! Experiment 5 on the GPU: the only file of the experiment that touches the driver.
//!
//! The kernels are the variant table's `variants::FMA` entries (`fma_ilp{ILP}`), launched
//! through `Launch` + `FmaParams` with one output float per thread (whole blocks: the kernels
//! have no bounds check); `iters` is always a multiple of `FMA_UNROLL`, so the rounds run are
//! the rounds counted. Residency is held by the hold experiment 2 uses
//! ([`hold_at_blocks`]), and every figure is timed by [`time_sides`] (the compared module's
//! samples interleaved with ours).

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::FmaParams;

use super::plan::{gflops, layout, sized_iters, Layout};
use super::reference::{check_fma, ChainTable, DEFAULT_A, DEFAULT_B};
use super::row::{volkov_table, Ilp, IlpRow, VOLKOV_FRACTION};
use super::{kernel as fma_kernel, Plan, Spec, SweepArgs, UnknownIlp};
use crate::cuda::{peak_fp32_gflops, CudaError, Gpu, Kernel, Launch as KernelLaunch, LaunchShape};
use crate::experiments::contract::{Experiment, RunContext};
use crate::experiments::module_source::load;
use crate::experiments::residency::hold_at_blocks;
use crate::experiments::{progress_bar, residency_of, ExperimentError, InVariant};
use crate::results::{Check, Comparison, Timing};
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
}

fn launch(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    out: &mut CudaSlice<f32>,
    s: &Shape,
) -> Result<(), CudaError> {
    let mut l = KernelLaunch::new(gpu);
    let params = FmaParams {
        out: l.output(out),
        a: DEFAULT_A,
        b: DEFAULT_B,
        iters: s.iters,
    };
    let shape = LaunchShape {
        grid: (s.grid, 1),
        threads: s.threads,
        dyn_smem: s.dyn_smem,
    };
    // SAFETY: an fma_ilp entry (out, a, b, iters), one output float per thread: `out` holds at
    // least grid x threads floats (allocated for every SM at its most resident threads).
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

/// The rounds (`iters`) of every point the sweep may run, for the CPU's chain table.
fn sweep_iters(
    sweep: &SweepArgs,
    warp_size: u32,
    max_block: u32,
    max_blocks: u32,
    lanes: u32,
) -> Vec<i32> {
    let mut all = Vec::new();
    for &ilp in &sweep.ilp {
        for &warps in &sweep.warps_per_sm {
            if layout(warps, warp_size, max_block, max_blocks).is_some() {
                let iters = sized_iters(ilp, warps, lanes, warp_size, sweep.target_cycles);
                all.push(i32::try_from(iters).expect("sized_iters stays within i32"));
            }
        }
    }
    all
}

/// Mean of the clock readings around a figure's samples (MHz).
pub fn mean_clock_mhz(timing: &Timing) -> Option<f64> {
    let readings: Vec<f64> = [timing.sm_clock_mhz_before, timing.sm_clock_mhz_after]
        .iter()
        .flatten()
        .map(|&m| f64::from(m))
        .collect();
    (!readings.is_empty()).then(|| readings.iter().sum::<f64>() / readings.len() as f64)
}

/// Runs experiment 5 on `gpu` as `p` asks, timing every figure by `ctx.timing`.
pub fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Ilp, ExperimentError> {
    let info = gpu.info().clone();
    let ours = load(gpu, &p.kernels)?;
    let theirs = p.compare.as_ref().map(|k| load(gpu, k)).transpose()?;
    let limits = gpu.limits().clone();
    let max_block = limits.max_threads_per_block;
    let mut out = gpu.zeros::<f32>((info.sm_count * info.max_threads_per_sm) as usize)?;
    let bar = progress_bar(
        ctx,
        p.sweep.ilp.len() * p.sweep.warps_per_sm.len(),
        Spec::NAME,
    );
    // Every chain of the sweep on the CPU first, once: then every thread of every launch can be
    // checked against it.
    bar.set_message("CPU reference chains");
    let table = ChainTable::new(
        sweep_iters(
            &p.sweep,
            info.warp_size,
            max_block,
            info.max_blocks_per_sm,
            SIZING_LANES,
        ),
        p.sweep.ilp.iter().copied().max().unwrap_or(1),
        DEFAULT_A,
        DEFAULT_B,
    );
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for &ilp in &p.sweep.ilp {
        let Some(variant) = fma_kernel(ilp) else {
            skipped.push(UnknownIlp(ilp).to_string());
            continue;
        };
        let name = variant.entry;
        let (kernel, other) = ours.entry_pair(theirs.as_ref(), name).in_variant(name)?;
        for &warps in &p.sweep.warps_per_sm {
            bar.set_message(format!("{name} at {warps} warps/SM"));
            bar.inc(1);
            let Some(placed) = layout(warps, info.warp_size, max_block, info.max_blocks_per_sm)
            else {
                skipped.push(format!(
                    "{name} at {warps} warps/SM: no split into whole blocks of at most \
                     {max_block} threads"
                ));
                continue;
            };
            let Layout {
                blocks_per_sm,
                threads,
                ..
            } = placed;
            let hold = |k: &Kernel<'_>| hold_at_blocks(k, threads, blocks_per_sm, &limits);
            let dyn_smem = match hold(&kernel) {
                Ok(d) => d,
                Err(e) => {
                    skipped.push(format!("{name} at {warps} warps/SM: {e}"));
                    continue;
                }
            };
            let mut flags = Vec::new();
            let other = match &other {
                Some(k) => match hold(k) {
                    Ok(d) => Some((k, d)),
                    Err(e) => {
                        flags.push(format!("compared module not timed: {e}"));
                        None
                    }
                },
                None => None,
            };
            let iters = sized_iters(
                ilp,
                warps,
                SIZING_LANES,
                info.warp_size,
                p.sweep.target_cycles,
            );
            let mine = Shape {
                grid: info.sm_count * blocks_per_sm,
                threads,
                dyn_smem,
                iters: i32::try_from(iters).expect("sized_iters stays within i32"),
            };
            let total_threads = u64::from(mine.grid) * u64::from(threads);
            let resident = residency_of(gpu, &kernel, threads, dyn_smem).in_variant(name)?;
            let (timing, compared) = time_sides(gpu, &ctx.timing, other.is_some(), |side| {
                match (side, &other) {
                    (Side::Theirs, Some((k, d))) => launch(
                        gpu,
                        k,
                        &mut out,
                        &Shape {
                            dyn_smem: *d,
                            ..mine
                        },
                    ),
                    _ => launch(gpu, &kernel, &mut out, &mine),
                }
            })
            .in_variant(name)?;
            let check = verify(gpu, &kernel, &mut out, &mine, ilp, &table).in_variant(name)?;
            let flops = variant.flops(total_threads, mine.iters) as f64;
            let value = gflops(flops, timing.median_ms);
            let sm_clock = mean_clock_mhz(&timing);
            if sm_clock.is_none() {
                flags.push("SM clock not readable: % of peak at the spec clock".to_owned());
            }
            let clock_khz = sm_clock.map_or(info.sm_clock_khz, |m| (m * 1000.0) as u32);
            let peak = peak_fp32_gflops(info.compute_capability, info.sm_count, clock_khz);
            let compare = match (other, compared) {
                (Some((k, d)), Some(t)) => {
                    let s = Shape {
                        dyn_smem: d,
                        ..mine
                    };
                    let check = verify(gpu, k, &mut out, &s, ilp, &table).in_variant(name)?;
                    let theirs = gflops(flops, t.median_ms);
                    flags.extend(t.flags.iter().map(|f| format!("compared module: {f}")));
                    Some(Comparison {
                        regs: k.num_regs().in_variant(name)?,
                        throughput: theirs,
                        ratio: value / theirs,
                        spill_stores: None,
                        spill_loads: None,
                        timing: t,
                        check,
                    })
                }
                _ => None,
            };
            flags.extend(timing.flags.iter().cloned());
            flags.extend(resident.disagreement.iter().cloned());
            if resident.blocks_per_sm != blocks_per_sm {
                flags.push(format!(
                    "driver gives {} blocks/SM, the layout asked for {blocks_per_sm}",
                    resident.blocks_per_sm
                ));
            }
            rows.push(IlpRow {
                ilp,
                entry: name.to_owned(),
                layout: placed,
                warps_per_sm: warps,
                occupancy: resident.occupancy,
                regs: resident.regs,
                dyn_smem_bytes: dyn_smem,
                iters,
                gflops: value,
                sm_clock_mhz: sm_clock,
                peak_gflops: peak,
                fraction_of_peak: value / peak,
                timing,
                check,
                flags,
                compare,
            });
        }
    }
    bar.finish_and_clear();
    let volkov = volkov_table(&rows, VOLKOV_FRACTION);
    Ok(Ilp {
        a: DEFAULT_A,
        b: DEFAULT_B,
        rows,
        volkov,
        skipped,
    })
}

/// Every failed check of the run, in words (ours and the compared module's).
pub fn failed_checks(result: &Ilp) -> Vec<String> {
    let mut failed = Vec::new();
    for r in &result.rows {
        crate::experiments::cells::failed(
            format!("{} at {} warps/SM", r.entry, r.warps_per_sm),
            &r.check,
            r.compare.as_ref(),
            &mut failed,
        );
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::summarize;

    #[test]
    fn the_chain_table_covers_every_point_of_the_sweep() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cmd {
            #[command(flatten)]
            args: SweepArgs,
        }
        // Every ILP and warps target, sized to few rounds so that the CPU's chains are quick.
        let sweep = Cmd::try_parse_from(["ilp", "--target-cycles", "1000"])
            .unwrap()
            .args;
        let table = ChainTable::new(
            sweep_iters(&sweep, 32, 1024, 32, SIZING_LANES),
            *sweep.ilp.iter().max().unwrap(),
            DEFAULT_A,
            DEFAULT_B,
        );
        for &ilp in &sweep.ilp {
            for &warps in &sweep.warps_per_sm {
                let iters = sized_iters(ilp, warps, SIZING_LANES, 32, sweep.target_cycles);
                assert!(
                    table.expected(ilp, iters as i32).is_some(),
                    "ILP {ilp} at {warps} warps/SM ({iters} rounds) has no reference"
                );
            }
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
