//! The `ilp` experiment's marker (`Spec`, whose `Run` and `Report` are in `mod.rs`) and its flags,
//! validated into its plan: its own file so that the folder's parts can name them without
//! importing `mod.rs`.

use super::output::Ilp;
use super::plan::DEFAULT_TARGET_CYCLES;
use crate::experiments::ilp_sweep::{AllWarps, IlpLine, SweepGrid};
use crate::experiments::sweep::{self, SweepFlags};
use crate::flags::CliError;
use kernels_gpu::abi::Param;
use kernels_gpu::variants::{FmaParams, FmaVariant, FMA, FMA_CONTROLS};

/// Resident warps per SM of the default sweep: every count up to 8 (where Volkov's table is decided
/// at high ILP), then a coarser ladder to 64 ([`super::plan::FMA_WARPS_PER_SM`] is the fine one; ask for
/// it with `--warps-per-sm`).
pub const DEFAULT_WARPS_PER_SM: [u32; 14] = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64];

/// Resident warps per SM the controls run at by default: one warp per scheduler (the dependent
/// latency), the dip (5), two per scheduler, and the plateau (16 and 64), a few seconds on an
/// H200.
pub const DEFAULT_CONTROL_WARPS_PER_SM: [u32; 6] = [1, 4, 5, 8, 16, 64];

/// `--controls` value that runs none.
pub const NO_CONTROLS: &str = "none";

/// The `ilp` experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec;

impl IlpLine for Spec {
    const STEM: &'static str = "fma_ilp";
    const CHAINS: &'static str = "chains per thread";
    const DEFAULT_WARPS_PER_SM: &'static [u32] = &DEFAULT_WARPS_PER_SM;
    const ALL_FLAG: &'static str = "ilp-warps-per-sm";
    const LINE: fn() -> Vec<(u32, &'static str)> =
        || FMA.iter().map(|v| (v.ilp, v.entry)).collect();
}

/// The sweep (`host ilp`; `host all` takes `--ilp-warps-per-sm`).
#[derive(Debug, Clone, PartialEq, clap::Args)]
#[group(skip)]
pub struct SweepArgs {
    #[command(flatten)]
    pub grid: SweepGrid<Spec>,
    /// Controls of the FFMA to run beside it (entries of the variant table's fma_controls
    /// line, or "none").
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = control_entries(),
          value_parser = parse_control)]
    pub controls: Vec<String>,
    /// Resident warps per SM the controls run at.
    #[arg(long, value_name = "LIST", value_delimiter = ',',
          default_values_t = DEFAULT_CONTROL_WARPS_PER_SM,
          value_parser = crate::flag_values::whole(1u32..=64))]
    pub control_warps_per_sm: Vec<u32>,
    /// SM cycles one launch is sized for (rounds per thread follow from it).
    #[arg(long, value_name = "CYCLES", default_value_t = DEFAULT_TARGET_CYCLES,
          value_parser = crate::flag_values::parse_cycles)]
    pub target_cycles: f64,
}

/// `host ilp`.
pub type Args = sweep::Args<SweepArgs>;

/// What the `ilp` experiment adds to `host all` (`--ilp-warps-per-sm`).
pub type AllArgs = AllWarps<Spec>;

/// The `ilp` experiment, validated.
pub type Plan = sweep::Plan<SweepArgs>;

/// Every control's entry, in table order.
pub(super) fn control_entries() -> Vec<String> {
    FMA_CONTROLS.iter().map(|v| v.entry.to_owned()).collect()
}

/// One value of `--controls`: a control's entry, or "none".
fn parse_control(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s == NO_CONTROLS || control(s).is_some() {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "{s:?}: no control kernel of that name (built: {}, or {NO_CONTROLS})",
            control_entries().join(", ")
        ))
    }
}

/// The control kernel called `entry`.
pub fn control(entry: &str) -> Option<&'static FmaVariant> {
    FMA_CONTROLS.iter().find(|v| v.entry == entry)
}

impl SweepArgs {
    /// The controls asked for, in the order asked ("none" and names without a kernel left out).
    pub fn control_kernels(&self) -> Vec<&'static FmaVariant> {
        let mut v: Vec<&'static FmaVariant> =
            self.controls.iter().filter_map(|c| control(c)).collect();
        v.dedup_by_key(|k| k.entry);
        v
    }

    /// Every point of the sweep: the FFMA at each ILP and warps target, then each control at
    /// each of its warps targets.
    pub fn points(&self) -> Vec<(&'static FmaVariant, u32)> {
        let ffma = (self.grid.points().into_iter()).filter_map(|(i, w)| Some((kernel(i)?, w)));
        let controls = self
            .control_kernels()
            .into_iter()
            .flat_map(|v| self.control_warps_per_sm.iter().map(move |&w| (v, w)));
        ffma.chain(controls).collect()
    }
}

