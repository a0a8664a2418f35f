// The step of the cp.async pipeline the register-tiled GEMM twins share (twin_gemm_tuned.cuh,
// twin_gemm_mma.cuh): kernels-gpu/src/kernels/gemm_pipeline.rs in CUDA C++. A block keeps STAGES
// K slices in dynamic shared memory, computes on one while the copies of the later ones land, and
// moves to the next stage after a slice's last k-step.
#pragma once

#include "lab_device.cuh"

namespace lab {

// gemm_pipeline.rs `next_stage`: the stage after `stage` of STAGES, once slice kt+1 has landed
// and every thread is done reading slice kt: the next k-step reads it. After the last slice that
// stage holds no slice: in bounds, and unused.
template <unsigned STAGES>
__device__ __forceinline__ unsigned next_stage(unsigned stage) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    return stage + 1 == STAGES ? 0 : stage + 1;
}

}  // namespace lab
