//! The tensor-core sweep's inputs and its check: every thread's result bit for bit against the
//! CPU model of the m16n8k16 fragment layout (`kernels_gpu::models::mma_sync`, the peer's
//! contract). Every warp holds the same fragments, so thread g must write the model's value for
//! lane g % 32 (blocks are whole warps), and every thread of every launch is compared with it.
//!
//! The inputs are small integers (-1, 0 and 1 as bf16): every sum inside an mma and across the
//! rounds is then an integer, which f32 holds exactly while it stays within 2^24, so the model's
//! answer is the only right one whatever order the tensor cores add in. That bound also caps
//! the rounds of a launch: [`Fragments::most_exact_iters`] is the most the model vouches for,
//! and the sweep never asks for more.

use kernels_gpu::models::mma_sync::{mma_bf16_ilp_outputs, small_integer_fragments, Inexact};
use kernels_gpu::shapes::mma_layout::LANES;

use crate::experiments::inputs::Rng;
use crate::experiments::verify::exact_check;
use crate::results::Check;

/// Every input element is drawn from `-INPUT_RANGE..=INPUT_RANGE`.
pub const INPUT_RANGE: i32 = 1;

/// What one thread of each lane writes.
pub type LaneOutputs = [f32; LANES as usize];

/// A warp's A and B fragments as the kernels read them (`a`: 4 words a lane, `b`: 2).
#[derive(Debug, Clone, PartialEq)]
pub struct Fragments {
    pub a: Vec<u32>,
    pub b: Vec<u32>,
}

impl Fragments {
    /// Small-integer fragments drawn from `seed` (the run's seed).
    pub fn draw(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let (a, b) = small_integer_fragments(INPUT_RANGE, || rng.next_u64() as u32);
        Fragments {
            a: a.to_vec(),
            b: b.to_vec(),
        }
    }

    /// What each lane writes after `iters` rounds of `ilp` accumulators, by the model.
    pub fn expected(&self, ilp: u32, iters: i32) -> Result<LaneOutputs, Inexact> {
        mma_bf16_ilp_outputs(&self.a, &self.b, ilp, iters)
    }

    /// The most rounds of `ilp` accumulators the model vouches for with these inputs (it refuses
    /// more, and refusing is monotonic in the rounds, so a bisection finds the edge).
    pub fn most_exact_iters(&self, ilp: u32) -> u32 {
        let (mut ok, mut refused) = (0u32, i32::MAX as u32 + 1);
        while refused - ok > 1 {
            let mid = ok + (refused - ok) / 2;
            match self.expected(ilp, mid as i32) {
                Ok(_) => ok = mid,
                Err(_) => refused = mid,
            }
        }
        ok
    }
}

