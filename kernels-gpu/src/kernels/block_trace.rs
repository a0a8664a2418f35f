//! The traced entries' stamps: what a GEMM line's `_traced` entry runs before and after the
//! line's kernel function (the entry macros put them there, `table_macros/`), writing the words
//! `sections/block_trace.rs` lays out into the module global `lab_block_trace`.
//!
//! Neither stamp keeps a value live across the body: each reads the block and thread index
//! afresh (volatile reads, `gpu/block_trace.rs`) and computes its record's address itself, so
//! ptxas gives the traced entry the timed entry's registers, spills and shared memory (xtask's
//! tests hold it to that).

use crate::gpu;
use crate::sections::block_trace::{
    END_CYCLES, END_NS, SM, START_CYCLES, START_NS, TRACE_BLOCKS, WARPS_DONE, WORDS_PER_BLOCK,
};

/// Threads of a warp (the end stamp's lane 0 records for its warp).
const WARP: u32 = 32;

/// The block trace: `TRACE_BLOCKS` records of `WORDS_PER_BLOCK` words. The host finds it by name
/// (`TRACE_SYMBOL`, which xtask's build test holds this name to) and zeroes a launch's records
/// before it. Never read by the kernels, so zero-initialized: ptxas gives it no data.
#[export_name = "lab_block_trace"]
static mut BLOCK_TRACE: [u64; TRACE_BLOCKS * WORDS_PER_BLOCK] = [0; TRACE_BLOCKS * WORDS_PER_BLOCK];

/// This block's record, or None for a block at or past `TRACE_BLOCKS` (it records nothing).
#[inline(always)]
fn record() -> Option<*mut u64> {
    let block = gpu::trace_block_index();
    if block >= TRACE_BLOCKS as u64 {
        return None;
    }
    // A raw pointer, no reference to the mutable static: blocks write disjoint records and
    // nothing in the module reads them.
    let trace = (&raw mut BLOCK_TRACE).cast::<u64>();
    Some(trace.wrapping_add(block as usize * WORDS_PER_BLOCK))
}

/// The start stamp, run by every thread of a traced entry before the kernel's body: thread 0 of
/// the block stores the global timer, the SM's clock and the SM into its record.
///
/// # Safety
/// Run from a traced entry of a module that holds `lab_block_trace`, before the body.
#[inline(always)]
pub unsafe fn before_body() {
    if gpu::trace_thread_index() != 0 {
        return;
    }
    if let Some(r) = record() {
        // SAFETY: `r` is this block's record inside the trace (`record`), 8-byte aligned; only
        // this thread writes these words.
        unsafe {
            gpu::store_word(r, START_NS as isize, gpu::globaltimer());
            gpu::store_word(r, START_CYCLES as isize, gpu::clock64());
            gpu::store_word(r, SM as isize, gpu::sm_id());
        }
    }
}

/// The end stamp, run by every thread of a traced entry after the kernel's body: once the lanes
/// of its warp have all left the body, lane 0 raises the record's end time and clock to its own
/// and counts its warp done. No barrier across warps (warp-specialized kernels retire warps at
/// different times); the maxima make the record the block's last warp's.
///
/// # Safety
/// Run from a traced entry of a module that holds `lab_block_trace`, after the body, by every
/// thread of the block (the kernels return from their body; none exits the thread).
#[inline(always)]
pub unsafe fn after_body() {
    let thread = gpu::trace_thread_index();
    gpu::trace_warp_sync(thread);
    if thread % WARP != 0 {
        return;
    }
    if let Some(r) = record() {
        // SAFETY: `r` is this block's record inside the trace (`record`), 8-byte aligned; lanes 0
        // of the block's warps update it by reductions only.
        unsafe {
            gpu::red_max_u64(r, END_NS, gpu::globaltimer());
            gpu::red_max_u64(r, END_CYCLES, gpu::clock64());
            gpu::red_add_u64(r, WARPS_DONE, 1);
        }
    }
}
