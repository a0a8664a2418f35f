// hopper_device.cuh on the CPU, for the twin's warp-specialized GEMMs (twin_gemm_wgmma.cuh,
// twin_gemm_tma_mma.cuh) run as fibers (fibers_on_cpu.h): the blocks of one cluster run together,
// each with shared memory of its own, and the asynchronous units are modelled as late as their
// contracts allow, so that a kernel that reads before it waits reads stale data or NaN:
// - TMA (`tma_load_2d`, multicast too) copies a box with the 128-byte swizzle and zero fill past the
//   tensor's edges, but lands, and completes its bytes on the mbarrier, only at the end of the
//   scheduler's round, after every fiber has run;
// - mbarriers keep their arrival and transaction counts and phase; a wait polls and yields;
// - wgmma reads its operands through the descriptors (K-major A, K- or MN-major B, with or without
//   the 128-byte swizzle) only when `wgmma.wait_group` retires its group, and writes the
//   accumulators of the warpgroup's 128 threads then;
// - bulk copies (cp.async.bulk) land as TMA's boxes do, and a bulk store reads its shared source
//   only when a wait retires its group;
// - named barriers, the cluster barrier and remote arrivals (`mapa`) work across the cluster's
//   fibers.
// A round of the scheduler in which no fiber did anything but poll an mbarrier, and no copy
// landed, is a deadlock: the run fails, naming what the fibers wait for. The layouts are the PTX
// ISA's, as kernels-gpu/src/sections/gemm_wgmma.rs and sections/wgmma.rs state them; the
// accumulators' placement is sections/wgmma.rs `accumulator_position`.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cuda_on_cpu.h"
#include "fibers_on_cpu.h"
#include "tensor_on_cpu.h"

#define LAB_HOPPER_DEVICE_CUH

inline void __nanosleep(unsigned) {}

