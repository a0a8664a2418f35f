//! Checking the FMA kernels' results on the CPU, bit for bit, against the variant table's own
//! reference (`kernels_gpu::reference::fma_ilp`: thread `g` runs `ilp` chains
//! `x_i = fma(x_i, a, b)` for `FmaVariant::rounds(iters)` rounds, chain `i` starting at
//! `(g % 4096) + i`, and writes their sum in chain order, all in f32).
//!
//! The default `a` and `b` keep every chain moving for millions of rounds: with
//! `a = 1 - 2^-20` and `b = 1` a chain creeps from its start towards `b / (1 - a) = 2^20`
//! without reaching it, so its value after `n` rounds differs from that after `n ± 16` (one
//! unroll of the kernels), and a kernel that ran a different number of FMAs (or a multiply and
//! an add instead of a fused multiply-add) ends on different bits.

use kernels_gpu::reference::fma_ilp;

use crate::experiments::inputs::Rng;
use crate::results::Check;

/// Multiplier of every chain.
pub const DEFAULT_A: f32 = 1.0 - 1.0 / (1u32 << 20) as f32;
/// Addend of every chain.
pub const DEFAULT_B: f32 = 1.0;
/// Threads of each launch checked against the CPU.
pub const CHECKED_THREADS: usize = 8;

/// The threads checked in a grid of `threads` threads: the first, the last and random ones.
pub fn checked_threads(threads: u32, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed ^ 0xF3A_11B);
    let mut picked = vec![0, threads.saturating_sub(1)];
    picked.extend((2..CHECKED_THREADS).map(|_| rng.below(threads.max(1))));
    picked.sort_unstable();
    picked.dedup();
    picked
}

/// Checks `out` (every thread's result) at `threads` bit for bit against the CPU.
///
/// The CPU's chains take ILP x iters fused multiply-adds per thread (up to tens of millions),
/// so the checked threads are computed in parallel, one host thread each.
pub fn check_fma(out: &[f32], threads: &[u32], ilp: u32, a: f32, b: f32, iters: i32) -> Check {
    let wrong = std::thread::scope(|s| {
        let handles: Vec<_> = threads
            .iter()
            .map(|&g| {
                s.spawn(move || {
                    out.get(g as usize)
                        .is_none_or(|v| v.to_bits() != fma_ilp(g, ilp, a, b, iters).to_bits())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(true))
            .filter(|&differs| differs)
            .count()
    });
    Check {
        passed: wrong == 0 && !threads.is_empty(),
        error: wrong as f64,
        bound: 0.0,
        what: format!(
            "{} threads' sums of {ilp} chains of {iters} f32 fused multiply-adds (a = {a:e}, \
             b = {b}) bit-exact against the CPU ({wrong} differ)",
            threads.len()
        ),
    }
}

#[cfg(test)]
mod tests {
    use kernels_gpu::variants::FMA_UNROLL;

    use super::*;

    const ROUND: i32 = FMA_UNROLL as i32;

    #[test]
    fn a_wrong_fma_count_is_caught() {
        let (ilp, iters) = (4, 4096);
        let threads = checked_threads(256, 1);
        let out: Vec<f32> = (0..256)
            .map(|g| fma_ilp(g, ilp, DEFAULT_A, DEFAULT_B, iters))
            .collect();
        assert!(check_fma(&out, &threads, ilp, DEFAULT_A, DEFAULT_B, iters).passed);
        for wrong_iters in [iters - ROUND, iters + ROUND] {
            let c = check_fma(&out, &threads, ilp, DEFAULT_A, DEFAULT_B, wrong_iters);
            assert!(!c.passed, "{wrong_iters} rounds not caught");
            assert_eq!(c.error, threads.len() as f64);
        }
        // A chain too few (ILP 3 results checked as ILP 4).
        let three: Vec<f32> = (0..256)
            .map(|g| fma_ilp(g, 3, DEFAULT_A, DEFAULT_B, iters))
            .collect();
        assert!(!check_fma(&three, &threads, ilp, DEFAULT_A, DEFAULT_B, iters).passed);
    }

    #[test]
    fn chains_still_move_after_half_a_million_rounds() {
        let n = 500_000;
        let x = fma_ilp(7, 1, DEFAULT_A, DEFAULT_B, n);
        assert_ne!(x, fma_ilp(7, 1, DEFAULT_A, DEFAULT_B, n + ROUND));
        assert!(x < (1u32 << 20) as f32);
    }

    #[test]
    fn an_unfused_multiply_add_is_caught() {
        let iters = 1024;
        let unfused = |g: u32| {
            let mut x = (g & 4095) as f32;
            for _ in 0..iters {
                x = x * DEFAULT_A + DEFAULT_B;
            }
            x
        };
        let differ = (0..64)
            .filter(|&g| {
                unfused(g).to_bits() != fma_ilp(g, 1, DEFAULT_A, DEFAULT_B, iters).to_bits()
            })
            .count();
        assert!(differ > 32, "only {differ} of 64 differ");
    }

    #[test]
    fn missing_threads_and_garbage_fail() {
        let threads = checked_threads(100, 3);
        assert_eq!(threads[0], 0);
        assert_eq!(*threads.last().unwrap(), 99);
        let short = vec![0.0f32; 50];
        assert!(!check_fma(&short, &threads, 1, DEFAULT_A, DEFAULT_B, 16).passed);
        assert!(!check_fma(&[], &[], 1, DEFAULT_A, DEFAULT_B, 16).passed);
    }
}
