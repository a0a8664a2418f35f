//! The run loop: the planned experiments in order on one GPU, the results handed over after
//! each one (so a caller can write them at once) and a failure stopping the run with what
//! finished kept.

use super::contract::RunContext;
use super::error::ExperimentError;
use super::registry::{Planned, RunResults};
use crate::cuda::Gpu;
use crate::results::{Missing, RunMeta};

/// Runs `experiments` in order on `gpu`: [`run_each`] with each experiment's own run. Every
/// wait for the GPU is limited to `ctx.launch_timeout`. After a kernel's fault has lost the
/// context (an experiment failed with it, or went on past it in a context of its own), the next
/// experiment runs in a fresh context: the lost one is never used again.
pub fn run(
    gpu: &Gpu,
    ctx: &RunContext,
    meta: RunMeta,
    experiments: &[Planned],
    done: &mut dyn FnMut(&RunResults),
) -> (RunResults, Option<ExperimentError>) {
    gpu.set_launch_timeout(ctx.launch_timeout);
    let results = RunResults::empty(meta, gpu.info().clone());
    let mut fresh: Option<Gpu> = None;
    run_each(
        results,
        experiments,
        &mut |e, r| {
            let now = fresh.as_ref().unwrap_or(gpu);
            let out = e.run(now, ctx, r);
            let lost = match &out {
                Err(err) => err.is_fault(),
                Ok(()) => !now.usable(),
            };
            if lost && !crate::cuda::deadline::gpu_hung() {
                // The lost context's handles go first (a fresh one never shares them).
                fresh = None;
                fresh = Some(gpu.open_fresh()?);
            }
            out
        },
        done,
    )
}

/// What the results written after an experiment say of those not finished yet.
pub const NOT_FINISHED: &str = "not finished: these results were written while the run was \
still going; if it has ended, it stopped before this experiment finished (interrupted?)";

/// Runs `experiments` in order through `step`, which stores each one's output in the results.
/// After each one, `done` gets the results so far (the experiments not yet finished listed in
/// `missing`), so a caller can write them at once. An experiment in which a kernel faulted is
/// listed in `missing` as faulted (a failed check) and the run goes on. Any other failure stops
/// the run: the results so far (with the failed experiment and those after it in `missing`) are
/// given to `done` and returned with the error, which names the experiment.
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
                faulted: false,
            })
            .collect()
    };
    let mut faulted: Vec<Missing> = Vec::new();
    for (i, e) in experiments.iter().enumerate() {
        if let Err(err) = step(e, &mut results) {
            let err = ExperimentError::InExperiment {
                experiment: e.name(),
                source: Box::new(err),
            };
            if err.is_fault() {
                faulted.push(Missing {
                    experiment: e.name().to_owned(),
                    reason: format!("faulted: {err}"),
                    faulted: true,
                });
            } else {
                let mut missing = faulted;
                missing.push(Missing {
                    experiment: e.name().to_owned(),
                    reason: format!("failed: {err}"),
                    faulted: false,
                });
                missing.extend(pending(i + 1, &|_| {
                    format!("not run: the run stopped when {} failed", e.name())
                }));
                results.missing = missing;
                done(&results);
                return (results, Some(err));
            }
        }
        results.missing = faulted.clone();
        results.missing.extend(pending(i + 1, &|_| NOT_FINISHED.to_owned()));
        done(&results);
    }
    (results, None)
}

