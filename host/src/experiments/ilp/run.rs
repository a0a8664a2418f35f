//! Experiment 5 on the GPU: the only file of the experiment that touches the driver.
//!
//! The kernels are the variant table's `variants::FMA` entries (`fma_ilp{ILP}`), launched
//! through `FmaParams` with one output float per thread (whole blocks: the kernels have no
//! bounds check); `iters` is always a multiple of `FMA_UNROLL`, so the rounds run are the
//! rounds counted.

use anyhow::Context;

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::FmaParams;

use super::plan::{gflops, layout, sized_iters, Layout};
use super::plots::write_plots;
use super::reference::{check_fma, checked_threads, DEFAULT_A, DEFAULT_B};
use super::row::{volkov_table, ComparedFma, Ilp, IlpRow, VOLKOV_FRACTION};
use super::table::tables;
use super::{kernel as fma_kernel, IlpArgs, UnknownIlp};
use crate::cuda::{driver_present, peak_fp32_gflops, CudaError, Gpu, Kernel};
use crate::experiments::inflight::hold::hold_at_blocks;
use crate::experiments::inflight::launch::launch_args;
use crate::experiments::inflight::run::{writable_dir, write_atomically};
use crate::experiments::module_source::{load, Kernels};
use crate::experiments::{residency_of, ExperimentError};
use crate::results::{Check, Timing};
use crate::sampling::{sample_sides, ClockWatch, Sampled, SamplingConfig};
use crate::tables::{render, to_csv, to_markdown, Format};
use crate::timing::Side;

/// FP32 lanes per SM of sm_80 and later as the sizing of `iters` assumes it (the peak itself
/// comes from `crate::cuda::peak_fp32_gflops`, which knows the architectures).
const SIZING_LANES: u32 = 128;

struct Launch {
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
    l: &Launch,
    a: f32,
    b: f32,
) -> Result<(), CudaError> {
    let params = FmaParams {
        out: gpu.address_mut(out),
        a,
        b,
        iters: l.iters,
    };
    // SAFETY: an fma_ilp entry (out, a, b, iters), one output float per thread: `out` holds at
    // least grid x threads floats (allocated for every SM at its most resident threads).
    unsafe {
        launch_args(
            gpu,
            kernel,
            (l.grid, 1),
            l.threads,
            l.dyn_smem,
            params.args(),
        )
    }
}

