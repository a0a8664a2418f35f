//! Correctness checks on the CPU: the GEMM check's twin (the rule of the GPU check kernels,
//! `kernels_gpu::models::gemm_tolerance`, applied to every element on the CPU: for the tests, and
//! as the oracle the GPU tests hold the kernels to), copies, exactly, and the verdict of any
//! bit-exact check against a CPU model ([`exact_check`]).

use std::ops::Range;

use kernels_gpu::models::gemm_tolerance::{judge, Accumulator, Reference, Tally};

use super::inputs::{host_threads, par_fill, par_ranges};
use crate::results::{Check, GemmDims};

/// Host copies of a GEMM's inputs, row-major: A is M x K, `b_t` is B (K x N) transposed (N x K),
/// C0 is M x N.
pub struct GemmInputs<'a> {
    pub dims: GemmDims,
    pub a: &'a [f32],
    pub b_t: &'a [f32],
    pub c0: &'a [f32],
}

/// `f` of each element's row of A (M x K) and column of B (N x K, as its transpose `b_t`),
/// row-major M x N, on the CPU's threads (`zero` fills the buffer first).
pub fn every_element<T: Copy + Send>(
    dims: GemmDims,
    (a, b_t): (&[f32], &[f32]),
    zero: T,
    f: impl Fn(&[f32], &[f32]) -> T + Sync,
) -> Vec<T> {
    let (n, k) = (dims.n as usize, dims.k as usize);
    let mut out = vec![zero; dims.m as usize * n];
    let rows_per_part = (dims.m as usize).div_ceil(host_threads()).max(1);
    par_fill(&mut out, rows_per_part * n, |i| {
        let (row, col) = (i / n, i % n);
        f(&a[row * k..(row + 1) * k], &b_t[col * k..(col + 1) * k])
    });
    out
}

/// The f64 reference of every element of C, row-major: the reference kernel's arithmetic
/// (`gemm_ref.rs`), the same [`Accumulator`] over k in natural order.
pub fn gemm_reference(inputs: &GemmInputs<'_>) -> Vec<Reference> {
    let zero = Reference {
        dot: 0.0,
        spread: 0.0,
    };
    every_element(inputs.dims, (inputs.a, inputs.b_t), zero, |a, b| {
        let mut acc = Accumulator::new();
        for (&x, &y) in a.iter().zip(b) {
            acc.add(f64::from(x), f64::from(y));
        }
        acc.finish(a.len() as u32)
    })
}

/// The tally of an f32 `c` against `reference` for C = alpha*A*B + beta*C0: what the check
/// kernel (kernels-gpu's `kernels/gemm_judge.rs`) adds up, element for element the same verdicts.
pub fn tally_gemm(reference: &[Reference], c0: &[f32], c: &[f32], alpha: f32, beta: f32) -> Tally {
    assert!(
        reference.len() == c0.len() && c.len() == c0.len(),
        "reference, C0 and C differ in length"
    );
    assert!(
        u32::try_from(c.len()).is_ok(),
        "element indices must fit 32 bits"
    );
    let chunk = c.len().div_ceil(host_threads()).max(1 << 16);
    let parts = par_ranges(c.len(), chunk, |range| {
        let mut t = Tally::default();
        for i in range {
            let verdict = judge(c[i], c0[i], reference[i], alpha, beta);
            t.add(i as u32, c[i], verdict);
        }
        t
    });
    parts.into_iter().fold(Tally::default(), Tally::merge)
}

/// The verdict of a bit-exact check of `of` values against a CPU model, `wrong` of which differ:
/// passed when none differs and there was one to check; the error is how many differ (all `of`
/// where the model could not vouch for the values).
pub fn exact_check(wrong: usize, of: usize, what: String) -> Check {
    Check {
        passed: wrong == 0 && of > 0,
        error: wrong as f64,
        bound: 0.0,
        what,
        hashes: None,
    }
}

