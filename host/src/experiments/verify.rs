//! Correctness checks: GEMM entries against an f64 CPU reference, copies exactly.

use std::thread;

use super::inputs::{host_threads, Rng};
use crate::results::{Check, GemmDims};

/// Relative error bound of a GEMM entry, relative to `|alpha|*sum|a*b| + |beta*c0|`.
pub const GEMM_REL_BOUND: f64 = 1e-4;
/// Random entries checked per GEMM, on top of every tile's corners.
pub const GEMM_RANDOM_SAMPLES: usize = 4096;

/// Host copies of a GEMM's inputs, row-major: A is M x K, `b_t` is B (K x N) transposed (N x K),
/// C0 is M x N.
pub struct GemmInputs<'a> {
    pub dims: GemmDims,
    pub a: &'a [f32],
    pub b_t: &'a [f32],
    pub c0: &'a [f32],
    pub alpha: f32,
    pub beta: f32,
}

/// The entries of an `m x n` C to check: the four corners of every `tile x tile` tile (a partial
/// edge tile's corners are its last row and column), every entry of the last row and of the last
/// column when the size does not tile (the edge blocks of every tile shape lie there), and
/// `random` random entries.
pub fn gemm_sample_points(
    (m, n): (u32, u32),
    tile: u32,
    random: usize,
    seed: u64,
) -> Vec<(u32, u32)> {
    let mut points = Vec::new();
    for r0 in (0..m).step_by(tile as usize) {
        for c0 in (0..n).step_by(tile as usize) {
            let (r1, c1) = ((r0 + tile).min(m) - 1, (c0 + tile).min(n) - 1);
            points.extend([(r0, c0), (r0, c1), (r1, c0), (r1, c1)]);
        }
    }
    if !m.is_multiple_of(tile) || !n.is_multiple_of(tile) {
        points.extend((0..n).map(|c| (m - 1, c)));
        points.extend((0..m).map(|r| (r, n - 1)));
    }
    let mut rng = Rng::new(seed ^ 0x5EED_C0DE);
    points.extend((0..random).map(|_| (rng.below(m), rng.below(n))));
    points
}

/// Checks `c` (the kernel's output) at `points` and that every entry is finite.
pub fn check_gemm(inputs: &GemmInputs<'_>, c: &[f32], points: &[(u32, u32)]) -> Check {
    let GemmDims { m, n, k } = inputs.dims;
    let non_finite = c.iter().filter(|x| !x.is_finite()).count();
    let chunk = points.len().div_ceil(host_threads()).max(256);
    let (worst, failed) = thread::scope(|s| {
        let parts: Vec<_> = points
            .chunks(chunk)
            .map(|part| s.spawn(move || check_points(inputs, c, part)))
            .collect();
        parts
            .into_iter()
            .map(|h| h.join().unwrap_or((f64::INFINITY, 1)))
            .fold((0.0f64, 0usize), |(w, f), (pw, pf)| (w.max(pw), f + pf))
    });
    Check {
        passed: failed == 0 && non_finite == 0 && !points.is_empty(),
        error: if non_finite > 0 { f64::INFINITY } else { worst },
        bound: GEMM_REL_BOUND,
        what: format!(
            "C = {}*A*B + {}*C0 on random inputs in [-1,1], M x N x K = {m}x{n}x{k}: {} \
             entries (every 64x64 tile's corners, the last row and column where the size does \
             not tile, and {GEMM_RANDOM_SAMPLES} random ones) against an f64 CPU dot product, \
             |c - ref| <= {GEMM_REL_BOUND:e} * (|alpha|*sum|a*b| + |beta*c0|) ({failed} over \
             the bound); every entry finite ({non_finite} not)",
            inputs.alpha,
            inputs.beta,
            points.len()
        ),
    }
}

