// The copy through shared memory by Hopper's bulk copies in CUDA C++: kernels-gpu/src/kernels/sm90a/tma_copy.rs
// (the ring: sections/smem_copy.rs). Lane 0 of each warp moves its ring's stages with one
// cp.async.bulk in (completing on the stage's mbarrier) and one bulk store out each; the store of
// one tile ago having read its stage, that stage is refilled with the warp's next tile.
#pragma once

#include "hopper_device.cuh"
#include "lab_device.cuh"
#include "tensor_device.cuh"

namespace lab::bulk {

constexpr unsigned COPY_LANES = 32;
constexpr unsigned MBARRIER_BYTES = 8;

// tma_copy.rs `tma_copy`: launched with THREADS threads per block and THREADS/32 x STAGES x
// (STAGE_BYTES + 8) bytes of dynamic shared memory; src and dst hold n floats, 16-byte aligned,
// not overlapping.
template <unsigned THREADS, unsigned STAGE_BYTES, unsigned STAGES>
__device__ __forceinline__ void bulk_ring_copy(const float* src, float* dst, unsigned long long n) {
    constexpr unsigned warps = THREADS / COPY_LANES;
    const unsigned warp = threadIdx.x / COPY_LANES;
    if (threadIdx.x % COPY_LANES != 0) return;
    const unsigned long long grid_warps = (unsigned long long)gridDim.x * warps;
    const unsigned long long first = (unsigned long long)blockIdx.x * warps + warp;
    const unsigned long long vectors = n / 4;
    constexpr unsigned long long tile_vectors = STAGE_BYTES / 16;
    const unsigned long long tiles = (vectors + tile_vectors - 1) / tile_vectors;
    const unsigned base = shared_address(lab_dyn_smem);
    const unsigned ring = base + warp * STAGES * STAGE_BYTES;
    const unsigned bars = base + warps * STAGES * STAGE_BYTES + warp * STAGES * MBARRIER_BYTES;
    auto slot = [&](unsigned s) { return ring + s * STAGE_BYTES; };
    auto bar = [&](unsigned s) { return bars + s * MBARRIER_BYTES; };
    // The whole vectors of tile t (the last may be short), in bytes.
    auto tile_bytes = [&](unsigned long long t) {
        const unsigned long long left = vectors - t * tile_vectors;
        return unsigned((left < tile_vectors ? left : tile_vectors) * 16);
    };
    for (unsigned s = 0; s < STAGES; ++s) hopper::mbarrier_init(bar(s), 1);
    hopper::fence_proxy_async_shared();
    // Tile t into the stage at (slot_at, bar_at); the refill takes the addresses the stage's wait
    // used, as tma_copy.rs does (its comment says why).
    auto fill = [&](unsigned long long t, unsigned slot_at, unsigned bar_at) {
        if (t < tiles) {
            const unsigned bytes = tile_bytes(t);
            hopper::mbarrier_arrive_expect_tx(bar_at, bytes);
            hopper::bulk_load(slot_at, src, t * tile_vectors * 4, bytes, bar_at);
        }
    };
    for (unsigned s = 0; s < STAGES; ++s) fill(first + s * grid_warps, slot(s), bar(s));
    unsigned parity = 0;
    unsigned s = 0;
    bool has_previous = false;
    unsigned long long prev_tile = 0;
    unsigned prev_slot = 0, prev_bar = 0;
    for (unsigned long long tile = first; tile < tiles; tile += grid_warps) {
        const unsigned slot_at = opaque(slot(s)), bar_at = opaque(bar(s));
        hopper::mbarrier_wait(bar_at, (parity >> s) & 1);
        parity ^= 1u << s;
        hopper::fence_proxy_async_shared();
        hopper::bulk_store(dst, tile * tile_vectors * 4, slot_at, tile_bytes(tile));
        hopper::bulk_commit();
        if (has_previous) {
            hopper::bulk_wait_read_pending<1>();
            fill(prev_tile + STAGES * grid_warps, prev_slot, prev_bar);
        }
        has_previous = true;
        prev_tile = tile;
        prev_slot = slot_at;
        prev_bar = bar_at;
        s = s + 1 == STAGES ? 0 : s + 1;
    }
    hopper::bulk_wait_all();
}

}  // namespace lab::bulk
