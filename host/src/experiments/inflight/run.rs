//! Experiment 4 on the GPU: the only file of the experiment that touches the driver.
//!
//! The kernels are the variant table's: the copies are the points of
//! `variants::MEMCPY_GRID` (`memcpy_t{T}_l{L}_w{W}`, launched through `MemcpyParams` on
//! `MemcpyPoint::grid(n)` blocks of T threads), the latency chase is `variants::CHASE`
//! (`ChaseParams`, one thread, its three output words read by `ChaseKernel::result`). The
//! built-in module is the main one, whose copies carry `.maxntid` at their block size; a point
//! that cannot be held at its residency (in any module) is skipped with a note.

use std::path::Path;

use anyhow::Context;

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use kernels_gpu::reference::{build_chase_ring, chase_end};
use kernels_gpu::variants::{ChaseKernel, ChaseParams, MemcpyParams, MemcpyPoint, CHASE};

use super::chase::{check_chase, Latency};
use super::grid::PlanLimits;
use super::hold::hold_at_blocks;
use super::launch::launch_args;
use super::model::{bytes_in_flight_per_sm, requests_in_flight_per_sm, LittlesLaw};
use super::plots::write_plots;
use super::row::{headline, ComparedCopy, CopyReference, Inflight, InflightRow};
use super::table::table;
use super::{InflightArgs, CHASE_L2_MULTIPLE};
use crate::cuda::{driver_present, CudaError, DriverContext, Gpu, Kernel};
use crate::experiments::bandwidth::copy_gbps;
use crate::experiments::inputs::{random_floats, Rng};
use crate::experiments::module_source::{load, Kernels, Loaded};
use crate::experiments::verify::check_copy;
use crate::experiments::{residency_of, ExperimentError};
use crate::results::Check;
use crate::sampling::{sample_sides, ClockWatch, Sampled, SamplingConfig};
use crate::tables::{render, to_csv, to_markdown, Format};
use crate::timing::Side;

/// Largest grid x dimension.
const MAX_GRID_X: u64 = (1 << 31) - 1;

struct Buffers {
    src_host: Vec<f32>,
    src: CudaSlice<f32>,
    dst: CudaSlice<f32>,
}

impl Buffers {
    fn launch(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        copy: &MemcpyPoint,
        dyn_smem: u32,
    ) -> Result<(), CudaError> {
        let n = self.src_host.len() as u64;
        let params = MemcpyParams {
            src: gpu.address(&self.src),
            dst: gpu.address_mut(&mut self.dst),
            n,
        };
        // SAFETY: a memcpy entry (src, dst: device pointers, n floats); both buffers hold n
        // floats and the grid is `MemcpyPoint::grid(n)` blocks of its threads (checked below
        // MAX_GRID_X by the caller), the family's launch contract.
        unsafe {
            launch_args(
                gpu,
                kernel,
                (copy.grid(n) as u32, 1),
                copy.threads,
                dyn_smem,
                params.args(),
            )
        }
    }

    /// One fresh copy into a zeroed destination, checked exactly.
    fn verify(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        copy: &MemcpyPoint,
        dyn_smem: u32,
    ) -> Result<Check, CudaError> {
        gpu.clear(&mut self.dst)?;
        self.launch(gpu, kernel, copy, dyn_smem)?;
        gpu.synchronize()?;
        let dst = gpu.download(&self.dst)?;
        Ok(check_copy(&self.src_host, &dst, copy.width))
    }
}

