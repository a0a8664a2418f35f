//! Hopper's asynchronous copies and their barriers (sm_90): shared-memory `mbarrier`s with
//! transaction counts, TMA tile loads (`cp.async.bulk.tensor`) that complete on them, and
//! `setmaxnreg`, which moves registers between a block's warpgroups. Compiled only into the
//! sm_90a module (`--cfg lab_sm90a`), beside `wgmma.rs`.
//!
//! Barrier addresses are 32-bit `.shared` addresses of 8-byte-aligned words; tensor maps are
//! generic addresses of 128-byte `CUtensorMap`s in global memory (see `sections/gemm_wgmma.rs` for
//! why).

use core::arch::asm;

/// Initializes the mbarrier at `bar` to expect `count` arrivals per phase
/// (`mbarrier.init.shared::cta.b64`).
///
/// # Safety
/// `bar` is an 8-byte-aligned word of the block's shared memory that no thread uses as a
/// barrier yet; one thread initializes it, and the block synchronizes (after
/// [`fence_barrier_init`]) before any other thread touches it.
#[inline(always)]
pub unsafe fn mbarrier_init(bar: u32, count: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("mbarrier.init.shared::cta.b64 [{b}], {c};", b = in(reg32) bar, c = in(reg32) count,
             options(nostack, preserves_flags))
    }
}

/// Makes this thread's mbarrier initializations visible to the async proxy (TMA's completions)
/// and to the rest of the cluster (`fence.mbarrier_init.release.cluster`).
#[inline(always)]
pub fn fence_barrier_init() {
    // SAFETY: a fence; no operands.
    unsafe {
        asm!(
            "fence.mbarrier_init.release.cluster;",
            options(nostack, preserves_flags)
        )
    }
}

/// Arrives on the mbarrier at `bar` and adds `bytes` to the transactions its current phase
/// waits for (`mbarrier.arrive.expect_tx`): the phase completes when every arrival is in and
/// the TMA copies signalling it have brought that many bytes.
///
/// # Safety
/// `bar` is an initialized mbarrier of the block's shared memory.
#[inline(always)]
pub unsafe fn mbarrier_arrive_expect_tx(bar: u32, bytes: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{b}], {n};",
             b = in(reg32) bar, n = in(reg32) bytes, options(nostack, preserves_flags))
    }
}

/// Arrives on the mbarrier at `bar` (`mbarrier.arrive`, release semantics: this thread's
/// earlier reads of what the barrier guards happen before the phase completes).
///
/// # Safety
/// `bar` is an initialized mbarrier of the block's shared memory whose phase still expects
/// this arrival.
#[inline(always)]
pub unsafe fn mbarrier_arrive(bar: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("mbarrier.arrive.shared::cta.b64 _, [{b}];", b = in(reg32) bar,
             options(nostack, preserves_flags))
    }
}

/// Waits until the phase of parity `parity` (0 or 1) of the mbarrier at `bar` has completed
/// (`mbarrier.try_wait.parity`, acquire: what the phase guards is visible afterwards). A fresh
/// barrier is in phase 0, so waiting on parity 1 returns at once: the "previous phase" counts
/// as complete, which is how a ring's empty slots start free.
///
/// # Safety
/// `bar` is an initialized mbarrier of the block's shared memory.
#[inline(always)]
pub unsafe fn mbarrier_wait(bar: u32, parity: u32) {
    loop {
        let done: u32;
        // SAFETY: the caller's contract; try_wait returns after a bounded time whether or not
        // the phase completed, so the loop retries.
        unsafe {
            asm!(
                "{{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [{b}], {q}; selp.u32 {d}, 1, 0, p; }}",
                b = in(reg32) bar, q = in(reg32) parity, d = out(reg32) done,
                options(nostack, preserves_flags)
            )
        };
        if done != 0 {
            return;
        }
    }
}

