//! The GEMM check's rule: the f64 reference of one element of C = alpha*A*B + beta*C0, the
//! tolerance an FP32 result is held to, and the tally of a whole C. Compiled for the GPU (the
//! reference and check kernels, `gemm_ref.rs` and `kernels/gemm_judge.rs`) and for the host (its
//! CPU twin, `host/src/experiments/verify.rs`), so both sides run this very arithmetic. Every
//! multiply that feeds an add is an explicit fused multiply-add: ptxas may fuse a plain `mul.f64`
//! and `add.f64` of its own accord, and then the GPU and the CPU would round differently.
//!
//! # The tolerance
//!
//! Let p_i = a_i * b_i (exact in f64: 24 + 24 significand bits) and s_j = p_1 + ... + p_j the
//! partial sums in natural k order, dot = s_K. An FP32 kernel that accumulates the products
//! one at a time (with or without fused multiply-adds) commits one rounding per addition: its
//! sum is dot + sum_j delta_j t_j (to first order), where t_j is the j-th intermediate sum of
//! ITS order and |delta_j| <= u = 2^-24 (plus delta'_j p_j per separately rounded product).
//! The worst case adds all these up (K * u * sum|p|), which on random data is hundreds of
//! times the error any real kernel makes and would also pass a kernel whose inputs were
//! rounded to TF32 (10 mantissa bits). Rounding errors of independent data behave like
//! independent random variables of mean 0 and standard deviation at most u/sqrt(3) (Higham,
//! "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 2.8; Higham and Mary,
//! "A New Approach to Probabilistic Rounding Error Analysis", SISC 2019), so the accumulated
//! error has standard deviation at most u/sqrt(3) * sqrt(sum_j t_j^2). The tolerance is
//!
//!   tol = LAMBDA * u * |alpha| * spread  +  2u * (|alpha * dot| + |beta * c0|),
//!
//! - `spread` = sqrt(max(sum_j s_j^2, sum_j (dot - s_{j-1})^2)), the partial sums of the
//!   natural order and of the reverse order (whose j-th partial sum is dot - s_{K-j}); a kernel
//!   may sum in either direction, in blocks of either (split-K, several accumulators per
//!   thread), or pairwise, whose partial sums are no larger;
//! - LAMBDA = 8: the accumulation term is 8 * sqrt(3) ~ 14 standard deviations of the model;
//! - 2u(|alpha*dot| + |beta*c0|) bounds the epilogue outright: the rounding of alpha*acc, of
//!   beta*c0 and of their sum (one fused multiply-add rounds less).
//!
//! A correct FP32 kernel stays far inside it, a kernel that loses precision or terms does not:
//! with inputs rounded to TF32 each product is off by up to 2^-10 of itself, an error that grows
//! like sqrt(K) * 2^-11 while the tolerance grows like K * 2^-21, so at K = 8192 the typical
//! TF32 element is still ~6 tolerances off; a dropped k-term leaves an error of |a_k b_k|,
//! typically 0.25, against a tolerance of about 1e-3 at K = 8192. Correct FP32 sums in any of
//! the usual orders (one accumulator, split-K, strided accumulators, pairwise, reversed) stay
//! below 0.4 of it. The host's tests measure these margins on the lab's random inputs
//! (`host/src/experiments/tolerance_margins.rs`).

use core::f64::math::{mul_add, sqrt};

/// FP32's unit roundoff, 2^-24: the largest relative error of one rounding to nearest.
pub const UNIT_ROUNDOFF: f64 = 1.0 / 16_777_216.0;
/// The accumulation term's multiple of u * spread. The model's standard deviation is at most
/// u / sqrt(3) * spread, so 8 allows ~14 of them.
pub const LAMBDA: f64 = 8.0;
/// Roundings the epilogue may add, each at most u times |alpha*dot| + |beta*c0|.
pub const EPILOGUE_ROUNDINGS: f64 = 2.0;
/// The bound of [`Verdict::ratio`]: an element fails above it.
pub const RATIO_BOUND: f64 = 1.0;

/// One element's f64 reference, before alpha and beta: the dot product of its row of A and
/// column of B, and the spread of the partial sums that scales the tolerance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reference {
    pub dot: f64,
    pub spread: f64,
}

/// Running sums of one element in natural k order: the partial sum s_j, the sum of the s_j and
/// the sum of their squares. Fed the widened f32 inputs (products exact in f64).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Accumulator {
    dot: f64,
    prefix_sums: f64,
    prefix_squares: f64,
}

impl Accumulator {
    pub const fn new() -> Self {
        Self {
            dot: 0.0,
            prefix_sums: 0.0,
            prefix_squares: 0.0,
        }
    }