/// Largest relative error and count over the bound at `points`.
fn check_points(inputs: &GemmInputs<'_>, c: &[f32], points: &[(u32, u32)]) -> (f64, usize) {
    let (n, k) = (inputs.dims.n as usize, inputs.dims.k as usize);
    let mut worst = 0.0f64;
    let mut failed = 0usize;
    for &(r, col) in points {
        let (r, col) = (r as usize, col as usize);
        let row = &inputs.a[r * k..(r + 1) * k];
        let column = &inputs.b_t[col * k..(col + 1) * k];
        let (mut dot, mut mag) = (0.0f64, 0.0f64);
        for (&x, &y) in row.iter().zip(column) {
            let p = f64::from(x) * f64::from(y);
            dot += p;
            mag += p.abs();
        }
        let c0 = f64::from(inputs.c0[r * n + col]);
        let (alpha, beta) = (f64::from(inputs.alpha), f64::from(inputs.beta));
        let reference = alpha * dot + beta * c0;
        let scale = alpha.abs() * mag + (beta * c0).abs();
        let diff = (f64::from(c[r * n + col]) - reference).abs();
        let err = if scale > 0.0 { diff / scale } else { diff };
        if err.is_nan() || err > GEMM_REL_BOUND {
            failed += 1;
        }
        if err.is_nan() {
            worst = f64::INFINITY;
        } else {
            worst = worst.max(err);
        }
    }
    (worst, failed)
}

