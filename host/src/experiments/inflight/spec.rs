//! The `inflight` experiment's marker (`Spec`, whose `Run` and `Report` are in `mod.rs`) and its flags,
//! validated into its plan: its own file so that the folder's parts can name them without
//! importing `mod.rs`.

use super::grid::{self, grid_loads, grid_threads, grid_widths, Residency, COPY_WARPS_PER_SM};
use super::output::Inflight;
use super::sizes::{ALL_SIZES_MIB, DEFAULT_SIZES_MIB};
use crate::experiments::sweep::{self, SweepFlags};
use crate::flags::{CliError, MAX_COPY_MIB};
use kernels_gpu::abi::Param;
use kernels_gpu::variants::{MemcpyParams, MEMCPY_GRID};

/// Default bytes of each of the copy's source and destination (MiB): several times the L2 of
/// current GPUs, small enough that verifying every point (one download and compare per module)
/// stays a small part of the sweep.
pub const DEFAULT_COPY_MIB: u64 = 128;
/// Default loads per thread of the sweep: every power of two of the grid's axis (the grid also
/// builds 3, 6, 12, 14, 24; ask for them with `--loads`). With widths 1, 2, 4 they span 4 to
/// 512 bytes per thread.
pub const DEFAULT_LOADS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// Default dependent loads of the latency chase.
pub const DEFAULT_CHASE_STEPS: u32 = 1 << 20;
/// Default dependent loads of each chase of the loaded-latency curve (0 leaves the curve out):
/// a few milliseconds per background at loaded latencies, so the whole curve costs well under a
/// second.
pub const DEFAULT_LOADED_STEPS: u32 = 1 << 13;
/// The chased buffer defaults to this many times the device's L2.
pub const CHASE_L2_MULTIPLE: u64 = 8;

/// The `inflight` experiment.
pub struct Spec;

/// The sweep's axes and sizes (`host inflight`; `host all` takes the `--inflight-*` ones).
#[derive(Debug, Clone, PartialEq, clap::Args)]
#[group(skip)]
pub struct SweepArgs {
    /// Threads per block to run (values of the variant table's memcpy grid).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = grid_threads(),
          value_parser = on_axis("threads", grid_threads))]
    pub threads: Vec<u32>,
    /// Loads per thread to run (values of the variant table's memcpy grid).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = DEFAULT_LOADS,
          value_parser = on_axis("loads", grid_loads))]
    pub loads: Vec<u32>,
    /// Floats per access to run (values of the variant table's memcpy grid).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = grid_widths(),
          value_parser = on_axis("widths", grid_widths))]
    pub widths: Vec<u32>,
    /// Resident warps per SM to hold, each in 1..=64 (the most an SM holds); each is reached
    /// with the largest listed block size that divides it (all of them with --every-block-size).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = COPY_WARPS_PER_SM,
          conflicts_with = "blocks_per_sm",
          value_parser = crate::flag_values::whole(1u32..=64))]
    pub warps_per_sm: Vec<u32>,
    /// Hold every kernel at this many blocks per SM instead of a warps target.
    #[arg(long, value_name = "N", value_parser = crate::flag_values::whole(1u32..=64))]
    pub blocks_per_sm: Option<u32>,
    /// Reach each warps target with every listed block size that divides it (there is no
    /// warps target with --blocks-per-sm).
    #[arg(long, conflicts_with = "blocks_per_sm")]
    pub every_block_size: bool,
    /// MiB of each of the copy's source and destination.
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_COPY_MIB,
          value_parser = crate::flag_values::whole(1u64..=MAX_COPY_MIB))]
    pub copy_mib: u64,
    /// MiB of the pointer-chase buffer (default: 8 x the device's L2).
    #[arg(long, value_name = "MIB", value_parser = crate::flag_values::whole(1u64..=16384))]
    pub chase_mib: Option<u64>,
    /// Dependent loads of the latency chase.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CHASE_STEPS,
          value_parser = crate::flag_values::whole(1000u32..=1 << 30))]
    pub chase_steps: u32,
    /// Dependent loads of each chase of the loaded-latency curve (the chase timed while
    /// background copies run at rates from a trickle to the full copy); 0 leaves it out.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_LOADED_STEPS,
          value_parser = crate::flag_values::whole(0u32..=1 << 24))]
    pub loaded_steps: u32,
    /// Leave out the copies whose bytes in flight live in shared memory (the variant table's
    /// smem_copy lines, run at every residency their block size reaches, whatever the threads,
    /// loads and widths asked for).
    #[arg(long)]
    pub no_smem: bool,
    /// Copy sizes (MiB) to run the sweep's fastest point at, each against its own
    /// device-to-device copy, to show where the L2 stops serving the copy; 0 for none.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = DEFAULT_SIZES_MIB,
          value_parser = crate::flag_values::whole(0u64..=MAX_COPY_MIB))]
    pub sizes_mib: Vec<u64>,
}

