// The twin's Hopper plumbing (sm_90a only): kernels-gpu/src/gpu/wgmma.rs, gpu/tma.rs and
// gpu/bulk_copy.rs in CUDA C++, the same PTX instructions under the same names. Every asm that
// mirrors a Rust asm without `nomem`/`pure` is volatile, with a memory clobber, and those that
// mirror one marked `nomem` or `pure` (`cluster_ctarank`, `shared_load4`) have no clobber, so that
// nvcc may move each exactly as far as LLVM may move the Rust one. Included by twin_sm90a.cu alone: an sm_80 or
// sm_90 target cannot hold these instructions.
#pragma once
// The CPU's model of these instructions (cpu/hopper_on_cpu.h) defines this guard instead.
#ifndef LAB_HOPPER_DEVICE_CUH
#define LAB_HOPPER_DEVICE_CUH

namespace lab::hopper {

// wgmma.rs `wgmma_fence`: orders this thread's register and shared-memory accesses before the
// wgmma that follow. Every thread of the warpgroup executes it together.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

// wgmma.rs `wgmma_commit_group`: closes the wgmma issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

// wgmma.rs `wgmma_wait_group`: waits until at most PENDING committed groups are in flight.
template <int PENDING>
__device__ __forceinline__ void wgmma_wait_group() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(PENDING) : "memory");
}

// wgmma.rs `fence_proxy_async_shared`: this thread's generic-proxy writes to shared memory made
// visible to the async proxy (wgmma's operand reads, bulk copies).
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// wgmma.rs `store_shared_u16`: one 16-bit value at a 32-bit shared address.
__device__ __forceinline__ void store_shared_u16(unsigned addr, unsigned short v) {
    asm volatile("st.shared.u16 [%0], %1;" ::"r"(addr), "h"(v) : "memory");
}

// sections/wgmma.rs `wgmma_descriptor`: a shared-memory matrix descriptor, addresses and offsets in
// 16-byte units, 14 bits each (bits 0-13, 16-29, 32-45).
__host__ __device__ constexpr unsigned long long descriptor_field(unsigned bytes) { return (bytes >> 4) & 0x3fff; }
__host__ __device__ constexpr unsigned long long wgmma_descriptor(unsigned shared_addr, unsigned leading,
                                                                  unsigned stride) {
    return descriptor_field(shared_addr) | (descriptor_field(leading) << 16) | (descriptor_field(stride) << 32);
}

// wgmma.rs `wgmma_m64k16_bf16` (TRANS_B 0: B K-major) and `wgmma_m64k16_bf16_bt` (TRANS_B 1: B
// MN-major): one wgmma.mma_async m64nNk16 BF16 x BF16 + f32, N = 2 x the accumulators, A and B
// from shared memory by descriptor, D accumulated where `scale_d` is not zero, else overwritten.
// Each accumulator is an in-out operand of the one asm, as in the Rust macro (`wgmma_m64k16!`):
// LAB_WGMMA_M64K16 writes the asm of one N, given the accumulators' operand numbers (LAB_D_*),
// those of scale_d, da, db and TRANS_B after them, and the accumulators (LAB_ACC*).
#define LAB_D_0_31 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define LAB_D_32_63 \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define LAB_D_64_127 \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define LAB_ACC8(i)                                                                                        \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), \
        "+f"(d[i + 7])
#define LAB_ACC32(i) LAB_ACC8(i), LAB_ACC8(i + 8), LAB_ACC8(i + 16), LAB_ACC8(i + 24)
#define LAB_WGMMA_M64K16(N, D_LIST, SCALE, DA, DB, TB, ...)                                  \
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %" #SCALE ", 0; "                           \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 {" D_LIST         \
                 "}, %" #DA ", %" #DB ", p, 1, 1, 0, %" #TB "; }"                            \
                 : __VA_ARGS__                                                               \
                 : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B)                              \
                 : "memory")

template <int TRANS_B>
__device__ __forceinline__ void wgmma_m64k16_bf16(float (&d)[32], unsigned long long da, unsigned long long db,
                                                  unsigned scale_d) {
    LAB_WGMMA_M64K16(64, LAB_D_0_31, 34, 32, 33, 35, LAB_ACC32(0));
}