    /// Adds the term `a * b`; `a` and `b` are f32 values widened to f64, so that their product
    /// is exact and the fused multiply-add rounds once, like a plain f64 addition of it.
    #[inline(always)]
    pub fn add(&mut self, a: f64, b: f64) {
        self.dot = mul_add(a, b, self.dot);
        self.prefix_sums += self.dot;
        self.prefix_squares = mul_add(self.dot, self.dot, self.prefix_squares);
    }

    /// The reference after `k` terms (the number of [`add`](Self::add) calls).
    ///
    /// The reverse order's squares, sum_{j=0}^{K-1} (dot - s_j)^2 with s_0 = 0, expand to
    /// (K + 1) dot^2 - 2 dot sum_j s_j + sum_j s_j^2 (j = 1..K); the cancellation costs a few
    /// of f64's 53 bits, of which the tolerance needs two or three.
    #[inline(always)]
    pub fn finish(self, k: u32) -> Reference {
        let Self {
            dot,
            prefix_sums,
            prefix_squares,
        } = self;
        let cross = mul_add(-2.0 * dot, prefix_sums, prefix_squares);
        let reverse = mul_add(f64::from(k + 1) * dot, dot, cross);
        // `max` takes the forward squares when rounding left `reverse` slightly negative.
        Reference {
            dot,
            spread: sqrt(prefix_squares.max(reverse)),
        }
    }
}

/// How one element of C fared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// |c - reference| / tolerance; infinite for a NaN or infinite `c`, or an error where the
    /// tolerance is 0.
    pub ratio: f64,
    /// `|c - reference| <= tolerance` (false for NaN and infinities).
    pub within: bool,
}

/// The reference value `alpha * dot + beta * c0` and its tolerance (see the module docs).
#[inline(always)]
pub fn expected(r: Reference, c0: f32, alpha: f32, beta: f32) -> (f64, f64) {
    let (alpha, beta) = (f64::from(alpha), f64::from(beta));
    let scaled_c0 = beta * f64::from(c0);
    let want = mul_add(alpha, r.dot, scaled_c0);
    let epilogue = EPILOGUE_ROUNDINGS * UNIT_ROUNDOFF * ((alpha * r.dot).abs() + scaled_c0.abs());
    let tolerance = mul_add(LAMBDA * UNIT_ROUNDOFF * alpha.abs(), r.spread, epilogue);
    (want, tolerance)
}

/// Judges one element `c` of an FP32 C = alpha*A*B + beta*C0 against its reference.
#[inline(always)]
pub fn judge(c: f32, c0: f32, r: Reference, alpha: f32, beta: f32) -> Verdict {
    let (want, tolerance) = expected(r, c0, alpha, beta);
    let error = (f64::from(c) - want).abs();
    let within = error <= tolerance;
    let ratio = if tolerance > 0.0 && error.is_finite() {
        error / tolerance
    } else if within {
        0.0 // error and tolerance both 0
    } else {
        f64::INFINITY
    };
    Verdict { ratio, within }
}

/// The tally of a checked C: elements over their tolerance, elements not finite, and the worst
/// element (its ratio and index packed in one word, so that one `max` keeps both). The check
/// kernel keeps one per thread, merges a warp's with shuffles and adds them into three global
/// words with atomics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Elements over their tolerance (NaN and infinities included).
    pub over: u64,
    /// Elements that are NaN or infinite.
    pub non_finite: u64,
    /// The worst element: [`Tally::worst_ratio`] in the high 32 bits (as f32 bits, which order
    /// like the values for non-negative floats), its index in the low 32; ties go to the higher
    /// index.
    pub worst: u64,
}

impl Tally {
    /// Words of the tally in the check kernel's output buffer: over, non-finite, worst.
    pub const WORDS: usize = 3;

    /// Counts element `index` with value `c` and its verdict.
    #[inline(always)]
    pub fn add(&mut self, index: u32, c: f32, v: Verdict) {
        self.over += u64::from(!v.within);
        self.non_finite += u64::from(!c.is_finite());
        // `as f32` rounds to nearest and saturates to infinity.
        let key = (u64::from((v.ratio as f32).to_bits()) << 32) | u64::from(index);
        self.worst = self.worst.max(key);
    }

    /// The tally of both parts.
    #[inline(always)]
    pub fn merge(self, other: Tally) -> Tally {
        Tally {
            over: self.over + other.over,
            non_finite: self.non_finite + other.non_finite,
            worst: self.worst.max(other.worst),
        }
    }

