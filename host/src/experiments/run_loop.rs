//! The run loop: the planned experiments in order on one GPU, the results handed over after
//! each one (so a caller can write them at once) and a failure stopping the run with what
//! finished kept.

use super::contract::RunContext;
use super::error::ExperimentError;
use super::registry::{Planned, RunResults};
use super::resume;
use crate::cuda::Gpu;
use crate::results::Missing;

/// Runs `experiments` in order on `gpu` from `results` (a fresh run's, or one resumed after a
/// fault, whose experiments done are skipped): [`run_each`] with each experiment's own run. Every
/// wait for the GPU is limited to `ctx.launch_timeout`.
pub fn run_from(
    gpu: &Gpu,
    ctx: &RunContext,
    results: RunResults,
    experiments: &[Planned],
    done: &mut dyn FnMut(&RunResults),
) -> (RunResults, Option<ExperimentError>) {
    gpu.set_launch_timeout(ctx.launch_timeout);
    run_each(results, experiments, &mut |e, r| e.run(gpu, ctx, r), done)
}

/// Whether `err`, a kernel's fault in experiment `e`, leaves the rest of `e` to run (in a new
/// process, without the line): a fault in one of its lines where they are independent of one
/// another (`occupancy`'s, [`Plan::goes_on_without`](super::contract::Plan::goes_on_without)).
/// A fault outside its lines (cuBLAS's, the reference's) fails it as a whole, so that the new
/// process does not meet it again.
pub fn fault_by_line(e: &Planned, err: &ExperimentError) -> bool {
    err.is_fault() && err.variant().is_some_and(|line| e.goes_on_without(line))
}

/// What the results written after an experiment say of those not finished yet.
pub const NOT_FINISHED: &str = "not finished: these results were written while the run was \
still going; if it has ended, it stopped before this experiment finished (interrupted?)";

/// Runs `experiments` in order through `step`, which stores each one's output in the results;
/// those already done in `results` (a resumed run's) are skipped. After each one, `done` gets the
/// results so far (the experiments not yet finished listed in `missing`), so a caller can write
/// them at once. A failure stops the run: the results so far (with the failed experiment and
/// those after it in `missing`) are given to `done` and returned with the error, which names the
/// experiment. A kernel's fault stops it too (the context is lost), for the run to go on in a new
/// process ([`super::resume`]): a fault in `occupancy`, which goes on without its faulting lines,
/// leaves it to be run again; any other experiment is listed as faulted, a failed check.
pub fn run_each(
    mut results: RunResults,
    experiments: &[Planned],
    step: &mut dyn FnMut(&Planned, &mut RunResults) -> Result<(), ExperimentError>,
    done: &mut dyn FnMut(&RunResults),
) -> (RunResults, Option<ExperimentError>) {
    let pending = move |from: usize, reason: String| {
        experiments[from..].iter().map(move |e| Missing {
            experiment: e.name().to_owned(),
            reason: reason.clone(),
            faulted: false,
        })
    };
    // Faulted in an earlier process: still missing, still failed.
    let faulted = results.missing.iter().filter(|m| m.faulted);
    let faulted: Vec<Missing> = faulted.cloned().collect();
    for (i, e) in experiments.iter().enumerate() {
        if resume::done(&results, e.name()) {
            continue;
        }
        if let Err(err) = step(e, &mut results) {
            let err = ExperimentError::InExperiment {
                experiment: e.name(),
                source: Box::new(err),
            };
            let mut missing = faulted;
            let by_line = fault_by_line(e, &err);
            missing.push(Missing {
                experiment: e.name().to_owned(),
                reason: if by_line {
                    format!("not finished: a line faulted ({err}); the run goes on without it")
                } else if err.is_fault() {
                    format!("faulted: {err}")
                } else {
                    format!("failed: {err}")
                },
                faulted: err.is_fault() && !by_line,
            });
            missing.extend(pending(
                i + 1,
                if err.is_fault() {
                    format!(
                        "not run yet: a kernel's fault in {} lost the GPU's context; the run \
                         goes on in a new process",
                        e.name()
                    )
                } else {
                    format!("not run: the run stopped when {} failed", e.name())
                },
            ));
            results.missing = missing;
            done(&results);
            return (results, Some(err));
        }
        results.missing = faulted.clone();
        (results.missing).extend(pending(i + 1, NOT_FINISHED.to_owned()));
        done(&results);
    }
    (results, None)
}
