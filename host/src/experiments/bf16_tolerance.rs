//! The rule a tensor-core output is held to, in one place: the FP32 rule of
//! `kernels_gpu::models::gemm_tolerance` with its accumulation term widened by a factor of K.
//!
//! # How a tensor core accumulates
//!
//! The bf16 products are exact (8 + 8 significant bits). They are not added one at a time, each
//! rounded to nearest, as the FP32 rule assumes: bit-accurate models of the hardware (Fasi,
//! Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021, for
//! A100; Xie et al., "MMA-Sim", arXiv:2511.10909, and Khattak and Mikaitis, "Accurate Models of
//! NVIDIA Tensor Cores", arXiv:2512.07004, for A100 to B200) agree that an `mma` adds a group of
//! products and the accumulator in one fixed-point sum aligned to the largest exponent among
//! them, each addend truncated to 25 fractional bits below it (24 on sm_80), and then truncates
//! the sum to FP32 (rounds toward zero). sm_90's m16n8k16 is one group of 16 products; sm_80
//! splits it into two groups of 8.
//!
//! - The alignment truncations: each addend loses less than 2^-25 of the largest addend's power
//!   of two (2^-24 on sm_80), toward zero, i.e. against its own sign; products of random sign
//!   make these errors zero-mean, and per product no larger than an FP32 addition's rounding
//!   (variance at most u^2 M^2 / 3 against the FP32 model's u^2 t^2 / 3, with M the largest
//!   addend and t the partial sum, which M hardly exceeds once a few groups are summed). The FP32
//!   rule's accumulation term, LAMBDA * u * |alpha| * spread, covers them.
//! - The truncation to FP32 at the end of each group does not cancel: it always moves the
//!   partial sum s_b toward zero, by less than one ulp (2u|s_b|), and on random inputs a partial
//!   sum keeps its sign over long stretches of k (it is a random walk), so these errors add up.
//!   They are bounded outright: with n groups,
//!   |sum_b d_b s_b| <= 2u sum_b |s_b| <= 2u sqrt(n) sqrt(sum_b s_b^2) <= 2u sqrt(n) spread
//!   (Cauchy-Schwarz; the group ends are among the forward partial sums the spread adds up).
//!   n counts groups of [`GROUP`] = 8 products (sm_80's; sm_90's groups of 16 are fewer). A
//!   kernel that splits K (cuBLAS may) starts each later part from zero: its partial sums are
//!   differences of the forward ones, no larger on random inputs, as in the FP32 rule.
//!
//! Hence the tolerance of an element of an mma output:
//!
//!   tol = LAMBDA u |alpha| F(K) spread + 2u (|alpha dot| + |beta c0|),
//!   F(K) = 1 + (2 / LAMBDA) sqrt(ceil(K / 8)),
//!
//! (the epilogue's roundings, 2u(...), are the FP32 rule's: the kernels finish in FP32). F is 1.25
//! at K <= 8, 1.8 at K = 80, 2.4 at K = 256, 9 at K = 8192. The check kernel computes the FP32
//! rule; multiplying the reference's spread by F(K) once per problem
//! ([`GemmReference::scale_spread`](super::gemm_check::GemmReference::scale_spread)) turns
//! it into this one.
//!
//! On the CPU model of both tensor cores (`gemm_bf16/tensor_core_model.rs`, tested in `gemm_bf16/margins.rs`) the
//! worst element of the lab's problems stays below 0.06 of this tolerance, while the
//! truncations' drift, measured against the FP32 rule, grows with K: on sm_90's model the median
//! element goes from 0.02 of the FP32 tolerance at K = 256 to 0.2 at K = 8192 (sampled beyond
//! the tests, the worst of 200,000 elements at K = 8192 reaches 0.4 on sm_90's model, and of
//! 20,000 0.6 on sm_80's): the FP32 rule leaves little room at the lab's largest K and none
//! beyond. What this rule still fails, on the CPU: a product that drops one k-term, 1% of the
//! elements moved by 1e-3 (at K <= 256; at K = 8192 the tolerance is about 8e-3), and inputs
//! rounded beyond bf16 (to 6 mantissa bits, or to FP8 e4m3's 3), whose products are off by
//! about 2^-7 or 2^-4 of themselves.

