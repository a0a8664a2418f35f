//! The BF16 problem's inputs: A and B are the FP32 problem's random inputs
//! (`inputs::random_floats`, the same seeds) rounded to the nearest bf16, so every value is exactly
//! a bf16; the kernels and cuBLAS read their bits, the f64 reference reads them widened back to
//! f32, which is exact (a bf16 is the upper half of an f32). C0 is the FP32 problem's.

use super::inputs::random_floats;
use crate::results::GemmDims;

/// The bf16 nearest to `x` (ties to even), as its bits. The lab's inputs are finite.
pub fn bf16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let rounded = bits + 0x7fff + ((bits >> 16) & 1);
    (rounded >> 16) as u16
}

/// The f32 of a bf16's bits: exact.
pub fn widen(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// One row-major matrix of bf16 values: their bits, and the same values widened to f32.
pub struct Bf16Matrix {
    pub bits: Vec<u16>,
    pub wide: Vec<f32>,
}

impl Bf16Matrix {
    /// `len` of the FP32 problem's random floats from `seed`, each rounded to the nearest bf16.
    fn random(len: usize, seed: u64) -> Self {
        let bits: Vec<u16> = random_floats(len, seed)
            .into_iter()
            .map(bf16_bits)
            .collect();
        let wide = bits.iter().map(|&x| widen(x)).collect();
        Self { bits, wide }
    }
}

/// One problem's inputs on the host: A (M x K) and B (K x N), C0 (M x N).
pub struct Bf16Inputs {
    pub dims: GemmDims,
    pub a: Bf16Matrix,
    pub b: Bf16Matrix,
    pub c0: Vec<f32>,
}

impl Bf16Inputs {
    /// A, B and C0 from `seed`, `seed + 1` and `seed + 2`, as the FP32 problem's.
    pub fn new(dims: GemmDims, seed: u64) -> Self {
        let (m, n, k) = (dims.m as usize, dims.n as usize, dims.k as usize);
        Self {
            dims,
            a: Bf16Matrix::random(m * k, seed),
            b: Bf16Matrix::random(k * n, seed.wrapping_add(1)),
            c0: random_floats(m * n, seed.wrapping_add(2)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_to_bf16_is_to_nearest_with_ties_to_even() {
        for (x, rounded) in [
            // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: to even, 1.
            (1.0 + 2f32.powi(-8), 1.0),
            // 1 + 3*2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: to even, 1 + 2^-6.
            (1.0 + 3.0 * 2f32.powi(-8), 1.0 + 2f32.powi(-6)),
            (1.0 + 2f32.powi(-8) + 2f32.powi(-20), 1.0 + 2f32.powi(-7)),
            (-0.75, -0.75),
            // Near 1 from below rounds up to exactly 1, still in the inputs' range.
            (0.999_999_9, 1.0),
        ] {
            assert_eq!(widen(bf16_bits(x)), rounded, "{x}");
        }
    }

    #[test]
    fn inputs_are_bf16_values_near_the_fp32_problems() {
        let dims = GemmDims { m: 3, n: 5, k: 7 };
        let p = Bf16Inputs::new(dims, 11);
        let fp32 = random_floats(21, 11);
        assert_eq!((p.a.bits.len(), p.b.bits.len(), p.c0.len()), (21, 35, 15));
        for (i, (&x, &w)) in fp32.iter().zip(&p.a.wide).enumerate() {
            assert_eq!(w.to_bits() & 0xffff, 0, "{i}: the widened value is a bf16");
            assert_eq!(widen(p.a.bits[i]), w);
            // Within half a bf16 ulp (2^-8 relative) of the FP32 input.
            assert!((x - w).abs() <= x.abs() * 2f32.powi(-8), "{x} vs {w}");
        }
        assert_eq!(p.c0, random_floats(15, 13));
        assert!(p.b.wide.iter().all(|x| (-1.0..=1.0).contains(x)));
    }
}
