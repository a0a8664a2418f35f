//! The `gemm_bf16` experiment's plan: the `mma.sync` lines (the `gemm_bf16` section, with the
//! size, modules and cuBLAS the GEMM experiments share) and the wgmma lines (the `gemm_wgmma`
//! section, always from the built-in sm_90a module), both picked by label from one
//! `--variants` list.

use kernels_gpu::variants::{Bf16GemmVariant, WgemmVariant, BF16_GEMM, WGEMM};

use crate::experiments::contract;
use crate::experiments::gemm_energy::EnergyScope;
use crate::experiments::gemm_plan::{asks_auto, GemmAllArgs, GemmArgs, GemmLines};
use crate::flag_values::shown;
use crate::flags::{own_labels, select, CliError, GemmDims, ModuleFiles, Shared};
use crate::kernel_source::sources::{Kernels, Sources};
use crate::results::RunMeta;

use super::row::Bf16Run;

/// The `gemm_bf16` experiment, validated (any M, N, K: the `mma.sync` lines zero-fill their edge
/// tiles; the wgmma lines say at run time which sizes TMA cannot describe).
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The `mma.sync` lines.
    pub variants: Vec<&'static Bf16GemmVariant>,
    /// The wgmma lines.
    pub wgmma: Vec<&'static WgemmVariant>,
    pub size: GemmDims,
    /// Where the `mma.sync` lines come from (the wgmma lines: the built-in sm_90a module).
    pub sources: Sources<Kernels>,
    /// Time cuBLAS too (unless `--no-cublas`).
    pub cublas: bool,
    /// Which sides the energy phase runs (`--energy`; the headline ones in `host all`).
    pub energy: EnergyScope,
    /// `--variants auto`: the run chooses one line, `mma.sync` or ring, for its size.
    pub auto: bool,
}

/// Every line's label: the `mma.sync` lines, then the wgmma lines.
pub fn labels() -> Vec<&'static str> {
    let mut all = Bf16GemmVariant::labels();
    all.extend(WGEMM.iter().map(|v| v.label));
    all
}

/// The `mma.sync` and wgmma lines of `list`, all when it is empty. A label of neither table is
/// refused with both tables' labels (the split below would name the `mma.sync` ones only).
fn lines(
    list: &[String],
) -> Result<(Vec<&'static Bf16GemmVariant>, Vec<&'static WgemmVariant>), CliError> {
    let all = labels();
    if let Some(bad) = list
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !all.contains(l))
    {
        return Err(CliError::UnknownVariant {
            kind: Bf16GemmVariant::KIND,
            label: shown(bad),
            valid: all.join(", "),
        });
    }
    let is_wgmma = |l: &String| WGEMM.iter().any(|v| v.label == l.trim());
    let (wgmma, mma): (Vec<String>, Vec<String>) = list.iter().cloned().partition(is_wgmma);
    // An empty list takes every line; a list of wgmma lines alone takes no mma.sync line.
    let variants = if mma.is_empty() && !wgmma.is_empty() {
        Vec::new()
    } else {
        select(&mma, BF16_GEMM, |v| v.label, Bf16GemmVariant::KIND)?
    };
    let wgmma = if wgmma.is_empty() && !mma.is_empty() {
        Vec::new()
    } else {
        select(&wgmma, WGEMM, |v| v.label, "wgmma GEMM")?
    };
    Ok((variants, wgmma))
}

impl Plan {
    /// The lines of `list` (all when empty) at `size`, their kernels from `files`, cuBLAS
    /// timed beside them when `cublas`.
    fn of(
        list: &[String],
        files: &ModuleFiles,
        (size, cublas, energy): (GemmDims, bool, EnergyScope),
    ) -> Result<Self, CliError> {
        let auto = asks_auto(list)?;
        // `auto` plans no line: the run chooses one.
        let (variants, wgmma) = if auto {
            (Vec::new(), Vec::new())
        } else {
            lines(list)?
        };
        let sources = Bf16GemmVariant::sources(&variants, size, files)?;
        Ok(Self {
            variants,
            wgmma,
            size,
            sources,
            cublas,
            energy,
            auto,
        })
    }

    /// How many lines the run measures.
    pub fn lines(&self) -> usize {
        self.variants.len() + self.wgmma.len()
    }
}

impl contract::Plan for Plan {
    type Args = GemmArgs;
    type AllArgs = GemmAllArgs;
    type Output = Bf16Run;
    type Kernels = Kernels;
    fn new(a: &GemmArgs) -> Result<Self, CliError> {
        let energy = EnergyScope::of(a.energy, false);
        Self::of(&a.variants, &a.modules, (a.gemm.size, !a.no_cublas, energy))
    }
    /// The lines of the shared `--variants` that are this experiment's (all when none is).
    fn in_all(s: &Shared, _: &GemmAllArgs) -> Result<Self, CliError> {
        let own = own_labels(&s.run.variants, &labels());
        let energy = EnergyScope::of(s.run.energy, true);
        let run = (s.run.gemm.size, !s.run.no_cublas, energy);
        Self::of(&own, &s.module_files(), run)
    }
    fn sources(&self) -> &Sources<Kernels> {
        &self.sources
    }
    fn record(&self, meta: &mut RunMeta) {
        meta.set_gemm(self.size);
    }
}