/// Checks a copy of `src` into a zeroed `dst` by a kernel that copies whole `width`-float
/// vectors only: the first `src.len() / width * width` floats must match bit for bit, the rest
/// must still be zero.
pub fn check_copy(src: &[f32], dst: &[f32], width: u32) -> Check {
    let copied = src.len() / width as usize * width as usize;
    let common = copied.min(dst.len());
    let chunk = common.div_ceil(host_threads()).max(1 << 20);
    let differ = |r: Range<usize>| {
        let pairs = src[r.clone()].iter().zip(&dst[r]);
        pairs.filter(|(x, y)| x.to_bits() != y.to_bits()).count()
    };
    let differing: usize = par_ranges(common, chunk, differ).into_iter().sum();
    let tail = dst.get(copied..).unwrap_or_default();
    let written = tail.iter().filter(|d| d.to_bits() != 0).count();
    let wrong = src.len().abs_diff(dst.len()) + (copied - common) + differing + written;
    let uncopied = match src.len() - copied {
        0 => String::new(),
        n => format!(" (the {n} floats past the last whole vector must stay zero)"),
    };
    Check {
        passed: wrong == 0,
        error: wrong as f64,
        bound: 0.0,
        what: format!(
            "every one of {} floats of random data copied bit-exactly into a zeroed \
             destination{uncopied}; error = floats that differ",
            src.len(),
        ),
        hashes: None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::inputs::random_floats;

    /// `rows x cols` row-major, transposed.
    pub(crate) fn transpose(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
        let mut t = vec![0.0; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                t[c * rows + r] = x[r * cols + c];
            }
        }
        t
    }

    /// Every element's dot product by `dot` ([`every_element`]).
    pub(crate) fn every_dot(
        dims: GemmDims,
        a: &[f32],
        b_t: &[f32],
        dot: impl Fn(&[f32], &[f32]) -> f32 + Sync,
    ) -> Vec<f32> {
        every_element(dims, (a, b_t), 0.0, dot)
    }

    /// Row-major C = alpha*A*B + beta*C0 in f32, A m x k, B k x n.
    pub(crate) fn cpu_gemm(
        (a, b, c0): (&[f32], &[f32], &[f32]),
        GemmDims { m, n, k }: GemmDims,
        alpha: f32,
        beta: f32,
    ) -> Vec<f32> {
        let (m, n, k) = (m as usize, n as usize, k as usize);
        let mut c = vec![0.0f32; m * n];
        for r in 0..m {
            for col in 0..n {
                let mut acc = 0.0f32;
                for i in 0..k {
                    acc = a[r * k + i].mul_add(b[i * n + col], acc);
                }
                c[r * n + col] = alpha * acc + beta * c0[r * n + col];
            }
        }
        c
    }

    /// The f64 reference of A (M x K), B^T (N x K) and C0 at `dims`.
    pub(crate) fn reference_of(
        dims: GemmDims,
        (a, b_t, c0): (&[f32], &[f32], &[f32]),
    ) -> Vec<Reference> {
        gemm_reference(&GemmInputs { dims, a, b_t, c0 })
    }

    pub(crate) fn problem(dims: GemmDims, seed: u64) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let GemmDims { m, n, k } = dims;
        let (m, n, k) = (m as usize, n as usize, k as usize);
        (
            random_floats(m * k, seed),
            random_floats(k * n, seed + 1),
            random_floats(m * n, seed + 2),
        )
    }

    /// The twin's reference is the f64 dot product, and its spread the larger of the forward
    /// and backward partial sums' root sum of squares, computed here the long way.
    #[test]
    fn the_reference_is_the_f64_dot_and_the_spread_of_its_partial_sums() {
        let dims = GemmDims { m: 3, n: 5, k: 7 };
        let (a, b, c0) = problem(dims, 1);
        let b_t = transpose(&b, 7, 5);
        let reference = reference_of(dims, (&a, &b_t, &c0));
        assert_eq!(reference.len(), 15);
        for r in 0..3 {
            for c in 0..5 {
                let p: Vec<f64> = (0..7)
                    .map(|i| f64::from(a[r * 7 + i]) * f64::from(b[i * 5 + c]))
                    .collect();
                let dot: f64 = p.iter().sum();
                let forward: f64 = (1..=7).map(|j| p[..j].iter().sum::<f64>().powi(2)).sum();
                let backward: f64 = (1..=7)
                    .map(|j| p[7 - j..].iter().sum::<f64>().powi(2))
                    .sum();
                let got = reference[r * 5 + c];
                assert!((got.dot - dot).abs() <= 1e-15, "{got:?} vs {dot}");
                let spread = forward.max(backward).sqrt();
                assert!(
                    (got.spread - spread).abs() <= 1e-12 * spread,
                    "{got:?} vs {spread}"
                );
            }
        }
    }

    #[test]
    fn every_element_is_judged_and_the_worst_is_located() {
        let dims = GemmDims::square(64);
        let (a, b, c0) = problem(dims, 1);
        let b_t = transpose(&b, 64, 64);
        let reference = reference_of(dims, (&a, &b_t, &c0));
        let mut c = cpu_gemm((&a, &b, &c0), dims, 1.5, 0.5);
        let ok = tally_gemm(&reference, &c0, &c, 1.5, 0.5);
        assert_eq!((ok.over, ok.non_finite), (0, 0), "{ok:?}");
        assert!(ok.worst_ratio() < 0.5, "{ok:?}");

        // Forgetting the beta*C0 term fails almost every element.
        let no_beta = cpu_gemm((&a, &b, &c0), dims, 1.5, 0.0);
        assert!(tally_gemm(&reference, &c0, &no_beta, 1.5, 0.5).over > 4000);

        // One wrong element anywhere is found, and named as the worst.
        c[37 * 64 + 11] += 0.01;
        let bad = tally_gemm(&reference, &c0, &c, 1.5, 0.5);
        assert_eq!(bad.over, 1);
        assert_eq!(bad.worst_index(), 37 * 64 + 11);
        assert!(bad.worst_ratio() > 1.0);

        // A NaN and an infinity count twice: over the tolerance, and not finite.
        c[5 * 64 + 7] = f32::NAN;
        c[63 * 64 + 63] = f32::NEG_INFINITY;
        let t = tally_gemm(&reference, &c0, &c, 1.5, 0.5);
        assert_eq!((t.over, t.non_finite), (3, 2));
        assert_eq!(t.worst_ratio(), f32::INFINITY);
        assert_eq!(t.worst_index(), 63 * 64 + 63, "ties go to the higher index");
    }

    /// A kernel whose edge block is wrong at a size that does not tile (the partial block at the
    /// bottom right of a 128-tile grid over 200 x 150, computed without the last partial K slice,
    /// or left at C0) fails, while the right answer passes: every element is checked, so no
    /// choice of sample points is needed to catch it.
    #[test]
    fn a_wrong_edge_tile_is_caught_at_a_size_that_does_not_tile() {
        let dims = GemmDims {
            m: 200,
            n: 150,
            k: 75,
        };
        let (m, n, k) = (200usize, 150usize, 75usize);
        let (a, b, c0) = problem(dims, 1);
        let b_t = transpose(&b, k, n);
        let reference = reference_of(dims, (&a, &b_t, &c0));
        let right = cpu_gemm((&a, &b, &c0), dims, 1.5, 0.5);
        assert_eq!(tally_gemm(&reference, &c0, &right, 1.5, 0.5).over, 0);
        let edge = (128 * 128..m * n).filter(|i| i / n >= 128 && i % n >= 128);
        let short_k = GemmDims { k: 72, ..dims };
        let a_short: Vec<f32> = (0..m).flat_map(|r| a[r * k..r * k + 72].to_vec()).collect();
        let truncated = cpu_gemm((&a_short, &b[..72 * n], &c0), short_k, 1.5, 0.5);
        let (mut wrong, mut untouched) = (right.clone(), right.clone());
        for i in edge.clone() {
            wrong[i] = truncated[i];
            untouched[i] = c0[i];
        }
        let edge_len = edge.count() as u64;
        assert_eq!(edge_len, 72 * 22);
        let bad = tally_gemm(&reference, &c0, &wrong, 1.5, 0.5);
        assert!(bad.over > edge_len * 9 / 10, "{bad:?}");
        let bad = tally_gemm(&reference, &c0, &untouched, 1.5, 0.5);
        assert!(bad.over > edge_len * 9 / 10, "{bad:?}");
    }

    #[test]
    fn copy_check_is_exact() {
        let src = random_floats(1000, 4);
        assert!(check_copy(&src, &src, 4).passed);
        let mut dst = src.clone();
        dst[999] = 0.0;
        let c = check_copy(&src, &dst, 1);
        assert!(!c.passed);
        assert_eq!(c.error, 1.0);
    }

    #[test]
    fn copy_check_expects_the_partial_vector_tail_untouched() {
        let src = random_floats(10, 5);
        let mut dst = src.clone();
        dst[8] = 0.0;
        dst[9] = 0.0;
        assert!(
            check_copy(&src, &dst, 4).passed,
            "10 floats = 2 float4s + 2 uncopied"
        );
        assert!(
            !check_copy(&src, &src, 4).passed,
            "the tail must not be written"
        );
    }
}