template <int TRANS_B>
__device__ __forceinline__ void wgmma_m64k16_bf16(float (&d)[64], unsigned long long da, unsigned long long db,
                                                  unsigned scale_d) {
    LAB_WGMMA_M64K16(128, LAB_D_0_31 ", " LAB_D_32_63, 66, 64, 65, 67, LAB_ACC32(0), LAB_ACC32(32));
}

template <int TRANS_B>
__device__ __forceinline__ void wgmma_m64k16_bf16(float (&d)[128], unsigned long long da, unsigned long long db,
                                                  unsigned scale_d) {
    LAB_WGMMA_M64K16(256, LAB_D_0_31 ", " LAB_D_32_63 ", " LAB_D_64_127, 130, 128, 129, 131, LAB_ACC32(0),
                     LAB_ACC32(32), LAB_ACC32(64), LAB_ACC32(96));
}

// tma.rs `mbarrier_init`: the mbarrier at `bar` expects `count` arrivals per phase.
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// tma.rs `fence_barrier_init`: this thread's mbarrier initializations made visible to the async
// proxy and the cluster.
__device__ __forceinline__ void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

// tma.rs `mbarrier_arrive_expect_tx`: arrives and adds `bytes` to the transactions of the phase.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// tma.rs `mbarrier_arrive`: arrives (release).
__device__ __forceinline__ void mbarrier_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// tma.rs `mbarrier_wait`: waits until the phase of parity `parity` has completed (try_wait
// returns after a bounded time, so the loop retries).
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
    for (;;) {
        unsigned done;
        asm volatile(
            "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
        if (done != 0) return;
    }
}

// tma.rs `tma_load_2d`: the 2-D box at (x, y) of the tensor map at `map` (a generic address in
// global memory) into shared `dst`, completing its bytes on the mbarrier at `bar`.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const unsigned long long* map, int x, int y, unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
        "[%4];" ::"r"(dst),
        "l"(map), "r"(x), "r"(y), "r"(bar)
        : "memory");
}

// cluster.rs `cluster_ctarank`: this block's rank in its cluster.
__device__ __forceinline__ unsigned cluster_ctarank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

// cluster.rs `mbarrier_arrive_in`: arrives (default semantics: release at CTA scope) on the mbarrier at `bar` of
// the cluster's block `rank`.
__device__ __forceinline__ void mbarrier_arrive_in(unsigned bar, unsigned rank) {
    asm volatile(
        "{ .reg .b32 r; mapa.shared::cluster.u32 r, %0, %1; mbarrier.arrive.shared::cluster.b64 _, "
        "[r]; }" ::"r"(bar),
        "r"(rank)
        : "memory");
}

// cluster.rs `cluster_sync`: every thread of every block of the cluster arrives, then waits.
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// cluster.rs `tma_load_2d_multicast`: tma_load_2d into the same offset of the shared memory of every
// block of the cluster in `mask`, completing on the barrier at `bar` in each.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const unsigned long long* map, int x, int y,
                                                      unsigned bar, unsigned short mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], "
        "[%1, {%2, %3}], [%4], %5;" ::"r"(dst),
        "l"(map), "r"(x), "r"(y), "r"(bar), "h"(mask)
        : "memory");
}

// tma.rs `named_barrier_sync` / `named_barrier_arrive`: named barrier ID of THREADS threads, waited at or only
// arrived at.
template <unsigned ID, unsigned THREADS>
__device__ __forceinline__ void named_barrier_sync() {
    asm volatile("barrier.sync.aligned %0, %1;" ::"n"(ID), "n"(THREADS) : "memory");
}
template <unsigned ID, unsigned THREADS>
__device__ __forceinline__ void named_barrier_arrive() {
    asm volatile("barrier.arrive.aligned %0, %1;" ::"n"(ID), "n"(THREADS) : "memory");
}

// tma.rs `prefetch_tensor_map`: the tensor map brought into the cache TMA reads descriptors from.
__device__ __forceinline__ void prefetch_tensor_map(const unsigned long long* map) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}

// tma.rs `setmaxnreg_dec` / `setmaxnreg_inc`: this warpgroup's registers per thread lowered to,
// or raised to, REGS.
template <unsigned REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS) : "memory");
}
template <unsigned REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS) : "memory");
}

