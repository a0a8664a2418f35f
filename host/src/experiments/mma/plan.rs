//! The points of the tensor-core sweep and their arithmetic: the ILPs the kernels are built for,
//! how many rounds a launch runs, and TFLOP/s. The warps-per-SM layout is the two sweeps'
//! ([`crate::experiments::ilp_sweep::layout`]): both hold whole blocks of whole warps.

use kernels_gpu::variants::MMA_FLOPS;

use crate::cuda::tensor_peak::bf16_dense_flops_per_sm_clock;

/// Cycles of one dependent `mma.sync` m16n8k16, used only to size a launch so that it lasts
/// about as long at every point (not a measured figure; nothing is concluded from it).
pub const MMA_LATENCY_SIZING: f64 = 32.0;
/// mma per SM per cycle a launch is sized with where the lab does not know the tensor cores'
/// rate: sm_80's, the slowest it knows (a faster GPU then runs shorter launches).
const FALLBACK_MMA_PER_CYCLE: f64 = 0.5;
/// Default cycles a launch is sized for (about half a millisecond at 2 GHz: the sweep has to fit
/// in a few seconds of `host all`, and launches are batched into samples of at least 1 ms).
pub const DEFAULT_TARGET_CYCLES: f64 = 1.0e6;

/// m16n8k16 mma an SM completes per cycle at the dense BF16 spec rate of `cc`, for sizing.
pub fn mma_per_sm_cycle(cc: (u32, u32)) -> f64 {
    bf16_dense_flops_per_sm_clock(cc).map_or(FALLBACK_MMA_PER_CYCLE, |flops| {
        f64::from(flops) / MMA_FLOPS as f64
    })
}

/// Rounds per warp so that one launch takes about `target_cycles` on an SM holding `warps`
/// warps of `ilp` accumulators: a round costs the larger of the mma latency (an accumulator
/// waits on itself) and the issue time of `warps x ilp` mma at `mma_per_cycle`. At least one
/// round, at most `most` (the rounds the CPU model can vouch for with the run's inputs).
pub fn sized_iters(ilp: u32, warps: u32, mma_per_cycle: f64, target_cycles: f64, most: u32) -> u32 {
    let cycles_per_round =
        MMA_LATENCY_SIZING.max(f64::from(warps * ilp) / mma_per_cycle.max(f64::MIN_POSITIVE));
    let rounds = (target_cycles / cycles_per_round).ceil().max(1.0);
    (rounds.min(f64::from(most)) as u32).max(1)
}

/// TFLOP/s of `flops` in `ms`.
pub fn tflops(flops: f64, ms: f64) -> f64 {
    flops / (ms * 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sizing_rate_is_the_spec_rate_where_known() {
        // sm_90: 4096 dense BF16 FLOPs per SM per clock, one m16n8k16 (4096 FLOPs) a cycle.
        assert_eq!(mma_per_sm_cycle((9, 0)), 1.0);
        assert_eq!(mma_per_sm_cycle((8, 0)), 0.5);
        assert_eq!(mma_per_sm_cycle((8, 9)), FALLBACK_MMA_PER_CYCLE);
    }

    #[test]
    fn iters_follow_latency_then_throughput_within_the_exact_range() {
        // One warp, one accumulator: latency bound, 32 cycles a round -> 31250 rounds for 1M.
        assert_eq!(sized_iters(1, 1, 1.0, 1.0e6, u32::MAX), 31_250);
        // 64 warps x 8 accumulators at one mma a cycle: 512 cycles a round -> 1953.1 -> 1954.
        assert_eq!(sized_iters(8, 64, 1.0, 1.0e6, u32::MAX), 1954);
        // Half the rate: twice the cycles a round.
        assert_eq!(sized_iters(8, 64, 0.5, 1.0e6, u32::MAX), 977);
        // Capped by what the model vouches for, and never below one round.
        assert_eq!(sized_iters(1, 1, 1.0, 1.0e6, 5000), 5000);
        assert_eq!(sized_iters(8, 64, 1.0, 1.0, u32::MAX), 1);
        assert_eq!(sized_iters(8, 64, 1.0, 1.0e6, 0), 1);
    }

    #[test]
    fn tflops_of_a_launch() {
        assert!((tflops(2e12, 1000.0) - 2.0).abs() < 1e-12);
        assert!((tflops(4096.0 * 1e9, 1.0) - 4096.0).abs() < 1e-9);
    }
}
