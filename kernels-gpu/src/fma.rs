//! Arithmetic ILP: each thread runs ILP independent chains of fused multiply-adds, the peer's
//! `fma_body` (../shared/peer/blog_kernels.cu) written in Rust: chain i starts at
//! `((g & 4095) + i) as f32`, every round applies `x_i = fma(x_i, a, b)` to each chain, and the
//! thread writes the chains' sum, in chain order, to `out[g]`.

use crate::gpu;
use crate::variants::{FmaArgs, FMA_UNROLL};

/// Trips of [`FMA_UNROLL`] rounds the main loop runs per iteration for `ilp` chains: as many as
/// keep an iteration within 128 fmas, at most 4. nvcc unrolls the peer's round loop the same way
/// (its SASS holds 4, 4, 2, 2 iterations' worth of fmas for ILP 1 to 4, and 1 from ILP 5 on);
/// with a single 16-round trip per iteration the loop's counter, compare and branch cost ILP 2
/// one issue slot in 12 for nothing, which shows wherever the fmas, not their latency, bound
/// the kernel.
const fn trips_per_iteration(ilp: usize) -> i32 {
    let mut trips = 4;
    while trips > 1 && trips * FMA_UNROLL as usize * ilp > 128 {
        trips /= 2;
    }
    trips as i32
}

/// On sm_90 ILP 1 builds to the loop nvcc builds (64 `FFMA`s and 3 loop instructions), with two
/// differences: the registers (`FFMA R6, R6, R2, R3` here, `FFMA R10, R10, R4, R5` in nvcc's)
/// and the round counter on the uniform datapath (`UIADD3`, `ISETP ... UR4`; nvcc's in `R8`).
/// On the H200 the two run alike with one warp per scheduler (1 to 4 warps/SM) and from three
/// (12 and more), and ours at 0.81 of nvcc's with two (5 to 8): which difference costs it is not
/// measured. The figures fit one extra cycle per dependent FFMA with two warps on a scheduler (2/5
/// of issue against 2/4), e.g. a register-bank conflict between R6 and R2 that the reuse cache
/// hides for a lone warp: inferred, not measured (docs/design.md, experiment 5).
///
/// # Safety
/// `out` holds one float per launched thread (grid x block); `iters <= i32::MAX - 15`.
#[inline(always)]
pub unsafe fn fma_ilp<const ILP: usize>(args: FmaArgs) {
    let (a, b) = (args.a, args.b);
    // SAFETY: the caller's contract is `chains`'.
    unsafe { chains::<ILP>(args, |x| gpu::fma(x, a, b)) }
}

/// The FP32 chain kernels' frame (the FFMA's and its controls', `fma_controls.rs`): ILP chains
/// from the thread's start values, `op` applied to each chain every round for the rounds
/// `iters` asks, the chains' sum in chain order to `out[g]`.
///
/// # Safety
/// `out` holds one float per launched thread (grid x block); `iters <= i32::MAX - 15`.
#[inline(always)]
pub unsafe fn chains<const ILP: usize>(args: FmaArgs, op: impl Fn(f32) -> f32) {
    let FmaArgs { out, iters, .. } = args;
    // 32-bit, as the peer's `unsigned g`.
    let g = gpu::block_idx_x()
        .wrapping_mul(gpu::block_dim_x())
        .wrapping_add(gpu::thread_idx_x());
    let mut x: [f32; ILP] = core::array::from_fn(|i| ((g & 4095) + i as u32) as f32);
    let trip = FMA_UNROLL as i32;
    let step = trip * trips_per_iteration(ILP);
    let mut rounds = |x: &mut [f32; ILP], trips: i32| {
        for _ in 0..trips * trip {
            for xi in x.iter_mut() {
                *xi = op(*xi);
            }
        }
    };
    // The round counter passes through `opaque` so that LLVM cannot count the trips: it would
    // otherwise unroll these loops again at run time (NVPTX enables runtime unrolling), by
    // factors of its own.
    let mut round = 0i32;
    // Whole iterations while they fit in the rounds the peer runs (iters rounded up to a trip).
    if step > trip {
        while round < iters.saturating_sub(step - trip) {
            rounds(&mut x, step / trip);
            round = gpu::opaque(round.wrapping_add(step) as u32) as i32;
        }
    }
    // The rest, one trip of 16 rounds at a time.
    while round < iters {
        rounds(&mut x, 1);
        round = gpu::opaque(round.wrapping_add(trip) as u32) as i32;
    }
    let mut sum = x[0];
    for &xi in &x[1..] {
        sum += xi;
    }
    // SAFETY: out holds a float for every launched thread (the contract above).
    unsafe { gpu::store_global(out, g as isize, sum) };
}
