//! The step of the `cp.async` pipeline the register-tiled GEMM families share (`gemm_tuned.rs`,
//! `gemm_mma.rs`): a block keeps `stages` K slices in dynamic shared memory, computes on one
//! while the copies of the later ones land, and moves to the next stage after a slice's last
//! k-step.

use crate::gpu;

/// The stage after `stage` of `stages`, once slice kt+1 has landed and every thread is done
/// reading slice kt: the next k-step reads it. After the last slice that stage holds no slice:
/// in bounds, and unused.
#[inline(always)]
pub fn next_stage(stage: u32, stages: u32) -> u32 {
    gpu::cp_async_wait(stages - 2);
    gpu::sync_threads();
    if stage + 1 == stages {
        0
    } else {
        stage + 1
    }
}
