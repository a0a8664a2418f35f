//! Experiment 4, bytes in flight: the copy kernels of the memcpy grid (threads per block x
//! loads per thread x width) held at chosen residencies by dynamic shared memory, each copy
//! verified, against the device-to-device copy of the same run; the DRAM latency from a pointer
//! chase; and Little's law ([`model`]) predicting every point from its bytes in flight per SM.
//!
//! Volkov's question, asked of the GPU at hand: how few threads does a copy need, and does the
//! bandwidth follow bytes in flight rather than occupancy?
//!
//! ```text
//! host inflight                                   # the default sweep: warps/SM 1..64 x the grid
//! host inflight --threads 32,256 --loads 14 --widths 4 --blocks-per-sm 2
//! host inflight --compare peer/peer.cubin --out results/inflight
//! host inflight --iters 20 --samples 5            # a fixed plan instead of the noise target
//! ```
//!
//! Layout: [`grid`] (the points), [`hold`] (residency by dynamic shared memory), [`model`]
//! (Little's law and the byte convention), [`chase`] (latency, CPU side), [`row`] (typed
//! results and headline figures), [`claims`] (verdict rules), [`plots`], [`table`], [`launch`]
//! (a table kernel launched from its params struct), and [`run`] — the one file that touches
//! the kernels and the driver.

pub mod chase;
pub mod claims;
pub mod grid;
pub mod hold;
pub mod launch;
pub mod model;
pub mod plots;
pub mod row;
pub mod run;
pub mod table;

use std::path::PathBuf;

use grid::{
    grid_loads, grid_threads, grid_widths, PlanLimits, Point, Residency, COPY_WARPS_PER_SM,
};

use crate::sampling::SamplingArgs;

/// Default bytes of each of the copy's source and destination (MiB): several times any current
/// L2, small enough that verifying every point stays quick.
pub const DEFAULT_COPY_MIB: u64 = 256;
/// Default dependent loads of the latency chase.
pub const DEFAULT_CHASE_STEPS: u32 = 1 << 20;
/// The chased buffer defaults to this many times the device's L2.
pub const CHASE_L2_MULTIPLE: u64 = 8;

/// `host inflight`: bytes in flight against occupancy.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct InflightArgs {
    /// CUDA device ordinal.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: u32,
    /// Threads per block to run (values of the variant table's memcpy grid).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = grid_threads(),
          value_parser = parse_threads)]
    pub threads: Vec<u32>,
    /// Loads per thread to run (values of the variant table's memcpy grid).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = grid_loads(),
          value_parser = parse_loads)]
    pub loads: Vec<u32>,
    /// Floats per access to run (values of the variant table's memcpy grid).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = grid_widths(),
          value_parser = parse_widths)]
    pub widths: Vec<u32>,
    /// Resident warps per SM to hold; each is reached with the largest listed block size that
    /// divides it (all of them with --every-block-size).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = COPY_WARPS_PER_SM,
          conflicts_with = "blocks_per_sm")]
    pub warps_per_sm: Vec<u32>,
    /// Hold every kernel at this many blocks per SM instead of a warps target.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub blocks_per_sm: Option<u32>,
    /// Reach each warps target with every listed block size that divides it.
    #[arg(long)]
    pub every_block_size: bool,
    /// MiB of each of the copy's source and destination.
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_COPY_MIB,
          value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub copy_mib: u64,
    /// MiB of the pointer-chase buffer (default: 8 x the device's L2).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=16384))]
    pub chase_mib: Option<u64>,
    /// Dependent loads of the latency chase.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CHASE_STEPS,
          value_parser = clap::value_parser!(u32).range(1000..=1 << 30))]
    pub chase_steps: u32,
    /// Module to measure instead of the built-in kernels (PTX, cubin or fatbin).
    #[arg(long, value_name = "FILE")]
    pub module: Option<PathBuf>,
    /// Module timed against ours at every point, samples interleaved.
    #[arg(long, value_name = "FILE")]
    pub compare: Option<PathBuf>,
    #[command(flatten)]
    pub sampling: SamplingArgs,
    /// Output format of the tables (json: the full results).
    #[arg(long, value_enum, default_value_t = crate::tables::Format::Table)]
    pub format: crate::tables::Format,
    /// Folder for the results (JSON, Markdown tables, SVG plots); created, and checked writable
    /// before any GPU work.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of the copy's input and of the chase's permutation.
    #[arg(long, default_value_t = crate::experiments::DEFAULT_SEED)]
    pub seed: u64,
}

/// A flag value outside the kernel grid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--{flag} {value}: not in the memcpy grid (built: {allowed})")]
pub struct OffGrid {
    pub flag: &'static str,
    pub value: u32,
    pub allowed: String,
}

