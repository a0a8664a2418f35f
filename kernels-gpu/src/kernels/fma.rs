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

/// On sm_90 ILP 1 builds to nvcc's loop: 64 `FFMA`s, then the counter's `IADD3`, `ISETP` and `BRA`,
/// in vector registers, with the same stall counts; only register numbers and the prologue differ.
/// On the H200 ours runs at 0.82 of nvcc's with two warps on a scheduler (5 to 8 warps/SM), and
/// alike with one (1 to 4) or from three (12 on). Measured (docs/design.md, the `ilp` experiment):
/// not the registers, the loop or the module; two warps on a scheduler settle into one of two
/// interleavings (an FFMA every 2.0 or every 2.4 cycles), and which one is set by their timing at
/// the loop's entry: holding one of them back a few cycles puts nvcc's own body at the same 0.82.
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
    let rounds = |x: &mut [f32; ILP], trips: i32| {
        for _ in 0..trips * FMA_UNROLL as i32 {
            for xi in x.iter_mut() {
                *xi = op(*xi);
            }
        }
    };
    // Trips of 16 rounds, counted down as nvcc counts them: whole iterations of `per` trips,
    // then single trips. The counters pass through `opaque` so that LLVM cannot count the trips:
    // it would otherwise unroll these loops again at run time (NVPTX enables runtime unrolling),
    // by factors of its own.
    let per = trips_per_iteration(ILP);
    let trips = if iters > 0 {
        ((iters - 1) as u32 / FMA_UNROLL) as i32 + 1
    } else {
        0
    };
    let mut single = trips % per;
    let mut whole = trips - single;
    while whole != 0 {
        rounds(&mut x, per);
        whole = gpu::opaque((whole - per) as u32) as i32;
    }
    while single != 0 {
        rounds(&mut x, 1);
        single = gpu::opaque((single - 1) as u32) as i32;
    }
    let mut sum = x[0];
    for &xi in &x[1..] {
        sum += xi;
    }
    // SAFETY: out holds a float for every launched thread (the contract above).
    unsafe { gpu::store_global(out, g as isize, sum) };
}
