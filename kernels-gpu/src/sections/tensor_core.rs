//! The tensor-core lines of the variant table: what a BF16 GEMM line and an `mma_bf16_ilp` line
//! describe, and the checks a GEMM line must pass to compile. `variants.rs` holds the lines
//! themselves (sections `gemm_bf16` and `mma_bf16_ilp`) and re-exports these types.

use crate::sections::gemm::GemmVariant;
use crate::sections::limits::{MAX_SHARED_OPT_IN, MAX_THREADS};
use crate::sections::text_rules::str_eq;
use crate::shapes::mma_shape::MmaShape;

/// FLOPs of one m16n8k16 mma (2 * 16 * 8 * 16).
pub const MMA_FLOPS: u64 = 2 * 16 * 8 * 16;
/// Most independent accumulators an `mma_bf16_ilp` line may ask for.
pub const MAX_MMA_ILP: u32 = 16;
/// Most f32 accumulators a thread of a BF16 GEMM line may hold: with its double-buffered
/// fragments and addresses, more do not fit in 255 registers.
pub const MAX_MMA_ACCUMULATORS: u32 = 128;

/// One BF16 tensor-core GEMM line: C = alpha*A*B + beta*C with A (M x K) and B (K x N) row-major
/// bf16, C row-major f32, one BM x BN tile per block (see `gemm_mma.rs`). Every entry takes
/// `(a, b, c, m, n, k, alpha, beta)`. Any M, N, K >= 1; where K or N is not a multiple of 8 (or
/// A or B is not 16-byte aligned) the kernel stages element by element instead of in 16-byte
/// `cp.async` copies: correct, and slower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bf16GemmVariant {
    pub label: &'static str,
    /// Block tile (BM, BN, BK), warp tile (WM, WN) and pipeline stages.
    pub shape: MmaShape,
    /// Exported PTX entry name,
    /// `bf16_gemm_bm{BM}_bn{BN}_bk{BK}_wm{WM}_wn{WN}_m16n8k16_s{STAGES}`.
    pub entry: &'static str,
    /// The traced twin's entry name ([`Bf16GemmVariant::traced_entry`]).
    pub(crate) traced: &'static str,
}

impl Bf16GemmVariant {
    /// Threads per block (also the entry's launch bound, `.maxntid`).
    pub const fn threads(&self) -> u32 {
        self.shape.threads()
    }
    /// f32 accumulators per thread.
    pub const fn accumulators(&self) -> u32 {
        self.shape.accumulators()
    }
    /// The entry of the line's traced twin: [`entry`](Bf16GemmVariant::entry) and
    /// [`TRACED_SUFFIX`](crate::sections::block_trace::TRACED_SUFFIX) (`sections/block_trace.rs`).
    pub const fn traced_entry(&self) -> &'static str {
        self.traced
    }
    /// Grid (x over N, y over M) for an M x N output, edge blocks partial.
    pub const fn grid(&self, m: u32, n: u32) -> (u32, u32) {
        (n.div_ceil(self.shape.bn), m.div_ceil(self.shape.bm))
    }
    /// Dynamic shared memory to launch with, bytes (above 48 KB the host opts in first).
    pub const fn dynamic_shared_bytes(&self) -> u32 {
        self.shape.shared_bytes()
    }
    /// Static shared memory of the kernel: none.
    pub const fn static_shared_bytes(&self) -> u32 {
        0
    }
    /// FLOPs of one M x N x K product (2 per multiply-add; the epilogue not counted).
    pub const fn flops(m: u32, n: u32, k: u32) -> u64 {
        2 * m as u64 * n as u64 * k as u64
    }
}

/// Why a BF16 GEMM line cannot work (see [`mma_shape_fits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmaMisfit {
    /// Only m16n8k16 is implemented.
    MmaShape,
    WarpTile,
    BlockTile,
    Threads,
    Accumulators,
    Depth,
    Width,
    Staging,
    Stages,
    SharedMemory,
}

