//! The occupancy calculator's curves (occupancy vs registers/thread, vs block size, vs dynamic
//! shared memory) turned into curve plots for the report, one plot per axis, one series per kernel.

use kernels_gpu::variants::{GemmFamily, GemmVariant};

use crate::experiments::RunResults;
use crate::figure::Labels;
use crate::occupancy::{all_curves, Axis, Curve, KernelResources, Limits};

use super::files::CurvePlot;

/// The axes plotted, in the order of the plots, each with its plot's file stem and x axis name.
const AXES: [(Axis, &str, &str); 3] = [
    (Axis::Registers, "curve_registers", "Registers per thread"),
    (Axis::BlockSize, "curve_block_size", "Threads per block"),
    (
        Axis::DynamicSharedMemory,
        "curve_dynamic_smem",
        "Dynamic shared memory per block (bytes)",
    ),
];

/// The file names of the curve plots, whichever a run has.
pub fn curve_files() -> Vec<String> {
    AXES.iter()
        .map(|(_, stem, _)| format!("{stem}.svg"))
        .collect()
}

/// One plot per axis present in `curves`, in the order Registers, BlockSize, DynamicSharedMemory.
/// Each `(name, curve)` becomes a series called `name` (e.g. the variant label) with the
/// occupancy in percent; a configuration that cannot launch plots as 0%.
pub fn curve_plots(curves: &[(String, Curve)]) -> Vec<CurvePlot> {
    AXES.into_iter()
        .filter_map(|(axis, stem, x_label)| {
            let of_axis: Vec<&(String, Curve)> =
                curves.iter().filter(|(_, c)| c.axis == axis).collect();
            let arch = &of_axis.first()?.1.arch;
            Some(CurvePlot {
                file_stem: stem.to_string(),
                labels: Labels::new(
                    format!("Occupancy vs {} ({arch})", axis.label()),
                    x_label,
                    "Theoretical occupancy (%)",
                ),
                series: of_axis
                    .iter()
                    .map(|(name, c)| {
                        let pts = c
                            .points
                            .iter()
                            .map(|p| (p.x as f64, p.occupancy * 100.0))
                            .collect();
                        (name.clone(), pts)
                    })
                    .collect(),
            })
        })
        .collect()
}

/// The calculator's curves for the `occupancy` experiment of a run on `limits` (the run's device):
/// one series per GEMM variant that ran, with its threads and registers as measured in its row and
/// its family's shared memory (the seed's static tiles, or the tuned line's dynamic stages; rows
/// recorded without a tile are the seed's). Empty when the `occupancy` experiment did not run.
pub fn curves_for(results: &RunResults, limits: &Limits) -> Vec<CurvePlot> {
    let curves: Vec<(String, Curve)> = results
        .occupancy
        .iter()
        .flat_map(|run| &run.rows)
        .flat_map(|row| {
            let tile = row.tile();
            let kernel = KernelResources {
                threads: row.threads,
                regs_per_thread: row.figures.regs,
                static_smem: match tile.family {
                    GemmFamily::Seed => GemmVariant::SEED_STATIC_SHARED_BYTES,
                    GemmFamily::Tuned => 0,
                },
                dyn_smem: tile.dyn_smem,
            };
            all_curves(limits, &kernel).map(|c| (row.variant.clone(), c))
        })
        .collect();
    curve_plots(&curves)
}