namespace lab::cpu::sm90 {

constexpr unsigned WARPGROUP = 128;
constexpr unsigned SMEM_BYTES = sizeof lab_dyn_smem;

// The host's side of a tensor map on the CPU (a CUtensorMap is opaque; the kernel only passes its
// address to TMA): a 2-D bf16 tensor, dims[0] innermost, rows `stride_bytes` apart, its box, and
// the swizzle (0 or 128 bytes).
struct TensorMap {
    const std::uint16_t* base;
    unsigned long long dims[2];
    unsigned long long stride_bytes;
    unsigned box[2];
    unsigned swizzle;
};
static_assert(sizeof(TensorMap) <= 128, "a tensor map is 128 bytes");

struct MBarrier {
    bool initialized = false;
    unsigned count = 0, pending = 0;
    long long tx = 0;
    unsigned long long phase = 0;
};

// A box on its way into shared memory: its bytes, the blocks of the cluster it lands in (mask),
// where, and the mbarrier whose transactions it completes there.
struct Landing {
    unsigned mask, dst, bar;
    std::vector<std::uint8_t> bytes;
};

// One wgmma of a warpgroup, as issued: descriptors, whether it accumulates, B's major-ness, N,
// and where each of the 128 threads keeps its accumulators.
struct Mma {
    unsigned long long da, db;
    bool accumulate;
    int trans_b;
    unsigned n;
    unsigned rank;
    float* d[WARPGROUP];
};

struct Warpgroup {
    FiberBarrier meet{WARPGROUP, 0, 0};
    float* posted[WARPGROUP] = {};
    std::vector<Mma> open;
    std::deque<std::vector<Mma>> committed;
};

// The cluster being run.
struct Cluster {
    unsigned blocks = 1, threads = 0;
    std::vector<std::unique_ptr<char[]>> own;  // shared memory of ranks past 0 (rank 0's is lab_dyn_smem)
    std::vector<char*> smem;
    std::vector<std::map<unsigned, MBarrier>> mbarriers;
    std::vector<std::map<unsigned, FiberBarrier>> named;
    std::vector<FiberBarrier> block_sync;
    FiberBarrier cluster_sync;
    std::vector<Warpgroup> warpgroups;
    std::vector<Landing> in_flight;
    // Each fiber's bulk stores (shared to global), grouped by commit: a group reads its shared
    // source only when a wait retires it.
    struct BulkStore {
        char* to;
        unsigned from, bytes;
    };
    std::vector<std::vector<BulkStore>> bulk_open;
    std::vector<std::deque<std::vector<BulkStore>>> bulk_committed;
    std::vector<unsigned> lane0;
    // Every modelled instruction counts itself; a round in which this does not move (and no copy
    // lands) is a deadlock.
    unsigned long long progress = 0;
    // The mbarrier each fiber last polled without success (rank, address), for the deadlock message.
    std::vector<std::pair<unsigned, unsigned>> polling;
};
inline Cluster* cluster = nullptr;

inline unsigned fiber() { return fiber_block->running->thread; }
inline unsigned rank() { return fiber() / cluster->threads; }

inline char* shared_at(unsigned r, unsigned addr, unsigned bytes, const char* what) {
    if (r >= cluster->blocks || std::uint64_t(addr) + bytes > SMEM_BYTES) {
        std::fprintf(stderr, "twin on the CPU: %s at shared %u (rank %u) outside shared memory\n", what, addr, r);
        std::abort();
    }
    return cluster->smem[r] + addr;
}

inline MBarrier& mbarrier(unsigned r, unsigned bar, const char* what) {
    if (bar % 8 != 0) fail("mbarrier: address not 8-byte aligned");
    shared_at(r, bar, 8, what);
    MBarrier& m = cluster->mbarriers[r][bar];
    if (!m.initialized) {
        std::fprintf(stderr, "twin on the CPU: %s on shared %u (rank %u), no mbarrier initialized there\n", what, bar,
                     r);
        std::abort();
    }
    return m;
}

inline void complete_if_done(MBarrier& m) {
    if (m.pending == 0 && m.tx == 0) {
        m.phase += 1;
        m.pending = m.count;
    }
}

inline void arrive(unsigned r, unsigned bar) {
    MBarrier& m = mbarrier(r, bar, "mbarrier.arrive");
    if (m.pending == 0) fail("mbarrier.arrive: more arrivals than the phase expects");
    m.pending -= 1;
    complete_if_done(m);
    cluster->progress += 1;
}

// The 128-byte swizzle of a shared address: its 16-byte chunk within a 128-byte row XORed with the
// row's place in its 1024-byte atom (the pattern TMA writes and wgmma reads).
inline unsigned swizzled(unsigned addr) { return addr ^ (((addr >> 7) & 7u) << 4); }

inline void land_all() {
    std::vector<Landing> landing;
    landing.swap(cluster->in_flight);
    for (const Landing& l : landing)
        for (unsigned r = 0; r < cluster->blocks; ++r) {
            if (!(l.mask >> r & 1u)) continue;
            std::memcpy(shared_at(r, l.dst, unsigned(l.bytes.size()), "TMA's copy"), l.bytes.data(), l.bytes.size());
            MBarrier& m = mbarrier(r, l.bar, "TMA's complete_tx");
            m.tx -= (long long)l.bytes.size();
            complete_if_done(m);
        }
}

inline float bf16_value(const char* p) {
    std::uint16_t bits;
    std::memcpy(&bits, p, 2);
    return bf16_to_float(bits);
}

// The shared address of element (row, k) of a K-major operand, or (k, col) of an MN-major one, by
// descriptor: start (bits 0-13), leading byte offset (16-29), stride byte offset (32-45), in 16-byte
// units; layout (bits 62-63) 1 for the 128-byte swizzle, 0 for none.
struct Descriptor {
    unsigned start, leading, stride, layout;
    explicit Descriptor(unsigned long long d)
        : start(unsigned(d & 0x3fff) << 4),
          leading(unsigned((d >> 16) & 0x3fff) << 4),
          stride(unsigned((d >> 32) & 0x3fff) << 4),
          layout(unsigned(d >> 62)) {
        if (layout > 1) fail("wgmma: a descriptor's layout other than none or the 128-byte swizzle");
    }
    // K-major: 8-row groups `stride` apart; with the swizzle each row is 128 bytes of K, without it
    // a core matrix is 8 rows of 16 bytes and the next 8 of K lie `leading` bytes on.
    unsigned k_major(unsigned row, unsigned k) const {
        if (layout == 1) return swizzled(start + (row / 8) * stride + (row % 8) * 128 + k * 2);
        return start + (row / 8) * stride + (k / 8) * leading + (row % 8) * 16 + (k % 8) * 2;
    }
    // MN-major with the swizzle: each row of 128 bytes holds 64 of MN for one k; 8-row groups of K
    // `stride` apart, the next 64 of MN `leading` bytes on.
    unsigned mn_major(unsigned k, unsigned col) const {
        if (layout != 1) fail("wgmma: an MN-major operand without the 128-byte swizzle is not modelled");
        return swizzled(start + (col / 64) * leading + (k / 8) * stride + (k % 8) * 128 + (col % 64) * 2);
    }
};

// Runs one wgmma m64nNk16: D (64 x N, f32, spread over the warpgroup's threads) = A (64 x 16) x B
// (16 x N) (+ D), summed in double (exact for the small integers the checks feed it).
inline void execute(const Mma& op) {
    const Descriptor a(op.da), b(op.db);
    static float am[64][16], bm[16][256];
    for (unsigned row = 0; row < 64; ++row)
        for (unsigned k = 0; k < 16; ++k)
            am[row][k] = bf16_value(shared_at(op.rank, a.k_major(row, k), 2, "wgmma's A"));
    for (unsigned k = 0; k < 16; ++k)
        for (unsigned col = 0; col < op.n; ++col) {
            const unsigned at = op.trans_b ? b.mn_major(k, col) : b.k_major(col, k);
            bm[k][col] = bf16_value(shared_at(op.rank, at, 2, "wgmma's B"));
        }
    for (unsigned t = 0; t < WARPGROUP; ++t)
        for (unsigned r = 0; r < op.n / 2; ++r) {
            const unsigned warp = t / 32, lane = t % 32, j = r % 4;
            const unsigned row = 16 * warp + lane / 4 + 8 * (j / 2), col = 8 * (r / 4) + 2 * (lane % 4) + j % 2;
            double sum = 0;
            for (unsigned k = 0; k < 16; ++k) sum += double(am[row][k]) * bm[k][col];
            op.d[t][r] = op.accumulate ? float(double(op.d[t][r]) + sum) : float(sum);
        }
}

inline Warpgroup& this_warpgroup() { return cluster->warpgroups[fiber() / WARPGROUP]; }

// Every thread of the warpgroup meets; the first thread then runs `leader`; they meet again.
template <class Leader>
void warpgroup_collective(Leader leader) {
    Warpgroup& w = this_warpgroup();
    arrive_and_wait(w.meet);
    if (fiber() % WARPGROUP == 0) leader(w);
    arrive_and_wait(w.meet);
    cluster->progress += 1;
}

inline FiberBarrier& named_barrier(unsigned id, unsigned threads) {
    FiberBarrier& b = cluster->named[rank()][id];
    if (b.expected == 0) b.expected = threads;
    if (b.expected != threads) fail("named barrier: used with two thread counts");
    return b;
}

inline void sync_block() { arrive_and_wait(cluster->block_sync[rank()]); }

// Runs `kernel` over `grid` blocks of `threads` threads in clusters of `blocks`, each cluster's
// threads as fibers together (one cluster at a time), each block's shared memory fresh NaN.
template <class Kernel>
void launch(unsigned grid, unsigned blocks, unsigned threads, Kernel kernel) {
    if (threads % 32 != 0 || grid % blocks != 0) fail("sm90 launch: whole warps and whole clusters only");
    gridDim = {grid, 1, 1};
    blockDim = {threads, 1, 1};
    const unsigned fibers = blocks * threads;
    const auto stacks = fiber_stacks(fibers);
    for (unsigned first = 0; first < grid; first += blocks) {
        Cluster c;
        c.blocks = blocks;
        c.threads = threads;
        c.smem.push_back(reinterpret_cast<char*>(lab_dyn_smem));
        for (unsigned r = 1; r < blocks; ++r) {
            c.own.emplace_back(new char[SMEM_BYTES]);
            c.smem.push_back(c.own.back().get());
        }
        const float poison = shared_poison();
        for (char* s : c.smem)
            for (unsigned i = 0; i < SMEM_BYTES; i += 4) std::memcpy(s + i, &poison, 4);
        c.mbarriers.resize(blocks);
        c.named.resize(blocks);
        c.block_sync.assign(blocks, FiberBarrier{threads, 0, 0});
        c.cluster_sync = FiberBarrier{fibers, 0, 0};
        c.warpgroups.resize((fibers + WARPGROUP - 1) / WARPGROUP);
        c.lane0.assign(fibers / 32, 0);
        c.polling.assign(fibers, {0, 0});
        c.bulk_open.resize(fibers);
        c.bulk_committed.resize(fibers);
        cluster = &c;
        FiberBlock b;
        std::vector<Fiber*> live = start_fibers(b, stacks, kernel, threads);
        fiber_sync_threads = sync_block;
        while (!live.empty()) {
            const unsigned long long before = c.progress;
            bool moved = false;
            for (Fiber* f : live) {
                if (f->waiting_at && f->waiting_at->generation == f->waiting_for) continue;
                threadIdx = {f->thread % threads, 0, 0};
                blockIdx = {first + f->thread / threads, 0, 0};
                b.running = f;
                c.polling[f->thread] = {~0u, ~0u};
                swapcontext(&b.scheduler, &f->context);
                // A fiber that yielded other than at a failed poll arrived at a barrier or ended.
                if (c.polling[f->thread].first == ~0u) moved = true;
            }
            const bool landed = !c.in_flight.empty();
            land_all();
            std::erase_if(live, [](const Fiber* f) { return f->done; });
            if (!live.empty() && !moved && !landed && c.progress == before) {
                std::fprintf(stderr, "twin on the CPU: deadlock in the cluster of block %u; waiting:\n", first);
                for (const Fiber* f : live) {
                    const auto [r, bar] = c.polling[f->thread];
                    if (f->waiting_at)
                        std::fprintf(stderr, "  block %u thread %u at a barrier\n", first + f->thread / threads,
                                     f->thread % threads);
                    else
                        std::fprintf(stderr, "  block %u thread %u on the mbarrier at %u of rank %u\n",
                                     first + f->thread / threads, f->thread % threads, bar, r);
                }
                std::abort();
            }
        }
        for (const Warpgroup& w : c.warpgroups)
            if (!w.open.empty() || !w.committed.empty()) fail("a warpgroup ended with wgmma in flight");
        for (unsigned t = 0; t < fibers; ++t)
            if (!c.bulk_open[t].empty() || !c.bulk_committed[t].empty())
                fail("a thread ended with bulk stores in flight");
        fiber_sync_threads = nullptr;
        fiber_block = nullptr;
        cluster = nullptr;
    }
}

}  // namespace lab::cpu::sm90

