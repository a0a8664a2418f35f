//! Persistent strided copy: the memcpy grid's copy (`memcpy.rs`) looped over the whole buffer by
//! one wave of blocks (`sections/persistent_copy.rs`). Each round, thread g loads vectors
//! g + (round + i)*grid_stride (i < LOADS) of WIDTH floats, all before its first store, stores
//! them, and moves on by LOADS grid strides; so it keeps LOADS*WIDTH*4 bytes in flight through
//! the whole copy. The loads are coherent (`Vector::load`), so ptxas cannot sink them between the
//! stores, nor hoist the next round's above this round's stores.
//!
//! The copy is written once over a [`Recorder`]: the timed entries take [`Unrecorded`], whose
//! calls are empty (so their build is the copy alone), the `_sampled` entries [`Sampled`], which
//! stamps each round of warp 0 of every block (`sections/copy_samples.rs`).

use crate::gpu;
use crate::kernels::memcpy::copy_round;
use crate::kernels::strided::Strided;
use crate::sections::copy_samples::{
    round_word, END, END_CYCLES, END_NS, ISSUE, RETURNED, ROUNDS, SAMPLE_BLOCKS, SM, START_CYCLES,
    START_NS, WORDS_PER_BLOCK,
};
use crate::variants::PersistentCopyArgs;

/// What a persistent copy records of its rounds, called at fixed points of each thread's pass.
pub trait Recorder {
    /// Before the first round.
    fn start() -> Self;
    /// Before a round's loads are issued.
    fn issue(&mut self);
    /// After the round's stores are issued (so every load of the round has returned).
    fn returned(&mut self);
    /// At the round's end.
    fn end(&mut self);
    /// After the last of the `rounds` rounds.
    fn finish(self, rounds: u64);
}

/// The timed entries' recorder: nothing.
pub struct Unrecorded;

impl Recorder for Unrecorded {
    #[inline(always)]
    fn start() -> Self {
        Unrecorded
    }
    #[inline(always)]
    fn issue(&mut self) {}
    #[inline(always)]
    fn returned(&mut self) {}
    #[inline(always)]
    fn end(&mut self) {}
    #[inline(always)]
    fn finish(self, _rounds: u64) {}
}

/// The sampled entries' recorder: every thread reads the clocks at the same points (so the warp
/// runs in step), lane 0 of warp 0 of a block below `SAMPLE_BLOCKS` stores them into its
/// block's words of the copy samples.
pub struct Sampled {
    /// This block's words, or null where this thread does not record.
    words: *mut u64,
    /// Rounds done so far.
    round: usize,
    issue: u64,
    returned: u64,
}

impl Sampled {
    /// Stores `v` as word `i` of this block's words, if this thread records.
    #[inline(always)]
    fn put(&self, i: usize, v: u64) {
        if !self.words.is_null() {
            // SAFETY: `words` is this block's WORDS_PER_BLOCK words of the copy samples (block
            // below SAMPLE_BLOCKS, see `start`) and every index passed is below WORDS_PER_BLOCK;
            // only this thread writes them.
            unsafe { gpu::store_word(self.words, i as isize, v) }
        }
    }
}

impl Recorder for Sampled {
    #[inline(always)]
    fn start() -> Self {
        let block = gpu::block_idx_x() as usize;
        let records = gpu::thread_idx_x() == 0 && block < SAMPLE_BLOCKS;
        let words = if records {
            gpu::copy_samples().wrapping_add(block * WORDS_PER_BLOCK)
        } else {
            core::ptr::null_mut()
        };
        let s = Sampled {
            words,
            round: 0,
            issue: 0,
            returned: 0,
        };
        s.put(START_NS, gpu::globaltimer());
        s.put(START_CYCLES, gpu::clock64());
        s.put(SM, u64::from(gpu::smid()));
        s
    }
    #[inline(always)]
    fn issue(&mut self) {
        self.issue = gpu::clock64();
    }
    #[inline(always)]
    fn returned(&mut self) {
        self.returned = gpu::clock64();
    }
    #[inline(always)]
    fn end(&mut self) {
        let end = gpu::clock64();
        if let Some(at) = round_word(self.round) {
            self.put(at + ISSUE, self.issue);
            self.put(at + RETURNED, self.returned);
            self.put(at + END, end);
        }
        self.round += 1;
    }
    #[inline(always)]
    fn finish(self, rounds: u64) {
        self.put(END_NS, gpu::globaltimer());
        self.put(END_CYCLES, gpu::clock64());
        self.put(ROUNDS, rounds);
    }
}

/// # Safety
/// Launched with THREADS threads per block; `src` and `dst` hold `n` floats, are `4*WIDTH`-byte
/// aligned and do not overlap. Any grid copies every whole vector (one wave is what makes its
/// bytes in flight sustained).
#[inline(always)]
pub unsafe fn persistent_copy<const THREADS: u32, const LOADS: usize, const WIDTH: usize>(
    args: PersistentCopyArgs,
) {
    // SAFETY: the contract above.
    unsafe { recorded_copy::<THREADS, LOADS, WIDTH, Unrecorded>(args) }
}

/// [`persistent_copy`] with its rounds stamped (the `_sampled` entries).
///
/// # Safety
/// As [`persistent_copy`]'s.
#[inline(always)]
pub unsafe fn sampled_copy<const THREADS: u32, const LOADS: usize, const WIDTH: usize>(
    args: PersistentCopyArgs,
) {
    // SAFETY: the contract above.
    unsafe { recorded_copy::<THREADS, LOADS, WIDTH, Sampled>(args) }
}

/// The persistent copy, its rounds told to `R`.
///
/// # Safety
/// As [`persistent_copy`]'s.
#[inline(always)]
unsafe fn recorded_copy<const THREADS: u32, const LOADS: usize, const WIDTH: usize, R: Recorder>(
    args: PersistentCopyArgs,
) {
    let PersistentCopyArgs { src, dst, n } = args;
    let at = Strided::<THREADS, WIDTH>::new(n);
    let mut recorder = R::start();
    // A round's vectors ascend, and so do the rounds': the first round whose first vector is out
    // of range ends the thread's pass.
    let mut round = 0;
    while at.in_range(at.vector(round)) {
        recorder.issue();
        // SAFETY: the contract above.
        unsafe { copy_round::<THREADS, LOADS, WIDTH>(at, (src, dst), round) };
        recorder.returned();
        round += LOADS;
        recorder.end();
    }
    recorder.finish((round / LOADS) as u64);
}