/// `host inflight`.
pub type Args = sweep::Args<SweepArgs>;

/// What the `inflight` experiment adds to `host all`: its copy size, loads and warps targets (the
/// other axes take their defaults there).
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct AllArgs {
    /// inflight: MiB of each of the copy's source and destination.
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_COPY_MIB,
          value_parser = crate::flag_values::whole(1u64..=MAX_COPY_MIB))]
    pub inflight_copy_mib: u64,
    /// inflight: loads per thread (values of the memcpy grid).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = DEFAULT_LOADS,
          value_parser = on_axis("loads", grid_loads))]
    pub inflight_loads: Vec<u32>,
    /// inflight: resident warps per SM to hold, each in 1..=64.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = COPY_WARPS_PER_SM,
          value_parser = crate::flag_values::whole(1u32..=64))]
    pub inflight_warps_per_sm: Vec<u32>,
    /// inflight: copy sizes (MiB) of the size sweep (each against its own device-to-device
    /// copy); 0 for none.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = ALL_SIZES_MIB,
          value_parser = crate::flag_values::whole(0u64..=MAX_COPY_MIB))]
    pub inflight_sizes_mib: Vec<u64>,
}

/// The `inflight` experiment, validated.
pub type Plan = sweep::Plan<SweepArgs>;

/// The value parser of a grid-axis flag: one value, a number on the axis `values` gives (`flag`
/// names it in the message). Refused at parse time, so an off-grid value is a usage error (exit
/// code 2) like any other bad flag.
fn on_axis(
    flag: &'static str,
    values: fn() -> Vec<u32>,
) -> impl Fn(&str) -> Result<u32, String> + Clone + Send + Sync + 'static {
    move |s| {
        let value: u32 = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
        let grid = values();
        if grid.contains(&value) {
            return Ok(value);
        }
        let allowed: Vec<String> = grid.iter().map(u32::to_string).collect();
        Err(format!(
            "--{flag} {value}: not in the memcpy grid (built: {})",
            allowed.join(", ")
        ))
    }
}

impl SweepArgs {
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
    pub fn points(&self, limits: grid::PlanLimits) -> Vec<grid::Point> {
        grid::plan_points(
            &self.threads,
            &self.loads,
            &self.widths,
            &self.residency(),
            limits,
        )
    }

    /// The shared-memory copies' points on a device with these limits and `smem_per_sm` bytes of
    /// shared memory an SM (none with `--no-smem`).
    pub fn smem_points(&self, limits: grid::PlanLimits, smem_per_sm: u32) -> Vec<grid::Point> {
        if self.no_smem {
            return Vec::new();
        }
        grid::smem_points(&self.residency(), limits, smem_per_sm)
    }

    /// Every grid entry the sweep may launch (whatever the device's limits).
    pub fn grid_entries(&self) -> Vec<&'static str> {
        MEMCPY_GRID
            .iter()
            .filter(|p| {
                self.threads.contains(&p.threads)
                    && self.loads.contains(&p.loads)
                    && self.widths.contains(&p.width)
            })
            .map(|p| p.entry)
            .collect()
    }
}

