//! CPU references of what the kernels compute, for the host to verify results against: the FMA
//! kernels' per-thread result, bit for bit, and the pointer chase's ring and end point.
//!
//! `no_std` like the rest of the crate (`core` has no `f32::mul_add` on stable), so the fused
//! multiply-add is done here in software, exactly (see [`fma_f32`]).

use crate::variants::{FmaOp, FmaVariant, FFMA_IMM};

/// `a * b + c` rounded once to the nearest f32 (ties to even), as `fma.rn.f32` computes it.
///
/// The product of two f32 is exact in f64 (24 + 24 significand bits <= 53). The sum with `c`
/// is not: rounding it to f64 and then to f32 rounds twice, which can be wrong when the first
/// rounding lands exactly on an f32 tie (e.g. `1 + 2^-24 + 2^-80` becomes the tie `1 + 2^-24`
/// in f64 and then `1` by ties-to-even, where `fma` gives `1 + 2^-23`). So the sum is rounded
/// to odd instead: TwoSum gives the f64 sum `s` and its exact error `e`; when `e != 0` and `s`
/// has an even last bit, `s` moves one ulp towards `e`, to the neighbour with an odd last bit.
/// The exact sum lies strictly between the two, so this is the sum rounded to odd, and rounding
/// to odd at 53 bits followed by rounding to nearest at 24 bits (53 >= 24 + 2) is the correctly
/// rounded result (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved
/// algorithms using rounding to odd", IEEE TC 2008). f64 has the range for every f32 product and
/// sum, so neither step overflows or underflows where f32 would not.
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    let (p, c) = (f64::from(a) * f64::from(b), f64::from(c));
    let s = p + c;
    if !s.is_finite() || s == 0.0 {
        // Infinities and NaNs propagate as in f32; an exact zero (p == -c, or both zero with
        // IEEE's sign rules, which f64 applies the same way) needs no correction.
        return s as f32;
    }
    // TwoSum (Knuth): e is exactly (p + c) - s.
    let pv = s - c;
    let cv = s - pv;
    let e = (p - pv) + (c - cv);
    let odd = if e == 0.0 || s.to_bits() & 1 == 1 {
        s
    } else if (e > 0.0) == (s > 0.0) {
        f64::from_bits(s.to_bits() + 1) // one ulp away from zero
    } else {
        f64::from_bits(s.to_bits() - 1) // one ulp towards zero
    };
    odd as f32
}

/// Chain start values the FMA kernels use: chain i of thread g starts at `(g & 4095) + i`.
pub const FMA_STARTS: u32 = 4096;

/// One FMA chain: `x = fma(x, a, b)` for [`FmaVariant::rounds`]`(iters)` rounds from `start`.
pub fn fma_chain(start: f32, a: f32, b: f32, iters: i32) -> f32 {
    op_chain(FmaOp::Ffma, start, a, b, iters)
}

/// One round of `op` on a chain at `x`, as the kernels launched with `a` and `b` compute it
/// (f32 add and multiply round to nearest even, as `add.rn` and `mul.rn` do).
pub fn op_step(op: FmaOp, x: f32, a: f32, b: f32) -> f32 {
    match op {
        FmaOp::Ffma => fma_f32(x, a, b),
        FmaOp::Fadd => x + a,
        FmaOp::Fmul => x * a,
        FmaOp::FfmaImm => fma_f32(x, FFMA_IMM, x),
        FmaOp::FfmaConst => fma_f32(x, a, x),
    }
}

/// One chain of `op` for [`FmaVariant::rounds`]`(iters)` rounds from `start`.
pub fn op_chain(op: FmaOp, start: f32, a: f32, b: f32, iters: i32) -> f32 {
    let mut x = start;
    for _ in 0..FmaVariant::rounds(iters) {
        x = op_step(op, x, a, b);
    }
    x
}