impl SweepFlags for SweepArgs {
    const SIGNATURE: &'static [Param] = FmaParams::PARAMS;
    type AllArgs = AllArgs;
    type Output = Ilp;
    /// Every ILP at the warps targets asked for.
    fn in_all(a: &AllArgs) -> Self {
        SweepArgs {
            grid: SweepGrid::every_ilp(&a.warps_per_sm),
            controls: control_entries(),
            control_warps_per_sm: DEFAULT_CONTROL_WARPS_PER_SM.to_vec(),
            target_cycles: DEFAULT_TARGET_CYCLES,
        }
    }
    /// The FFMA's entries (an ILP without a kernel, from arguments built in code, is an error
    /// naming it), then the controls'.
    fn entries(&self) -> Result<Vec<&'static str>, CliError> {
        let mut entries = (self.grid.entries()).map_err(|e| CliError::Flag(e.to_string()))?;
        entries.extend(self.control_kernels().iter().map(|v| v.entry));
        Ok(entries)
    }
}

/// The variant table's kernel for an ILP.
pub fn kernel(ilp: u32) -> Option<&'static FmaVariant> {
    FMA.iter().find(|v| v.ilp == ilp)
}

#[cfg(test)]
mod tests {
    use super::super::plan::FMA_WARPS_PER_SM;
    use super::*;
    use crate::experiments::ilp_sweep::tests::has;
    use crate::experiments::ilp_sweep::tests::{
        bad_grid_values_are_usage_errors, default_grid_spans_1_to_64,
    };
    use crate::experiments::ilp_sweep::UnknownIlp;
    use crate::flag_values::parse_flags;

    #[test]
    fn defaults_span_every_ilp_and_warps_1_to_64() {
        default_grid_spans_1_to_64::<Spec>(&DEFAULT_WARPS_PER_SM);
        assert_eq!(Spec::ilps(), FMA.iter().map(|v| v.ilp).collect::<Vec<_>>());
        let a = parse_flags::<SweepArgs>(&[]).unwrap();
        assert!(DEFAULT_WARPS_PER_SM
            .iter()
            .all(|w| FMA_WARPS_PER_SM.contains(w)));
        assert!(a.grid.entries().is_ok());
        assert_eq!(kernel(12).map(|k| k.entry), Some("fma_ilp12"));
        assert_eq!(kernel(7), None);
        assert_eq!(a.control_kernels().len(), FMA_CONTROLS.len());
        assert_eq!(a.control_warps_per_sm, DEFAULT_CONTROL_WARPS_PER_SM);
        assert_eq!(
            a.points().len(),
            a.grid.points().len() + FMA_CONTROLS.len() * DEFAULT_CONTROL_WARPS_PER_SM.len()
        );
    }

    #[test]
    fn controls_are_chosen_by_entry_or_left_out() {
        let a = parse_flags::<SweepArgs>(&[
            "--ilp",
            "1",
            "--warps-per-sm",
            "64",
            "--controls",
            "fadd_ilp1,ffma_const_ilp2",
            "--control-warps-per-sm",
            "8,64",
        ])
        .unwrap();
        let points: Vec<(&str, u32)> = a.points().iter().map(|(v, w)| (v.entry, *w)).collect();
        assert_eq!(
            points,
            [
                ("fma_ilp1", 64),
                ("fadd_ilp1", 8),
                ("fadd_ilp1", 64),
                ("ffma_const_ilp2", 8),
                ("ffma_const_ilp2", 64)
            ]
        );
        let entries = a.entries().unwrap();
        assert_eq!(entries, ["fma_ilp1", "fadd_ilp1", "ffma_const_ilp2"]);
        let none = parse_flags::<SweepArgs>(&["--controls", NO_CONTROLS]).unwrap();
        assert!(none.control_kernels().is_empty());
        let e = parse_flags::<SweepArgs>(&["--controls", "fadd_ilp9"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        has(&e.to_string(), "built: fadd_ilp1");
        assert!(parse_flags::<SweepArgs>(&["--control-warps-per-sm", "0"]).is_err());
    }

    #[test]
    fn bad_values_are_usage_errors() {
        bad_grid_values_are_usage_errors::<SweepArgs>("4,7", "no fma_ilp7 kernel (built: 1, 2, 3");
        let a = parse_flags::<SweepArgs>(&["--ilp", "1,16", "--warps-per-sm", "8,64"]).unwrap();
        assert_eq!(a.grid, SweepGrid::of(vec![1, 16], vec![8, 64]));
    }

    #[test]
    fn arguments_built_in_code_are_validated_too() {
        let mut a = parse_flags::<SweepArgs>(&[]).unwrap();
        a.grid.ilp = vec![1, 7];
        assert_eq!(a.grid.entries(), Err(UnknownIlp::of::<Spec>(7)));
    }
}
