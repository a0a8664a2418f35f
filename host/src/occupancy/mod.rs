//! The occupancy calculator: resident blocks and warps per SM, and which resource binds, from
//! the per-architecture limits and the allocation rules of NVIDIA's `cuda_occupancy.h`. Needs no
//! GPU; `crate::calculator` (the `host calc` command) checks it against the driver's
//! `cuOccupancyMaxActiveBlocksPerMultiprocessor` on a real one.
//!
//! - [`arch`]: the limits table; [`device_limits`]: limits from what a device reports.
//! - [`calc`]: the arithmetic ([`occupancy`]): the only occupancy arithmetic of the lab.
//! - [`block_size`], [`cliff`], [`curves`]: derived tables; [`render`]: their printouts.
//! - [`golden`]: the driver's answers, recorded, and replayed through the calculator.
//! - [`waves`]: tiles, waves and tail efficiency, and sizes at which compared sides run whole waves.

pub mod arch;
pub mod block_size;
pub mod calc;
pub mod cliff;
pub mod curves;
pub mod device_limits;
pub mod golden;
pub mod render;
pub mod size;
pub mod waves;

pub use arch::{Arch, Limits, UnknownArch};
pub use block_size::{max_potential_block_size, BlockSizeSuggestion, NoBlockSize};
pub use calc::{
    dyn_smem_for_blocks, limiter_names, occupancy, occupancy_with_carveout, warp_occupancy,
    BlockLimits, Carveout, HoldError, KernelResources, Limiter, Occupancy, OccupancyError,
};
pub use cliff::{cliff_table, CliffRow};
pub use curves::{all_curves, curve, Axis, Curve, CurvePoint};
pub use device_limits::DeviceAttributes;
pub use golden::{replay, GoldenFile, GoldenRow, Replay};
pub use size::parse_size;