/// Checks every one of the `threads` results in `out` bit for bit against `expected` (the
/// model's value per lane, or why it has none). The error is the number of threads that differ;
/// the first of them is named.
pub fn check_mma(
    out: &[f32],
    threads: u32,
    (ilp, iters): (u32, i32),
    expected: Result<LaneOutputs, Inexact>,
) -> Check {
    let checked = format!(
        "every one of {threads} threads' sums of {ilp} accumulators after {iters} rounds of \
         mma.sync m16n8k16 (bf16 inputs in -{INPUT_RANGE}..={INPUT_RANGE}, f32 accumulators) \
         bit-exact against the CPU model of the fragment layout"
    );
    let expected = match expected {
        Ok(e) => e,
        Err(why) => {
            let what = format!("{checked}: the model cannot vouch for these rounds ({why:?})");
            return exact_check(threads as usize, threads as usize, what);
        }
    };
    let want = |g: usize| expected[g % LANES as usize];
    let wrong: Vec<usize> = (0..threads as usize)
        .filter(|&g| out.get(g).map(|x| x.to_bits()) != Some(want(g).to_bits()))
        .collect();
    let first = wrong.first().map_or_else(String::new, |&g| {
        let got = out
            .get(g)
            .map_or_else(|| "nothing".to_owned(), |x| x.to_string());
        format!(
            "; the first, thread {g} (lane {}), wrote {got} where the model says {}",
            g % LANES as usize,
            want(g)
        )
    });
    let what = format!(
        "{checked} ({} differ{first}); error = threads that differ",
        wrong.len()
    );
    exact_check(wrong.len(), threads as usize, what)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests::has;

    /// What a correct launch of `threads` threads writes.
    fn launch(f: &Fragments, threads: u32, ilp: u32, iters: i32) -> Vec<f32> {
        let e = f.expected(ilp, iters).unwrap();
        (0..threads as usize).map(|g| e[g % 32]).collect()
    }

    #[test]
    fn the_inputs_give_lanes_distinct_nonzero_sums() {
        // A check against all-zero (or all-equal) sums would pass a kernel that wrote one constant.
        for seed in [0, 7, 42] {
            let f = Fragments::draw(seed);
            let e = f.expected(1, 1).unwrap();
            let mut distinct: Vec<u32> = e.iter().map(|x| x.to_bits()).collect();
            distinct.sort_unstable();
            distinct.dedup();
            assert!(distinct.len() > 8, "seed {seed}: {e:?}");
            assert_eq!(f, Fragments::draw(seed), "the same inputs for a seed");
        }
    }

    #[test]
    fn the_exact_range_is_the_models_edge_and_long_enough() {
        let f = Fragments::draw(7);
        for ilp in [1, 2, 4, 8] {
            let most = f.most_exact_iters(ilp);
            assert!(f.expected(ilp, most as i32).is_ok());
            assert!(f.expected(ilp, most as i32 + 1).is_err());
            // Enough rounds for a launch of a millisecond at one warp per SM (latency bound).
            assert!(most >= 30_000, "ILP {ilp}: {most}");
        }
        assert!(f.most_exact_iters(1) > f.most_exact_iters(8));
    }

    #[test]
    fn a_correct_launch_passes() {
        let f = Fragments::draw(7);
        let out = launch(&f, 4224, 4, 1000);
        let c = check_mma(&out, 4224, (4, 1000), f.expected(4, 1000));
        assert!(c.passed, "{}", c.what);
        assert_eq!(c.error, 0.0);
        has(&c.what, "every one of 4224 threads");
    }

    #[test]
    fn one_corrupted_thread_fails_and_is_named() {
        let f = Fragments::draw(7);
        let mut out = launch(&f, 4224, 2, 999);
        // One unit off in thread 4100 (lane 4): a thread that ran one round fewer, or lost a term.
        out[4100] += 1.0;
        let c = check_mma(&out, 4224, (2, 999), f.expected(2, 999));
        assert!(!c.passed);
        assert_eq!(c.error, 1.0);
        has(&c.what, "thread 4100 (lane 4)");
        // The right sums for one round fewer fail every thread whose sum is not zero.
        let fewer = launch(&f, 4224, 2, 998);
        let c = check_mma(&fewer, 4224, (2, 999), f.expected(2, 999));
        let nonzero = fewer.iter().filter(|&&x| x != 0.0).count();
        assert!(nonzero > 4224 / 2, "{nonzero}");
        assert_eq!(c.error, nonzero as f64);
        // A short buffer: the threads it lacks are wrong.
        let c = check_mma(&out[..100], 4224, (2, 999), f.expected(2, 999));
        assert!(!c.passed);
        assert_eq!(c.error, 4124.0);
        has(&c.what, "thread 100 (lane 4), wrote nothing");
    }

    #[test]
    fn rounds_the_model_cannot_vouch_for_fail_the_check() {
        let f = Fragments::draw(7);
        let too_many = f.most_exact_iters(8) as i32 + 1;
        let c = check_mma(&[0.0; 64], 64, (8, too_many), f.expected(8, too_many));
        assert!(!c.passed);
        has(&c.what, "cannot vouch");
        // And no launch at all checks nothing.
        assert!(!check_mma(&[], 0, (1, 1), f.expected(1, 1)).passed);
    }
}