namespace lab::hopper {

namespace sm90 = lab::cpu::sm90;

inline void wgmma_fence() {}
inline void wgmma_commit_group() {
    sm90::warpgroup_collective([](sm90::Warpgroup& w) {
        w.committed.push_back(std::move(w.open));
        w.open.clear();
    });
}
template <int PENDING>
void wgmma_wait_group() {
    sm90::warpgroup_collective([](sm90::Warpgroup& w) {
        while (w.committed.size() > unsigned(PENDING)) {
            for (const sm90::Mma& op : w.committed.front()) sm90::execute(op);
            w.committed.pop_front();
        }
    });
}
inline void fence_proxy_async_shared() {}
inline void store_shared_u16(unsigned addr, unsigned short v) {
    std::memcpy(sm90::shared_at(sm90::rank(), addr, 2, "st.shared.u16"), &v, 2);
}

constexpr unsigned long long descriptor_field(unsigned bytes) { return (bytes >> 4) & 0x3fff; }
constexpr unsigned long long wgmma_descriptor(unsigned shared_addr, unsigned leading, unsigned stride) {
    return descriptor_field(shared_addr) | (descriptor_field(leading) << 16) | (descriptor_field(stride) << 32);
}

template <int TRANS_B, int ACC>
void wgmma_m64k16_bf16(float (&d)[ACC], unsigned long long da, unsigned long long db, unsigned scale_d) {
    static_assert(ACC == 32 || ACC == 64 || ACC == 128, "m64nNk16 for N of 64, 128 or 256");
    sm90::Warpgroup& w = sm90::this_warpgroup();
    w.posted[sm90::fiber() % sm90::WARPGROUP] = d;
    sm90::warpgroup_collective([&](sm90::Warpgroup& g) {
        sm90::Mma op{da, db, scale_d != 0, TRANS_B, 2 * ACC, sm90::rank(), {}};
        std::memcpy(op.d, g.posted, sizeof op.d);
        g.open.push_back(op);
    });
}

inline void mbarrier_init(unsigned bar, unsigned count) {
    sm90::shared_at(sm90::rank(), bar, 8, "mbarrier.init");
    sm90::MBarrier& m = sm90::cluster->mbarriers[sm90::rank()][bar];
    m = sm90::MBarrier{true, count, count, 0, 0};
    sm90::cluster->progress += 1;
}
inline void fence_barrier_init() {}
inline void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
    sm90::mbarrier(sm90::rank(), bar, "mbarrier.arrive.expect_tx").tx += bytes;
    sm90::arrive(sm90::rank(), bar);
}
inline void mbarrier_arrive(unsigned bar) { sm90::arrive(sm90::rank(), bar); }
inline void mbarrier_wait(unsigned bar, unsigned parity) {
    for (;;) {
        const sm90::MBarrier& m = sm90::mbarrier(sm90::rank(), bar, "mbarrier.try_wait");
        if ((m.phase & 1u) != (parity & 1u)) {
            sm90::cluster->progress += 1;
            return;
        }
        sm90::cluster->polling[sm90::fiber()] = {sm90::rank(), bar};
        lab::cpu::yield_fiber();
    }
}

