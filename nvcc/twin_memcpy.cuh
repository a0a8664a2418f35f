// The strided copy in CUDA C++: kernels-gpu/src/kernels/memcpy.rs. Thread g moves vectors
// g + i*grid_stride (i < LOADS) of WIDTH floats each, and issues all LOADS loads before its first
// store, so that it keeps LOADS*WIDTH*4 bytes in flight.
//
// The loads are coherent (plain `ld.global`, as memcpy.rs's `Vector::load`): `src` is not
// `__restrict__`, so it may alias `dst`, and neither nvcc nor ptxas may move a load below a
// store. With the read-only path a copy's loads could sink between its stores, leaving fewer
// bytes in flight than LOADS says, which is the quantity the bytes-in-flight experiments vary.
#pragma once

namespace lab::copy {

// WIDTH consecutive floats moved as one access: float, float2 (8 bytes) or float4 (16 bytes).
template <int WIDTH>
struct Vector;
template <>
struct Vector<1> {
    using type = float;
};
template <>
struct Vector<2> {
    using type = float2;
};
template <>
struct Vector<4> {
    using type = float4;
};

// memcpy.rs `copy_round`: one round of the strided copy from thread g's vector `first` on (its
// vectors g + (first + i)*grid_stride, i < LOADS), every load before the first store; only whole
// vectors are copied, as in the blog's kernel (vector v is in range when its last float is).
template <unsigned THREADS, int LOADS, int WIDTH>
__device__ __forceinline__ void copy_round(const float* src, float* dst, unsigned long long n,
                                           unsigned long long first) {
    using V = typename Vector<WIDTH>::type;
    const unsigned long long grid_stride = (unsigned long long)gridDim.x * THREADS;
    const unsigned long long g = (unsigned long long)blockIdx.x * THREADS + threadIdx.x;
    auto in_range = [n](unsigned long long v) { return v * WIDTH + (WIDTH - 1) < n; };
    const V* from = reinterpret_cast<const V*>(src);
    V* to = reinterpret_cast<V*>(dst);

    V staged[LOADS];
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
        const unsigned long long v = g + (first + i) * grid_stride;
        staged[i] = in_range(v) ? from[v] : V{};
    }
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
        const unsigned long long v = g + (first + i) * grid_stride;
        if (in_range(v)) to[v] = staged[i];
    }
}

// memcpy.rs `memcpy`: launched with THREADS threads per block; src and dst hold n floats, are
// 4*WIDTH-byte aligned and do not overlap. One round.
template <unsigned THREADS, int LOADS, int WIDTH>
__device__ __forceinline__ void memcpy(const float* src, float* dst, unsigned long long n) {
    copy_round<THREADS, LOADS, WIDTH>(src, dst, n, 0);
}

// persistent_copy.rs `Unrecorded`: the timed entries' recorder, which records nothing (the sampled
// entries' `Sampled` is in twin_copy_samples.cuh, GPU only).
struct Unrecorded {
    __device__ __forceinline__ static Unrecorded start() { return {}; }
    __device__ __forceinline__ void issue() {}
    __device__ __forceinline__ void returned() {}
    __device__ __forceinline__ void end() {}
    __device__ __forceinline__ void finish(unsigned long long) {}
};

// persistent_copy.rs `recorded_copy`: the copy above looped over the buffer in rounds (any
// grid; one wave of SMs x blocks/SM is what the lab launches), its rounds told to R. Each round,
// thread g loads vectors g + (round + i)*grid_stride (i < LOADS), all before its first store,
// stores them, and moves on by LOADS grid strides, so it keeps LOADS*WIDTH*4 bytes in flight
// through the whole copy. The coherent loads (see above) also keep the next round's loads below
// this round's stores.
template <unsigned THREADS, int LOADS, int WIDTH, typename R>
__device__ __forceinline__ void recorded_copy(const float* src, float* dst, unsigned long long n) {
    const unsigned long long grid_stride = (unsigned long long)gridDim.x * THREADS;
    const unsigned long long first = (unsigned long long)blockIdx.x * THREADS + threadIdx.x;
    R recorder = R::start();
    // A round's vectors ascend, and so do the rounds': the first round whose first vector is out
    // of range ends the thread's pass.
    unsigned long long round = 0;
    for (; (first + round * grid_stride) * WIDTH + (WIDTH - 1) < n;) {
        recorder.issue();
        copy_round<THREADS, LOADS, WIDTH>(src, dst, n, round);
        recorder.returned();
        round += LOADS;
        recorder.end();
    }
    recorder.finish(round / LOADS);
}

// persistent_copy.rs `persistent_copy`: the timed entries' copy.
template <unsigned THREADS, int LOADS, int WIDTH>
__device__ __forceinline__ void persistent_copy(const float* src, float* dst, unsigned long long n) {
    recorded_copy<THREADS, LOADS, WIDTH, Unrecorded>(src, dst, n);
}

}  // namespace lab::copy