fn within(flag: &'static str, values: &[u32], grid: &[u32]) -> Result<(), OffGrid> {
    match values.iter().find(|v| !grid.contains(v)) {
        Some(&value) => Err(OffGrid {
            flag,
            value,
            allowed: grid
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        }),
        None => Ok(()),
    }
}

/// One value of a grid-axis flag: a number on the axis. Refused at parse time, so an off-grid
/// value is a usage error (clap's exit code 2) like any other bad flag.
fn on_axis(flag: &'static str, s: &str, axis: &[u32]) -> Result<u32, String> {
    let value: u32 = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
    within(flag, &[value], axis).map_err(|e| e.to_string())?;
    Ok(value)
}

fn parse_threads(s: &str) -> Result<u32, String> {
    on_axis("threads", s, &grid_threads())
}

fn parse_loads(s: &str) -> Result<u32, String> {
    on_axis("loads", s, &grid_loads())
}

fn parse_widths(s: &str) -> Result<u32, String> {
    on_axis("widths", s, &grid_widths())
}

impl InflightArgs {
    /// Refuses filters naming kernels the grid does not build, before any GPU work (the
    /// command line already refuses them; this covers arguments built in code).
    pub fn validate(&self) -> Result<(), OffGrid> {
        within("threads", &self.threads, &grid_threads())?;
        within("loads", &self.loads, &grid_loads())?;
        within("widths", &self.widths, &grid_widths())
    }

    pub fn residency(&self) -> Residency {
        match self.blocks_per_sm {
            Some(b) => Residency::BlocksPerSm(b),
            None => Residency::WarpsPerSm {
                targets: self.warps_per_sm.clone(),
                every_block_size: self.every_block_size,
            },
        }
    }

    /// The sweep's points on a device with these limits.
    pub fn points(&self, limits: PlanLimits) -> Vec<Point> {
        grid::plan_points(
            &self.threads,
            &self.loads,
            &self.widths,
            &self.residency(),
            limits,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        args: InflightArgs,
    }

    fn parse(args: &[&str]) -> Result<InflightArgs, clap::Error> {
        Cmd::try_parse_from(std::iter::once("inflight").chain(args.iter().copied())).map(|c| c.args)
    }

    #[test]
    fn defaults_cover_the_whole_grid() {
        let a = parse(&[]).unwrap();
        assert_eq!(a.threads, grid_threads());
        assert_eq!(a.loads, grid_loads());
        assert_eq!(a.widths, grid_widths());
        assert_eq!(
            a.residency(),
            Residency::WarpsPerSm {
                targets: COPY_WARPS_PER_SM.to_vec(),
                every_block_size: false
            }
        );
        assert!(a.validate().is_ok());
        assert_eq!(a.copy_mib, DEFAULT_COPY_MIB);
    }

    #[test]
    fn filters_and_blocks_per_sm_parse() {
        let a = parse(&[
            "--threads",
            "32,256",
            "--loads",
            "14",
            "--widths",
            "4",
            "--blocks-per-sm",
            "2",
        ])
        .unwrap();
        assert_eq!(a.residency(), Residency::BlocksPerSm(2));
        let limits = PlanLimits {
            warp_size: 32,
            max_blocks_per_sm: 32,
            max_warps_per_sm: 64,
        };
        let entries: Vec<&str> = a
            .points(limits)
            .iter()
            .filter_map(|p| p.shape.kernel())
            .map(|k| k.entry)
            .collect();
        assert_eq!(entries, ["memcpy_t32_l14_w4", "memcpy_t256_l14_w4"]);
    }

    #[test]
    fn values_off_the_grid_are_usage_errors_naming_the_flag() {
        let e = parse(&["--loads", "2,5"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
        assert_eq!(e.exit_code(), 2, "a usage error");
        let text = e.to_string();
        assert!(
            text.contains("--loads 5") && text.contains("1, 2, 3, 4, 6"),
            "{text}"
        );
        assert!(parse(&["--widths", "3"]).is_err());
        assert!(parse(&["--threads", "96"]).is_err());
        assert!(parse(&["--threads", "x"]).is_err());
        assert!(parse(&["--blocks-per-sm", "2", "--warps-per-sm", "4"]).is_err());
        assert!(parse(&["--blocks-per-sm", "0"]).is_err());
    }

    #[test]
    fn arguments_built_in_code_are_validated_too() {
        let mut a = parse(&[]).unwrap();
        a.loads = vec![4, 5];
        let e = a.validate().unwrap_err();
        assert_eq!((e.flag, e.value), ("loads", 5));
    }
}