inline void tma_copy(unsigned dst, const unsigned long long* map, int x, int y, unsigned bar, unsigned mask) {
    const auto& t = *reinterpret_cast<const sm90::TensorMap*>(map);
    const unsigned row_bytes = t.box[0] * 2, bytes = row_bytes * t.box[1];
    if (t.swizzle == 128 && (row_bytes != 128 || dst % 1024 != 0))
        lab::fail("TMA: a 128-byte swizzle needs boxes of 128-byte rows at 1024-byte aligned shared addresses");
    sm90::Landing l{mask, dst, bar, std::vector<std::uint8_t>(bytes)};
    for (unsigned r = 0; r < t.box[1]; ++r)
        for (unsigned e = 0; e < t.box[0]; ++e) {
            const long long gx = (long long)x + e, gy = (long long)y + r;
            std::uint16_t v = 0;
            if (gx >= 0 && gy >= 0 && (unsigned long long)gx < t.dims[0] && (unsigned long long)gy < t.dims[1])
                std::memcpy(&v, reinterpret_cast<const char*>(t.base) + gy * t.stride_bytes + gx * 2, 2);
            unsigned at = r * row_bytes + e * 2;
            if (t.swizzle == 128) at = sm90::swizzled(dst + at) - dst;
            std::memcpy(&l.bytes[at], &v, 2);
        }
    sm90::cluster->in_flight.push_back(std::move(l));
    sm90::cluster->progress += 1;
}
inline void tma_load_2d(unsigned dst, const unsigned long long* map, int x, int y, unsigned bar) {
    tma_copy(dst, map, x, y, bar, 1u << sm90::rank());
}
inline unsigned cluster_ctarank() { return sm90::rank(); }
inline void mbarrier_arrive_in(unsigned bar, unsigned rank) { sm90::arrive(rank, bar); }
inline void cluster_sync() {
    sm90::cluster->progress += 1;
    lab::cpu::arrive_and_wait(sm90::cluster->cluster_sync);
}
inline void tma_load_2d_multicast(unsigned dst, const unsigned long long* map, int x, int y, unsigned bar,
                                  unsigned short mask) {
    tma_copy(dst, map, x, y, bar, mask);
}
template <unsigned ID, unsigned THREADS>
void named_barrier_sync() {
    sm90::cluster->progress += 1;
    lab::cpu::arrive_and_wait(sm90::named_barrier(ID, THREADS));
}
template <unsigned ID, unsigned THREADS>
void named_barrier_arrive() {
    lab::cpu::FiberBarrier& b = sm90::named_barrier(ID, THREADS);
    if (++b.arrived == b.expected) {
        b.arrived = 0;
        ++b.generation;
    }
    sm90::cluster->progress += 1;
}
inline void prefetch_tensor_map(const unsigned long long*) {}
template <unsigned REGS>
void setmaxnreg_dec() {}
template <unsigned REGS>
void setmaxnreg_inc() {}
inline void prefetch_l2(const float*) {}
inline unsigned shared_count_up(unsigned addr) {
    unsigned v;
    char* p = sm90::shared_at(sm90::rank(), addr, 4, "atom.shared.add");
    std::memcpy(&v, p, 4);
    const unsigned next = v + 1;
    std::memcpy(p, &next, 4);
    sm90::cluster->progress += 1;
    return v;
}
inline void shared_store_u32(unsigned addr, unsigned v) {
    std::memcpy(sm90::shared_at(sm90::rank(), addr, 4, "st.shared.u32"), &v, 4);
    sm90::cluster->progress += 1;
}
inline void shared_store_relaxed_u32(unsigned addr, unsigned v) { shared_store_u32(addr, v); }
inline unsigned shared_load_u32(unsigned addr) {
    unsigned v;
    std::memcpy(&v, sm90::shared_at(sm90::rank(), addr, 4, "ld.shared.u32"), 4);
    return v;
}
inline unsigned shared_load_relaxed_u32(unsigned addr) { return shared_load_u32(addr); }
inline void shared_store2(unsigned addr, float x, float y) {
    if (addr % 8 != 0) lab::fail("st.shared.v2.f32: address not 8-byte aligned");
    const float v[2] = {x, y};
    std::memcpy(sm90::shared_at(sm90::rank(), addr, 8, "st.shared.v2.f32"), v, 8);
}
inline float4 shared_load4(unsigned addr) {
    if (addr % 16 != 0) lab::fail("ld.shared.v4.f32: address not 16-byte aligned");
    float4 v;
    std::memcpy(&v, sm90::shared_at(sm90::rank(), addr, 16, "ld.shared.v4.f32"), 16);
    return v;
}
inline void warp_sync() { lab::cpu::warp_sync(); }
inline void fence_gpu() {}
inline unsigned count_up_gpu(unsigned* p, unsigned i) {
    sm90::cluster->progress += 1;
    return p[i]++;
}
// Lane 0's value to every lane of the warp: posted by lane 0, read after the warp meets, and the
// warp meets again before the slot is posted anew.
inline unsigned from_lane0(unsigned x) {
    const unsigned warp = sm90::fiber() / 32;
    if (sm90::fiber() % 32 == 0) sm90::cluster->lane0[warp] = x;
    lab::cpu::warp_sync();
    const unsigned v = sm90::cluster->lane0[warp];
    lab::cpu::warp_sync();
    return v;
}
inline float load_l2_f32(const float* p, unsigned i) { return p[i]; }

