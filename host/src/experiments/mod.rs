//! The seed blog's three experiments on the GPU at hand, every result checked.
//!
//! [`run`] (or [`run_all`]) is the library entry point: the `host` binary and `cargo xtask sweep`
//! both go through it. It fills [`RunResults`]; rendering is [`crate::tables`]' job.

pub mod bandwidth;
pub mod builtin;
pub mod gemm;
pub mod inputs;
pub mod module_source;
pub mod register_caps;
pub mod residency;
pub mod throughput;
pub mod verify;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kernels_gpu::variants::{GemmFamily, GemmVariant, MemcpyVariant, GEMM, MEMCPY, REGS};

use crate::cuda::{CudaError, Gpu, Kernel};
use crate::occupancy::{limiter_names, occupancy, KernelResources, Limits};
use crate::results::{Check, Comparison, RunMeta, RunResults, Timing};
use crate::timing::TimingPlan;
pub use module_source::{CappedKernels, Kernels, SourceError};
pub use residency::ResidencyError;

/// The blog's launches per timed sample.
pub const DEFAULT_ITERS: u32 = 50;
/// Timed samples per figure.
pub const DEFAULT_SAMPLES: u32 = 7;
/// GEMM M = N = K.
pub const DEFAULT_GEMM_SIZE: u32 = 4096;
/// Copy buffer: 1 GiB, several times any current L2.
pub const DEFAULT_COPY_BYTES: u64 = 1 << 30;
/// Seed of the random inputs.
pub const DEFAULT_SEED: u64 = 0x0CC_u64 << 32 | 2010;

/// One of the three experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Experiment {
    /// 1: occupancy vs throughput (GEMM variants).
    Throughput,
    /// 2: bandwidth vs occupancy (memcpy variants at 2 blocks/SM).
    Bandwidth,
    /// 3: register pressure (one GEMM variant under each register cap).
    Regs,
}

impl Experiment {
    pub const ALL: [Experiment; 3] = [
        Experiment::Throughput,
        Experiment::Bandwidth,
        Experiment::Regs,
    ];
}

/// Everything a run needs to know.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub device: u32,
    pub timing: TimingPlan,
    /// GEMM M = N = K, a multiple of 64.
    pub gemm_size: u32,
    /// Bytes of each of the copy's source and destination, a multiple of 16.
    pub copy_bytes: u64,
    pub gemm_variants: Vec<&'static GemmVariant>,
    pub copy_variants: Vec<&'static MemcpyVariant>,
    /// Register caps of experiment 3.
    pub caps: Vec<u32>,
    pub kernels: Kernels,
    pub compare: Option<Kernels>,
    pub capped: CappedKernels,
    pub compare_capped: Option<CappedKernels>,
    pub seed: u64,
    /// Draw a progress bar (on a terminal).
    pub progress: bool,
    /// The command line, for the results.
    pub command: String,
}

impl Options {
    /// The blog's settings, every variant, the built-in kernels.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            device: 0,
            timing: TimingPlan {
                iters: DEFAULT_ITERS,
                samples: DEFAULT_SAMPLES,
            },
            gemm_size: DEFAULT_GEMM_SIZE,
            copy_bytes: DEFAULT_COPY_BYTES,
            // The seed family only: the host does not launch tuned lines yet (see cli::select_gemm).
            gemm_variants: GEMM
                .iter()
                .filter(|v| v.family == GemmFamily::Seed)
                .collect(),
            copy_variants: MEMCPY.iter().collect(),
            caps: REGS.caps.to_vec(),
            kernels: Kernels::Builtin,
            compare: None,
            capped: CappedKernels::Builtin,
            compare_capped: None,
            seed: DEFAULT_SEED,
            progress: false,
            command: command.into(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    #[error(transparent)]
    Cuda(#[from] CudaError),
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Residency(#[from] ResidencyError),
    #[error(
        "`{entry}` in {module}: launches with at most {max} threads per block but the variant \
         needs {threads} (the module's launch bounds do not match the variant table)"
    )]
    BlockTooLarge {
        entry: String,
        module: String,
        max: u32,
        threads: u32,
    },
    #[error(
        "`{entry}` in {module}: not one block of {threads} threads fits on an SM \
         ({regs} registers/thread, {dyn_smem} B dynamic shared memory)"
    )]
    NoResidency {
        entry: String,
        module: String,
        threads: u32,
        regs: u32,
        dyn_smem: u32,
    },
    #[error(
        "the copy needs a source and a destination of {mib} MiB each but the device has \
         {have_mib} MiB in all; use --copy-mib {max_mib} or less"
    )]
    CopyTooLarge {
        mib: u64,
        have_mib: u64,
        max_mib: u64,
    },
    #[error(
        "`{entry}`: {blocks} blocks are needed for {floats} floats, more than a grid's \
         2147483647; use a smaller copy buffer"
    )]
    GridTooLarge {
        entry: String,
        blocks: u64,
        floats: u64,
    },
}