/// What `{op}_ilp{ilp}(out, a, b, iters)` writes to `out[g]`.
pub fn op_ilp(op: FmaOp, g: u32, ilp: u32, a: f32, b: f32, iters: i32) -> f32 {
    fma_ilp_from_chains(g, ilp, |start| op_chain(op, start as f32, a, b, iters))
}

/// What `fma_ilp{ilp}(out, a, b, iters)` writes to `out[g]`.
pub fn fma_ilp(g: u32, ilp: u32, a: f32, b: f32, iters: i32) -> f32 {
    fma_ilp_from_chains(g, ilp, |start| fma_chain(start as f32, a, b, iters))
}

/// `out[g]` from the chains' end values, `chain(s)` being [`fma_chain`] from start value `s`.
/// Only `FMA_STARTS + ilp - 1` distinct chains exist in a launch, so a host that computes each
/// once (a table indexed by start) can check every thread cheaply.
pub fn fma_ilp_from_chains(g: u32, ilp: u32, mut chain: impl FnMut(u32) -> f32) -> f32 {
    let first = g % FMA_STARTS;
    let mut sum = chain(first);
    for i in 1..ilp {
        sum += chain(first + i);
    }
    sum
}

/// Writes a single-cycle pointer ring for the chase kernel into `next`, over slots of `slot`
/// elements: the first element of slot s holds the first element's index of the slot after s,
/// the other elements are left as they are. The slot order is a random cyclic permutation
/// (Sattolo's algorithm), so one lap visits every slot once, consecutive hops are at least
/// `slot` elements apart, and no stride repeats for a prefetcher to learn. `below(n)` must give
/// a uniform random integer in `0..n` (e.g. the host's seeded generator).
///
/// # Panics
/// If `slot` is 0, `next` holds fewer than two slots, or an index does not fit in u32.
pub fn build_chase_ring(next: &mut [u32], slot: usize, mut below: impl FnMut(u32) -> u32) {
    assert!(slot > 0, "a chase ring needs slots of at least one element");
    let slots = next.len() / slot;
    assert!(slots >= 2, "a chase ring needs at least two slots");
    assert!(
        u32::try_from(next.len()).is_ok(),
        "chase indices are u32: at most 2^32 elements"
    );
    // The permutation, over slot numbers, lives in the slots' first elements.
    for s in 0..slots {
        next[s * slot] = s as u32;
    }
    // Sattolo: swapping each position only with an earlier one gives a single n-cycle.
    for i in (1..slots).rev() {
        let j = below(i as u32) as usize;
        assert!(j < i, "below({i}) returned {j}");
        next.swap(i * slot, j * slot);
    }
    for s in 0..slots {
        next[s * slot] *= slot as u32;
    }
}