// tma.rs `prefetch_l2`: asks L2 for the line holding global address `p`.
__device__ __forceinline__ void prefetch_l2(const float* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p) : "memory"); }

// tma.rs `shared_count_up`: adds 1 to the shared word at `addr` (acquire-release) and returns what
// it held.
__device__ __forceinline__ unsigned shared_count_up(unsigned addr) {
    unsigned old;
    asm volatile("atom.acq_rel.cta.shared::cta.add.u32 %0, [%1], 1;" : "=r"(old) : "r"(addr) : "memory");
    return old;
}

// tma.rs `shared_store_u32`: `v` to the shared word at `addr`.
__device__ __forceinline__ void shared_store_u32(unsigned addr, unsigned v) {
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

// tma.rs `shared_store_relaxed_u32` and `shared_load_relaxed_u32`: a flag word other warps read while it is written.
__device__ __forceinline__ void shared_store_relaxed_u32(unsigned addr, unsigned v) {
    asm volatile("st.relaxed.cta.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned shared_load_relaxed_u32(unsigned addr) {
    unsigned v;
    asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// tensor.rs `shared_store2`: two floats to shared address `addr` (8-byte aligned) in one 64-bit store.
__device__ __forceinline__ void shared_store2(unsigned addr, float x, float y) {
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(x), "f"(y) : "memory");
}

// tma.rs `shared_load_u32` and gpu.rs `shared_load4`: a shared word, and four floats (16-byte aligned).
__device__ __forceinline__ unsigned shared_load_u32(unsigned addr) {
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}
__device__ __forceinline__ float4 shared_load4(unsigned addr) {
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr));
    return v;
}

// tma.rs `warp_sync`: every lane of the warp meets here (`bar.warp.sync -1`).
__device__ __forceinline__ void warp_sync() { asm volatile("bar.warp.sync -1;" ::: "memory"); }

// gpu/handoff.rs: the split-K hand-off between blocks (a GPU-scope fence, an acquire-release count
// on a global word, lane 0's value in every lane, a float load from L2).
__device__ __forceinline__ void fence_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
__device__ __forceinline__ unsigned count_up_gpu(unsigned* p, unsigned i) {
    unsigned before;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(before) : "l"(p + i) : "memory");
    return before;
}
__device__ __forceinline__ unsigned from_lane0(unsigned x) { return __shfl_sync(0xffffffffu, x, 0); }
__device__ __forceinline__ float load_l2_f32(const float* p, unsigned i) {
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p + i) : "memory");
    return v;
}

// bulk_copy.rs `bulk_load`: `bytes` from global src[index..] (floats) to shared `dst` in one
// bulk copy completing on `bar`.
__device__ __forceinline__ void bulk_load(unsigned dst, const float* src, unsigned long long index, unsigned bytes,
                                          unsigned bar) {
    asm volatile(
        "{ .reg .u64 g; shl.b64 g, %2, 2; add.s64 g, g, %1; cvta.to.global.u64 g, g;"
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [g], %3, [%4]; }" ::"r"(dst),
        "l"(src), "l"(index), "r"(bytes), "r"(bar)
        : "memory");
}

// bulk_copy.rs `bulk_store`: `bytes` from shared `src` to global dst[index..] (floats) in one bulk
// copy of the current bulk group.
__device__ __forceinline__ void bulk_store(float* dst, unsigned long long index, unsigned src, unsigned bytes) {
    asm volatile(
        "{ .reg .u64 g; shl.b64 g, %1, 2; add.s64 g, g, %0; cvta.to.global.u64 g, g;"
        "cp.async.bulk.global.shared::cta.bulk_group [g], [%2], %3; }" ::"l"(dst),
        "l"(index), "r"(src), "r"(bytes)
        : "memory");
}

// bulk_copy.rs `bulk_commit`: this thread's bulk stores closed into one group.
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// bulk_copy.rs `bulk_wait_read_pending`: waits until at most PENDING of this thread's bulk groups
// have not yet read their shared memory.
template <int PENDING>
__device__ __forceinline__ void bulk_wait_read_pending() {
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(PENDING) : "memory");
}

// bulk_copy.rs `bulk_wait_all`: waits until every one of this thread's bulk groups has completed.
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

}  // namespace lab::hopper

#endif  // LAB_HOPPER_DEVICE_CUH
