//! The experiments. Each is one folder implementing [`contract::Experiment`] (its words, plan,
//! run, columns and title; claims, plots and the rest have defaults) and one line in the list
//! below, which declares its module and numbers and names it ([`registry`] is what comes of the
//! list); the kernel families they launch ([`gemm`], [`copy`]) and what they share (the part of
//! a row every experiment measures alike, residency, verification, inputs, where modules come
//! from, the sweeps' loop) sit beside them. `docs/adding-an-experiment.md` says what a new one
//! takes.
//!
//! [`run`] is the library entry point: the `host` binary and `cargo xtask sweep` both go through
//! it.

pub mod bf16_gemm;
pub mod bf16_inputs;
pub mod bf16_tolerance;
pub mod cells;
pub mod contract;
pub mod copy;
pub mod error;
pub mod gemm;
pub mod gemm_check;
pub mod gemm_check_notes;
pub mod gemm_cublas;
pub mod gemm_figures;
pub mod gemm_hashes;
pub mod gemm_plan;
pub mod gemm_sides;
pub mod ilp_sweep;
pub mod inputs;
pub mod measured;
pub mod measurement;
pub mod module_source;
pub(crate) mod progress;
pub mod record;
pub mod residency;
pub mod resume;
#[macro_use]
mod roster;
pub mod row_views;
pub mod run_loop;
pub mod scatter;
pub mod spills;
pub mod sweep;
#[cfg(test)]
mod tolerance_margins;
pub mod verify;

// The experiments, in order: each line is a folder (`experiments/name/`, its `Spec` the
// experiment and its `Plan` the plan) and gives the experiment its number and its name (see
// `roster`).
registry! {
    Occupancy => occupancy,
    Bandwidth => bandwidth,
    Regs => regs,
    Inflight => inflight,
    Ilp => ilp,
    Mma => mma,
    GemmBf16 => gemm_bf16,
    Held => held,
}

// xtask, which cannot depend on the host, lists the experiments from kernels-gpu's copy of their
// names (`cargo xtask sweep --help`): the build fails when the registry and that copy differ.
const _: () = assert!(
    same_names(
        registry::NAMES,
        kernels_gpu::experiment_names::EXPERIMENT_NAMES
    ),
    "kernels-gpu/src/experiment_names.rs must list the registry's experiments, in its order"
);

/// Whether `a` and `b` hold the same strings in the same order (`==` on slices is not `const`).
const fn same_names(a: &[&str], b: &[&str]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        let (x, y) = (a[i].as_bytes(), b[i].as_bytes());
        if x.len() != y.len() {
            return false;
        }
        let mut j = 0;
        while j < x.len() {
            if x[j] != y[j] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

pub use crate::kernel_source::sources::{CappedKernels, Kernels};
pub use contract::{Experiment, RunContext};
pub use error::{ExperimentError, ResidencyError, SourceError};
pub use record::meta;
pub use registry::{Planned, RunResults};
pub use run_loop::{run, run_each, run_from, NOT_FINISHED};
