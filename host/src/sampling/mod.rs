//! Noise-driven timing, as nvbench measures: each figure takes samples until its noise is below a
//! target, with a minimum number of samples and a time cap, and reports the noise it reached.
//!
//! **Noise** is the relative standard deviation of a figure's samples: the sample standard
//! deviation (divisor `n - 1`) of the per-launch times over their mean. A sample is one
//! CUDA-event-timed batch of back-to-back launches divided by the batch size; the batch lasts at
//! least [`NoiseTarget::min_sample_ms`], which keeps the events' resolution and the launch gaps
//! small against the figure. This is nvbench's "noise" taken over batches instead of launches.
//!
//! **Stopping rule** ([`stats::stopping_rule`], pure and tested on synthetic samples): never
//! before [`NoiseTarget::min_samples`] samples of every side; then stop as soon as every side's
//! noise is at or below [`NoiseTarget::max_noise`]; otherwise stop at
//! [`NoiseTarget::max_samples`] or once the figure has taken [`NoiseTarget::max_time`], whichever
//! comes first. The minimum wins over the time cap. A figure that stopped at a cap with its noise
//! above the target is flagged.
//!
//! The compared sides (ours and theirs, `--compare`) are sampled in alternating rounds
//! ([`rounds::rotation`]: A B, B A, ...), so that a drift of clocks or temperature, or a cost of
//! coming second, falls on both alike; one decision covers both, so both have the same number of
//! samples. A fixed plan (`--iters/--samples`) is [`SamplingPlan::Fixed`]. This is the one timing
//! path of every experiment ([`time_sides`]).
//!
//! **Clock drops.** The SM clock is read (NVML, through `Gpu::recent_sm_clock_mhz`, which reuses
//! a reading younger than a tenth of a second) before the first round, after the last, and every
//! [`SamplingConfig::clock_every`] rounds between; the figure keeps the span of those readings
//! ([`ClockSpan`]). A sample is marked when a reading bracketing it (the last one before it
//! started, or the first one after it ended) lies more than [`SamplingConfig::clock_tolerance`]
//! below the reference clock, and the figure's flag names what NVML says held the clocks down.
//!
//! Layout: [`plan`] (plans, noise targets, defaults), [`timing_flags`], [`stats`] (median, noise,
//! the stopping rule, a figure's summary), [`clocks`] (clock drops), [`rounds`] (the loop,
//! without a GPU), [`event_timing`] (the loop on the GPU) and [`energy_windows`] (energy per
//! GEMM from NVML's counter over windows of a second, without a GPU).

pub mod clocks;
pub mod energy_windows;
#[cfg(test)]
pub(crate) mod energy_windows_test;
pub mod event_timing;
pub mod nvml_meter;
pub mod plan;
pub mod rounds;
pub mod stats;
pub mod timing_flags;

pub use clocks::ClockSpan;
pub use event_timing::{time_launches, time_rotating, time_sampled, time_sides, Sampled};
pub use plan::{NoiseTarget, SamplingConfig, SamplingPlan, TimingPlan, MOST_SAMPLES};
pub use rounds::Side;
pub use stats::{noise_percent, summarize};
pub use timing_flags::SamplingArgs;
