//! How sure a comparison of timed figures is: a percentile bootstrap over each figure's samples.
//!
//! Every figure the verdicts compare (GFLOP/s, GB/s, a fraction of a peak) is some amount of work
//! over the median time of its samples. Resampling a figure's samples with replacement and taking
//! the median again gives the figure that resample would have reported; doing that a few thousand
//! times for every figure a statistic uses (a ratio of two figures, a spread over a sweep) gives
//! the statistic's bootstrap distribution, and its 2.5th and 97.5th percentiles the 95% interval.
//! The resampling is seeded, so a results file always yields the same intervals.
//!
//! [`Interval`] says what an interval tells about a threshold: wholly above, wholly below, or
//! straddling it (then nothing is concluded). Bootstrap intervals of a median from few samples are
//! coarse (from five samples the interval spans nearly the whole sample range); figures with fewer
//! than [`MIN_SAMPLES`] samples get no interval at all.
//!
//! A claim that picks one row among several after seeing them (the fastest, any that reaches a
//! bar) and judges it alone would be judged too kindly at [`LEVEL`]: it reads its intervals at
//! the Bonferroni-corrected coverage of [`bonferroni`] instead.

mod bootstrap;
mod correction;
mod interval;
mod settings;

pub use bootstrap::{ratio, ratio_at, statistic, statistics, statistics_at, value, value_at};
pub use correction::{bonferroni, Coverage};
pub use interval::Interval;
pub use resample::median;
pub use settings::{NoInterval, Timed, LEVEL, MIN_SAMPLES, MOST_RESAMPLED, RESAMPLES};