/// One module's figures for one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub regs: u32,
    pub blocks_per_sm: u32,
    pub occupancy: f64,
    pub timing: Timing,
    /// GFLOP/s or GB/s.
    pub throughput: f64,
    pub check: Check,
    /// Warnings about the figures; [`Measured::disagreement`] is among them.
    pub flags: Vec<String>,
    /// What limits the resident blocks, by the occupancy calculator.
    pub limiter: String,
    /// The calculator and the driver disagree on the resident blocks (also in `flags`).
    pub disagreement: Option<String>,
}

impl Measured {
    /// A kernel's figures from its residency and what was measured: the residency's
    /// calculator/driver disagreement and a throughput above the device's spec `peak` (in `unit`,
    /// the peak of `what`) become the flags.
    pub(crate) fn new(
        resident: Resident,
        timing: Timing,
        throughput: f64,
        check: Check,
        peak: f64,
        unit: &str,
        what: &str,
    ) -> Measured {
        let mut flags: Vec<String> = resident.disagreement.iter().cloned().collect();
        flag_above_peak(&mut flags, throughput, peak, unit, what);
        Measured {
            regs: resident.regs,
            blocks_per_sm: resident.blocks_per_sm,
            occupancy: resident.occupancy,
            timing,
            throughput,
            check,
            flags,
            limiter: resident.limiter,
            disagreement: resident.disagreement,
        }
    }

    /// This row's figures as the other module's side of a comparison with `ours`.
    pub fn as_comparison(
        self,
        ours: &Measured,
        spill_stores: Option<u32>,
        spill_loads: Option<u32>,
    ) -> Comparison {
        Comparison {
            regs: self.regs,
            throughput: self.throughput,
            ratio: ours.throughput / self.throughput,
            spill_stores,
            spill_loads,
            timing: self.timing,
            check: self.check,
        }
    }
}

/// Residency of a kernel as the driver computes it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Resident {
    pub regs: u32,
    pub blocks_per_sm: u32,
    /// Resident warps / the SM's maximum warps.
    pub occupancy: f64,
    /// What limits the resident blocks, by the occupancy calculator.
    pub limiter: String,
    /// The calculator's blocks/SM differ from the driver's.
    pub disagreement: Option<String>,
}

