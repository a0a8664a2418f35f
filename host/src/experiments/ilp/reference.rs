//! Checking the FMA kernels' results on the CPU, bit for bit, against the variant table's own
//! reference (`kernels_gpu::models::probe_results::fma_ilp`: thread `g` runs `ilp` chains
//! `x_i = fma(x_i, a, b)` for `FmaVariant::rounds(iters)` rounds, chain `i` starting at
//! `(g % 4096) + i`, and writes their sum in chain order, all in f32).
//!
//! Every thread is checked: the threads sharing a start value must agree bit for bit, and the
//! (at most 4096) distinct values against the CPU, whose chains are computed once per sweep
//! ([`ChainTable`]).
//!
//! The default `a` and `b` keep every chain moving for millions of rounds: with
//! `a = 1 - 2^-20` and `b = 1` a chain creeps from its start towards `b / (1 - a) = 2^20`
//! without reaching it, so its value after `n` rounds differs from that after `n ± 16` (one
//! unroll of the kernels), and a kernel that ran a different number of FMAs (or a multiply and
//! an add instead of a fused multiply-add) ends on different bits.

use std::collections::BTreeMap;
use std::ops::Range;

use kernels_gpu::models::probe_results::{fma_ilp_from_chains, op_step, FMA_STARTS};
use kernels_gpu::variants::{FmaOp, FmaVariant};

use crate::experiments::verify::exact_check;
use crate::results::Check;

/// Multiplier of every chain.
pub const DEFAULT_A: f32 = 1.0 - 1.0 / (1u32 << 20) as f32;
/// Addend of every chain.
pub const DEFAULT_B: f32 = 1.0;

/// The end value of every distinct chain a sweep runs, by the variant table's CPU reference
/// (`fma_f32`, round after round, as the kernels run their chains). Chain `i` of thread `g`
/// starts at `(g % FMA_STARTS) + i`, so a launch of any size holds at most
/// `FMA_STARTS + ilp - 1` distinct chains: computing each once per round count makes checking
/// every thread cheap, where computing every thread's chains would not be.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainTable {
    op: FmaOp,
    a: f32,
    b: f32,
    /// Start values covered: `0..starts`.
    starts: u32,
    /// Chain end values by start value, for each round count asked for.
    by_rounds: BTreeMap<u64, Vec<f32>>,
}

