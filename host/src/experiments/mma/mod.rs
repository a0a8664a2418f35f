//! The `mma` experiment, tensor-core throughput against occupancy: `mma.sync` m16n8k16 BF16
//! kernels with 1 to 8 independent accumulators per warp over 1 to 64 resident warps per SM
//! (blocks held by dynamic shared memory, one full wave), each point's TFLOP/s against the
//! dense BF16 spec peak at the SM clock measured during the run and against the `mma.sync`
//! ceiling (the run's best verified point), every thread of every launch checked bit for bit
//! against the CPU model of the fragment layout. Volkov's table for tensor cores: for each ILP,
//! the least occupancy reaching 90% and 95% of the ceiling. On a GPU before sm_80 it runs
//! nothing and says why.
//!
//! ```text
//! host mma                                        # every ILP x the default warps/SM
//! host mma --ilp 1,8 --warps-per-sm 4,8,64 --noise 1
//! host mma --compare twin.cubin --compare-label nvcc --out results/mma
//! ```
//!
//! Layout: [`plan`] (sizing and arithmetic), [`mod@reference`] (inputs and the check), [`row`]
//! (typed results, the ceiling and the reach table), [`claims`] (verdict rules), [`plots`],
//! [`table`], and [`run`], the one file that touches the driver. The second table, `wgmma` on
//! sm_90a against warpgroups per SM: [`wgmma`] (rows, check, columns), [`wgmma_claim`] (its
//! verdict) and [`wgmma_run`] (its driver side).

pub mod claims;
pub mod plan;
pub mod plots;
pub mod reference;
#[cfg(test)]
mod render_test;
pub mod row;
pub mod run;
pub mod table;
pub mod wgmma;
pub mod wgmma_claim;
pub mod wgmma_run;

use kernels_gpu::abi::Param;
use kernels_gpu::variants::{MmaIlpVariant, MmaParams, MMA_ILP};
use plan::{ilps, DEFAULT_TARGET_CYCLES};

pub use row::{Mma, MmaRow};

use super::contract::{Experiment, Registered, TFLOPS, forward_to_modules};
use super::ilp_sweep::first_run_plot;
use super::sweep::{self, SweepFlags};
use crate::figure::{Figure, PlotRun};
use crate::flags::CliError;
use crate::results::RunMeta;
use crate::table::{Column, TableData};

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

fn built_ilps() -> String {
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

/// The stem of the wgmma table's CSV.
const WGMMA_STEM: &str = "mma_wgmma";

impl Experiment for Spec {
    const ABOUT: &'static str =
        "tensor-core (mma.sync BF16) throughput vs warps per SM and independent MMAs";
    const SECTION: &'static str = "tensor-core parallelism vs occupancy (mma.sync)";
    const MORE_CSVS: &'static [&'static str] = &[WGMMA_STEM];

    fn help() -> String {
        format!(
            "Tensor-core kernels (entries mma_bf16_ilp{{ILP}}, sm_80 or newer) for ILP {}",
            built_ilps()
        )
    }

    forward_to_modules!(Mma);

    fn columns() -> Vec<Column<MmaRow>> {
        let mut c = table::columns();
        c.extend(TFLOPS.compared_columns());
        c
    }

    fn title(m: &RunMeta) -> String {
        format!(
            "Tensor-core throughput vs warps per SM and independent MMAs ({})",
            m.sampling_words()
        )
    }

    fn figures(runs: &[PlotRun<'_, Mma>]) -> Vec<(String, Figure)> {
        first_run_plot(runs, Self::NAME, plots::tflops_by_warps)
    }

    fn second_table(output: &Mma, meta: &RunMeta) -> Option<(&'static str, TableData)> {
        let t = output.wgmma.as_ref()?;
        // Its compared columns (where its rows have them) named as the first table's.
        let table = wgmma::table(t, &meta.sampling_words()).name_compared(meta.compare_name().as_deref());
        Some((WGMMA_STEM, table))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
            assert!(crate::experiments::ilp_sweep::layout(w, 32, 1024, 32).is_some(), "{w}");
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
