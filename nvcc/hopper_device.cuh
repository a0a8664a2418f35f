// The twin's Hopper plumbing (sm_90a only): kernels-gpu/src/gpu/wgmma.rs, gpu/tma.rs and
// gpu/bulk_copy.rs in CUDA C++, the same PTX instructions under the same names. Every asm mirrors
// a Rust asm without `nomem`/`pure` (so: volatile, with a memory clobber), so that nvcc may move
// it exactly as far as LLVM may move the Rust one. Included by twin_sm90a.cu alone: an sm_80 or
// sm_90 target cannot hold these instructions.
#pragma once

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
// Each accumulator is an in-out operand of the one asm, as in the Rust macro.
template <int TRANS_B>
__device__ __forceinline__ void wgmma_m64k16_bf16(float (&d)[32], unsigned long long da, unsigned long long db,
                                                  unsigned scale_d) {
    asm volatile(
        "{ .reg .pred p; setp.ne.b32 p, %34, 0; "
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, p, 1, 1, 0, %35; }"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B)
        : "memory");
}

template <int TRANS_B>
__device__ __forceinline__ void wgmma_m64k16_bf16(float (&d)[64], unsigned long long da, unsigned long long db,
                                                  unsigned scale_d) {
    asm volatile(
        "{ .reg .pred p; setp.ne.b32 p, %66, 0; "
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, %67; }"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B)
        : "memory");
}

template <int TRANS_B>
__device__ __forceinline__ void wgmma_m64k16_bf16(float (&d)[128], unsigned long long da, unsigned long long db,
                                                  unsigned scale_d) {
    asm volatile(
        "{ .reg .pred p; setp.ne.b32 p, %130, 0; "
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, %131; }"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B)
        : "memory");
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

// tma.rs `warp_sync`: every lane of the warp meets here (`bar.warp.sync -1`).
__device__ __forceinline__ void warp_sync() { asm volatile("bar.warp.sync -1;" ::: "memory"); }

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
