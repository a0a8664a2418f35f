//! The `shapes` experiment and its plan: which shapes of the fixed list, which families, whether
//! cuBLAS runs beside, and how many samples a figure takes (`host all`'s shorter sweep).

use super::list::{select, SweepShape};
use super::row::{Family, ShapesRun};
use crate::experiments::contract;
use crate::experiments::gemm_plan::GemmAllArgs;
use crate::flags::{CliError, Shared};
use crate::kernel_source::sources::{Kernels, Sources};

/// The `shapes` experiment.
pub struct Spec;

/// Samples each chosen line and cuBLAS take in `host all` (at least 5, the fewest an interval
/// is computed from), which keeps the sweep within its share of `host all`'s 3 minutes.
pub const ALL_SAMPLES: u32 = 5;

/// `host shapes`.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct Args {
    /// Shapes of the sweep to run (comma-separated, N for N³ or MxNxK; listed below); default
    /// all.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub shapes: Vec<String>,
    /// Families to run (comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_family,
          default_values_t = [Family::Fp32, Family::Bf16])]
    pub families: Vec<Family>,
    /// Do not time cuBLAS beside the chosen lines.
    #[arg(long)]
    pub no_cublas: bool,
}

/// A family by name (`fp32`, `bf16`), spaces around it ignored as in every list flag.
fn parse_family(s: &str) -> Result<Family, String> {
    <Family as clap::ValueEnum>::from_str(s.trim(), true)
        .map_err(|_| format!("`{}` is not a family: fp32 or bf16", s.trim()))
}

/// The `shapes` experiment, validated. Its kernels are the built-in ones (`--module` and
/// `--compare` are the one-shape experiments').
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub shapes: Vec<&'static SweepShape>,
    pub families: Vec<Family>,
    pub cublas: bool,
    /// Samples a figure; none: the run's sampling.
    pub samples: Option<u32>,
    pub sources: Sources<Kernels>,
}

impl Plan {
    fn of(
        shapes: &[String],
        families: &[Family],
        cublas: bool,
        samples: Option<u32>,
    ) -> Result<Self, CliError> {
        let shapes = select(shapes).map_err(CliError::Flag)?;
        let families = if families.is_empty() {
            vec![Family::Fp32, Family::Bf16]
        } else {
            [Family::Fp32, Family::Bf16]
                .into_iter()
                .filter(|f| families.contains(f))
                .collect()
        };
        Ok(Self {
            shapes,
            families,
            cublas,
            samples,
            sources: Sources::new(Kernels::Builtin, None),
        })
    }

    /// The (shape, family) pairs the run measures, in order.
    pub fn pairs(&self) -> Vec<(&'static SweepShape, Family)> {
        let mut out = Vec::new();
        for &s in &self.shapes {
            for &f in &self.families {
                if !(s.bf16_only && f == Family::Fp32) {
                    out.push((s, f));
                }
            }
        }
        out
    }
}

impl contract::Plan for Plan {
    type Args = Args;
    type AllArgs = GemmAllArgs;
    type Output = ShapesRun;
    type Kernels = Kernels;
    fn new(a: &Args) -> Result<Self, CliError> {
        Self::of(&a.shapes, &a.families, !a.no_cublas, None)
    }
    /// Every shape and family, [`ALL_SAMPLES`] samples a figure.
    fn in_all(s: &Shared, _: &GemmAllArgs) -> Result<Self, CliError> {
        Self::of(&[], &[], !s.run.no_cublas, Some(ALL_SAMPLES))
    }
    fn sources(&self) -> &Sources<Kernels> {
        &self.sources
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::contract::Plan as _;
    use crate::flag_values::parse_flags;

    fn plan(args: &[&str]) -> Result<Plan, CliError> {
        Plan::new(&parse_flags::<Args>(args).unwrap())
    }

    #[test]
    fn every_shape_and_family_but_fp32_at_16384_cubed() {
        let p = plan(&[]).unwrap();
        let pairs = p.pairs();
        assert_eq!(pairs.len(), 2 * super::super::list::SHAPES.len() - 1);
        assert!(!(pairs.iter())
            .any(|(s, f)| s.dims.m == 16384 && s.dims.k == 16384 && *f == Family::Fp32));
        assert_eq!((p.samples, p.cublas), (None, true));
    }

    #[test]
    fn shapes_and_families_are_picked_and_host_all_takes_five_samples() {
        let p = plan(&[
            "--shapes",
            "7x9000x13,16384",
            "--families",
            "fp32",
            "--no-cublas",
        ])
        .unwrap();
        let pairs: Vec<_> = (p.pairs().iter()).map(|(s, f)| (s.dims.m, *f)).collect();
        assert_eq!(pairs, [(7, Family::Fp32)], "16384³ is BF16 only");
        assert!(!p.cublas);
        assert!(plan(&["--shapes", "100"]).is_err());
        assert!(parse_flags::<Args>(&["--families", "fp64"]).is_err());
        use clap::Parser;
        let cli = crate::cli::Cli::try_parse_from(["host", "all"]).unwrap();
        let planned = cli.command.plan("host all").unwrap().unwrap();
        let all = (planned.experiments.iter())
            .find_map(|e| match e {
                crate::experiments::Planned::Shapes(p) => Some(p.clone()),
                _ => None,
            })
            .expect("host all runs the sweep");
        assert_eq!(all.samples, Some(ALL_SAMPLES));
        const { assert!(ALL_SAMPLES >= 5) };
    }
}