/// Loads the 2-D box at element coordinates (`x` along the contiguous dimension, `y` along
/// rows) of the tensor map at `map` into shared memory at `dst`; its bytes complete a
/// transaction on the mbarrier at `bar`
/// (`cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes`).
/// Elements outside the tensor arrive as zeros, and the whole box's bytes count.
///
/// # Safety
/// `map` is the generic address of a valid `CUtensorMap` in global memory that nothing writes
/// during the kernel; `dst` is aligned as the map's swizzle needs (1024 bytes for 128-byte
/// swizzle) and has room for the box; `bar` is an initialized mbarrier whose current phase
/// expects these bytes; nothing reads `dst` until that phase completes.
#[inline(always)]
pub unsafe fn tma_load_2d(dst: u32, map: *const u64, x: i32, y: i32, bar: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{d}], [{m}, {{{x}, {y}}}], [{b}];",
            d = in(reg32) dst, m = in(reg64) map, x = in(reg32) x, y = in(reg32) y,
            b = in(reg32) bar, options(nostack, preserves_flags)
        )
    }
}

/// Brings the tensor map at `map` into the cache TMA reads descriptors from
/// (`prefetch.tensormap`), so the first load does not wait for it.
///
/// # Safety
/// `map` is the generic address of a `CUtensorMap` in global memory.
#[inline(always)]
pub unsafe fn prefetch_tensor_map(map: *const u64) {
    // SAFETY: the caller's contract; a prefetch has no other effect.
    unsafe {
        asm!("prefetch.tensormap [{m}];", m = in(reg64) map, options(nostack, preserves_flags))
    }
}

/// Lowers this warpgroup's registers per thread to `REGS` (`setmaxnreg.dec`), handing the rest
/// to the block's pool for another warpgroup's [`setmaxnreg_inc`].
///
/// # Safety
/// Every thread of the warpgroup executes it together; REGS is a multiple of 8 in 24..=256 and
/// not above the count the kernel launched with; no live value needs more registers after it.
#[inline(always)]
pub unsafe fn setmaxnreg_dec<const REGS: u32>() {
    // SAFETY: the caller's contract; an immediate operand.
    unsafe {
        asm!("setmaxnreg.dec.sync.aligned.u32 {n};", n = const REGS, options(nostack, preserves_flags))
    }
}

/// Raises this warpgroup's registers per thread to `REGS` (`setmaxnreg.inc`); waits until the
/// block's pool holds them.
///
/// # Safety
/// Every thread of the warpgroup executes it together; REGS is a multiple of 8 in 24..=256 and
/// not below the count the kernel launched with; the block's warpgroups' requests together fit
/// the registers the block was given (else this waits for ever).
#[inline(always)]
pub unsafe fn setmaxnreg_inc<const REGS: u32>() {
    // SAFETY: the caller's contract; an immediate operand.
    unsafe {
        asm!("setmaxnreg.inc.sync.aligned.u32 {n};", n = const REGS, options(nostack, preserves_flags))
    }
}

/// Asks L2 to fetch the 128-byte line holding global address `p` (`prefetch.global.L2`), so a
/// later load finds it there instead of in DRAM. Nothing waits for it.
///
/// # Safety
/// `p` points into a live global allocation.
#[inline(always)]
pub unsafe fn prefetch_l2(p: *const f32) {
    // SAFETY: the caller's contract; a prefetch has no other effect.
    unsafe { asm!("prefetch.global.L2 [{p}];", p = in(reg64) p, options(nostack, preserves_flags)) }
}

/// Adds 1 to the shared word at `addr` and returns the value it held
/// (`atom.acq_rel.cta.shared::cta.add.u32`): the release orders this thread's earlier accesses
/// before the add, and the acquire orders what follows after the adds (and the releases) that
/// came before it. A ring's last reader of a slot learns it is last, and that the others are
/// done, from one instruction.
///
/// # Safety
/// `addr` is a 4-byte-aligned word of the block's shared memory that is only accessed
/// atomically while threads count on it.
#[inline(always)]
pub unsafe fn shared_count_up(addr: u32) -> u32 {
    let old: u32;
    // SAFETY: the caller's contract.
    unsafe {
        asm!("atom.acq_rel.cta.shared::cta.add.u32 {o}, [{a}], 1;", o = out(reg32) old,
             a = in(reg32) addr, options(nostack, preserves_flags))
    }
    old
}