/// The BF16 GEMM kernel's requirements on a line, in the order they are checked.
pub const fn mma_shape_fits(s: &MmaShape, mma: (u32, u32, u32)) -> Result<(), MmaMisfit> {
    if mma.0 != 16 || mma.1 != 8 || mma.2 != 16 {
        return Err(MmaMisfit::MmaShape);
    }
    // WN a power of two: a lane's B address for each 16-column pair is its first one XOR a
    // constant (mma_shape.rs), which needs the pairs' columns and the warp's offset in
    // separate bits.
    if s.wm == 0 || !s.wm.is_multiple_of(16) || s.wn < 16 || !s.wn.is_power_of_two() {
        return Err(MmaMisfit::WarpTile);
    }
    if !s.bm.is_multiple_of(s.wm) || !s.bn.is_multiple_of(s.wn) {
        return Err(MmaMisfit::BlockTile);
    }
    if s.threads() > MAX_THREADS {
        return Err(MmaMisfit::Threads);
    }
    if s.accumulators() > MAX_MMA_ACCUMULATORS {
        return Err(MmaMisfit::Accumulators);
    }
    // The swizzle keeps its phase per 16 rows only for rows of 4 chunks or whole lines.
    if !(s.bk == 32 || (s.bk > 0 && s.bk.is_multiple_of(64))) {
        return Err(MmaMisfit::Depth);
    }
    if !s.bn.is_multiple_of(64) {
        return Err(MmaMisfit::Width);
    }
    let chunks_a = s.bm * s.a_row_chunks();
    let chunks_b = s.bk * s.b_row_chunks();
    if !chunks_a.is_multiple_of(s.threads()) || !chunks_b.is_multiple_of(s.threads()) {
        return Err(MmaMisfit::Staging);
    }
    if s.stages < 2 || s.stages > 8 {
        return Err(MmaMisfit::Stages);
    }
    if s.shared_bytes() > MAX_SHARED_OPT_IN {
        return Err(MmaMisfit::SharedMemory);
    }
    Ok(())
}

/// No two BF16 GEMM lines share a label or an entry, and no BF16 label is an FP32 GEMM's (the
/// host names variants by label).
pub const fn bf16_lines_unique(gemm: &[GemmVariant], bf16: &[Bf16GemmVariant]) -> bool {
    if !no_two_alike!(bf16, |a, b| str_eq(a.label, b.label)
        || str_eq(a.entry, b.entry))
    {
        return false;
    }
    let mut i = 0;
    while i < bf16.len() {
        let mut g = 0;
        while g < gemm.len() {
            if str_eq(bf16[i].label, gemm[g].label) {
                return false;
            }
            g += 1;
        }
        i += 1;
    }
    true
}

/// One tensor-core microbenchmark kernel (the peer's `mma_bf16_ilp{ILP}`): every warp runs ILP
/// independent accumulators through `iters` rounds of m16n8k16 BF16 mma, D_i = A*B + D_i from 0,
/// the same fragments in every round and every warp; lane l reads its A fragment from
/// `a[4l..4l+4]` and its B fragment from `b[2l..2l+2]`; thread g writes `out[g]`, the sum over
/// accumulators, then registers, from 0.0 ([`crate::models::mma_sync::mma_bf16_ilp_outputs`]).
/// Launched with any whole number of warps per block (no launch bound): `out` holds grid x
/// block floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaIlpVariant {
    pub ilp: u32,
    /// Exported PTX entry name, `mma_bf16_ilp{ILP}`.
    pub entry: &'static str,
}

impl MmaIlpVariant {
    /// FLOPs of a launch of `warps` warps in all: 4096 per mma, ILP mma a round.
    pub const fn flops(&self, warps: u64, iters: i32) -> u64 {
        let rounds = if iters > 0 { iters as u64 } else { 0 };
        MMA_FLOPS * self.ilp as u64 * rounds * warps
    }
    /// Grid for `threads` threads in all in blocks of `block`: whole warps, whole blocks (None
    /// otherwise, or when block is 0 or > 1024).
    pub const fn grid(threads: u64, block: u32) -> Option<u64> {
        if block == 0
            || block > MAX_THREADS
            || !block.is_multiple_of(32)
            || !threads.is_multiple_of(block as u64)
        {
            None
        } else {
            Some(threads / block as u64)
        }
    }
    /// Rounds the kernel's main loop runs per iteration (the rest one round at a time): as many
    /// as fill an iteration with [`Self::MMA_PER_ITERATION`] mma, at least one.
    ///
    /// Why that many, from the SASS (ptxas 13.0, sm_90): each trip of the loop costs a counter
    /// add, a compare and a taken branch beside its HMMA, and ptxas unrolls the main loop no
    /// further (it unrolls only the one-round loop, by 4). Holding at most 8 mma a trip, the
    /// main loop ran 4 HMMA a trip at ILP 1 and 8 at ILP 2 and 4, where nvcc's build of the
    /// peer's rolled loop runs 16, 32 and 64 (NVVM unrolls it by 4, ptxas by 4 again), and the
    /// peer beat ours at those ILPs (issue 31); at ILP 8 both ran 32 a trip (ours from ptxas
    /// unrolling the one-round loop) and timed alike. The HMMA themselves, their accumulator
    /// registers and their order within a round were the same on both sides. Measured with
    /// `scripts/peer-compare.sh` on the H200 (docs/runs/h200-2026-12-02.md, session 12): 32 a
    /// trip closed the gap at ILP 1 but left ILP 4 behind at 1-4 warps/SM, where one warp per
    /// scheduler issues alone and the branch's bubble is not hidden; 64 and 128 a trip brought
    /// every ILP 2 and 4 point to the peer. 128 keeps the branch's share smallest; the trip is
    /// 128 HMMA (2 KiB of code) at every ILP, and the rest, under one trip, runs one round at a
    /// time.
    pub const fn rounds_per_iteration(ilp: u32) -> u32 {
        if ilp == 0 || ilp >= Self::MMA_PER_ITERATION {
            1
        } else {
            Self::MMA_PER_ITERATION / ilp
        }
    }
    /// mma the kernel's main loop holds per iteration (ILP x [`Self::rounds_per_iteration`],
    /// where ILP divides it).
    pub const MMA_PER_ITERATION: u32 = 128;
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::entries::{entry, Family};
    use crate::shapes::mma_shape::MmaShape as Shape;
    use crate::variants::{BF16_GEMM, MMA_ILP};
    use std::vec::Vec;

