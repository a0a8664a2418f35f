//! The occupancy calculator: resident blocks and warps per SM, and which resource binds, from
//! the per-architecture limits and the allocation rules of NVIDIA's `cuda_occupancy.h`; checked
//! against the driver's `cuOccupancyMaxActiveBlocksPerMultiprocessor` on a real GPU.
//!
//! - [`arch`]: the limits table; [`device_limits`]: limits from a GPU's attributes.
//! - [`calc`]: the arithmetic ([`occupancy`]).
//! - [`block_size`], [`cliff`], [`curves`]: derived tables.
//! - [`golden`], [`sweep`], [`gpu`]: the driver's answer, recorded and replayed.
//! - [`cli`]: `host calc`.

pub mod arch;
pub mod block_size;
pub mod calc;
pub mod cli;
pub mod cliff;
pub mod curves;
pub mod device_limits;
pub mod golden;
pub mod gpu;
pub mod render;
pub mod size;
pub mod sweep;

pub use arch::{Arch, Limits, UnknownArch};
pub use block_size::{max_potential_block_size, BlockSizeSuggestion, NoBlockSize};
pub use calc::{
    dyn_smem_for_blocks, limiter_names, occupancy, occupancy_with_carveout, warp_occupancy,
    BlockLimits, Carveout, HoldError, KernelResources, Limiter, Occupancy, OccupancyError,
};
pub use cli::{run, CalcArgs};
pub use cliff::{cliff_table, CliffRow};
pub use curves::{all_curves, curve, Axis, Curve, CurvePoint};
pub use device_limits::DeviceAttributes;
pub use golden::{replay, GoldenFile, GoldenRow, Replay};
pub use size::parse_size;
