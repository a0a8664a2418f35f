//! The points of the ILP sweep and their arithmetic: how many rounds each thread runs, how many
//! FLOPs that is, and the FP32 peak at the clock the GPU actually ran at. How a warps-per-SM
//! target is laid out as blocks is the two sweeps' ([`crate::experiments::ilp_sweep::layout`]).

use kernels_gpu::variants::FMA_UNROLL;

/// Resident warps per SM the default sweep holds (1..64; above 8 only even counts, which split
/// into whole blocks of at most 32 warps).
pub const FMA_WARPS_PER_SM: [u32; 20] = [
    1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64,
];
/// Cycles of one dependent FMA, used only to size `iters` so a launch lasts about as long at
/// every point (not a measured figure, and nothing is concluded from it).
pub const FMA_LATENCY_SIZING: f64 = 4.0;
/// Default cycles a launch is sized for (about 1 ms at 2 GHz).
pub const DEFAULT_TARGET_CYCLES: f64 = 2.0e6;

/// Rounds per thread so that one launch takes about `target_cycles` on an SM holding `warps`
/// warps of `ilp` chains with `lanes` FP32 lanes: a round costs the larger of the FMA latency
/// (one chain waits on itself) and the issue time of `warps x ilp` warp-wide FMAs. Rounded up
/// to a multiple of the kernels' unroll (`variants::FMA_UNROLL`, so that the rounds run are the
/// rounds asked for), at least one unroll, at most what the kernels' `i32` takes.
pub fn sized_iters(ilp: u32, warps: u32, lanes: u32, warp_size: u32, target_cycles: f64) -> u32 {
    let warp_fmas_per_cycle = f64::from(lanes) / f64::from(warp_size.max(1));
    let cycles_per_round =
        FMA_LATENCY_SIZING.max(f64::from(warps * ilp) / warp_fmas_per_cycle.max(1.0));
    let rounds = (target_cycles / cycles_per_round).ceil().max(1.0);
    let unroll = f64::from(FMA_UNROLL);
    let capped = ((rounds / unroll).ceil() * unroll)
        .min(f64::from(i32::MAX as u32 / FMA_UNROLL * FMA_UNROLL));
    capped as u32
}

/// GFLOP/s of `flops` in `ms`.
pub fn gflops(flops: f64, ms: f64) -> f64 {
    flops / (ms * 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::layout;

    #[test]
    fn every_default_target_has_a_layout() {
        for w in FMA_WARPS_PER_SM {
            let l = layout(w, 32, 1024, 32).unwrap_or_else(|| panic!("{w}"));
            assert_eq!(l.blocks_per_sm * l.threads / 32, w);
        }
    }

    #[test]
    fn iters_follow_latency_then_throughput() {
        // One warp, one chain: latency bound, 4 cycles a round -> 500000 rounds for 2M cycles.
        assert_eq!(sized_iters(1, 1, 128, 32, 2.0e6), 500_000);
        // 64 warps x 16 chains on 4 warp-FMAs a cycle: 256 cycles a round -> 7812.5 -> 7824.
        assert_eq!(sized_iters(16, 64, 128, 32, 2.0e6), 7824);
        assert_eq!(sized_iters(16, 64, 128, 32, 1.0) % FMA_UNROLL, 0);
        assert_eq!(sized_iters(16, 64, 128, 32, 1.0), FMA_UNROLL);
        // Capped where the kernels' i32 ends, still a whole number of unrolls.
        let most = sized_iters(1, 1, 128, 32, 1e12);
        assert!(
            i32::try_from(most).is_ok() && most.is_multiple_of(FMA_UNROLL),
            "{most}"
        );
    }

    #[test]
    fn gflops_of_a_launch() {
        assert!((gflops(2e9, 1.0) - 2000.0).abs() < 1e-9);
    }
}
