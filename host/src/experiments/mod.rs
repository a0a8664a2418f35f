//! The experiments. Each is one folder implementing [`contract::Experiment`] (its flags, run,
//! rows, columns, claims and plot) and one line in [`registry`]; the kernel families they
//! launch ([`gemm`], [`copy`]) and what they share (residency, verification, inputs, where
//! modules come from) sit beside them.
//!
//! [`run`] is the library entry point: the `host` binary and `cargo xtask sweep` both go through
//! it.

pub mod bandwidth;
pub mod cells;
pub mod contract;
pub mod copy;
pub mod gemm;
pub mod inputs;
pub mod module_source;
pub mod occupancy;
pub mod registry;
pub mod regs;
pub mod residency;
pub mod verify;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub use contract::{Experiment, RunContext};
pub use module_source::{CappedKernels, Kernels, SourceError};
pub use registry::{Planned, RunResults};
pub use residency::ResidencyError;

use crate::cuda::{CudaError, Gpu, Kernel};
use crate::flags::CliError;
use crate::occupancy::{limiter_names, occupancy, warp_occupancy, KernelResources, Limits};
use crate::results::{Check, Comparison, Missing, RunMeta, Timing};

/// GEMM M = N = K.
pub const DEFAULT_GEMM_SIZE: u32 = 4096;
/// Copy buffer: 1 GiB, several times any current L2.
pub const DEFAULT_COPY_BYTES: u64 = 1 << 30;

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
    /// What failed, and in which variant.
    #[error("variant {variant}: {source}")]
    InVariant {
        variant: String,
        #[source]
        source: Box<ExperimentError>,
    },
    /// What failed, and in which experiment.
    #[error("experiment {experiment}: {source}")]
    InExperiment {
        experiment: &'static str,
        #[source]
        source: Box<ExperimentError>,
    },
}

impl ExperimentError {
    /// This error, said to have happened in `variant`.
    pub fn in_variant(self, variant: impl Into<String>) -> Self {
        ExperimentError::InVariant {
            variant: variant.into(),
            source: Box::new(self),
        }
    }

    /// Whether the cause is a missing driver.
    pub fn is_no_driver(&self) -> bool {
        match self {
            ExperimentError::Cuda(CudaError::NoDriver) => true,
            ExperimentError::InVariant { source, .. }
            | ExperimentError::InExperiment { source, .. } => source.is_no_driver(),
            _ => false,
        }
    }
}

/// Attaches the variant to an error of one variant's measurement.
pub(crate) trait InVariant<T> {
    fn in_variant(self, variant: &str) -> Result<T, ExperimentError>;
}

impl<T, E: Into<ExperimentError>> InVariant<T> for Result<T, E> {
    fn in_variant(self, variant: &str) -> Result<T, ExperimentError> {
        self.map_err(|e| e.into().in_variant(variant))
    }
}

/// `all --variants`: every label must belong to some experiment; `per_experiment` lists each
/// experiment's labels, for the message.
pub fn check_mixed_labels(
    list: &[String],
    known: &[&str],
    per_experiment: &[(&str, Vec<&str>)],
) -> Result<(), CliError> {
    if let Some(bad) = list
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !known.contains(l))
    {
        return Err(CliError::UnknownVariant {
            kind: "experiment",
            label: bad.to_owned(),
            valid: per_experiment
                .iter()
                .filter(|(_, l)| !l.is_empty())
                .map(|(name, l)| format!("{name} {}", l.join(", ")))
                .collect::<Vec<_>>()
                .join("; "),
        });
    }
    Ok(())
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
    Ok(Resident {
        regs,
        blocks_per_sm,
        occupancy: warp_occupancy(gpu.limits(), blocks_per_sm, threads),
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
pub(crate) fn progress_bar(ctx: &RunContext, len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(len as u64),
        if ctx.progress {
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

/// Runs `experiments` in order on `gpu`. After each one, `done` gets the results so far (the
/// experiments not yet finished listed in `missing`), so a caller can write them at once. A
/// failure stops the run: the results so far (with the failed experiment and those after it in
/// `missing`) are given to `done` and returned with the error, which names the experiment.
pub fn run(
    gpu: &Gpu,
    ctx: &RunContext,
    meta: RunMeta,
    experiments: &[Planned],
    done: &mut dyn FnMut(&RunResults),
) -> (RunResults, Option<ExperimentError>) {
    let mut results = RunResults::empty(meta, gpu.info().clone());
    let pending = |from: usize, reason: &dyn Fn(&str) -> String| -> Vec<Missing> {
        experiments[from..]
            .iter()
            .map(|e| Missing {
                experiment: e.name().to_owned(),
                reason: reason(e.name()),
            })
            .collect()
    };
    for (i, e) in experiments.iter().enumerate() {
        if let Err(err) = e.run(gpu, ctx, &mut results) {
            let err = ExperimentError::InExperiment {
                experiment: e.name(),
                source: Box::new(err),
            };
            let mut missing = vec![Missing {
                experiment: e.name().to_owned(),
                reason: format!("failed: {err}"),
            }];
            missing.extend(pending(i + 1, &|_| {
                format!("not run: the run stopped when {} failed", e.name())
            }));
            results.missing = missing;
            done(&results);
            return (results, Some(err));
        }
        results.missing = pending(i + 1, &|_| {
            "not finished: the run was still going when these results were written and did not \
             write them since (interrupted, or it failed before)"
                .to_owned()
        });
        done(&results);
    }
    (results, None)
}

/// The run's record: the date, the command, the toolchain and where the kernels came from.
pub fn meta(
    command: &str,
    timing: crate::timing::TimingPlan,
    experiments: &[Planned],
    gpu_driver: &str,
) -> RunMeta {
    let mut ours: Vec<(&str, String)> = Vec::new();
    let mut theirs: Vec<(&str, String)> = Vec::new();
    let mut label = None;
    for e in experiments {
        let m = e.modules();
        ours.push((e.name(), m.ours));
        if let Some(t) = m.theirs {
            theirs.push((e.name(), t));
        }
        if label.is_none() {
            label = m.label;
        }
    }
    // "first; other-experiment: different" for modules that differ between experiments.
    let join = |names: &[(&str, String)]| -> Option<String> {
        let (_, first) = names.first()?;
        let mut out = first.clone();
        let mut seen = vec![first.clone()];
        for (name, m) in &names[1..] {
            if !seen.contains(m) {
                out.push_str(&format!("; {name}: {m}"));
                seen.push(m.clone());
            }
        }
        Some(out)
    };
    let mut meta = RunMeta {
        date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        command: command.to_owned(),
        tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        toolchain: format!(
            "built-in kernels: {} ({} PTX); PTX compiled for the device by the JIT of the {} \
             driver",
            crate::modules::RUSTC,
            crate::modules::PTX_ARCH,
            gpu_driver
        ),
        module: join(&ours).unwrap_or_default(),
        compare_module: join(&theirs),
        compare_label: label,
        iters: timing.iters,
        samples: timing.samples,
        gemm_size: DEFAULT_GEMM_SIZE,
        copy_bytes: DEFAULT_COPY_BYTES,
    };
    for e in experiments {
        e.record(&mut meta);
    }
    meta
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gemm(threads: u32, regs: u32) -> KernelResources {
        KernelResources {
            threads,
            regs_per_thread: regs,
            static_smem: kernels_gpu::variants::GemmVariant::static_shared_bytes(),
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