/// Runs experiment 4 on `gpu` as `args` ask. `config` is the sampling plan of every figure.
pub fn run(
    gpu: &Gpu,
    args: &InflightArgs,
    config: &SamplingConfig,
) -> Result<Inflight, ExperimentError> {
    let info = gpu.info().clone();
    let copy_bytes = args.copy_mib << 20;
    if copy_bytes.saturating_mul(2) > info.total_mem_bytes {
        return Err(ExperimentError::CopyTooLarge {
            mib: args.copy_mib,
            have_mib: info.total_mem_bytes >> 20,
            max_mib: ((info.total_mem_bytes / 2) >> 20).saturating_sub(256),
        });
    }
    let kernels = args.module.clone().map_or(Kernels::Builtin, Kernels::File);
    let ours = load(gpu, &kernels)?;
    let theirs = args
        .compare
        .as_ref()
        .map(|p| load(gpu, &Kernels::File(p.clone())))
        .transpose()?;

    let latency = measure_latency(gpu, &ours, args, info.l2_bytes)?;

    let floats = (copy_bytes / 4) as usize;
    let src_host = random_floats(floats, args.seed.wrapping_add(40));
    let mut buf = Buffers {
        src: gpu.upload(&src_host)?,
        dst: gpu.zeros(floats)?,
        src_host,
    };
    let clock = ClockWatch::default();
    let (copy_sampled, _) = sample_sides(gpu, config, &clock, false, |_| {
        gpu.copy_device(&buf.src, &mut buf.dst)
    })?;
    let copy = CopyReference {
        bytes: copy_bytes,
        gbps: copy_gbps(copy_bytes, copy_sampled.timing.median_ms),
        sampled: copy_sampled,
    };
    let model = LittlesLaw {
        sms: info.sm_count,
        latency_ns: latency.ns_per_step,
        peak_gbps: copy.gbps,
    };

    let limits = PlanLimits {
        warp_size: info.warp_size,
        max_blocks_per_sm: info.max_blocks_per_sm,
        max_warps_per_sm: info.max_threads_per_sm / info.warp_size.max(1),
    };
    let smem = gpu.smem_limits();
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for point in args.points(limits) {
        let Some(copy_kernel) = point.shape.kernel() else {
            skipped.push(format!("{:?}: not a point of the memcpy grid", point.shape));
            continue;
        };
        let entry = copy_kernel.entry;
        if copy_kernel.grid(floats as u64) > MAX_GRID_X {
            skipped.push(format!(
                "{entry}: more blocks than a grid holds; use a smaller copy"
            ));
            continue;
        }
        let (kernel, other) = ours.entry_pair(theirs.as_ref(), entry)?;
        let threads = copy_kernel.threads;
        let dyn_smem = match hold_at_blocks(&kernel, threads, point.blocks_per_sm, smem) {
            Ok(d) => d,
            Err(e) => {
                skipped.push(e.to_string());
                continue;
            }
        };
        let mut flags = Vec::new();
        let other = match other {
            Some(k) => match hold_at_blocks(&k, threads, point.blocks_per_sm, smem) {
                Ok(d) => Some((k, d)),
                Err(e) => {
                    flags.push(format!("compared module not timed: {e}"));
                    None
                }
            },
            None => None,
        };
        let resident = residency_of(gpu, &kernel, threads, dyn_smem)?;
        let (mine, compared) = sample_sides(gpu, config, &clock, other.is_some(), |side| {
            match (side, &other) {
                (Side::Theirs, Some((k, d))) => buf.launch(gpu, k, copy_kernel, *d),
                _ => buf.launch(gpu, &kernel, copy_kernel, dyn_smem),
            }
        })?;
        let check = buf.verify(gpu, &kernel, copy_kernel, dyn_smem)?;
        let gbps = copy_gbps(copy_bytes, mine.timing.median_ms);
        let compare = match (other, compared) {
            (Some((k, d)), Some(s)) => Some(compared_copy(
                gpu,
                &mut buf,
                &k,
                copy_kernel,
                d,
                s,
                gbps,
                copy_bytes,
            )?),
            _ => None,
        };
        let warps = point.warps_per_sm(info.warp_size);
        let bif = bytes_in_flight_per_sm(
            threads * resident.blocks_per_sm,
            copy_kernel.bytes_per_thread(),
        );
        flags.extend(mine.flags.iter().cloned());
        flags.extend(resident.disagreement.iter().cloned());
        rows.push(InflightRow {
            point,
            entry: entry.to_owned(),
            bytes_per_thread: copy_kernel.bytes_per_thread(),
            regs: resident.regs,
            dyn_smem_bytes: dyn_smem,
            blocks_per_sm: resident.blocks_per_sm,
            warps_per_sm: warps,
            occupancy: resident.occupancy,
            bytes_in_flight_per_sm: bif,
            requests_in_flight_per_sm: requests_in_flight_per_sm(
                warps,
                copy_kernel.requests_per_thread(),
            ),
            gbps,
            fraction_of_copy: gbps / copy.gbps,
            predicted_gbps: model.predicted_gbps(bif as f64),
            noise: mine.noise,
            sampled: mine,
            check,
            flags,
            compare,
        });
    }
    let headline = headline(&rows, &model);
    Ok(Inflight {
        copy,
        latency,
        model,
        rows,
        skipped,
        headline,
    })
}

