// Split-K for the wgmma GEMM in CUDA C++: kernels-gpu/src/kernels/sm90a/split_k.rs. Each consumer
// warp of each unit of a cut tile writes its partial accumulators to `partials`, then counts itself
// in on its (tile, warp) word of `arrivals`; the warp that counts last sums every unit's partial
// from `partials` in the units' order (its own included, so the sum's bits do not depend on which
// unit ends last), zeroes the word for the next launch, and writes the tile's part as usual.
#pragma once

#include "hopper_device.cuh"
#include "twin_tma_ring.cuh"

namespace lab::ring {

// split_k.rs `WarpPart`: a consumer warp's place in a cut tile (its warp among the tile's, L::TILE_WARPS).
template <class L, int ACC>
struct WarpPart {
    unsigned tile, warp, lane;

    // split_k.rs `at`: accumulator r of this lane in scratch slot `slot` (worked out once per unit), each
    // register's 32 lanes side by side.
    __device__ __forceinline__ unsigned at(unsigned slot, unsigned r) const {
        const unsigned unit_part = slot * L::TILE_WARPS + warp;
        return (unit_part * unsigned(ACC) + r) * 32 + lane;
    }

    // split_k.rs `deposit`: writes this warp's partial of unit `split` and counts it in; true for
    // the last to count, which then has every unit's writes and has reset the word.
    template <bool STREAMED>
    __device__ __forceinline__ bool deposit(const Problem<L>& p, float* partials, unsigned* arrivals, const Unit& u,
                                            const float (&d)[ACC]) const {
        const unsigned slot = p.template slot<STREAMED>(tile, u.split);
#pragma unroll
        for (int r = 0; r < ACC; ++r) partials[at(slot, unsigned(r))] = d[r];
        hopper::fence_gpu();
        hopper::warp_sync();
        const unsigned word = p.template cut_tile<STREAMED>(tile) * L::TILE_WARPS + warp;
        const unsigned before = lane == 0 ? hopper::count_up_gpu(arrivals, word) : 0u;
        const bool last = hopper::from_lane0(before) == u.pieces - 1;
        if (last) {
            hopper::fence_gpu();
            if (lane == 0) arrivals[word] = 0;
        }
        return last;
    }

    // split_k.rs `gather`: d = the partials of the tile's `pieces` units, summed in the units' order.
    template <bool STREAMED>
    __device__ __forceinline__ void gather(const Problem<L>& p, const float* partials, unsigned pieces,
                                           float (&d)[ACC]) const {
        const unsigned first = p.template slot<STREAMED>(tile, 0);
#pragma unroll
        for (int r = 0; r < ACC; ++r) d[r] = hopper::load_l2_f32(partials, at(first, unsigned(r)));
        for (unsigned split = 1; split < pieces; ++split) {
            const unsigned slot = p.template slot<STREAMED>(tile, split);
#pragma unroll
            for (int r = 0; r < ACC; ++r) d[r] += hopper::load_l2_f32(partials, at(slot, unsigned(r)));
        }
    }
};

}  // namespace lab::ring
