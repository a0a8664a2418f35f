//! The GEMM families' tile shapes as index arithmetic, shared by the kernels (which call these
//! functions, so they inline to the kernels' own integer arithmetic) and the host, whose CPU tests
//! check the kernels' edge logic through them: the tuned SGEMM's staging and accumulators
//! (`tuned_shape`), the BF16 GEMM's swizzled copies and fragments (`mma_shape`), the TMA-fed
//! mma.sync GEMM's slot reads (`tma_mma_shape`) in the TMA ring's slot (`tma_slot`), the m16n8k16
//! fragment layouts they all place accumulators with (`mma_layout`), and the order blocks take
//! their tiles in (`block_order`).

pub mod block_order;
pub mod mma_layout;
pub mod mma_shape;
pub mod tma_mma_shape;
pub mod tma_slot;
pub mod tuned_shape;