// bulk_copy.rs: cp.async.bulk global to shared lands as TMA's boxes do (late, completing its bytes
// on the mbarrier); a bulk store reads shared memory only when a wait retires its group.
inline void bulk_load(unsigned dst, const float* src, unsigned long long index, unsigned bytes, unsigned bar) {
    if (dst % 16 != 0 || bytes % 16 != 0 || reinterpret_cast<std::uintptr_t>(src + index) % 16 != 0)
        lab::fail("cp.async.bulk: addresses and size must be multiples of 16 bytes");
    sm90::Landing l{1u << sm90::rank(), dst, bar, std::vector<std::uint8_t>(bytes)};
    std::memcpy(l.bytes.data(), src + index, bytes);
    sm90::cluster->in_flight.push_back(std::move(l));
    sm90::cluster->progress += 1;
}
inline void bulk_store(float* dst, unsigned long long index, unsigned src, unsigned bytes) {
    if (src % 16 != 0 || bytes % 16 != 0 || reinterpret_cast<std::uintptr_t>(dst + index) % 16 != 0)
        lab::fail("cp.async.bulk store: addresses and size must be multiples of 16 bytes");
    sm90::cluster->bulk_open[sm90::fiber()].push_back({reinterpret_cast<char*>(dst + index), src, bytes});
    sm90::cluster->progress += 1;
}
inline void bulk_commit() {
    auto& open = sm90::cluster->bulk_open[sm90::fiber()];
    sm90::cluster->bulk_committed[sm90::fiber()].push_back(std::move(open));
    open.clear();
}
inline void bulk_retire(unsigned pending) {
    auto& groups = sm90::cluster->bulk_committed[sm90::fiber()];
    while (groups.size() > pending) {
        for (const auto& st : groups.front())
            std::memcpy(st.to, sm90::shared_at(sm90::rank(), st.from, st.bytes, "a bulk store's source"), st.bytes);
        groups.pop_front();
    }
    sm90::cluster->progress += 1;
}
template <int PENDING>
void bulk_wait_read_pending() {
    bulk_retire(PENDING);
}
inline void bulk_wait_all() { bulk_retire(0); }

}  // namespace lab::hopper