/// Registers from the loaded function's attribute; blocks per SM from
/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`; theoretical occupancy in warps; the limiter
/// from the occupancy calculator on the device's limits, checked against the driver's blocks.
pub(crate) fn residency_of(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    threads: u32,
    dyn_smem: u32,
) -> Result<Resident, ExperimentError> {
    let module = kernel.module().name().to_owned();
    let max = kernel.max_threads_per_block()?;
    if threads > max {
        return Err(ExperimentError::BlockTooLarge {
            entry: kernel.entry().to_owned(),
            module,
            max,
            threads,
        });
    }
    let regs = kernel.num_regs()?;
    let blocks_per_sm = kernel.max_active_blocks(threads, dyn_smem)?;
    if blocks_per_sm == 0 {
        return Err(ExperimentError::NoResidency {
            entry: kernel.entry().to_owned(),
            module,
            threads,
            regs,
            dyn_smem,
        });
    }
    let resources = KernelResources {
        threads,
        regs_per_thread: regs,
        static_smem: kernel.static_smem_bytes()?,
        dyn_smem,
    };
    let (limiter, disagreement) = calculator_limiter(gpu.limits(), &resources, blocks_per_sm);
    let info = gpu.info();
    Ok(Resident {
        regs,
        blocks_per_sm,
        occupancy: theoretical_occupancy(
            blocks_per_sm,
            threads,
            info.warp_size,
            info.max_threads_per_sm,
        ),
        limiter,
        disagreement,
    })
}

/// The Limiter cell for a kernel by the occupancy calculator (the binding resources, e.g.
/// "registers" or "registers + warps"), and a flag when the calculator's blocks/SM differ from
/// `driver_blocks`, the driver's `cuOccupancyMaxActiveBlocksPerMultiprocessor` for the same
/// launch. A kernel the calculator says cannot launch at all gets "?" and a flag saying why.
pub fn calculator_limiter(
    limits: &Limits,
    kernel: &KernelResources,
    driver_blocks: u32,
) -> (String, Option<String>) {
    match occupancy(limits, kernel) {
        Ok(o) if o.blocks_per_sm == driver_blocks => (limiter_names(&o.binding), None),
        Ok(o) => (
            limiter_names(&o.binding),
            Some(format!(
                "calculator says {} blocks/SM, driver says {driver_blocks}",
                o.blocks_per_sm
            )),
        ),
        Err(e) => (
            "?".to_owned(),
            Some(format!(
                "calculator says 0 blocks/SM ({e}), driver says {driver_blocks}"
            )),
        ),
    }
}

/// Resident warps over the SM's maximum warps (a block of 16 threads still takes a warp).
pub fn theoretical_occupancy(blocks: u32, threads: u32, warp_size: u32, max_threads: u32) -> f64 {
    let warp = warp_size.max(1);
    let warps = blocks * threads.div_ceil(warp);
    f64::from(warps) / f64::from((max_threads / warp).max(1))
}

/// Flags a figure above the device's spec peak instead of letting it pass as fact.
pub(crate) fn flag_above_peak(
    flags: &mut Vec<String>,
    value: f64,
    peak: f64,
    unit: &str,
    what: &str,
) {
    if peak > 0.0 && value > peak {
        flags.push(format!(
            "{value:.0} {unit} is above the device's {what} spec peak of {peak:.0} {unit}: \
             the timing cannot be right"
        ));
    }
}

/// Keeps the compared module's calculator/driver disagreement on the row: a [`Comparison`] has
/// no flags of its own, so without this it would be dropped with the compared module's figures.
pub(crate) fn flag_compared_disagreement(flags: &mut Vec<String>, compared: &Measured) {
    if let Some(d) = &compared.disagreement {
        flags.push(format!("compared module: {d}"));
    }
}

/// The compared module's side of a row, when there is one: its figures and spill counts
/// (`theirs`) against `ours`; its calculator/driver disagreement is added to `flags`, the row's
/// flags (which start as `ours.flags`).
pub(crate) fn comparison(
    ours: &Measured,
    theirs: Option<(Measured, Option<u32>, Option<u32>)>,
    flags: &mut Vec<String>,
) -> Option<Comparison> {
    let (theirs, spill_stores, spill_loads) = theirs?;
    flag_compared_disagreement(flags, &theirs);
    Some(theirs.as_comparison(ours, spill_stores, spill_loads))
}

/// A progress bar over `len` steps, drawn only when asked for (on a terminal).
pub(crate) fn progress_bar(opts: &Options, len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(len as u64),
        if opts.progress {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    if let Ok(style) = ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {msg}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(what.to_owned());
    bar
}

/// Runs the chosen experiments on `opts.device`.
pub fn run(opts: &Options, which: &[Experiment]) -> Result<RunResults, ExperimentError> {
    let gpu = Gpu::open(opts.device)?;
    let started = std::time::SystemTime::now();
    let mut results = RunResults {
        meta: meta(opts, which, &gpu, started),
        device: gpu.info().clone(),
        occupancy: None,
        bandwidth: None,
        regs: None,
    };
    for experiment in which {
        match experiment {
            Experiment::Throughput => results.occupancy = Some(throughput::run(&gpu, opts)?),
            Experiment::Bandwidth => results.bandwidth = Some(bandwidth::run(&gpu, opts)?),
            Experiment::Regs => results.regs = Some(register_caps::run(&gpu, opts)?),
        }
    }
    Ok(results)
}

/// Runs all three experiments.
pub fn run_all(opts: &Options) -> Result<RunResults, ExperimentError> {
    run(opts, &Experiment::ALL)
}

/// Descriptions of every failed check in the results (ours and the compared module's).
pub fn failed_checks(results: &RunResults) -> Vec<String> {
    let mut failed = Vec::new();
    let mut note = |what: String, check: &Check, compare: Option<&Comparison>| {
        if !check.passed {
            failed.push(format!("{what}: {}", check_summary(check)));
        }
        if let Some(c) = compare.filter(|c| !c.check.passed) {
            failed.push(format!(
                "{what} (compared module): {}",
                check_summary(&c.check)
            ));
        }
    };
    for r in results.occupancy.iter().flatten() {
        note(
            format!("occupancy {}", r.variant),
            &r.check,
            r.compare.as_ref(),
        );
    }
    for r in results.bandwidth.iter().flat_map(|b| &b.rows) {
        note(
            format!("bandwidth {}", r.variant),
            &r.check,
            r.compare.as_ref(),
        );
    }
    for r in results.regs.iter().flatten() {
        note(format!("regs cap {}", r.cap), &r.check, r.compare.as_ref());
    }
    failed
}

fn check_summary(check: &Check) -> String {
    format!(
        "error {:e} > bound {:e} ({})",
        check.error, check.bound, check.what
    )
}

fn meta(
    opts: &Options,
    which: &[Experiment],
    gpu: &Gpu,
    started: std::time::SystemTime,
) -> RunMeta {
    let secs = started
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let uses_main = which.iter().any(|e| *e != Experiment::Regs);
    let uses_capped = which.contains(&Experiment::Regs);
    let join = |main: Option<String>, capped: Option<String>| match (main, capped) {
        (Some(m), Some(c)) if m != c => Some(format!("{m}; regs: {c}")),
        (Some(m), _) => Some(m),
        (None, c) => c,
    };
    let module = join(
        uses_main.then(|| opts.kernels.describe()),
        uses_capped.then(|| opts.capped.describe()),
    )
    .unwrap_or_default();
    let compare_module = join(
        uses_main
            .then(|| opts.compare.as_ref().map(Kernels::describe))
            .flatten(),
        uses_capped
            .then(|| opts.compare_capped.as_ref().map(CappedKernels::describe))
            .flatten(),
    );
    RunMeta {
        date: rfc3339_utc(secs),
        command: opts.command.clone(),
        tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        toolchain: format!(
            "built-in kernels: {} ({} PTX); PTX compiled for the device by the JIT of the {} \
             driver",
            builtin::TOOLCHAIN,
            builtin::PTX_ARCH,
            gpu.info().driver_version
        ),
        module,
        compare_module,
        iters: opts.timing.iters,
        samples: opts.timing.samples,
        gemm_size: opts.gemm_size,
        copy_bytes: opts.copy_bytes,
    }
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn rfc3339_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc3339() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(1_779_235_199), "2026-05-19T23:59:59Z");
    }

    #[test]
    fn occupancy_counts_warps() {
        // H200: 2048 threads = 64 warps per SM.
        assert_eq!(theoretical_occupancy(2, 1024, 32, 2048), 1.0);
        assert_eq!(theoretical_occupancy(3, 128, 32, 2048), 12.0 / 64.0);
        // A 16-thread block still occupies a whole warp.
        assert_eq!(theoretical_occupancy(4, 16, 32, 1536), 4.0 / 48.0);
    }

    fn gemm(threads: u32, regs: u32) -> KernelResources {
        KernelResources {
            threads,
            regs_per_thread: regs,
            static_smem: kernels_gpu::variants::GemmVariant::SEED_STATIC_SHARED_BYTES,
            dyn_smem: 0,
        }
    }

    #[test]
    fn the_limiter_is_the_calculators_binding_resource() {
        let h100 = crate::occupancy::Arch::Sm90.limits();
        // 256 threads at 64 registers: 16384 registers a block, 4 blocks fill the register file.
        let (limiter, flag) = calculator_limiter(&h100, &gemm(256, 64), 4);
        assert_eq!(limiter, "registers");
        assert_eq!(flag, None);
        // 1024 threads at 32 registers: warps and registers both allow exactly 2.
        let (limiter, flag) = calculator_limiter(&h100, &gemm(1024, 32), 2);
        assert_eq!(limiter, "registers + warps");
        assert_eq!(flag, None);
        // 16 threads at 32 registers, no shared memory: the 32-blocks/SM cap binds.
        let tiny = KernelResources {
            static_smem: 0,
            ..gemm(16, 32)
        };
        let (limiter, flag) = calculator_limiter(&h100, &tiny, 32);
        assert_eq!(limiter, "blocks/SM");
        assert_eq!(flag, None);
    }

    #[test]
    fn a_driver_that_disagrees_is_flagged_with_both_figures() {
        let h100 = crate::occupancy::Arch::Sm90.limits();
        let (limiter, flag) = calculator_limiter(&h100, &gemm(256, 64), 3);
        assert_eq!(limiter, "registers", "the limiter stays the calculator's");
        assert_eq!(
            flag.as_deref(),
            Some("calculator says 4 blocks/SM, driver says 3")
        );
    }

    #[test]
    fn a_kernel_the_calculator_cannot_place_is_flagged_not_hidden() {
        let h100 = crate::occupancy::Arch::Sm90.limits();
        // 1024 threads at 255 registers cannot launch.
        let (limiter, flag) = calculator_limiter(&h100, &gemm(1024, 255), 1);
        assert_eq!(limiter, "?");
        let flag = flag.expect("flagged");
        assert!(
            flag.starts_with("calculator says 0 blocks/SM (") && flag.ends_with("driver says 1"),
            "{flag}"
        );
    }

    fn measured(throughput: f64, disagreement: Option<&str>, peak: f64) -> Measured {
        let resident = Resident {
            regs: 40,
            blocks_per_sm: 4,
            occupancy: 0.5,
            limiter: "registers".into(),
            disagreement: disagreement.map(str::to_owned),
        };
        let timing = crate::timing::summarize(vec![1.0, 2.0, 3.0], None, None);
        let check = Check {
            passed: true,
            error: 0.0,
            bound: 1e-5,
            what: "test".into(),
        };
        Measured::new(resident, timing, throughput, check, peak, "GB/s", "DRAM")
    }

    #[test]
    fn measured_flags_the_disagreement_then_the_peak() {
        let m = measured(
            300.0,
            Some("calculator says 4 blocks/SM, driver says 3"),
            200.0,
        );
        assert_eq!(m.flags.len(), 2);
        assert_eq!(m.flags[0], "calculator says 4 blocks/SM, driver says 3");
        assert!(m.flags[1].contains("above the device's DRAM spec peak"));
        assert_eq!(m.disagreement.as_deref(), Some(m.flags[0].as_str()));
        assert_eq!(
            (m.regs, m.blocks_per_sm, m.limiter.as_str()),
            (40, 4, "registers")
        );
        assert_eq!(m.timing.median_ms, 2.0);
        assert!(measured(100.0, None, 200.0).flags.is_empty());
    }

    #[test]
    fn a_comparison_keeps_the_compared_modules_disagreement() {
        let ours = measured(100.0, None, 0.0);
        let mut flags = ours.flags.clone();
        assert_eq!(comparison(&ours, None, &mut flags), None);
        assert!(flags.is_empty());
        let theirs = measured(50.0, Some("driver says 3"), 0.0);
        let c = comparison(&ours, Some((theirs, Some(2), Some(1))), &mut flags).expect("compared");
        assert_eq!(flags, ["compared module: driver says 3"]);
        assert_eq!((c.throughput, c.ratio), (50.0, 2.0));
        assert_eq!((c.spill_stores, c.spill_loads), (Some(2), Some(1)));
    }

    #[test]
    fn peak_flags_only_above_the_peak() {
        let mut flags = Vec::new();
        flag_above_peak(&mut flags, 100.0, 200.0, "GB/s", "DRAM");
        assert!(flags.is_empty());
        flag_above_peak(&mut flags, 300.0, 200.0, "GB/s", "DRAM");
        assert_eq!(flags.len(), 1);
        assert!(flags[0].contains("300 GB/s") && flags[0].contains("200"));
    }
}
