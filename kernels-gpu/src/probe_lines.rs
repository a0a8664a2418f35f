//! The probes of the variant table: the FMA kernels (instruction-level parallelism against the
//! FP32 pipes) and the pointer chase (DRAM latency), with what the host derives from them.

use crate::variants::MAX_THREADS;

/// Inner-loop unroll of the FMA kernels: `iters` is consumed in rounds of this many fmas per
/// chain (the peer's contract: iters a multiple of 16).
pub const FMA_UNROLL: u32 = 16;

/// One FMA kernel: `ILP` independent chains `x_i = fma(x_i, a, b)` per thread, chain i starting
/// at `((g & 4095) + i) as f32` (g the global thread index); `out[g]` is the chains' sum in chain
/// order. Launched with any block size (no launch bound) and one output float per thread:
/// `out` must hold grid x block floats. See [`crate::reference`] for the CPU result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FmaVariant {
    pub ilp: u32,
    /// Exported PTX entry name, `fma_ilp{ILP}`.
    pub entry: &'static str,
}

impl FmaVariant {
    /// Rounds of one fma per chain the kernel runs for `iters`: `iters` rounded up to a multiple
    /// of [`FMA_UNROLL`] (0 when `iters <= 0`).
    pub const fn rounds(iters: i32) -> u64 {
        if iters <= 0 {
            0
        } else {
            (iters as u64).div_ceil(FMA_UNROLL as u64) * FMA_UNROLL as u64
        }
    }
    /// FLOPs of a launch of `threads` threads in all (2 per fma).
    pub const fn flops(&self, threads: u64, iters: i32) -> u64 {
        2 * self.ilp as u64 * Self::rounds(iters) * threads
    }
    /// Grid for `threads` threads in all in blocks of `block`: the kernel has no bounds check, so
    /// `threads` must be a multiple of `block` (None otherwise, or when block is 0 or > 1024).
    pub const fn grid(threads: u64, block: u32) -> Option<u64> {
        if block == 0 || block > MAX_THREADS || !threads.is_multiple_of(block as u64) {
            None
        } else {
            Some(threads / block as u64)
        }
    }
}

/// The DRAM latency pointer chase: one thread follows `i = next[i]` for `steps` dependent loads
/// that bypass L1 (`ld.global.cg`), then writes `out[0]` = the final index, `out[1]` = elapsed
/// SM cycles (`%clock64`) and `out[2]` = elapsed ns (`%globaltimer`). `next` is a ring built by
/// [`crate::reference::build_chase_ring`] with hops of at least `slot_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChaseKernel {
    /// Exported PTX entry name.
    pub entry: &'static str,
    /// Least distance in bytes between the elements of two consecutive hops.
    pub slot_bytes: u32,
}

impl ChaseKernel {
    /// Grid and block of the launch: one thread (other threads would return at once).
    pub const GRID: (u32, u32) = (1, 1);
    pub const THREADS: u32 = 1;
    /// u64 words the kernel writes to `out`.
    pub const OUT_WORDS: usize = 3;
    /// u32 elements per slot of the ring.
    pub const fn slot_elems(&self) -> usize {
        self.slot_bytes as usize / 4
    }
    /// Reads the kernel's output words.
    pub const fn result(out: [u64; Self::OUT_WORDS]) -> ChaseResult {
        ChaseResult {
            end: out[0] as u32,
            cycles: out[1],
            nanos: out[2],
        }
    }
}

/// What one chase measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChaseResult {
    /// The index reached after `steps` hops (compare with [`crate::reference::chase_end`]).
    pub end: u32,
    /// SM clock cycles from before the first load to after the last one.
    pub cycles: u64,
    /// The same span in ns of the global timer.
    pub nanos: u64,
}
