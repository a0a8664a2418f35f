//! The kernels of Hopper's instructions (wgmma, TMA, bulk copies), compiled only into the sm_90a
//! module: an sm_80 `.target` cannot hold them. The two warp-specialized GEMMs share one TMA
//! ring (`tma_ring`); the wgmma one cuts K where tiles are few (`split_k`).

pub(crate) mod c_handoff;
pub(crate) mod gemm_tma_mma;
pub(crate) mod gemm_wgmma;
pub(crate) mod pair_stores;
pub(crate) mod slot_mma;
pub(crate) mod split_k;
pub(crate) mod tma_copy;
pub(crate) mod tma_ring;
pub(crate) mod wgmma;