use kernels_gpu::models::gemm_tolerance::{LAMBDA, RATIO_BOUND};

use super::gemm_check::{record_under, Checked};
use crate::results::{Check, GemmDims};

/// Products a tensor core sums before it truncates to FP32, at the fewest among the GPUs the
/// BF16 kernels run on (sm_80's two groups per m16n8k16).
pub const GROUP: u32 = 8;

/// Truncations to FP32 in a K-term dot product: one per group.
pub fn truncations(k: u32) -> u32 {
    k.div_ceil(GROUP).max(1)
}

/// F(K): the tensor-core rule's accumulation term over the FP32 rule's.
pub fn spread_factor(k: u32) -> f64 {
    1.0 + 2.0 / LAMBDA * f64::from(truncations(k)).sqrt()
}

/// The rule, in words, for check records and table notes.
pub fn rule() -> String {
    format!(
        "every element of C against an f64 reference of the bf16 inputs computed on the GPU (k in \
         natural order); an element passes when |c - ref| <= {LAMBDA}u|alpha|*F(K)*spread + \
         2u(|alpha*dot| + |beta*c0|), u = 2^-24, spread = the root sum of squares of the dot \
         product's partial sums in k order or in reverse, whichever is larger, F(K) = 1 + \
         sqrt(ceil(K/{GROUP}))/4 (the FP32 rule, plus a bound on the tensor cores' truncation \
         to FP32 after every {GROUP} products); NaN and infinities fail; error = the worst \
         |c - ref| / tolerance (fails above {RATIO_BOUND})"
    )
}

/// The record of one or more checked outputs of the same BF16 problem: passed when every one
/// passed, the error the worst ratio of them all, each described.
pub fn record(dims: GemmDims, parts: &[Checked]) -> Check {
    let inputs = format!(
        "random bf16 inputs in [-1,1], F(K) = {:.3}",
        spread_factor(dims.k)
    );
    record_under(dims, parts, &inputs, &rule())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::gemm_check::tests::checked;

    #[test]
    fn the_factor_counts_truncations_in_groups_of_eight() {
        assert_eq!(LAMBDA, 8.0, "F's 1/4 in rule() is 2/LAMBDA");
        assert_eq!(
            [1, 8, 9, 80, 256, 8192].map(truncations),
            [1, 1, 2, 10, 32, 1024]
        );
        assert_eq!(spread_factor(1), 1.25);
        assert_eq!(spread_factor(8192), 9.0);
        assert!((spread_factor(80) - (1.0 + 10f64.sqrt() / 4.0)).abs() < 1e-15);
        assert!((spread_factor(256) - (1.0 + 2f64.sqrt())).abs() < 1e-15);
        // Never below the FP32 rule, and growing with K.
        let f: Vec<f64> = (1..=10_000).map(spread_factor).collect();
        assert!(f.windows(2).all(|w| w[0] <= w[1]) && f[0] > 1.0);
    }

    #[test]
    fn the_record_states_the_rule_and_fails_with_any_part() {
        let dims = GemmDims { m: 2, n: 3, k: 80 };
        let part = |over| checked("the last timed launch", over, 0.5, 4);
        let ok = record(dims, &[part(0), part(0)]);
        assert!(ok.passed && ok.error == 0.5 && ok.bound == RATIO_BOUND);
        assert!(ok.what.contains("F(K) = 1.791"), "{}", ok.what);
        assert!(ok.what.contains("sqrt(ceil(K/8))/4"), "{}", ok.what);
        assert!(ok.what.contains("worst 0.500 at (1, 1)"), "{}", ok.what);
        assert!(!record(dims, &[part(0), part(3)]).passed);
        assert!(!record(dims, &[]).passed);
    }
}
