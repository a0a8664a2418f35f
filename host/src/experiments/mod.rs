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
pub mod gemm_bf16;
pub mod gemm_check;
pub mod ilp;
pub mod inflight;
pub mod inputs;
pub mod measured;
pub mod module_source;
pub mod occupancy;
pub mod registry;
pub mod regs;
pub mod residency;
pub mod spills;
#[cfg(test)]
mod tolerance_margins;
pub mod verify;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub use contract::{Experiment, RunContext};
pub use module_source::{CappedKernels, Kernels, SourceError};
pub use registry::{Planned, RunResults};
pub use residency::ResidencyError;

use crate::cuda::{CudaError, Gpu};
use crate::flags::CliError;
use crate::module_name::{ModuleSource, RunModules};
use crate::results::{Missing, RunMeta};
pub(crate) use measured::{comparison, Measured};
pub(crate) use residency::residency_of;

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

/// Runs `experiments` in order on `gpu`: [`run_each`] with each experiment's own run.
pub fn run(
    gpu: &Gpu,
    ctx: &RunContext,
    meta: RunMeta,
    experiments: &[Planned],
    done: &mut dyn FnMut(&RunResults),
) -> (RunResults, Option<ExperimentError>) {
    let results = RunResults::empty(meta, gpu.info().clone());
    run_each(results, experiments, &mut |e, r| e.run(gpu, ctx, r), done)
}

/// What the results written after an experiment say of those not finished yet.
pub const NOT_FINISHED: &str = "not finished: these results were written while the run was \
still going; if it has ended, it stopped before this experiment finished (interrupted?)";

/// Runs `experiments` in order through `step`, which stores each one's output in the results.
/// After each one, `done` gets the results so far (the experiments not yet finished listed in
/// `missing`), so a caller can write them at once. A failure stops the run: the results so far
/// (with the failed experiment and those after it in `missing`) are given to `done` and
/// returned with the error, which names the experiment.
pub fn run_each(
    mut results: RunResults,
    experiments: &[Planned],
    step: &mut dyn FnMut(&Planned, &mut RunResults) -> Result<(), ExperimentError>,
    done: &mut dyn FnMut(&RunResults),
) -> (RunResults, Option<ExperimentError>) {
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
        if let Err(err) = step(e, &mut results) {
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
        results.missing = pending(i + 1, &|_| NOT_FINISHED.to_owned());
        done(&results);
    }
    (results, None)
}

/// The run's record: the date, the command, the toolchain and where the kernels came from.
pub fn meta(
    command: &str,
    timing: &crate::sampling::SamplingConfig,
    experiments: &[Planned],
    gpu_driver: &str,
) -> RunMeta {
    let mut ours: Vec<(&str, ModuleSource)> = Vec::new();
    let mut theirs: Vec<(&str, ModuleSource)> = Vec::new();
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
        module: RunModules::of(ours).unwrap_or_default(),
        compare_module: RunModules::of(theirs),
        compare_label: label,
        iters: timing.fixed().map_or(0, |p| p.iters),
        samples: timing.fixed().map_or(0, |p| p.samples),
        noise_target: timing.noise_target(),
        gemm_size: DEFAULT_GEMM_SIZE,
        gemm_dims: None,
        copy_bytes: DEFAULT_COPY_BYTES,
    };
    for e in experiments {
        e.record(&mut meta);
    }
    meta
}