#[allow(clippy::too_many_arguments)]
fn compared_copy(
    gpu: &Gpu,
    buf: &mut Buffers,
    kernel: &Kernel<'_>,
    copy: &MemcpyPoint,
    dyn_smem: u32,
    sampled: Sampled,
    our_gbps: f64,
    copy_bytes: u64,
) -> Result<ComparedCopy, ExperimentError> {
    let check = buf.verify(gpu, kernel, copy, dyn_smem)?;
    let gbps = copy_gbps(copy_bytes, sampled.timing.median_ms);
    Ok(ComparedCopy {
        regs: kernel.num_regs()?,
        gbps,
        ratio: our_gbps / gbps,
        noise: sampled.noise,
        check,
        flags: sampled.flags,
    })
}

/// The pointer chase: one thread, `variants::CHASE` of our module (the built-in one when
/// `--module` names a file without it, e.g. the peer's), over a ring of `--chase-mib` (default
/// 8 x L2) built by `reference::build_chase_ring`, timed by the kernel's own `%clock64` and
/// `%globaltimer`, its end checked against the CPU's walk. A short chase first warms the code
/// and the TLB's first pages.
fn measure_latency(
    gpu: &Gpu,
    module: &Loaded,
    args: &InflightArgs,
    l2_bytes: u64,
) -> Result<Latency, ExperimentError> {
    let bytes = args
        .chase_mib
        .map_or(CHASE_L2_MULTIPLE * l2_bytes.max(1 << 20), |m| m << 20);
    let n = (bytes / 4).min(u64::from(u32::MAX)) as usize;
    let mut next = vec![0u32; n];
    let mut rng = Rng::new(args.seed.wrapping_add(41));
    build_chase_ring(&mut next, CHASE.slot_elems(), |below| rng.below(below));
    let builtin;
    let module = if module.module.entries().iter().any(|e| e == CHASE.entry) {
        module
    } else {
        builtin = load(gpu, &Kernels::Builtin)?;
        &builtin
    };
    let kernel = module.module.kernel(CHASE.entry)?;
    let stream = gpu.stream();
    let next_dev = stream
        .clone_htod(&next)
        .doing(|| format!("uploading the {} MiB chase buffer", bytes >> 20))?;
    let mut out = stream
        .alloc_zeros::<u64>(ChaseKernel::OUT_WORDS)
        .doing(|| "allocating the chase's result".into())?;
    let launch = |out: &mut CudaSlice<u64>, steps: u32| -> Result<(), CudaError> {
        let (next_ptr, _r) = next_dev.device_ptr(stream);
        let (out_ptr, _w) = out.device_ptr_mut(stream);
        let params = ChaseParams {
            next: next_ptr,
            start: 0,
            steps,
            out: out_ptr,
        };
        // SAFETY: the chase entry, one thread: `next` is a ring of n indices below n whose hops
        // land on slot starts (index 0 is one), `out` holds OUT_WORDS u64.
        unsafe {
            launch_args(
                gpu,
                &kernel,
                ChaseKernel::GRID,
                ChaseKernel::THREADS,
                0,
                params.args(),
            )
        }
    };
    launch(&mut out, 1000)?;
    launch(&mut out, args.chase_steps)?;
    let got = stream
        .clone_dtoh(&out)
        .doing(|| "reading the chase's result".into())?;
    gpu.synchronize()?;
    let mut words = [0u64; ChaseKernel::OUT_WORDS];
    words.copy_from_slice(&got); // `out` was allocated with OUT_WORDS words
    let measured = ChaseKernel::result(words);
    let predicted = chase_end(&next, 0, u64::from(args.chase_steps));
    let check = check_chase(measured.end, predicted, args.chase_steps);
    Ok(Latency::new(
        args.chase_steps,
        n as u64 * 4,
        measured,
        check,
    ))
}

/// Makes sure `dir` exists and takes a file, before any GPU work.
pub fn writable_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let probe = dir.join(".write-probe");
    std::fs::write(&probe, b"").with_context(|| format!("{} is not writable", dir.display()))?;
    std::fs::remove_file(&probe).ok();
    Ok(())
}

/// Writes `text` to `path` through a temporary file, so a reader never sees half of it.
pub fn write_atomically(path: &Path, text: &str) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))
}

