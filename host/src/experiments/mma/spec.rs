//! The `mma` experiment's marker (`Spec`, whose `Run` and `Report` are in `mod.rs`) and its flags,
//! validated into its plan: its own file so that the folder's parts can name them without
//! importing `mod.rs`.

use super::plan::DEFAULT_TARGET_CYCLES;
use super::row::Mma;
use super::wgmma;
use crate::experiments::ilp_sweep::{AllWarps, IlpLine, SweepGrid};
use crate::experiments::sweep::{self, SweepFlags};
use crate::flags::CliError;
use kernels_gpu::abi::Param;
use kernels_gpu::variants::{MmaIlpVariant, MmaParams, MMA_ILP};

/// Resident warps per SM of the default sweep: every count up to 8 and 10, 12, 16 (where the
/// least occupancy is decided at high ILP; an SM's four schedulers make multiples of 4 the
/// even points), then a coarser ladder to 64.
pub const DEFAULT_WARPS_PER_SM: [u32; 15] = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 48, 64];

/// The `mma` experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec;

/// The sweep (`host mma`; `host all` takes `--mma-warps-per-sm`).
#[derive(Debug, Clone, PartialEq, clap::Args)]
#[group(skip)]
pub struct SweepArgs {
    #[command(flatten)]
    pub grid: SweepGrid<Spec>,
    /// SM cycles one launch is sized for (rounds per warp follow from it, at most as many as
    /// the CPU model can check exactly).
    #[arg(long, value_name = "CYCLES", default_value_t = DEFAULT_TARGET_CYCLES,
          value_parser = crate::flag_values::parse_cycles)]
    pub target_cycles: f64,
    /// The wgmma table (sm_90a): warpgroups per SM to hold each wgmma_bf16 line at (1..16).
    #[arg(long, value_name = "LIST", value_delimiter = ',',
          default_values_t = wgmma::DEFAULT_WARPGROUPS_PER_SM,
          value_parser = crate::flag_values::whole(1u32..=16))]
    pub warpgroups_per_sm: Vec<u32>,
    /// Leave out the wgmma table.
    #[arg(long)]
    pub no_wgmma: bool,
}

/// `host mma`.
pub type Args = sweep::Args<SweepArgs>;

/// What the `mma` experiment adds to `host all` (`--mma-warps-per-sm`).
pub type AllArgs = AllWarps<Spec>;

/// The `mma` experiment, validated.
pub type Plan = sweep::Plan<SweepArgs>;

impl SweepFlags for SweepArgs {
    const SIGNATURE: &'static [Param] = MmaParams::PARAMS;
    type AllArgs = AllArgs;
    type Output = Mma;
    fn entries(&self) -> Result<Vec<&'static str>, CliError> {
        (self.grid.entries()).map_err(|e| CliError::Flag(e.to_string()))
    }
    /// Every ILP at the warps targets asked for, with the wgmma table.
    fn in_all(a: &AllArgs) -> Self {
        SweepArgs {
            grid: SweepGrid::every_ilp(&a.warps_per_sm),
            target_cycles: DEFAULT_TARGET_CYCLES,
            warpgroups_per_sm: wgmma::DEFAULT_WARPGROUPS_PER_SM.to_vec(),
            no_wgmma: false,
        }
    }
}

/// The variant table's kernel for an ILP.
pub fn kernel(ilp: u32) -> Option<&'static MmaIlpVariant> {
    MMA_ILP.iter().find(|v| v.ilp == ilp)
}

impl IlpLine for Spec {
    const STEM: &'static str = "mma_bf16_ilp";
    const CHAINS: &'static str = "mma per warp";
    const DEFAULT_WARPS_PER_SM: &'static [u32] = &DEFAULT_WARPS_PER_SM;
    const ALL_FLAG: &'static str = "mma-warps-per-sm";
    const LINE: fn() -> Vec<(u32, &'static str)> =
        || MMA_ILP.iter().map(|v| (v.ilp, v.entry)).collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::contract::Report;
    use crate::experiments::ilp_sweep::tests::has;
    use crate::experiments::ilp_sweep::tests::{
        bad_grid_values_are_usage_errors, default_grid_spans_1_to_64,
    };
    use crate::flag_values::parse_flags;
    use crate::flags::ModuleFiles;

    #[test]
    fn defaults_span_every_ilp_and_warps_1_to_64() {
        let a = parse_flags::<SweepArgs>(&[]).unwrap();
        assert_eq!(a.target_cycles, DEFAULT_TARGET_CYCLES);
        assert_eq!(
            Spec::ilps(),
            MMA_ILP.iter().map(|v| v.ilp).collect::<Vec<_>>()
        );
        default_grid_spans_1_to_64::<Spec>(&DEFAULT_WARPS_PER_SM);
        // Every default target splits into whole blocks on a 64-warp SM.
        for w in DEFAULT_WARPS_PER_SM {
            assert!(
                crate::experiments::ilp_sweep::layout(w, 32, 1024, 32).is_some(),
                "{w}"
            );
        }
        assert_eq!(kernel(8).map(|k| k.entry), Some("mma_bf16_ilp8"));
        assert_eq!(kernel(3), None);
    }

    #[test]
    fn bad_values_are_usage_errors() {
        let no_3 = "no mma_bf16_ilp3 kernel (built: 1, 2, 4, 8)";
        bad_grid_values_are_usage_errors::<SweepArgs>("4,3", no_3);
        let a = parse_flags::<SweepArgs>(&["--ilp", "1,8", "--warps-per-sm", "8,64"]).unwrap();
        assert_eq!(a.grid.points(), [(1, 8), (1, 64), (8, 8), (8, 64)]);
    }

    #[test]
    fn the_plan_names_the_entries_and_refuses_unknown_ilps_built_in_code() {
        let files = ModuleFiles {
            module: None,
            compare: None,
            compare_label: None,
        };
        let p = Plan::of(parse_flags::<SweepArgs>(&["--ilp", "2,8"]).unwrap(), &files).unwrap();
        assert_eq!(
            p.sweep.entries().unwrap(),
            ["mma_bf16_ilp2", "mma_bf16_ilp8"]
        );
        let mut a = parse_flags::<SweepArgs>(&[]).unwrap();
        a.grid.ilp = vec![1, 3];
        let e = Plan::of(a, &files).unwrap_err();
        has(&e.to_string(), "no mma_bf16_ilp3 kernel");
        // `host all` runs every ILP at its own warps list.
        let all = SweepArgs::in_all(&parse_flags(&["--mma-warps-per-sm", "4,16"]).unwrap());
        assert_eq!(
            (all.grid.ilp, all.grid.warps_per_sm),
            (Spec::ilps(), vec![4, 16])
        );
    }

    #[test]
    fn the_built_in_module_holds_the_mma_entries_alone() {
        use crate::kernel_source::ptx_params::ptx_entry_params;
        for v in MMA_ILP {
            assert!(ptx_entry_params(crate::kernel_source::builtin::MMA_ILP, v.entry).is_some());
        }
        for v in kernels_gpu::variants::BF16_GEMM {
            assert!(ptx_entry_params(crate::kernel_source::builtin::TENSOR, v.entry).is_some());
            assert!(ptx_entry_params(crate::kernel_source::builtin::MMA_ILP, v.entry).is_none());
        }
    }

    #[test]
    fn a_run_without_rows_has_no_plot() {
        assert!(Spec::figures(&[]).is_empty());
    }
}