/// Checks a copy of `src` into a zeroed `dst` by a kernel that copies whole `width`-float
/// vectors only: the first `src.len() / width * width` floats must match bit for bit, the rest
/// must still be zero.
pub fn check_copy(src: &[f32], dst: &[f32], width: u32) -> Check {
    let copied = src.len() / width as usize * width as usize;
    let mut wrong = src.len().abs_diff(dst.len());
    let common = copied.min(dst.len());
    let chunk = common.div_ceil(host_threads()).max(1 << 20);
    wrong += copied - common;
    wrong += thread::scope(|s| {
        let parts: Vec<_> = src[..common]
            .chunks(chunk)
            .zip(dst[..common].chunks(chunk))
            .map(|(a, b)| {
                s.spawn(move || {
                    a.iter()
                        .zip(b)
                        .filter(|(x, y)| x.to_bits() != y.to_bits())
                        .count()
                })
            })
            .collect();
        parts
            .into_iter()
            .map(|h| h.join().unwrap_or(usize::MAX / 2))
            .sum::<usize>()
    });
    wrong += dst
        .get(copied..)
        .unwrap_or_default()
        .iter()
        .filter(|d| d.to_bits() != 0)
        .count();
    Check {
        passed: wrong == 0,
        error: wrong as f64,
        bound: 0.0,
        what: format!(
            "every one of {} floats of random data copied bit-exactly into a zeroed \
             destination{}; error = floats that differ",
            src.len(),
            if copied < src.len() {
                format!(
                    " (the {} floats past the last whole vector must stay zero)",
                    src.len() - copied
                )
            } else {
                String::new()
            }
        ),
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

    #[test]
    fn sample_points_cover_tile_corners_and_stay_inside() {
        let p = gemm_sample_points((128, 128), 64, 10, 1);
        assert_eq!(p.len(), 4 * 4 + 10);
        assert!(p.contains(&(0, 0)) && p.contains(&(127, 127)));
        assert!(p.contains(&(63, 64)) && p.contains(&(64, 63)));
        assert!(p.iter().all(|&(r, c)| r < 128 && c < 128));
        // Not tiling: partial tiles' corners, the whole last row and column, all inside.
        let p = gemm_sample_points((100, 70), 64, 10, 1);
        assert!(p.contains(&(99, 69)) && p.contains(&(64, 69)) && p.contains(&(99, 64)));
        assert!((0..70).all(|c| p.contains(&(99, c))));
        assert!((0..100).all(|r| p.contains(&(r, 69))));
        assert!(p.iter().all(|&(r, c)| r < 100 && c < 70));
    }

    fn problem(dims: GemmDims) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let GemmDims { m, n, k } = dims;
        let (m, n, k) = (m as usize, n as usize, k as usize);
        (
            random_floats(m * k, 1),
            random_floats(k * n, 2),
            random_floats(m * n, 3),
        )
    }

    #[test]
    fn an_f32_gemm_passes_and_a_wrong_entry_fails() {
        let dims = GemmDims::square(64);
        let n = 64;
        let (a, b, c0) = problem(dims);
        let b_t = transpose(&b, n, n);
        let inputs = GemmInputs {
            dims,
            a: &a,
            b_t: &b_t,
            c0: &c0,
            alpha: 1.5,
            beta: 0.5,
        };
        let mut c = cpu_gemm((&a, &b, &c0), dims, 1.5, 0.5);
        let points = gemm_sample_points((64, 64), 64, 200, 9);
        let ok = check_gemm(&inputs, &c, &points);
        assert!(ok.passed, "{ok:?}");
        assert!(ok.error < 1e-6);

        // Forgetting the beta*C0 term is caught.
        let no_beta = cpu_gemm((&a, &b, &c0), dims, 1.5, 0.0);
        assert!(!check_gemm(&inputs, &no_beta, &points).passed);

        // One wrong corner is caught.
        c[63 * n + 63] += 0.01;
        let bad = check_gemm(&inputs, &c, &points);
        assert!(!bad.passed && bad.error > GEMM_REL_BOUND);

        // A NaN anywhere, even off the sampled points, is caught.
        let mut nan = cpu_gemm((&a, &b, &c0), dims, 1.5, 0.5);
        nan[5 * n + 7] = f32::NAN;
        assert!(!check_gemm(&inputs, &nan, &[(0, 0)]).passed);
    }

    /// A kernel whose edge block is wrong at a size that does not tile (here: the partial block
    /// at the bottom right of a 128-tile grid over 200 x 150, computed without the last partial
    /// K slice, or left at C0) fails the check, while the right answer passes.
    #[test]
    fn a_wrong_edge_tile_is_caught_at_a_size_that_does_not_tile() {
        let dims = GemmDims {
            m: 200,
            n: 150,
            k: 75,
        };
        let (m, n, k) = (200usize, 150usize, 75usize);
        let (a, b, c0) = problem(dims);
        let b_t = transpose(&b, k, n);
        let inputs = GemmInputs {
            dims,
            a: &a,
            b_t: &b_t,
            c0: &c0,
            alpha: 1.5,
            beta: 0.5,
        };
        let points = gemm_sample_points((200, 150), 64, 64, 11);
        let right = cpu_gemm((&a, &b, &c0), dims, 1.5, 0.5);
        assert!(check_gemm(&inputs, &right, &points).passed);
        // The edge block (rows 128.., columns 128..) without K's last partial slice of 8.
        let short_k = GemmDims { k: 72, ..dims };
        let a_short: Vec<f32> = (0..m).flat_map(|r| a[r * k..r * k + 72].to_vec()).collect();
        let truncated = cpu_gemm((&a_short, &b[..72 * n], &c0), short_k, 1.5, 0.5);
        let mut wrong = right.clone();
        for r in 128..m {
            for c in 128..n {
                wrong[r * n + c] = truncated[r * n + c];
            }
        }
        let bad = check_gemm(&inputs, &wrong, &points);
        assert!(!bad.passed, "{bad:?}");
        // The edge block never written (still C0).
        let mut untouched = right.clone();
        for r in 128..m {
            for c in 128..n {
                untouched[r * n + c] = c0[r * n + c];
            }
        }
        assert!(!check_gemm(&inputs, &untouched, &points).passed);
        // Without the points inside the edge block it would pass: the sampling is what catches
        // it, not luck.
        let random_only: Vec<(u32, u32)> = points
            .iter()
            .copied()
            .filter(|&(r, c)| r < 128 || c < 128)
            .collect();
        assert!(check_gemm(&inputs, &untouched, &random_only).passed);
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
