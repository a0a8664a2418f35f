// DRAM latency in CUDA C++: kernels-gpu/src/kernels/chase.rs. One thread follows a pointer ring, each
// load's address the previous load's value, so that exactly one load is in flight at a time.
#pragma once

#include "lab_device.cuh"

namespace lab::chase {

// chase.rs `chase`: `next` holds a ring (every index reached from `start` within `steps` hops is
// in bounds); `out` holds 3 words: the final index, elapsed SM cycles, elapsed ns. Launched with
// one thread (any other thread returns at once).
__device__ __forceinline__ void chase(const unsigned* next, unsigned start, unsigned steps, unsigned long long* out) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    const unsigned long long ns0 = global_timer_ns(), c0 = clock_cycles();
    unsigned i = start;
#pragma unroll 1
    for (unsigned step = 0; step < steps; ++step) {
        // __ldcg: ld.global.cg, cached in L2 only, as gpu.rs `load_cg_u32` (a ring far larger
        // than L2 then makes almost every hop a DRAM access).
        i = __ldcg(next + i);
    }
    // The store needs the last load's value, so the clock read issued after it counts the last
    // hop's latency too.
    out[0] = i;
    const unsigned long long c1 = clock_cycles(), ns1 = global_timer_ns();
    out[1] = c1 - c0;
    out[2] = ns1 - ns0;
}

}  // namespace lab::chase
