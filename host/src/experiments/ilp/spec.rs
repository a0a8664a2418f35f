//! The `ilp` experiment's marker (`Spec`, whose `Run` and `Report` are in `mod.rs`) and its flags,
//! validated into its plan: its own file so that the folder's parts can name them without
//! importing `mod.rs`.

use super::output::Ilp;
use super::plan::{ilps, DEFAULT_TARGET_CYCLES};
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
pub struct Spec;

/// The sweep (`host ilp`; `host all` takes `--ilp-warps-per-sm`).
#[derive(Debug, Clone, PartialEq, clap::Args)]
#[group(skip)]
pub struct SweepArgs {
    /// Independent chains per thread to run (ILPs of the variant table's fma_ilp line).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = ilps(),
          value_parser = parse_ilp)]
    pub ilp: Vec<u32>,
    /// Resident warps per SM to hold (1..64; a count that does not split into whole blocks of
    /// at most the largest block is skipped with a note).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = DEFAULT_WARPS_PER_SM,
          value_parser = crate::flag_values::whole(1u32..=64))]
    pub warps_per_sm: Vec<u32>,
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

/// What the `ilp` experiment adds to `host all`.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct AllArgs {
    /// ilp: resident warps per SM to hold.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = DEFAULT_WARPS_PER_SM,
          value_parser = crate::flag_values::whole(1u32..=64))]
    pub ilp_warps_per_sm: Vec<u32>,
}

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

/// An ILP the kernels are not built for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--ilp {0}: no fma_ilp{0} kernel (built: {built})", built = built_ilps())]
pub struct UnknownIlp(pub u32);

pub(super) fn built_ilps() -> String {
    ilps()
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// One value of `--ilp`: an ILP with a kernel. Refused at parse time, so an unknown ILP is a
/// usage error (exit code 2) like any other bad flag.
fn parse_ilp(s: &str) -> Result<u32, String> {
    let ilp: u32 = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
    kernel(ilp)
        .map(|_| ilp)
        .ok_or_else(|| UnknownIlp(ilp).to_string())
}

impl SweepArgs {
    /// Refuses ILPs without a kernel (the command line already refuses them; this covers
    /// arguments built in code).
    pub fn validate(&self) -> Result<(), UnknownIlp> {
        match self.ilp.iter().find(|&&i| kernel(i).is_none()) {
            Some(&i) => Err(UnknownIlp(i)),
            None => Ok(()),
        }
    }

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
        let ffma = self
            .ilp
            .iter()
            .filter_map(|&i| kernel(i))
            .flat_map(|v| self.warps_per_sm.iter().map(move |&w| (v, w)));
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
            ilp: ilps(),
            warps_per_sm: a.ilp_warps_per_sm.clone(),
            controls: control_entries(),
            control_warps_per_sm: DEFAULT_CONTROL_WARPS_PER_SM.to_vec(),
            target_cycles: DEFAULT_TARGET_CYCLES,
        }
    }
    fn entries(&self) -> Result<Vec<&'static str>, CliError> {
        self.validate().map_err(|e| CliError::Flag(e.to_string()))?;
        Ok(self
            .ilp
            .iter()
            .filter_map(|&i| kernel(i))
            .chain(self.control_kernels())
            .map(|v| v.entry)
            .collect())
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
    use crate::flag_values::parse_flags;

    #[test]
    fn defaults_span_every_ilp_and_warps_1_to_64() {
        let a = parse_flags::<SweepArgs>(&[]).unwrap();
        assert_eq!(a.ilp, FMA.iter().map(|v| v.ilp).collect::<Vec<_>>());
        assert_eq!(a.warps_per_sm, DEFAULT_WARPS_PER_SM);
        assert_eq!(a.warps_per_sm.first(), Some(&1));
        assert_eq!(a.warps_per_sm.last(), Some(&64));
        assert!(DEFAULT_WARPS_PER_SM
            .iter()
            .all(|w| FMA_WARPS_PER_SM.contains(w)));
        assert!(a.validate().is_ok());
        assert_eq!(kernel(12).map(|k| k.entry), Some("fma_ilp12"));
        assert_eq!(kernel(7), None);
        assert_eq!(a.control_kernels().len(), FMA_CONTROLS.len());
        assert_eq!(a.control_warps_per_sm, DEFAULT_CONTROL_WARPS_PER_SM);
        assert_eq!(
            a.points().len(),
            a.ilp.len() * a.warps_per_sm.len()
                + FMA_CONTROLS.len() * DEFAULT_CONTROL_WARPS_PER_SM.len()
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
        assert!(e.to_string().contains("built: fadd_ilp1"), "{e}");
        assert!(parse_flags::<SweepArgs>(&["--control-warps-per-sm", "0"]).is_err());
    }

    #[test]
    fn bad_values_are_usage_errors() {
        let e = parse_flags::<SweepArgs>(&["--ilp", "4,7"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
        assert_eq!(e.exit_code(), 2, "a usage error");
        assert!(
            e.to_string().contains("no fma_ilp7 kernel (built: 1, 2, 3"),
            "{e}"
        );
        assert!(parse_flags::<SweepArgs>(&["--ilp", "x"]).is_err());
        assert!(parse_flags::<SweepArgs>(&["--warps-per-sm", "65"]).is_err());
        assert!(parse_flags::<SweepArgs>(&["--warps-per-sm", "0"]).is_err());
        assert!(parse_flags::<SweepArgs>(&["--target-cycles", "0"]).is_err());
        assert!(parse_flags::<SweepArgs>(&["--target-cycles", "NaN"]).is_err());
        let a = parse_flags::<SweepArgs>(&["--ilp", "1,16", "--warps-per-sm", "8,64"]).unwrap();
        assert_eq!((a.ilp, a.warps_per_sm), (vec![1, 16], vec![8, 64]));
    }

    #[test]
    fn arguments_built_in_code_are_validated_too() {
        let mut a = parse_flags::<SweepArgs>(&[]).unwrap();
        a.ilp = vec![1, 7];
        assert_eq!(a.validate(), Err(UnknownIlp(7)));
    }
}
