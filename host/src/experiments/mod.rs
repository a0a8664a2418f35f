//! The experiments. Each is one folder whose `Spec` implements [`contract::Run`] (its plan in,
//! its output out) and [`contract::Report`] (its table, plots and claims; most has defaults), and
//! one line in the list below, which gives it its number and its name ([`roster`] makes the
//! per-experiment types of the list, [`registry`] what the lab does over every experiment); the
//! kernel families they launch ([`gemm`], [`copy`]) and what they share (the part of a row every
//! experiment measures alike, residency, verification, inputs, where modules come from, the
//! sweeps' loop) sit beside them. `docs/adding-an-experiment.md` says what a new one takes.
//!
//! [`run_from`] is the library entry point: the `host` binary and `cargo xtask sweep` both go through
//! it.

/// The experiments, in order: each line is a folder (`experiments/name/`, its `Spec` the
/// experiment and its `Plan` the plan) and gives the experiment its number (its place) and its
/// name. `with_experiments!(m)` hands the list to the macro `m`: here to declare the folders, in
/// [`roster`] to make the types with a field or a case per experiment.
macro_rules! with_experiments {
    ($m:ident) => {
        $m! {
            Occupancy => occupancy,
            Bandwidth => bandwidth,
            Regs => regs,
            Inflight => inflight,
            Ilp => ilp,
            Mma => mma,
            GemmBf16 => gemm_bf16,
            Held => held,
            Shapes => shapes,
        }
    };
}

/// Declares the experiments' folders.
macro_rules! folders {
    ($($variant:ident => $field:ident),* $(,)?) => {
        $(pub mod $field;)*
    };
}
with_experiments!(folders);

pub mod bf16_gemm;
pub mod bf16_inputs;
pub mod bf16_tolerance;
pub mod block_trace;
pub mod cells;
pub mod contract;
pub mod copy;
pub mod earlier_fault;
pub mod error;
pub mod gemm;
pub mod gemm_check;
pub mod gemm_check_notes;
pub mod gemm_clock_energy;
pub mod gemm_cublas;
pub mod gemm_energy;
pub mod gemm_figure_columns;
pub mod gemm_figures;
pub mod gemm_hashes;
pub mod gemm_plan;
pub mod gemm_sides;
pub mod gemm_sides_energy;
pub mod gemm_sides_reading_c;
mod gemm_sides_trace;
pub mod ilp_sweep;
pub mod ilp_sweep_report;
pub mod inputs;
pub mod line_choice;
pub mod measured;
pub mod measurement;
pub mod module_source;
pub(crate) mod progress;
pub mod record;
pub mod registry;
#[cfg(test)]
mod render_scratch_test;
pub mod residency;
pub mod resume;
pub mod roster;
pub mod row_views;
pub mod run_loop;
pub mod scatter;
pub mod spills;
pub mod sweep;
#[cfg(test)]
mod tolerance_margins;
#[cfg(test)]
mod verdict_check;
pub mod verify;
pub mod wgemm_launch;
pub mod whole_wave_buffers;
pub mod whole_waves;

pub use crate::kernel_source::sources::{CappedKernels, Kernels};
pub use contract::RunContext;
pub use error::{ExperimentError, ResidencyError, SourceError};
pub use record::meta;
pub use registry::{Planned, RunResults};
pub use run_loop::{run_each, run_from, NOT_FINISHED};
