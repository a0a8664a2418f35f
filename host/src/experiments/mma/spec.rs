//! The `mma` experiment's marker (`Spec`, whose `Run` and `Report` are in `mod.rs`) and its flags,
//! validated into its plan: its own file so that the folder's parts can name them without
//! importing `mod.rs`.

use super::plan::{ilps, DEFAULT_TARGET_CYCLES};
use super::row::Mma;
use super::wgmma;
use crate::experiments::sweep::{self, SweepFlags};
use crate::flags::CliError;
use kernels_gpu::abi::Param;
use kernels_gpu::variants::{MmaIlpVariant, MmaParams, MMA_ILP};

/// Resident warps per SM of the default sweep: every count up to 8 and 10, 12, 16 (where the
/// least occupancy is decided at high ILP; an SM's four schedulers make multiples of 4 the
/// even points), then a coarser ladder to 64.
pub const DEFAULT_WARPS_PER_SM: [u32; 15] = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 48, 64];

/// The `mma` experiment.
pub struct Spec;

/// The sweep (`host mma`; `host all` takes `--mma-warps-per-sm`).
#[derive(Debug, Clone, PartialEq, clap::Args)]
#[group(skip)]
pub struct SweepArgs {
    /// Independent mma per warp to run (ILPs of the variant table's mma_bf16_ilp line).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = ilps(),
          value_parser = parse_ilp)]
    pub ilp: Vec<u32>,
    /// Resident warps per SM to hold (1..64; a count that does not split into whole blocks of
    /// at most the largest block is skipped with a note).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = DEFAULT_WARPS_PER_SM,
          value_parser = crate::flag_values::whole(1u32..=64))]
    pub warps_per_sm: Vec<u32>,
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

impl SweepArgs {
    /// Every (ILP, warps per SM) point asked for, ILP by ILP.
    pub fn points(&self) -> Vec<(u32, u32)> {
        let warps = &self.warps_per_sm;
        self.ilp
            .iter()
            .flat_map(|&ilp| warps.iter().map(move |&w| (ilp, w)))
            .collect()
    }
}

/// `host mma`.
pub type Args = sweep::Args<SweepArgs>;

/// What the `mma` experiment adds to `host all`.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct AllArgs {
    /// mma: resident warps per SM to hold.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = DEFAULT_WARPS_PER_SM,
          value_parser = crate::flag_values::whole(1u32..=64))]
    pub mma_warps_per_sm: Vec<u32>,
}

/// The `mma` experiment, validated.
pub type Plan = sweep::Plan<SweepArgs>;

/// An ILP the kernels are not built for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--ilp {0}: no mma_bf16_ilp{0} kernel (built: {built})", built = built_ilps())]
pub struct UnknownMmaIlp(pub u32);

pub(super) fn built_ilps() -> String {
    let ilps: Vec<String> = ilps().iter().map(u32::to_string).collect();
    ilps.join(", ")
}

/// One value of `--ilp`: an ILP with a kernel, refused at parse time (a usage error, exit 2).
fn parse_ilp(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(ilp) if kernel(ilp).is_some() => Ok(ilp),
        Ok(ilp) => Err(UnknownMmaIlp(ilp).to_string()),
        Err(e) => Err(format!("{s:?}: {e}")),
    }
}

impl SweepFlags for SweepArgs {
    const SIGNATURE: &'static [Param] = MmaParams::PARAMS;
    type AllArgs = AllArgs;
    type Output = Mma;
    /// Every ILP at the warps targets asked for.
    fn in_all(a: &AllArgs) -> Self {
        SweepArgs {
            ilp: ilps(),
            warps_per_sm: a.mma_warps_per_sm.clone(),
            target_cycles: DEFAULT_TARGET_CYCLES,
            warpgroups_per_sm: wgmma::DEFAULT_WARPGROUPS_PER_SM.to_vec(),
            no_wgmma: false,
        }
    }
    /// The entries of the ILPs asked for; one without a kernel (arguments built in code: the
    /// command line refuses it already) is an error naming it.
    fn entries(&self) -> Result<Vec<&'static str>, CliError> {
        self.ilp
            .iter()
            .map(|&i| {
                kernel(i)
                    .map(|v| v.entry)
                    .ok_or_else(|| CliError::Flag(UnknownMmaIlp(i).to_string()))
            })
            .collect()
    }
}

/// The variant table's kernel for an ILP.
pub fn kernel(ilp: u32) -> Option<&'static MmaIlpVariant> {
    MMA_ILP.iter().find(|v| v.ilp == ilp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::mma::*;
    use crate::flag_values::parse_flags;
    use crate::flags::ModuleFiles;

    #[test]
    fn defaults_span_every_ilp_and_warps_1_to_64() {
        let a = parse_flags::<SweepArgs>(&[]).unwrap();
        assert_eq!(a.ilp, MMA_ILP.iter().map(|v| v.ilp).collect::<Vec<_>>());
        assert_eq!(a.warps_per_sm, DEFAULT_WARPS_PER_SM);
        assert_eq!(a.warps_per_sm.first(), Some(&1));
        assert_eq!(a.warps_per_sm.last(), Some(&64));
        assert_eq!(a.target_cycles, DEFAULT_TARGET_CYCLES);
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
        let e = parse_flags::<SweepArgs>(&["--ilp", "4,3"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
        assert_eq!(e.exit_code(), 2, "a usage error");
        assert!(
            e.to_string()
                .contains("no mma_bf16_ilp3 kernel (built: 1, 2, 4, 8)"),
            "{e}"
        );
        assert!(parse_flags::<SweepArgs>(&["--ilp", "x"]).is_err());
        assert!(parse_flags::<SweepArgs>(&["--warps-per-sm", "65"]).is_err());
        assert!(parse_flags::<SweepArgs>(&["--warps-per-sm", "0"]).is_err());
        assert!(parse_flags::<SweepArgs>(&["--target-cycles", "0"]).is_err());
        assert!(parse_flags::<SweepArgs>(&["--target-cycles", "NaN"]).is_err());
        let a = parse_flags::<SweepArgs>(&["--ilp", "1,8", "--warps-per-sm", "8,64"]).unwrap();
        assert_eq!(a.points(), [(1, 8), (1, 64), (8, 8), (8, 64)]);
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
        a.ilp = vec![1, 3];
        let e = Plan::of(a, &files).unwrap_err();
        assert!(e.to_string().contains("no mma_bf16_ilp3 kernel"), "{e}");
        // `host all` runs every ILP at its own warps list.
        let all = SweepArgs::in_all(&AllArgs {
            mma_warps_per_sm: vec![4, 16],
        });
        assert_eq!((all.ilp, all.warps_per_sm), (ilps(), vec![4, 16]));
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