/// Loads the shared word at `addr` (`ld.shared.u32`), in program order with the barriers around
/// it (the asm is not pure).
#[inline(always)]
pub fn shared_load_u32(addr: u32) -> u32 {
    let v: u32;
    // SAFETY: reads a word of this block's shared memory; the callers pass addresses inside it.
    unsafe {
        asm!("ld.shared.u32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) addr,
             options(nostack, preserves_flags))
    }
    v
}

/// Stores `v` to the shared word at `addr` (`st.shared.u32`).
///
/// # Safety
/// `addr` is a 4-byte-aligned word of the block's shared memory that no other thread accesses
/// until a barrier orders them after this store.
#[inline(always)]
pub unsafe fn shared_store_u32(addr: u32, v: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("st.shared.u32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v,
             options(nostack, preserves_flags))
    }
}

/// Stores `v` to the shared word at `addr` as a relaxed atomic at CTA scope
/// (`st.relaxed.cta.shared.u32`): for a flag other warps read while it is written, which gives no
/// ordering to anything else.
///
/// # Safety
/// `addr` is a 4-byte-aligned word of the block's shared memory that other threads access only
/// through relaxed or stronger operations.
#[inline(always)]
pub unsafe fn shared_store_relaxed_u32(addr: u32, v: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("st.relaxed.cta.shared.u32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v,
             options(nostack, preserves_flags))
    }
}

/// Loads the shared word at `addr` as a relaxed atomic at CTA scope
/// (`ld.relaxed.cta.shared.u32`), afresh at every call: [`shared_store_relaxed_u32`]'s reader.
#[inline(always)]
pub fn shared_load_relaxed_u32(addr: u32) -> u32 {
    let v: u32;
    // SAFETY: reads a word of this block's shared memory; the callers pass addresses inside it.
    unsafe {
        asm!("ld.relaxed.cta.shared.u32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) addr,
             options(nostack, preserves_flags))
    }
    v
}

/// Waits at named barrier `ID` until `THREADS` threads have reached it, by this call or by
/// [`named_barrier_arrive`] (`barrier.sync.aligned ID, THREADS`).
///
/// # Safety
/// Every thread of the calling warps runs it together (aligned); `ID` is not 0 (the block's
/// barrier) and no other use of `ID` overlaps this one's `THREADS` arrivals.
#[inline(always)]
pub unsafe fn named_barrier_sync<const ID: u32, const THREADS: u32>() {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("barrier.sync.aligned {id}, {n};", id = const ID, n = const THREADS,
             options(nostack, preserves_flags))
    }
}

/// Counts the calling warps' threads towards named barrier `ID`'s `THREADS` without waiting
/// (`barrier.arrive.aligned ID, THREADS`); orders their earlier memory accesses before the
/// waiting threads' later ones, as [`named_barrier_sync`].
///
/// # Safety
/// As [`named_barrier_sync`].
#[inline(always)]
pub unsafe fn named_barrier_arrive<const ID: u32, const THREADS: u32>() {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("barrier.arrive.aligned {id}, {n};", id = const ID, n = const THREADS,
             options(nostack, preserves_flags))
    }
}

/// Waits until every lane of the warp reaches it (`bar.warp.sync 0xffffffff`), which also
/// orders each lane's earlier memory accesses before the others' later ones.
#[inline(always)]
pub fn warp_sync() {
    // SAFETY: every lane of a converged warp executes it (its callers' uniform control flow).
    unsafe { asm!("bar.warp.sync -1;", options(nostack, preserves_flags)) }
}
