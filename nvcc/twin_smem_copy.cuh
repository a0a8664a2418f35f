// The copy through shared memory in CUDA C++: kernels-gpu/src/kernels/smem_copy.rs (the ring and where
// each chunk goes: sections/smem_copy.rs). Each warp owns STAGES slots of CHUNKS x 512 bytes of the
// block's dynamic shared memory; its lanes fill a slot with 16-byte cp.async.cg, one commit group
// per tile, and once the oldest group has landed store that slot from registers and refill it
// with the warp's next tile (tiles w, w + warps of the grid, ...). A lane reads back only the
// chunks it copied, so the wait alone orders them.
#pragma once

namespace lab::smem_copy {

// sections/smem_copy.rs `chunk_float`: chunk j of all 32 lanes is 512 consecutive bytes.
template <int CHUNKS>
__device__ __forceinline__ unsigned long long chunk_float(unsigned long long tile, int j, unsigned lane) {
    return tile * (CHUNKS * 128ull) + (unsigned long long)(j * 32 + lane) * 4;
}

template <int PENDING>
__device__ __forceinline__ void wait_pending() {
    asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
}

// smem_copy.rs `cp_async_copy`: launched with THREADS threads per block and THREADS/32 x STAGES x
// CHUNKS x 512 bytes of dynamic shared memory; src and dst hold n floats, 16-byte aligned.
template <unsigned THREADS, int CHUNKS, int STAGES>
__device__ __forceinline__ void cp_async_copy(const float* src, float* dst, unsigned long long n) {
    extern __shared__ __align__(16) unsigned char ring_bytes[];
    const unsigned lane = threadIdx.x % 32;
    const unsigned warp = threadIdx.x / 32;
    const unsigned long long warps = THREADS / 32;
    const unsigned long long grid_warps = gridDim.x * warps;
    const unsigned long long first = blockIdx.x * warps + warp;
    const unsigned long long vectors = n / 4;
    const unsigned long long tiles = (vectors + CHUNKS * 32 - 1) / (CHUNKS * 32);
    constexpr unsigned stage = CHUNKS * 512;
    const unsigned ring = (unsigned)__cvta_generic_to_shared(ring_bytes) + warp * STAGES * stage;
    auto slot = [&](int s, int j) { return ring + s * stage + (j * 32 + lane) * 16; };
    auto fill = [&](unsigned long long tile, int s) {
#pragma unroll
        for (int j = 0; j < CHUNKS; ++j) {
            const unsigned long long f = chunk_float<CHUNKS>(tile, j, lane);
            if (f / 4 < vectors)
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(slot(s, j)),
                             "l"(__cvta_generic_to_global(src + f))
                             : "memory");
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
    };
    unsigned long long next = first;
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
        fill(next, s);
        next += grid_warps;
    }
    int s = 0;
    for (unsigned long long tile = first; tile < tiles; tile += grid_warps) {
        wait_pending<STAGES - 1>();
#pragma unroll
        for (int j = 0; j < CHUNKS; ++j) {
            const unsigned long long f = chunk_float<CHUNKS>(tile, j, lane);
            if (f / 4 < vectors) {
                float4 v;
                asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                             : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                             : "r"(slot(s, j))
                             : "memory");
                reinterpret_cast<float4*>(dst)[f / 4] = v;
            }
        }
        fill(next, s);
        next += grid_warps;
        s = s + 1 == STAGES ? 0 : s + 1;
    }
    wait_pending<0>();
}

}  // namespace lab::smem_copy