    #[test]
    fn bf16_lines_derive_threads_grid_and_shared_memory() {
        let first = &BF16_GEMM[0];
        assert!(first.entry.starts_with("bf16_gemm_bm") && first.entry.contains("_m16n8k16_s"));
        for v in BF16_GEMM {
            assert_eq!(mma_shape_fits(&v.shape, (16, 8, 16)), Ok(()), "{}", v.label);
            assert_eq!(v.grid(1, 1), (1, 1));
            assert_eq!(v.grid(v.shape.bm + 1, v.shape.bn), (1, 2), "{}", v.label);
            assert_eq!(v.dynamic_shared_bytes(), v.shape.shared_bytes());
            assert!(
                v.shape.stages >= 3,
                "{}: the pipeline has at least 3 stages",
                v.label
            );
            let e = entry(v.entry).expect("an entry");
            assert_eq!(
                (e.family, e.max_threads),
                (Family::Bf16Gemm, Some(v.threads()))
            );
        }
        assert_eq!(Bf16GemmVariant::flops(2, 3, 4), 48);
        // The lines span occupancy: from one 128-thread block of 128 accumulators up to
        // several blocks of 256 threads.
        let threads: Vec<u32> = BF16_GEMM.iter().map(|v| v.threads()).collect();
        assert!(threads.contains(&128) && threads.contains(&256));
        assert!(BF16_GEMM.len() >= 4);
    }

    #[test]
    fn mma_lines_derive_flops_grids_and_rounds() {
        assert_eq!(
            MMA_ILP.iter().map(|v| v.ilp).collect::<Vec<u32>>(),
            [1, 2, 4, 8]
        );
        let v = MMA_ILP[2];
        assert_eq!(v.entry, "mma_bf16_ilp4");
        assert_eq!(v.flops(10, 100), 4096 * 4 * 100 * 10);
        assert_eq!(v.flops(10, -1), 0);
        assert_eq!(MmaIlpVariant::grid(132 * 128, 128), Some(132));
        assert_eq!(MmaIlpVariant::grid(96, 48), None, "whole warps");
        assert_eq!(MmaIlpVariant::grid(100, 32), None, "whole blocks");
        let rounds: Vec<u32> = [1, 2, 4, 8, 16]
            .map(MmaIlpVariant::rounds_per_iteration)
            .to_vec();
        assert_eq!(rounds, [128, 64, 32, 16, 8]);
        assert_eq!(MmaIlpVariant::rounds_per_iteration(3), 42, "within 128 mma");
        assert_eq!(
            MmaIlpVariant::rounds_per_iteration(256),
            1,
            "at least one round"
        );
        let e = entry("mma_bf16_ilp8").unwrap();
        assert_eq!((e.family, e.max_threads), (Family::MmaIlp, None));
    }

    #[test]
    fn bf16_checks_reject_each_misfit() {
        use MmaMisfit::*;
        let ok = Shape::new(128, 128, 32, 64, 64, 3);
        assert_eq!(mma_shape_fits(&ok, (16, 8, 16)), Ok(()));
        assert_eq!(mma_shape_fits(&ok, (16, 8, 8)), Err(MmaShape));
        let misfits = [
            ((128, 128, 32, 56, 64, 3), WarpTile),
            ((128, 192, 32, 64, 48, 3), WarpTile),
            ((96, 128, 32, 64, 64, 3), BlockTile),
            ((512, 256, 32, 16, 64, 3), Threads),
            ((128, 128, 32, 128, 64, 3), Accumulators),
            ((128, 128, 48, 64, 64, 3), Depth),
            ((128, 96, 32, 64, 32, 3), Width),
            // 1024 threads: the 64 x 32 A slice is 256 chunks, a quarter of a copy each.
            ((64, 128, 32, 16, 16, 3), Staging),
            ((128, 128, 32, 64, 64, 1), Stages),
            ((256, 256, 64, 64, 64, 4), SharedMemory),
        ];
        for ((bm, bn, bk, wm, wn, stages), misfit) in misfits {
            let shape = Shape::new(bm, bn, bk, wm, wn, stages);
            assert_eq!(
                mma_shape_fits(&shape, (16, 8, 16)),
                Err(misfit),
                "{shape:?}"
            );
        }
    }
}