/// Where the chase kernel ends after `steps` hops of `i = next[i]` from `start`.
pub fn chase_end(next: &[u32], start: u32, steps: u64) -> u32 {
    let mut i = start;
    for _ in 0..steps {
        i = next[i as usize];
    }
    i
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;

    /// A small deterministic generator for the tests (SplitMix64).
    struct Gen(u64);
    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u32) -> u32 {
            (((self.next() >> 32) * u64::from(n)) >> 32) as u32
        }
        fn f32_any(&mut self) -> f32 {
            f32::from_bits(self.next() as u32)
        }
    }

    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn sums_next_to_an_f32_tie_are_rounded_once() {
        // a = 1 + k*2^-23 (k odd), b = 1.5: the product 1.5 + 1.5k*2^-23 is exactly halfway
        // between two f32 (for 1.5a < 2). A tiny c moves the exact sum off the tie, but the f64
        // sum rounds it back onto the tie, and the f32 rounding then goes to even: plain f64
        // is wrong on about half of these, the round-to-odd sum must be right on all.
        let mut naive_wrong = 0;
        let mut cases = 0;
        for k in (1..(1u32 << 21)).step_by(4099).filter(|k| k % 2 == 1) {
            let a = 1.0 + k as f32 * f32::EPSILON;
            let b = 1.5f32;
            assert!(f64::from(a) * f64::from(b) < 2.0);
            for c in [
                2f32.powi(-80),
                -(2f32.powi(-80)),
                2f32.powi(-60),
                -(2f32.powi(-60)),
            ] {
                let want = a.mul_add(b, c);
                assert!(same(fma_f32(a, b, c), want), "{a:e} * {b:e} + {c:e}");
                let naive = (f64::from(a) * f64::from(b) + f64::from(c)) as f32;
                naive_wrong += usize::from(!same(naive, want));
                cases += 1;
            }
        }
        assert!(
            naive_wrong * 4 > cases,
            "{naive_wrong} of {cases}: the cases should defeat plain f64"
        );
    }

    #[test]
    fn matches_std_fma_on_random_and_special_inputs() {
        let mut g = Gen(7);
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1.0 + f32::EPSILON,
            0.1,
        ];
        for &a in &specials {
            for &b in &specials {
                for &c in &specials {
                    assert!(same(fma_f32(a, b, c), a.mul_add(b, c)), "{a:e} {b:e} {c:e}");
                }
            }
        }
        for _ in 0..1_000_000 {
            let (a, b, c) = (g.f32_any(), g.f32_any(), g.f32_any());
            assert!(same(fma_f32(a, b, c), a.mul_add(b, c)), "{a:e} {b:e} {c:e}");
            // Near-cancelling sums, where the error term matters most.
            let c = -(a * b);
            assert!(same(fma_f32(a, b, c), a.mul_add(b, c)), "{a:e} {b:e} {c:e}");
        }
    }

    #[test]
    fn fma_ilp_is_the_sum_of_its_chains_in_order() {
        let (a, b, iters) = (0.999_9f32, 0.5f32, 64);
        for g in [0u32, 1, 4095, 4096, 123_457, u32::MAX] {
            for ilp in [1, 2, 3, 16] {
                let mut want = 0.0f32;
                for i in 0..ilp {
                    let mut x = ((g & 4095) + i) as f32;
                    for _ in 0..iters {
                        x = x.mul_add(a, b);
                    }
                    want = if i == 0 { x } else { want + x };
                }
                assert!(same(fma_ilp(g, ilp, a, b, iters), want), "g {g} ilp {ilp}");
            }
        }
    }

    #[test]
    fn a_wrong_count_or_a_missing_chain_changes_the_answer() {
        let (a, b, iters) = (0.999_9f32, 0.5f32, 256);
        for g in [0u32, 77, 4095, 1 << 20] {
            for ilp in [1u32, 4, 16] {
                let right = fma_ilp(g, ilp, a, b, iters);
                assert_ne!(right, fma_ilp(g, ilp, a, b, iters - 16), "one round fewer");
                assert_ne!(right, fma_ilp(g, ilp, a, b, iters + 16), "one round more");
                if ilp > 1 {
                    assert_ne!(right, fma_ilp(g, ilp - 1, a, b, iters), "a chain missing");
                }
                // A chain that skipped one fma of its 16 per round.
                let short = fma_ilp_from_chains(g, ilp, |s| {
                    let mut x = fma_chain(s as f32, a, b, iters - 16);
                    for _ in 0..15 {
                        x = fma_f32(x, a, b);
                    }
                    x
                });
                assert_ne!(right, short, "one fma missing from a chain");
            }
        }
    }

    #[test]
    fn each_control_op_is_its_own_instruction_and_keeps_moving() {
        // The sweep's a and b (host ilp/reference.rs), passed as each op is launched with them.
        let (a, b) = (1.0 - 1.0 / (1u32 << 20) as f32, 1.0f32);
        for op in FmaOp::ALL {
            let (a, b) = op.launch_args(a, b);
            let x = 1234.0f32;
            let want = match op {
                FmaOp::Ffma => x.mul_add(a, b),
                FmaOp::Fadd => x + a,
                FmaOp::Fmul => x * a,
                FmaOp::FfmaImm => x.mul_add(FFMA_IMM, x),
                FmaOp::FfmaConst => x.mul_add(a, x),
            };
            assert!(same(op_step(op, x, a, b), want), "{op:?}");
            // A chain still moves after half a million rounds (so a wrong round count shows),
            // and stays finite and normal.
            let n = 500_000;
            let end = op_chain(op, 7.0, a, b, n);
            assert_ne!(end, op_chain(op, 7.0, a, b, n + 16), "{op:?}");
            assert!(end.is_normal(), "{op:?}: {end}");
            if op != FmaOp::Ffma {
                assert_ne!(
                    op_ilp(op, 5, 2, a, b, 64),
                    fma_ilp(5, 2, a, b, 64),
                    "{op:?} is not the FFMA"
                );
            }
        }
        // The two multiply-by-(1 - 2^-20) forms agree: fma(x, -2^-20, x) is x * (1 - 2^-20)
        // rounded once, whether the factor is an immediate or the launch's a - 1.
        let (ca, cb) = FmaOp::FfmaConst.launch_args(a, b);
        assert_eq!(ca, FFMA_IMM);
        assert!(same(
            op_chain(FmaOp::FfmaImm, 99.0, a, b, 256),
            op_chain(FmaOp::FfmaConst, 99.0, ca, cb, 256)
        ));
    }

    #[test]
    fn rounds_follow_the_peer_loop() {
        assert_eq!(FmaVariant::rounds(0), 0);
        assert_eq!(FmaVariant::rounds(-5), 0);
        assert_eq!(FmaVariant::rounds(1), 16);
        assert_eq!(FmaVariant::rounds(16), 16);
        assert_eq!(FmaVariant::rounds(17), 32);
        assert!(same(fma_chain(3.0, 2.0, 1.0, 0), 3.0));
        // 16 rounds of x = 1*x + 1 from 0.
        assert!(same(fma_chain(0.0, 1.0, 1.0, 1), 16.0));
    }

    fn ring(elems: usize, slot: usize, seed: u64) -> Vec<u32> {
        let mut next = vec![u32::MAX; elems];
        let mut g = Gen(seed);
        build_chase_ring(&mut next, slot, |n| g.below(n));
        next
    }

    #[test]
    fn the_ring_is_one_cycle_over_every_slot() {
        for (elems, slot) in [(64usize, 32usize), (32 * 1000, 32), (64 * 257 + 5, 64)] {
            let next = ring(elems, slot, 3);
            let slots = elems / slot;
            let mut seen = vec![false; slots];
            let mut i = 0u32;
            for step in 0..slots {
                assert_eq!(i as usize % slot, 0, "hops land on slot starts");
                assert!(!seen[i as usize / slot], "slot revisited at step {step}");
                seen[i as usize / slot] = true;
                let n = next[i as usize];
                assert_ne!(n, i, "no slot points to itself");
                assert!(
                    (n as i64 - i as i64).unsigned_abs() as usize >= slot,
                    "hops are a slot apart"
                );
                i = n;
            }
            assert_eq!(i, 0, "back at the start after one lap");
            assert!(seen.iter().all(|&s| s));
            // Elements other than slot starts are untouched.
            assert!(next
                .iter()
                .enumerate()
                .all(|(k, &v)| k % slot == 0 && k / slot < slots || v == u32::MAX));
        }
    }

    #[test]
    fn chase_end_follows_the_ring_and_depends_on_seed_and_steps() {
        let next = ring(32 * 4096, 32, 11);
        assert_eq!(chase_end(&next, 0, 0), 0);
        assert_eq!(chase_end(&next, 0, 1), next[0]);
        assert_eq!(chase_end(&next, 0, 4096), 0, "a full lap");
        assert_eq!(chase_end(&next, 0, 4096 * 3 + 5), chase_end(&next, 0, 5));
        assert_ne!(chase_end(&next, 0, 5), chase_end(&next, 0, 6));
        let other = ring(32 * 4096, 32, 12);
        assert_ne!(next, other, "another seed, another ring");
    }
}