impl ChainTable {
    /// The chains of every start value up to ILP `max_ilp` at each of `iters` (the kernels'
    /// `iters` parameter), for the kernels of `op` launched with the `a` and `b` of
    /// [`FmaOp::launch_args`], in one pass over the rounds (each round count continues from the
    /// one before), the start values split over the host's threads.
    pub fn of(op: FmaOp, iters: impl IntoIterator<Item = i32>, max_ilp: u32) -> Self {
        let (a, b) = op.launch_args(DEFAULT_A, DEFAULT_B);
        let mut rounds: Vec<u64> = iters.into_iter().map(FmaVariant::rounds).collect();
        rounds.sort_unstable();
        rounds.dedup();
        let starts = FMA_STARTS + max_ilp.max(1) - 1;
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        let chunk = (starts as usize).div_ceil(workers).max(1);
        let starts_list: Vec<u32> = (0..starts).collect();
        // Each worker advances its start values through every round count in turn, keeping a
        // copy of its values at each.
        let parts: Vec<Vec<Vec<f32>>> = std::thread::scope(|s| {
            let handles: Vec<_> = starts_list
                .chunks(chunk)
                .map(|mine| {
                    let rounds = &rounds;
                    s.spawn(move || {
                        let mut x: Vec<f32> = mine.iter().map(|&v| v as f32).collect();
                        let mut done = 0u64;
                        let mut kept = Vec::with_capacity(rounds.len());
                        for &r in rounds {
                            for _ in done..r {
                                for v in x.iter_mut() {
                                    *v = op_step(op, *v, a, b);
                                }
                            }
                            done = r;
                            kept.push(x.clone());
                        }
                        kept
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a reference worker panicked"))
                .collect()
        });
        let by_rounds = rounds
            .iter()
            .enumerate()
            .map(|(k, &r)| (r, parts.iter().flat_map(|p| p[k].iter().copied()).collect()))
            .collect();
        Self {
            op,
            a,
            b,
            starts,
            by_rounds,
        }
    }

    /// What the threads with start value `c` (g % FMA_STARTS == c) write, for each `c`, after
    /// `iters` with `ilp` chains; `None` when the table was not built for them.
    pub fn expected(&self, ilp: u32, iters: i32) -> Option<Vec<f32>> {
        let chains = self.by_rounds.get(&FmaVariant::rounds(iters))?;
        if ilp == 0 || FMA_STARTS + ilp - 1 > self.starts {
            return None;
        }
        Some(
            (0..FMA_STARTS)
                .map(|c| fma_ilp_from_chains(c, ilp, |s| chains[s as usize]))
                .collect(),
        )
    }
}

/// Checks every one of the `threads` results in `out` bit for bit: each thread against the
/// first thread with its start value, and those (at most `FMA_STARTS`) against the CPU's chains
/// in `table`. The error is the number of threads whose result differs from the CPU's.
pub fn check_fma(out: &[f32], threads: u32, ilp: u32, iters: i32, table: &ChainTable) -> Check {
    let (a, b) = (table.a, table.b);
    let Some(expected) = table.expected(ilp, iters) else {
        let what = format!("no CPU reference computed for ILP {ilp} at {iters} rounds");
        return exact_check(threads as usize, threads as usize, what);
    };
    let classes = threads.min(FMA_STARTS) as usize;
    let got = |g: usize| out.get(g).map(|v| v.to_bits());
    // Threads whose start value repeats must agree with the first thread that has it ...
    let disagree = (classes..threads as usize)
        .filter(|&g| got(g).is_none() || got(g) != got(g % FMA_STARTS as usize))
        .count();
    // ... and those first threads with the CPU.
    let wrong_from = |g: Range<usize>| {
        g.filter(|&g| got(g) != Some(expected[g % FMA_STARTS as usize].to_bits()))
            .count()
    };
    let (wrong, wrong_starts) = (wrong_from(0..threads as usize), wrong_from(0..classes));
    let what = format!(
        "every one of {threads} threads' sums of {ilp} chains of {iters} rounds of {} \
         (a = {a:e}, b = {b}) bit-exact: the {classes} distinct start values \
         against the CPU ({wrong_starts} differ), every other thread against the first with \
         its start value ({disagree} differ); error = threads that differ from the CPU",
        table.op.sass()
    );
    exact_check(wrong, threads as usize, what)
}

#[cfg(test)]
mod tests {
    use crate::experiments::ilp_sweep::tests::has;
    use kernels_gpu::models::probe_results::fma_ilp;
    use kernels_gpu::variants::FMA_UNROLL;

    use super::*;

    const ROUND: i32 = FMA_UNROLL as i32;

    /// What a correct launch of `threads` threads writes.
    fn launch(threads: u32, ilp: u32, iters: i32) -> Vec<f32> {
        let table = ChainTable::of(FmaOp::Ffma, [iters], ilp);
        let expected = table.expected(ilp, iters).unwrap();
        (0..threads)
            .map(|g| expected[(g % FMA_STARTS) as usize])
            .collect()
    }

    #[test]
    fn the_table_is_the_reference_chain_by_chain() {
        let iters = 4 * ROUND;
        let table = ChainTable::of(FmaOp::Ffma, [iters, 2 * ROUND, iters], 3);
        for (rounds, it) in [(2 * ROUND, 2 * ROUND), (iters, iters)] {
            let e = table.expected(3, it).unwrap();
            assert_eq!(e.len(), FMA_STARTS as usize);
            for g in [0, 1, 4094, 4095] {
                let cpu = fma_ilp(g, 3, DEFAULT_A, DEFAULT_B, rounds);
                assert_eq!(e[g as usize].to_bits(), cpu.to_bits(), "thread {g}");
            }
        }
        // Not built for: other round counts, or more chains than it holds.
        assert!(table.expected(3, 3 * ROUND).is_none());
        assert!(table.expected(4, iters).is_none());
        assert!(table.expected(2, iters).is_some());
    }

    #[test]
    fn every_thread_of_a_correct_launch_passes() {
        let (ilp, iters) = (2, 2 * ROUND);
        let table = ChainTable::of(FmaOp::Ffma, [iters], ilp);
        let out = launch(9000, ilp, iters);
        let c = check_fma(&out, 9000, ilp, iters, &table);
        assert!(c.passed, "{}", c.what);
        has(&c.what, "every one of 9000 threads");
    }

    #[test]
    fn one_wrong_thread_anywhere_is_caught() {
        let (ilp, iters) = (2, 2 * ROUND);
        let table = ChainTable::of(FmaOp::Ffma, [iters], ilp);
        // A repeat of a start value (thread 8191 shares 4095's) that differs by one ulp.
        let mut out = launch(9000, ilp, iters);
        out[8191] = f32::from_bits(out[8191].to_bits() + 1);
        let c = check_fma(&out, 9000, ilp, iters, &table);
        assert!(!c.passed);
        assert_eq!(c.error, 1.0);
        has(&c.what, "(1 differ); error");
        // A first thread of its start value: it and every repeat differ from the CPU.
        let mut out = launch(9000, ilp, iters);
        out[5] = 0.0;
        let c = check_fma(&out, 9000, ilp, iters, &table);
        assert!(!c.passed);
        assert_eq!(c.error, 1.0);
        has(&c.what, "against the CPU (1 differ)");
        // A thread that never wrote (the output is zeroed first), past the end of `out`.
        let out = launch(8999, ilp, iters);
        assert!(!check_fma(&out, 9000, ilp, iters, &table).passed);
    }

    #[test]
    fn a_wrong_fma_count_or_chain_count_is_caught() {
        let (ilp, iters) = (4, 8 * ROUND);
        let table = ChainTable::of(FmaOp::Ffma, [iters, iters - ROUND, iters + ROUND], ilp);
        let out = launch(5000, ilp, iters);
        assert!(check_fma(&out, 5000, ilp, iters, &table).passed);
        for wrong_iters in [iters - ROUND, iters + ROUND] {
            let c = check_fma(&out, 5000, ilp, wrong_iters, &table);
            assert!(!c.passed, "{wrong_iters} rounds not caught");
            assert_eq!(c.error, 5000.0);
        }
        // A chain too few (ILP 3 results checked as ILP 4).
        let three = launch(5000, 3, iters);
        assert!(!check_fma(&three, 5000, ilp, iters, &table).passed);
        // No reference for the rounds asked: a failure, not a pass.
        assert!(!check_fma(&out, 5000, ilp, 3 * ROUND, &table).passed);
    }

    #[test]
    fn fewer_threads_than_start_values_are_each_checked_against_the_cpu() {
        let (ilp, iters) = (1, ROUND);
        let table = ChainTable::of(FmaOp::Ffma, [iters], ilp);
        let mut out = launch(100, ilp, iters);
        assert!(check_fma(&out, 100, ilp, iters, &table).passed);
        out[99] += 1.0;
        assert!(!check_fma(&out, 100, ilp, iters, &table).passed);
        assert!(!check_fma(&[], 0, ilp, iters, &table).passed);
    }

    #[test]
    fn a_control_is_checked_against_its_own_op() {
        let (ilp, iters) = (2, 4 * ROUND);
        let (a, b) = FmaOp::Fadd.launch_args(DEFAULT_A, DEFAULT_B);
        let fadd = ChainTable::of(FmaOp::Fadd, [iters], ilp);
        let out: Vec<f32> = (0..300)
            .map(|g| kernels_gpu::models::probe_results::op_ilp(FmaOp::Fadd, g, ilp, a, b, iters))
            .collect();
        let c = check_fma(&out, 300, ilp, iters, &fadd);
        assert!(c.passed, "{}", c.what);
        has(&c.what, "FADD R, R, R");
        // The FFMA's chains are not the FADD's.
        let ffma = ChainTable::of(FmaOp::Ffma, [iters], ilp);
        assert!(!check_fma(&out, 300, ilp, iters, &ffma).passed);
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
}