/// Every failed check of the run, in words (ours, the compared module's, the chase's).
pub fn failed_checks(result: &Inflight) -> Vec<String> {
    let mut failed = Vec::new();
    if !result.latency.check.passed {
        failed.push(format!("latency: {}", result.latency.check.what));
    }
    for r in &result.rows {
        if !r.check.passed {
            failed.push(format!(
                "{} at {} blocks/SM: {}",
                r.entry, r.blocks_per_sm, r.check.what
            ));
        }
        if let Some(c) = r.compare.as_ref().filter(|c| !c.check.passed) {
            failed.push(format!("{} (compared module): {}", r.entry, c.check.what));
        }
    }
    failed
}

/// `host inflight`: validates the flags and the output folder, runs the experiment, prints its
/// table and writes the results. `Ok(false)` when a check failed (the rows say which).
pub fn command(args: &InflightArgs) -> anyhow::Result<bool> {
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
    let result = run(&gpu, args, &config).context("experiment 4 (bytes in flight)")?;
    let t = table(&result);
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&result)?),
        f => print!("{}", render(&t, f)),
    }
    if let Some(dir) = &args.out {
        write_atomically(
            &dir.join("inflight.json"),
            &serde_json::to_string_pretty(&result)?,
        )?;
        write_atomically(&dir.join("inflight.md"), &to_markdown(&t))?;
        write_atomically(&dir.join("inflight.csv"), &to_csv(&t))?;
        write_plots(&result, dir)?;
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
    use crate::experiments::verify::check_copy;

    #[test]
    fn an_unwritable_out_folder_is_refused_and_a_fresh_one_is_made() {
        assert!(writable_dir(Path::new("/proc/inflight-out")).is_err());
        let dir = std::env::temp_dir().join(format!("inflight-out-{}", std::process::id()));
        writable_dir(&dir.join("nested")).unwrap();
        write_atomically(&dir.join("nested/a.txt"), "x").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("nested/a.txt")).unwrap(),
            "x"
        );
        assert!(!dir.join("nested/a.tmp").exists());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_skipped_or_wrong_copy_is_caught() {
        let src: Vec<f32> = (0..4096).map(|i| i as f32 + 0.5).collect();
        assert!(check_copy(&src, &src, 4).passed);
        // A block that never ran leaves its slice of the zeroed destination at zero.
        let mut skipped = src.clone();
        skipped[1024..1024 + 256].fill(0.0);
        let c = check_copy(&src, &skipped, 4);
        assert!(!c.passed);
        assert_eq!(c.error, 256.0);
        // One float copied to the wrong place.
        let mut wrong = src.clone();
        wrong.swap(7, 8);
        assert!(!check_copy(&src, &wrong, 1).passed);
        // A copy that stops one vector short.
        let mut short = src.clone();
        short[4092..].fill(0.0);
        assert!(!check_copy(&src, &short, 4).passed);
    }

    #[derive(clap::Parser)]
    struct Cmd {
        #[command(flatten)]
        args: InflightArgs,
    }

    /// A small sweep on device 0: every copy and the chase verified, every point at the asked
    /// residency, the model and the headline filled in.
    #[test]
    #[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
    fn a_small_sweep_runs_verified_on_the_gpu() {
        use clap::Parser;
        if !driver_present() {
            eprintln!("SKIP: no CUDA driver");
            return;
        }
        let args = Cmd::parse_from([
            "inflight",
            "--threads",
            "32,256",
            "--loads",
            "1,14",
            "--widths",
            "1,4",
            "--warps-per-sm",
            "1,8,64",
            "--copy-mib",
            "64",
            "--chase-mib",
            "256",
            "--chase-steps",
            "20000",
            "--iters",
            "3",
            "--samples",
            "3",
        ])
        .args;
        let gpu = Gpu::open(0).unwrap();
        let config = args.sampling.config(None).unwrap();
        let r = run(&gpu, &args, &config).unwrap();
        assert!(failed_checks(&r).is_empty(), "{:?}", failed_checks(&r));
        assert!(r.latency.cycles_per_step > 50.0, "{:?}", r.latency);
        assert!(r.copy.gbps > 0.0 && r.model.latency_ns > 0.0);
        assert!(!r.rows.is_empty());
        for row in &r.rows {
            assert_eq!(row.blocks_per_sm, row.point.blocks_per_sm, "{}", row.entry);
            assert!(row.gbps > 0.0 && row.predicted_gbps > 0.0, "{}", row.entry);
        }
        assert_eq!(r.headline.least_occupancy.len(), 2);
    }
}
