//! The flags and the validated plan the GEMM experiments share (the SGEMM lines of `occupancy`,
//! the BF16 lines): which lines of the experiment's table section, the size, the modules, and
//! whether cuBLAS is timed beside them (`--no-cublas`; in `host all` one `--no-cublas` for both).
//! Each experiment says through [`GemmLines`] which table it runs and how its size and modules
//! are checked.

use std::fmt::Debug;

use super::contract::{self, Output};
use super::gemm_energy::EnergyScope;
use crate::flags::{own_labels, select, CliError, GemmDims, GemmRun, ModuleFiles, Shared};
use crate::kernel_source::sources::{Kernels, Sources};
use crate::results::RunMeta;

/// A GEMM experiment's own subcommand flags.
pub type GemmArgs = GemmRun;

/// What a GEMM experiment adds to `host all`: nothing of its own (it reads `--variants`,
/// `--size`, `--module`, `--compare` and `--no-cublas` from the shared flags).
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct GemmAllArgs {}

/// A GEMM experiment, validated: lines of its table section (`V`), the size, where the kernels
/// come from, and whether cuBLAS is timed too.
#[derive(Debug, Clone, PartialEq)]
pub struct GemmPlan<V: 'static> {
    pub variants: Vec<&'static V>,
    pub size: GemmDims,
    pub sources: Sources<Kernels>,
    /// Time cuBLAS too (unless `--no-cublas`).
    pub cublas: bool,
    /// Which sides the energy phase runs (`--energy`; the headline ones in `host all`).
    pub energy: EnergyScope,
    /// `--variants auto`: the run chooses one line for its size (`line_choice`); `variants` is
    /// empty until it has.
    pub auto: bool,
}

/// The `--variants` word that asks for the line the rule chooses.
pub const AUTO: &str = "auto";

/// Whether `list` asks for the chosen line (`--variants auto`); `auto` beside labels is refused.
pub fn asks_auto(list: &[String]) -> Result<bool, CliError> {
    let auto = list.iter().any(|l| l.trim() == AUTO);
    if auto && list.len() > 1 {
        return Err(CliError::Flag(format!(
            "--variants {AUTO} chooses one line by itself: give it alone"
        )));
    }
    Ok(auto)
}

/// A line of a GEMM experiment's table section, and how the experiment checks a plan of them.
pub trait GemmLines: Debug + Clone + PartialEq + 'static {
    /// The experiment's table section.
    const TABLE: &'static [Self];
    /// What its lines are called in errors ("GEMM", "BF16 GEMM").
    const KIND: &'static str;
    /// A line's label.
    const LABEL: fn(&Self) -> &'static str;
    /// Whether a kernel's fault in one of its lines leaves the others to run
    /// ([`contract::Plan::goes_on_without`]): where its lines are independent of one another.
    const GOES_ON_WITHOUT_A_FAULTING_LINE: bool = false;
    /// What running the experiment gives.
    type Output: Output;
    /// Where the kernels of `variants` come from, `files` and `size` checked against them.
    fn sources(
        variants: &[&'static Self],
        size: GemmDims,
        files: &ModuleFiles,
    ) -> Result<Sources<Kernels>, CliError>;
    /// Every line's label, in table order.
    fn labels() -> Vec<&'static str> {
        Self::TABLE.iter().map(Self::LABEL).collect()
    }
}

impl<V: GemmLines> GemmPlan<V> {
    fn of(
        list: &[String],
        size: GemmDims,
        files: &ModuleFiles,
        (cublas, energy): (bool, EnergyScope),
    ) -> Result<Self, CliError> {
        let auto = asks_auto(list)?;
        let variants = if auto {
            Vec::new()
        } else {
            select(list, V::TABLE, |v| V::LABEL(v), V::KIND)?
        };
        let sources = V::sources(&variants, size, files)?;
        Ok(Self {
            variants,
            size,
            sources,
            cublas,
            energy,
            auto,
        })
    }
}

impl<V: GemmLines> contract::Plan for GemmPlan<V> {
    type Args = GemmArgs;
    type AllArgs = GemmAllArgs;
    type Output = V::Output;
    type Kernels = Kernels;
    fn new(a: &GemmArgs) -> Result<Self, CliError> {
        let energy = EnergyScope::of(a.energy, false);
        Self::of(&a.variants, a.gemm.size, &a.modules, (!a.no_cublas, energy))
    }
    /// The lines of the shared `--variants` that are this experiment's (all when none is).
    fn in_all(s: &Shared, _: &GemmAllArgs) -> Result<Self, CliError> {
        let labels = V::labels();
        let own = own_labels(&s.run.variants, &labels);
        let energy = EnergyScope::of(s.run.energy, true);
        Self::of(
            &own,
            s.run.gemm.size,
            &s.module_files(),
            (!s.run.no_cublas, energy),
        )
    }
    fn sources(&self) -> &Sources<Kernels> {
        &self.sources
    }
    fn record(&self, meta: &mut RunMeta) {
        meta.set_gemm(self.size);
    }
    fn goes_on_without(&self, line: &str) -> bool {
        V::GOES_ON_WITHOUT_A_FAULTING_LINE && self.variants.iter().any(|v| V::LABEL(v) == line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::contract::Plan as _;
    use crate::flag_values::parse_flags;
    use kernels_gpu::variants::GemmVariant;

    fn plan(args: &[&str]) -> Result<GemmPlan<GemmVariant>, CliError> {
        GemmPlan::new(&parse_flags::<GemmArgs>(args).unwrap())
    }

    /// `--variants auto` plans no line (the run chooses one), at any size, since the seed lines
    /// that need multiples of 64 are not candidates; beside a label it is refused.
    #[test]
    fn auto_plans_no_line_and_stands_alone() {
        let p = plan(&["--variants", "auto", "--size", "1000x776x1000"]).unwrap();
        assert!(p.auto && p.variants.is_empty());
        let listed = plan(&["--variants", "R1"]).unwrap();
        assert!(!listed.auto);
        let e = plan(&["--variants", "auto,R1"]).unwrap_err().to_string();
        assert!(e.contains("--variants auto") && e.contains("alone"), "{e}");
    }
}