    /// The largest |c - reference| / tolerance (to f32 precision).
    pub fn worst_ratio(&self) -> f32 {
        f32::from_bits((self.worst >> 32) as u32)
    }

    /// The index of the worst element (row * N + column).
    pub fn worst_index(&self) -> u32 {
        self.worst as u32
    }

    /// The tally as the check kernel writes it.
    pub fn to_words(self) -> [u64; Self::WORDS] {
        [self.over, self.non_finite, self.worst]
    }

    /// The tally the check kernel wrote.
    pub fn from_words(w: [u64; Self::WORDS]) -> Tally {
        Tally {
            over: w[0],
            non_finite: w[1],
            worst: w[2],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(terms: &[(f32, f32)]) -> Reference {
        let mut acc = Accumulator::new();
        for &(a, b) in terms {
            acc.add(f64::from(a), f64::from(b));
        }
        acc.finish(terms.len() as u32)
    }

    #[test]
    fn the_spread_takes_the_larger_of_both_orders() {
        // Partial sums 1, 3, 6 forward; 3, 5, 6 backward: sqrt(46) and sqrt(70).
        let r = reference(&[(1.0, 1.0), (2.0, 1.0), (3.0, 1.0)]);
        assert_eq!(r.dot, 6.0);
        assert_eq!(r.spread, 70f64.sqrt());
        // Reversed terms swap the orders; the spread is the same.
        let back = reference(&[(3.0, 1.0), (2.0, 1.0), (1.0, 1.0)]);
        assert_eq!(back.spread, 70f64.sqrt());
        // One term: both orders hold just it.
        assert_eq!(reference(&[(0.5, -3.0)]).spread, 1.5);
        assert_eq!(reference(&[]).spread, 0.0);
    }

    #[test]
    fn the_tolerance_is_the_model_spelled_out() {
        let u = UNIT_ROUNDOFF;
        let r = Reference {
            dot: 2.0,
            spread: 4.0,
        };
        let (want, tol) = expected(r, 0.25, 1.5, -2.0);
        assert_eq!(want, 1.5 * 2.0 - 2.0 * 0.25);
        assert_eq!(tol, 8.0 * u * 1.5 * 4.0 + 2.0 * u * (3.0 + 0.5));
        // Just inside and just outside.
        let inside = judge((want + 0.9 * tol) as f32, 0.25, r, 1.5, -2.0);
        assert!(inside.within && inside.ratio < 1.0, "{inside:?}");
        let outside = judge((want + 1.5 * tol) as f32, 0.25, r, 1.5, -2.0);
        assert!(!outside.within && outside.ratio > 1.0, "{outside:?}");
    }

    #[test]
    fn nan_infinity_and_a_zero_tolerance_fail_with_an_infinite_ratio() {
        let r = Reference {
            dot: 1.0,
            spread: 1.0,
        };
        for c in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let v = judge(c, 0.0, r, 1.0, 0.0);
            assert!(!v.within && v.ratio == f64::INFINITY, "{c}: {v:?}");
        }
        let zero = Reference {
            dot: 0.0,
            spread: 0.0,
        };
        assert_eq!(
            judge(0.0, 0.0, zero, 1.0, 0.0),
            Verdict {
                ratio: 0.0,
                within: true
            }
        );
        let v = judge(1e-30, 0.0, zero, 1.0, 0.0);
        assert!(!v.within && v.ratio == f64::INFINITY);
    }

    #[test]
    fn the_tally_keeps_counts_and_the_worst_element() {
        let mut t = Tally::default();
        let ok = Verdict {
            ratio: 0.25,
            within: true,
        };
        t.add(7, 1.0, ok);
        t.add(
            3,
            2.0,
            Verdict {
                ratio: 0.5,
                within: true,
            },
        );
        assert_eq!((t.over, t.non_finite), (0, 0));
        assert_eq!((t.worst_ratio(), t.worst_index()), (0.5, 3));
        let mut u = Tally::default();
        u.add(
            9,
            f32::NAN,
            Verdict {
                ratio: f64::INFINITY,
                within: false,
            },
        );
        let both = t.merge(u);
        assert_eq!((both.over, both.non_finite), (1, 1));
        assert_eq!((both.worst_ratio(), both.worst_index()), (f32::INFINITY, 9));
        assert_eq!(Tally::from_words(both.to_words()), both);
        // Equal ratios: the higher index wins, whichever merges first.
        let (mut x, mut y) = (Tally::default(), Tally::default());
        x.add(1, 0.0, ok);
        y.add(2, 0.0, ok);
        assert_eq!(x.merge(y), y.merge(x));
        assert_eq!(x.merge(y).worst_index(), 2);
    }
}
