// A block's threads as fibers on one OS thread, for kernels whose warps exchange registers at
// every tensor-core instruction (tensor_on_cpu.h): a warp collective is a barrier of 32 threads,
// and thousands of them as OS-thread barriers cost seconds of context switches per block, while
// a fiber switch is a few hundred nanoseconds. Each GPU thread runs on its own stack (ucontext);
// a fiber runs until it waits at a barrier (the block's, or its warp's), then the next one runs,
// round robin, until every fiber has returned.
//
// Each fiber keeps its own cp.async queues (cuda_on_cpu.h's per-thread groups are swapped in and
// out around it), and __syncthreads() is this scheduler's block barrier while it runs.
#pragma once

#include <ucontext.h>

#include <memory>
#include <utility>
#include <vector>

#include "cuda_on_cpu.h"

namespace lab::cpu {

// A barrier of `expected` fibers: the last to arrive opens it for the others.
struct FiberBarrier {
    unsigned expected = 0, arrived = 0;
    unsigned long long generation = 0;
};

struct Fiber {
    ucontext_t context;
    unsigned thread = 0;
    bool done = false;
    // The barrier this fiber waits at and its generation then: the scheduler resumes the fiber
    // only once that generation has passed.
    const FiberBarrier* waiting_at = nullptr;
    unsigned long long waiting_for = 0;
    std::vector<PendingCopy> open_group;
    std::deque<std::vector<PendingCopy>> committed;
};

// The block being run: its fibers, barriers, and the kernel they run.
struct FiberBlock {
    ucontext_t scheduler;
    std::vector<Fiber> fibers;
    Fiber* running = nullptr;
    FiberBarrier block;
    std::vector<FiberBarrier> warps;
    void (*body)(void*) = nullptr;
    void* kernel = nullptr;
};
inline FiberBlock* fiber_block = nullptr;

// The running fiber gives the OS thread back to the scheduler.
inline void yield_fiber() {
    FiberBlock& b = *fiber_block;
    swapcontext(&b.running->context, &b.scheduler);
}

inline void arrive_and_wait(FiberBarrier& barrier) {
    if (++barrier.arrived == barrier.expected) {
        barrier.arrived = 0;
        ++barrier.generation;
        return;
    }
    Fiber& f = *fiber_block->running;
    f.waiting_at = &barrier;
    f.waiting_for = barrier.generation;
    yield_fiber();
    f.waiting_at = nullptr;
}

// The barrier of the running fiber's warp (its lanes are fibers 32w .. 32w + 31: threads of one
// block, or of a cluster's blocks side by side, hopper_on_cpu.h).
inline void warp_sync() { arrive_and_wait(fiber_block->warps[fiber_block->running->thread / 32]); }

inline void block_sync() { arrive_and_wait(fiber_block->block); }

inline void fiber_entry() {
    FiberBlock& b = *fiber_block;
    b.body(b.kernel);
    check_no_copies_in_flight();
    b.running->done = true;
    swapcontext(&b.running->context, &b.scheduler);
}

// Fresh shared memory holds a NaN in every 4-byte word and in both of its bf16 halves, so that
// an element read before it is written spoils the result whatever its type.
inline float shared_poison() {
    constexpr unsigned bits = 0x7fc07fc0u;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// Stacks for `count` fibers, reused block after block.
constexpr std::size_t FIBER_STACK_BYTES = 256 * 1024;
inline std::vector<std::unique_ptr<char[]>> fiber_stacks(unsigned count) {
    std::vector<std::unique_ptr<char[]>> stacks;
    for (unsigned t = 0; t < count; ++t) stacks.emplace_back(new char[FIBER_STACK_BYTES]);
    return stacks;
}

// Makes `b` the running block: `kernel` as one fiber per stack (fiber t's thread number t), warps
// of 32 fibers in order, its block barrier for `threads` fibers; gives every fiber, for the
// scheduler's rounds.
template <class Kernel>
std::vector<Fiber*> start_fibers(FiberBlock& b, const std::vector<std::unique_ptr<char[]>>& stacks, Kernel& kernel,
                                 unsigned threads) {
    const unsigned count = unsigned(stacks.size());
    b.block.expected = threads;
    b.warps.assign(count / 32, FiberBarrier{32, 0, 0});
    b.body = [](void* k) { (*static_cast<Kernel*>(k))(); };
    b.kernel = &kernel;
    b.fibers.resize(count);
    fiber_block = &b;
    for (unsigned t = 0; t < count; ++t) {
        Fiber& f = b.fibers[t];
        f.thread = t;
        getcontext(&f.context);
        f.context.uc_stack.ss_sp = stacks[t].get();
        f.context.uc_stack.ss_size = FIBER_STACK_BYTES;
        f.context.uc_stack.ss_flags = 0;
        f.context.uc_link = nullptr;
        makecontext(&f.context, fiber_entry, 0);
    }
    std::vector<Fiber*> live;
    for (Fiber& f : b.fibers) live.push_back(&f);
    return live;
}

// Runs `kernel` over a (gx, gy) grid of `threads`-thread blocks (whole warps), one block at a
// time, each thread a fiber.
template <class Kernel>
void launch_fibers(unsigned gx, unsigned gy, unsigned threads, Kernel kernel) {
    if (threads % 32 != 0) fail("launch_fibers: blocks of whole warps only");
    gridDim = {gx, gy, 1};
    blockDim = {threads, 1, 1};
    const auto stacks = fiber_stacks(threads);
    for (unsigned by = 0; by < gy; ++by)
        for (unsigned bx = 0; bx < gx; ++bx) {
            std::fill(std::begin(lab_dyn_smem), std::end(lab_dyn_smem), shared_poison());
            FiberBlock b;
            std::vector<Fiber*> live = start_fibers(b, stacks, kernel, threads);
            fiber_sync_threads = block_sync;
            while (!live.empty()) {
                bool moved = false;
                for (Fiber* f : live) {
                    if (f->waiting_at && f->waiting_at->generation == f->waiting_for) continue;
                    moved = true;
                    threadIdx = {f->thread, 0, 0};
                    blockIdx = {bx, by, 0};
                    std::swap(open_group, f->open_group);
                    std::swap(committed, f->committed);
                    b.running = f;
                    swapcontext(&b.scheduler, &f->context);
                    std::swap(open_group, f->open_group);
                    std::swap(committed, f->committed);
                }
                if (!moved) fail("launch_fibers: every thread waits at a barrier no other reaches");
                std::erase_if(live, [](const Fiber* f) { return f->done; });
            }
            fiber_sync_threads = nullptr;
            fiber_block = nullptr;
        }
}

}  // namespace lab::cpu

// A butterfly shuffle of the running fiber's warp (twin_read.cuh's reduction; every lane calls it
// together): each lane posts its value, the warp meets, each takes its partner's, and the warp
// meets again before the slots are written anew.
inline unsigned long long __shfl_xor_sync(unsigned, unsigned long long v, int mask) {
    static unsigned long long slots[1024];
    slots[threadIdx.x] = v;
    lab::cpu::warp_sync();
    const unsigned long long partner = slots[threadIdx.x ^ unsigned(mask)];
    lab::cpu::warp_sync();
    return partner;
}
