//! The timing flags every experiment takes (`--noise`, `--min-samples`, `--iters`, ...) and the
//! sampling configuration they ask for.

use std::time::Duration;

use super::plan::{
    NoiseTarget, SamplingConfig, SamplingPlan, TimingPlan, DEFAULT_CLOCK_EVERY,
    DEFAULT_CLOCK_TOLERANCE, DEFAULT_MAX_NOISE, DEFAULT_MAX_SAMPLES, DEFAULT_MAX_TIME,
    DEFAULT_MIN_SAMPLES, DEFAULT_MIN_SAMPLE_MS, MOST_SAMPLES,
};

/// The timing flags of every experiment: a noise target by default, a fixed plan when both
/// `--iters` and `--samples` are given.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct SamplingArgs {
    /// Noise target: stop a figure once the relative standard deviation of its samples is at
    /// most this many percent.
    #[arg(long, value_name = "PERCENT", default_value_t = DEFAULT_MAX_NOISE * 100.0,
          value_parser = parse_noise_percent)]
    pub noise: f64,
    /// Fewest samples per figure.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_SAMPLES,
          value_parser = crate::flag_values::whole(2u32..=10_000))]
    pub min_samples: u32,
    /// Most samples per figure.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SAMPLES,
          value_parser = crate::flag_values::whole(2u32..=MOST_SAMPLES))]
    pub max_samples: u32,
    /// Time cap per figure, milliseconds (the fewest samples are taken even past it).
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_MAX_TIME.as_millis() as u64,
          value_parser = crate::flag_values::whole(1u64..=3_600_000))]
    pub max_time_ms: u64,
    /// Fixed plan: launches per sample (with --samples; replaces the noise target, whose flags
    /// are then refused).
    #[arg(long, value_name = "N", requires = "samples",
          conflicts_with_all = ["noise", "min_samples", "max_samples", "max_time_ms"],
          value_parser = crate::flag_values::whole(1u32..=1_000_000))]
    pub iters: Option<u32>,
    /// Fixed plan: samples per figure (with --iters). It conflicts with the noise flags too:
    /// clap drops `--iters`' requirement when a flag that conflicts with `--iters` is present, so
    /// without it `--samples 5 --min-samples 2` would pass as a noise plan.
    #[arg(long, value_name = "N", requires = "iters",
          conflicts_with_all = ["noise", "min_samples", "max_samples", "max_time_ms"],
          value_parser = crate::flag_values::whole(1u32..=1000))]
    pub samples: Option<u32>,
    /// Read the SM clock (NVML) every N sample rounds (0: before and after each figure only);
    /// readings younger than a tenth of a second are reused, so every round costs little.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CLOCK_EVERY,
          value_parser = crate::flag_values::whole(0u32..=1_000_000))]
    pub clock_every: u32,
}

fn parse_noise_percent(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v > 0.0 && v <= 100.0 {
        Ok(v)
    } else {
        Err(format!("{v} is not a percentage in (0, 100]"))
    }
}

impl SamplingArgs {
    /// The sampling configuration these flags ask for; the clock the device should hold
    /// (`reference_clock_mhz`) is set once the device is open.
    pub fn config(&self) -> Result<SamplingConfig, String> {
        if self.min_samples > self.max_samples {
            return Err(format!(
                "--min-samples {} is above --max-samples {}",
                self.min_samples, self.max_samples
            ));
        }
        let plan = match (self.iters, self.samples) {
            (Some(iters), Some(samples)) => SamplingPlan::Fixed(TimingPlan { iters, samples }),
            _ => SamplingPlan::Noise(NoiseTarget {
                max_noise: self.noise / 100.0,
                min_samples: self.min_samples,
                max_samples: self.max_samples,
                max_time: Duration::from_millis(self.max_time_ms),
                min_sample_ms: DEFAULT_MIN_SAMPLE_MS,
            }),
        };
        Ok(SamplingConfig {
            plan,
            clock_every: self.clock_every,
            clock_tolerance: DEFAULT_CLOCK_TOLERANCE,
            reference_clock_mhz: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<SamplingArgs, clap::Error> {
        crate::flag_values::parse_flags(args)
    }

    #[test]
    fn flags_give_a_noise_target_or_a_fixed_plan_and_bad_ones_are_refused() {
        let c = parse(&[]).unwrap().config().unwrap();
        assert_eq!(c.plan, SamplingPlan::Noise(NoiseTarget::default()));
        assert_eq!(c.reference_clock_mhz, None, "set once the device is open");
        let c = parse(&["--noise", "1", "--min-samples", "3"]).unwrap();
        match c.config().unwrap().plan {
            SamplingPlan::Noise(t) => assert_eq!((t.max_noise, t.min_samples), (0.01, 3)),
            p => panic!("{p:?}"),
        }
        let c = parse(&["--iters", "50", "--samples", "7"]).unwrap();
        assert_eq!(
            c.config().unwrap().plan,
            SamplingPlan::Fixed(TimingPlan {
                iters: 50,
                samples: 7
            })
        );
        // Bad flags are refused.
        assert!(
            parse(&["--iters", "50"]).is_err(),
            "--iters needs --samples"
        );
        assert!(parse(&["--noise", "0"]).is_err());
        assert!(parse(&["--noise", "abc"]).is_err());
        assert!(parse(&["--min-samples", "1"]).is_err());
        let c = parse(&["--min-samples", "50", "--max-samples", "10"]).unwrap();
        assert!(c.config().unwrap_err().contains("--min-samples 50"));
    }
}
