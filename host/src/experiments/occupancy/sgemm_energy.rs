//! The `occupancy` experiment's energy phase: its fastest verified SGEMM line (or, with
//! `--energy`, every verified line) and cuBLAS's SGEMM, on the problem the table timed
//! (`gemm_energy.rs` runs the windows).

use kernels_gpu::variants::{GemmVariant, GEMM};

use super::row::GemmRow;
use crate::cuda::{Gpu, Kernel};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::gemm::{Fp32, GemmBuffers};
use crate::experiments::gemm_cublas::CublasSide;
use crate::experiments::gemm_energy::{
    chosen_words, fastest_verified, launches_per_batch, with_cublas_run, EnergyScope, PhaseSide,
};
use crate::experiments::gemm_plan::GemmPlan;
use crate::experiments::gemm_sides::GemmKind;
use crate::experiments::gemm_sides_energy::EnergyLaunch;
use crate::experiments::module_source::Loaded;
use crate::sampling::energy_windows::EnergyPhase;

/// cuBLAS's side in the energy table.
pub const CUBLAS: &str = "cuBLAS";

/// The phase `p` asks for over the measured `rows`, launched from `ours`; None when it asks for
/// none.
pub fn phase(
    gpu: &Gpu,
    p: &GemmPlan<GemmVariant>,
    rows: &[GemmRow],
    ours: &Loaded,
    (buffers, cublas): (&mut GemmBuffers, &CublasSide),
) -> Result<Option<EnergyPhase>, ExperimentError> {
    let picked: Vec<&str> = match p.energy {
        EnergyScope::Off => return Ok(None),
        EnergyScope::Every => rows
            .iter()
            .filter(|r| r.measured.check.passed)
            .map(|r| r.variant.as_str())
            .collect(),
        EnergyScope::Headline => fastest_verified(rows.iter().map(|r| {
            (
                r.variant.as_str(),
                r.figures.gflops,
                r.measured.check.passed,
            )
        }))
        .into_iter()
        .collect(),
    };
    let mut kernels: Vec<(
        &str,
        Kernel<'_>,
        f64,
        &'static kernels_gpu::variants::GemmVariant,
    )> = Vec::new();
    for label in picked {
        let (Some(v), Some(row)) = (
            GEMM.iter().find(|v| v.label == label),
            rows.iter().find(|r| r.variant == label),
        ) else {
            continue;
        };
        let kernel = ours.module.kernel(v.entry).in_variant(label)?;
        kernels.push((label, kernel, row.figures.timing.median_ms, v));
    }
    let sides: Vec<PhaseSide<'_, '_, f32>> = kernels
        .iter()
        .map(|(label, kernel, ms, v)| PhaseSide {
            label: (*label).to_owned(),
            launch: EnergyLaunch::Kernel {
                kernel,
                shape: Fp32::launch_shape(v, p.size),
                launcher: &Fp32::launch,
            },
            per_batch: launches_per_batch(*ms),
        })
        .collect();
    let chosen = chosen_words(p.energy, &["the SGEMM lines"]);
    with_cublas_run(gpu, buffers, sides, (cublas, CUBLAS), chosen).map(Some)
}