fn verify(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    out: &mut CudaSlice<f32>,
    l: &Launch,
    ilp: u32,
    seed: u64,
) -> Result<Check, CudaError> {
    gpu.clear(out)?;
    launch(gpu, kernel, out, l, DEFAULT_A, DEFAULT_B)?;
    gpu.synchronize()?;
    let host = gpu.download(out)?;
    let threads = checked_threads(l.grid * l.threads, seed);
    Ok(check_fma(
        &host, &threads, ilp, DEFAULT_A, DEFAULT_B, l.iters,
    ))
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

/// Runs experiment 5 on `gpu` as `args` ask. `config` is the sampling plan of every figure.
pub fn run(gpu: &Gpu, args: &IlpArgs, config: &SamplingConfig) -> Result<Ilp, ExperimentError> {
    let info = gpu.info().clone();
    let kernels = args.module.clone().map_or(Kernels::Builtin, Kernels::File);
    let ours = load(gpu, &kernels)?;
    let theirs = args
        .compare
        .as_ref()
        .map(|p| load(gpu, &Kernels::File(p.clone())))
        .transpose()?;
    let max_block = gpu.limits().max_threads_per_block;
    let mut out = gpu.zeros((info.sm_count * info.max_threads_per_sm) as usize)?;
    let smem = gpu.smem_limits();
    let clock = ClockWatch::default();
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for &ilp in &args.ilp {
        let Some(variant) = fma_kernel(ilp) else {
            skipped.push(UnknownIlp(ilp).to_string());
            continue;
        };
        let name = variant.entry.to_owned();
        let (kernel, other) = ours.entry_pair(theirs.as_ref(), &name)?;
        for &warps in &args.warps_per_sm {
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
            let dyn_smem = match hold_at_blocks(&kernel, threads, blocks_per_sm, smem) {
                Ok(d) => d,
                Err(e) => {
                    skipped.push(e.to_string());
                    continue;
                }
            };
            let mut flags = Vec::new();
            let other_hold = match &other {
                Some(k) => match hold_at_blocks(k, threads, blocks_per_sm, smem) {
                    Ok(d) => Some((k, d)),
                    Err(e) => {
                        flags.push(format!("compared module not timed: {e}"));
                        None
                    }
                },
                None => None,
            };
            let iters = sized_iters(ilp, warps, SIZING_LANES, info.warp_size, args.target_cycles);
            let grid = info.sm_count * blocks_per_sm;
            let total_threads = u64::from(grid) * u64::from(threads);
            let mine = Launch {
                grid,
                threads,
                dyn_smem,
                iters: i32::try_from(iters).expect("sized_iters stays within i32"),
            };
            let resident = residency_of(gpu, &kernel, threads, dyn_smem)?;
            let (sampled, compared) =
                sample_sides(gpu, config, &clock, other_hold.is_some(), |side| {
                    match (side, &other_hold) {
                        (Side::Theirs, Some((k, d))) => launch(
                            gpu,
                            k,
                            &mut out,
                            &Launch {
                                dyn_smem: *d,
                                ..mine
                            },
                            DEFAULT_A,
                            DEFAULT_B,
                        ),
                        _ => launch(gpu, &kernel, &mut out, &mine, DEFAULT_A, DEFAULT_B),
                    }
                })?;
            let check = verify(gpu, &kernel, &mut out, &mine, ilp, args.seed)?;
            let flops = variant.flops(total_threads, mine.iters) as f64;
            let value = gflops(flops, sampled.timing.median_ms);
            let sm_clock = mean_clock_mhz(&sampled.timing);
            if sm_clock.is_none() {
                flags.push("SM clock not readable: % of peak at the spec clock".to_owned());
            }
            let clock_khz = sm_clock.map_or(info.sm_clock_khz, |m| (m * 1000.0) as u32);
            let peak = peak_fp32_gflops(info.compute_capability, info.sm_count, clock_khz);
            let compare = match (other_hold, compared) {
                (Some((k, d)), Some(s)) => Some(compared_fma(
                    gpu,
                    k,
                    &mut out,
                    &Launch {
                        dyn_smem: d,
                        ..mine
                    },
                    ilp,
                    args.seed,
                    s,
                    flops,
                    value,
                )?),
                _ => None,
            };
            flags.extend(sampled.flags.iter().cloned());
            flags.extend(resident.disagreement.iter().cloned());
            if resident.blocks_per_sm != blocks_per_sm {
                flags.push(format!(
                    "driver gives {} blocks/SM, the layout asked for {blocks_per_sm}",
                    resident.blocks_per_sm
                ));
            }
            rows.push(IlpRow {
                ilp,
                entry: name.clone(),
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
                noise: sampled.noise,
                sampled,
                check,
                flags,
                compare,
            });
        }
    }
    let volkov = volkov_table(&rows, VOLKOV_FRACTION);
    Ok(Ilp {
        a: DEFAULT_A,
        b: DEFAULT_B,
        rows,
        volkov,
        skipped,
    })
}

#[allow(clippy::too_many_arguments)]
fn compared_fma(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    out: &mut CudaSlice<f32>,
    l: &Launch,
    ilp: u32,
    seed: u64,
    sampled: Sampled,
    flops: f64,
    our_gflops: f64,
) -> Result<ComparedFma, ExperimentError> {
    let check = verify(gpu, kernel, out, l, ilp, seed)?;
    let value = gflops(flops, sampled.timing.median_ms);
    Ok(ComparedFma {
        regs: kernel.num_regs()?,
        gflops: value,
        ratio: our_gflops / value,
        noise: sampled.noise,
        check,
        flags: sampled.flags,
    })
}

/// Every failed check of the run, in words (ours and the compared module's).
pub fn failed_checks(result: &Ilp) -> Vec<String> {
    let mut failed = Vec::new();
    for r in &result.rows {
        if !r.check.passed {
            failed.push(format!(
                "{} at {} warps/SM: {}",
                r.entry, r.warps_per_sm, r.check.what
            ));
        }
        if let Some(c) = r.compare.as_ref().filter(|c| !c.check.passed) {
            failed.push(format!("{} (compared module): {}", r.entry, c.check.what));
        }
    }
    failed
}

/// `host ilp`: validates the flags and the output folder, runs the experiment, prints its
/// tables and writes the results. `Ok(false)` when a check failed (the rows say which).
pub fn command(args: &IlpArgs) -> anyhow::Result<bool> {
    args.validate()?;
    if let Some(dir) = &args.out {
        writable_dir(dir)?;
    }
    if !driver_present() {
        return Err(CudaError::NoDriver.into());
    }
    let gpu = Gpu::open(args.device).with_context(|| format!("opening device {}", args.device))?;
    let config = args
        .sampling
        .config(Some(gpu.info().sm_clock_khz / 1000))
        .map_err(anyhow::Error::msg)?;
    let result = run(&gpu, args, &config).context("experiment 5 (ILP)")?;
    let ts = tables(&result);
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&result)?),
        f => {
            for t in &ts {
                print!("{}", render(t, f));
            }
        }
    }
    if let Some(dir) = &args.out {
        write_atomically(
            &dir.join("ilp.json"),
            &serde_json::to_string_pretty(&result)?,
        )?;
        let md: Vec<String> = ts.iter().map(to_markdown).collect();
        write_atomically(&dir.join("ilp.md"), &md.join("\n"))?;
        write_atomically(&dir.join("ilp.csv"), &to_csv(&ts[0]))?;
        write_plots(&result.rows, dir)?;
    }
    let failed = failed_checks(&result);
    for f in &failed {
        eprintln!("FAILED {f}");
    }
    Ok(failed.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_is_the_mean_of_the_readings() {
        let t = crate::timing::summarize(vec![1.0], Some(1980), Some(1940));
        assert_eq!(mean_clock_mhz(&t), Some(1960.0));
        let t = crate::timing::summarize(vec![1.0], None, Some(1940));
        assert_eq!(mean_clock_mhz(&t), Some(1940.0));
        assert_eq!(
            mean_clock_mhz(&crate::timing::summarize(vec![], None, None)),
            None
        );
    }

    #[derive(clap::Parser)]
    struct Cmd {
        #[command(flatten)]
        args: IlpArgs,
    }

    /// A small sweep on device 0: every point verified bit for bit, at the asked residency, its
    /// fraction of peak plausible.
    #[test]
    #[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
    fn a_small_sweep_runs_verified_on_the_gpu() {
        use clap::Parser;
        if !driver_present() {
            eprintln!("SKIP: no CUDA driver");
            return;
        }
        let args = Cmd::parse_from([
            "ilp",
            "--ilp",
            "1,4",
            "--warps-per-sm",
            "1,8,64",
            "--target-cycles",
            "200000",
            "--iters",
            "2",
            "--samples",
            "3",
        ])
        .args;
        let gpu = Gpu::open(0).unwrap();
        let config = args.sampling.config(None).unwrap();
        let r = run(&gpu, &args, &config).unwrap();
        assert!(failed_checks(&r).is_empty(), "{:?}", failed_checks(&r));
        assert_eq!(r.rows.len(), 6);
        for row in &r.rows {
            assert_eq!(row.layout.warps_per_sm, row.warps_per_sm);
            assert!(
                !row.flags.iter().any(|f| f.contains("driver gives")),
                "{:?}",
                row.flags
            );
            assert!(
                row.fraction_of_peak > 0.0 && row.fraction_of_peak < 1.1,
                "ILP {} at {} warps: {}",
                row.ilp,
                row.warps_per_sm,
                row.fraction_of_peak
            );
        }
        assert_eq!(r.volkov.len(), 2);
    }
}