impl SweepFlags for SweepArgs {
    const SIGNATURE: &'static [Param] = MemcpyParams::PARAMS;
    type AllArgs = AllArgs;
    type Output = Inflight;
    fn entries(&self) -> Result<Vec<&'static str>, CliError> {
        Ok(self.grid_entries())
    }
    /// The whole grid at the loads, warps targets and copy size asked for.
    fn in_all(a: &AllArgs) -> Self {
        SweepArgs {
            threads: grid_threads(),
            loads: a.inflight_loads.clone(),
            widths: grid_widths(),
            warps_per_sm: a.inflight_warps_per_sm.clone(),
            blocks_per_sm: None,
            every_block_size: false,
            copy_mib: a.inflight_copy_mib,
            chase_mib: None,
            chase_steps: DEFAULT_CHASE_STEPS,
            loaded_steps: DEFAULT_LOADED_STEPS,
            no_smem: false,
            sizes_mib: a.inflight_sizes_mib.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::inflight::grid::tests::{default_targets, H200};
    use crate::flag_values::parse_flags;
    use kernels_gpu::variants::SmemPath;

    fn parse(args: &[&str]) -> SweepArgs {
        parse_flags::<SweepArgs>(args).unwrap()
    }

    #[test]
    fn defaults_take_the_grid_with_the_power_of_two_loads() {
        let a = parse(&[]);
        assert_eq!(a.threads, grid_threads());
        assert_eq!(a.loads, DEFAULT_LOADS);
        assert!(DEFAULT_LOADS.iter().all(|l| grid_loads().contains(l)));
        assert_eq!(a.widths, grid_widths());
        assert_eq!(a.residency(), default_targets());
        assert_eq!(a.copy_mib, DEFAULT_COPY_MIB);
        assert_eq!(a.loaded_steps, DEFAULT_LOADED_STEPS);
        assert_eq!(parse(&["--loaded-steps", "0"]).loaded_steps, 0);
        assert_eq!(a.sizes_mib, DEFAULT_SIZES_MIB);
        assert_eq!(parse(&["--sizes-mib", "16,4096"]).sizes_mib, [16, 4096]);
        assert_eq!(parse(&["--sizes-mib", "0"]).sizes_mib, [0]);
        assert!(parse_flags::<SweepArgs>(&["--sizes-mib", "x"]).is_err());
        // Bytes per thread span 4 to 512.
        let bytes: Vec<u32> = MEMCPY_GRID
            .iter()
            .filter(|p| a.grid_entries().contains(&p.entry))
            .map(|p| p.bytes_per_thread())
            .collect();
        assert_eq!(bytes.iter().min(), Some(&4));
        assert_eq!(bytes.iter().max(), Some(&512));
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
        ]);
        assert_eq!(a.residency(), Residency::BlocksPerSm(2));
        let points = a.points(H200);
        let entries: Vec<&str> = points
            .iter()
            .filter_map(|p| p.shape.kernel())
            .map(|k| k.entry)
            .collect();
        let both = ["memcpy_t32_l14_w4", "memcpy_t256_l14_w4"];
        assert_eq!(entries, both);
        assert_eq!(a.grid_entries(), both);
    }

    #[test]
    fn bulk_copies_run_by_default_and_no_smem_leaves_out_every_ring() {
        let bulk_points = |args: &[&str]| {
            let points = parse(args).smem_points(H200, 228 * 1024);
            let is_bulk = |p: &&grid::Point| {
                p.shape
                    .smem_line()
                    .is_some_and(|l| l.path == SmemPath::Bulk)
            };
            (points.len(), points.iter().filter(is_bulk).count())
        };
        let (default_points, default_bulk) = bulk_points(&[]);
        assert!(default_bulk > 0, "no bulk copy in the default sweep");
        assert!(
            default_points > default_bulk,
            "no cp.async copy in the default sweep"
        );
        assert_eq!(bulk_points(&["--no-smem"]), (0, 0));
    }

    #[test]
    fn values_off_the_grid_are_usage_errors_naming_the_flag() {
        let e = parse_flags::<SweepArgs>(&["--loads", "2,5"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
        assert_eq!(e.exit_code(), 2, "a usage error");
        let text = e.to_string();
        assert!(
            text.contains("--loads 5") && text.contains("1, 2, 3, 4, 6"),
            "{text}"
        );
        for refused in [
            &["--widths", "3"][..],
            &["--threads", "96"],
            &["--threads", "x"],
            &["--blocks-per-sm", "2", "--warps-per-sm", "4"],
            &["--blocks-per-sm", "0"],
            &["--warps-per-sm", "0"],
        ] {
            assert!(parse_flags::<SweepArgs>(refused).is_err(), "{refused:?}");
        }
    }
}
