//! Thread-block clusters (sm_90): a block's rank in its cluster, arrivals on another block's
//! mbarrier, the cluster-wide barrier, and TMA loads multicast to several blocks' shared memory.
//! Compiled only into the sm_90a module (`--cfg lab_sm90a`), beside `tma.rs`: multicast is an
//! sm_90a feature. A kernel that uses them is launched in clusters (its PTX entry declares
//! `.reqnctapercluster`: `xtask/src/hopper.rs`).

use core::arch::asm;

/// This block's rank in its cluster (`%cluster_ctarank`).
#[inline(always)]
pub fn cluster_ctarank() -> u32 {
    let r: u32;
    // SAFETY: reads a special register.
    unsafe {
        asm!("mov.u32 {r}, %cluster_ctarank;", r = out(reg32) r,
             options(nomem, nostack, preserves_flags))
    };
    r
}

/// Arrives on the mbarrier at shared address `bar` of the block of rank `rank` in this block's
/// cluster: the same offset in that block's shared memory (`mapa.shared::cluster`, then
/// `mbarrier.arrive.shared::cluster` with the default semantics, release at CTA scope, as
/// CUTLASS's `ClusterBarrier::arrive` does). A release at cluster scope put a `MEMBAR.ALL.GPU`
/// and an `ERRBAR` before every arrival, which waited out the warp's earlier memory accesses:
/// they held half of W5's stall samples and W5 at 0.59 of cuBLAS (Nsight, call S22b). What a
/// consumer's arrival hands back is a slot read by `wgmma`, retired by `wgmma.wait_group`
/// before it arrives; no earlier generic access of the thread needs ordering before the
/// other block's TMA writes.
///
/// # Safety
/// Launched in clusters with a block of rank `rank`; `bar` is an initialized mbarrier there
/// (the cluster synchronized after its initialization) whose phase still expects this arrival,
/// and that block has not exited (the cluster synchronizes before any block exits).
#[inline(always)]
pub unsafe fn mbarrier_arrive_in(bar: u32, rank: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .b32 r; mapa.shared::cluster.u32 r, {b}, {k}; mbarrier.arrive.shared::cluster.b64 _, [r]; }}",
            b = in(reg32) bar, k = in(reg32) rank, options(nostack, preserves_flags)
        )
    }
}

/// Every thread of every block of the cluster arrives (release), then waits (acquire) until
/// all have (`barrier.cluster.arrive` / `wait`, aligned: every thread of a warp runs it
/// together). It orders, among others, barrier initialization before other blocks' use.
///
/// # Safety
/// Run by every thread of every block of the cluster, converged within each warp, the same
/// number of times.
#[inline(always)]
pub unsafe fn cluster_sync() {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "barrier.cluster.arrive.release.aligned;",
            "barrier.cluster.wait.acquire.aligned;",
            options(nostack, preserves_flags)
        )
    }
}

/// [`tma_load_2d`](super::tma_load_2d) multicast: the box lands at `dst` in the shared memory of
/// every block of the cluster whose rank is a set bit of `mask`, completing a transaction of its
/// bytes on the mbarrier at `bar` in each (`.multicast::cluster`).
///
/// # Safety
/// As [`tma_load_2d`](super::tma_load_2d), in every block of `mask`: `dst` free there and `bar`
/// there in a phase that expects the bytes; launched in clusters holding those ranks.
#[inline(always)]
pub unsafe fn tma_load_2d_multicast(
    dst: u32,
    map: *const u64,
    (x, y): (i32, i32),
    bar: u32,
    mask: u16,
) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [{m}, {{{x}, {y}}}], [{b}], {k};",
            d = in(reg32) dst, m = in(reg64) map, x = in(reg32) x, y = in(reg32) y,
            b = in(reg32) bar, k = in(reg16) mask, options(nostack, preserves_flags)
        )
    }
}
