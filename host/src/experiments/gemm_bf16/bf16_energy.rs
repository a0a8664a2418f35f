//! The `gemm_bf16` experiment's energy phase: its fastest verified `mma.sync` line (the M lines
//! and the TMA-fed MT lines alike: both issue `mma.sync`), its fastest verified wgmma line and
//! cuBLAS's BF16 GEMM, or with `--energy` every verified line; on the problem the table timed,
//! each line launched as its row was (`gemm_energy.rs` runs the windows).

use kernels_gpu::variants::{BF16_GEMM, WGEMM};

use super::plan::Plan;
use super::row::{Bf16Row, TensorPath};
use super::wgemm::{launch_wgemm, wgemm_launch_shape};
use crate::cuda::hopper::hopper_module;
use crate::cuda::tensor_map::TensorMaps;
use crate::cuda::{CudaError, Gpu, Kernel, LaunchShape};
use crate::experiments::bf16_gemm::{Bf16, Bf16GemmBuffers};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::gemm_cublas::CublasSide;
use crate::experiments::gemm_energy::{
    chosen_words, fastest_verified, launches_per_batch, with_cublas_run, EnergyScope, PhaseSide,
};
use crate::experiments::gemm_sides::{GemmKind, Operands};
use crate::experiments::gemm_sides_energy::EnergyLaunch;
use crate::experiments::module_source::Loaded;
use crate::sampling::energy_windows::EnergyPhase;

/// cuBLAS's side in the energy table.
pub const CUBLAS: &str = "cuBLAS BF16";

/// The kinds the headline sides are chosen among, in words.
const KINDS: [&str; 2] = ["the mma.sync lines (M and MT)", "the wgmma lines (W)"];

/// Whether a row is of the `mma.sync` kind (else wgmma).
fn is_mma_sync(r: &Bf16Row) -> bool {
    r.path != TensorPath::Wgmma
}

/// The rows `scope` takes, by label: every verified one, or the fastest verified of each kind.
pub fn picked(scope: EnergyScope, rows: &[Bf16Row]) -> Vec<&str> {
    fn key(r: &Bf16Row) -> (&str, f64, bool) {
        (
            r.variant.as_str(),
            r.figures.gflops,
            r.measured.check.passed,
        )
    }
    match scope {
        EnergyScope::Off => Vec::new(),
        EnergyScope::Every => rows
            .iter()
            .filter(|r| r.measured.check.passed)
            .map(|r| r.variant.as_str())
            .collect(),
        EnergyScope::Headline => {
            let mma = fastest_verified(rows.iter().filter(|r| is_mma_sync(r)).map(key));
            let wgmma = fastest_verified(rows.iter().filter(|r| !is_mma_sync(r)).map(key));
            mma.into_iter().chain(wgmma).collect()
        }
    }
}

/// A wgmma-section line's launch: its tensor maps over the problem's A and B.
type RingLaunch<'m> =
    Box<dyn Fn(&Gpu, &Kernel<'_>, LaunchShape, Operands<'_, u16>) -> Result<(), CudaError> + 'm>;

/// The phase `p` asks for over the measured `rows`, the M lines launched from `ours` and the
/// wgmma-section lines from the built-in sm_90a module; None when it asks for none.
pub fn phase(
    gpu: &Gpu,
    p: &Plan,
    rows: &[Bf16Row],
    ours: &Loaded,
    (buffers, cublas): (&mut Bf16GemmBuffers, &CublasSide),
) -> Result<Option<EnergyPhase>, ExperimentError> {
    if p.energy == EnergyScope::Off {
        return Ok(None);
    }
    let labels = picked(p.energy, rows);
    let median = |label: &str| {
        rows.iter()
            .find(|r| r.variant == label)
            .map_or(f64::NAN, |r| r.figures.timing.median_ms)
    };
    let dims = p.size;
    let hopper = if labels.iter().any(|l| WGEMM.iter().any(|v| v.label == *l)) {
        Some(hopper_module(gpu)?)
    } else {
        None
    };
    // The kernels and the ring lines' maps first, owned here; the sides borrow them.
    let mut mma: Vec<(&str, Kernel<'_>, LaunchShape)> = Vec::new();
    let mut ring: Vec<(&str, Kernel<'_>, LaunchShape, TensorMaps)> = Vec::new();
    for &label in &labels {
        if let Some(v) = BF16_GEMM.iter().find(|v| v.label == label) {
            let kernel = ours.module.kernel(v.entry).in_variant(label)?;
            mma.push((label, kernel, Bf16::launch_shape(v, dims)));
        } else if let (Some(v), Some(module)) = (WGEMM.iter().find(|v| v.label == label), &hopper) {
            let kernel = module.kernel(v.entry).in_variant(label)?;
            let (a, b) = buffers.inputs();
            let maps = TensorMaps::encode(gpu, v, dims, a, b).in_variant(label)?;
            let shape = wgemm_launch_shape(v, dims, gpu.info().sm_count);
            ring.push((label, kernel, shape, maps));
        }
    }
    let launches: Vec<RingLaunch<'_>> = ring
        .iter()
        .map(|(label, _, _, maps)| {
            let v = WGEMM
                .iter()
                .find(|v| v.label == *label)
                .expect("a ring line is of the table");
            let launch: RingLaunch<'_> = Box::new(move |gpu, k, shape, ops| {
                launch_wgemm(
                    gpu,
                    k,
                    (v, shape),
                    maps,
                    (ops.dims, (ops.a, ops.b), ops.c),
                    ops.setting,
                )
            });
            launch
        })
        .collect();
    let mut sides: Vec<PhaseSide<'_, '_, u16>> = mma
        .iter()
        .map(|(label, kernel, shape)| PhaseSide {
            label: (*label).to_owned(),
            launch: EnergyLaunch::Kernel {
                kernel,
                shape: *shape,
                launcher: &Bf16::launch,
            },
            per_batch: launches_per_batch(median(label)),
        })
        .collect();
    for ((label, kernel, shape, _), launcher) in ring.iter().zip(&launches) {
        sides.push(PhaseSide {
            label: (*label).to_owned(),
            launch: EnergyLaunch::Kernel {
                kernel,
                shape: *shape,
                launcher: &**launcher,
            },
            per_batch: launches_per_batch(median(label)),
        });
    }
    let chosen = chosen_words(p.energy, &KINDS);
    with_cublas_run(gpu, buffers, sides, (cublas, CUBLAS), chosen).map(Some)
}

#[cfg(test)]
mod tests {
    use super::super::row::tests::run;
    use super::*;

    #[test]
    fn the_headline_sides_are_the_fastest_verified_line_of_each_kind() {
        let mut r = run();
        // M1 (520,000 GFLOP/s) beats M4; no wgmma row: only M1.
        assert_eq!(picked(EnergyScope::Headline, &r.rows), ["M1"]);
        let mut w = r.rows[1].clone();
        w.variant = "W1".into();
        w.path = TensorPath::Wgmma;
        r.rows.push(w);
        assert_eq!(picked(EnergyScope::Headline, &r.rows), ["M1", "W1"]);
        // A failed check is never chosen: M4 takes M1's place.
        r.rows[0].measured.check.passed = false;
        assert_eq!(picked(EnergyScope::Headline, &r.rows), ["M4", "W1"]);
        assert_eq!(picked(EnergyScope::Every, &r.rows), ["M4", "W1"]);
        assert!(picked(EnergyScope::Off, &r.rows).is_empty());
    }
}
