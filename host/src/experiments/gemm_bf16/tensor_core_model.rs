//! A CPU model of a tensor core's FP32 accumulation of bf16 products, after the bit-accurate models
//! cited in `experiments/bf16_tolerance.rs` (MMA-Sim's `nv_fused_dot_add`): per group of products,
//! one fixed-point sum of the accumulator and the exact products aligned to the largest exponent
//! among them, each addend truncated toward zero to a number of fractional bits below it, then the
//! sum truncated (toward zero) to FP32. The tolerance's tests run the lab's problems through it.

/// One tensor core's accumulation: products per group, and fractional bits kept below the
/// largest addend's leading bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorCoreModel {
    pub group: usize,
    pub fractional_bits: i32,
}

/// sm_90 (H100, H200): m16n8k16 is one group of 16, aligned to 25 fractional bits.
pub const SM90: TensorCoreModel = TensorCoreModel {
    group: 16,
    fractional_bits: 25,
};
/// sm_80 (A100): m16n8k16 is two groups of 8, aligned to 24 fractional bits.
pub const SM80: TensorCoreModel = TensorCoreModel {
    group: 8,
    fractional_bits: 24,
};

/// The exponent of a normal, non-zero `x`: 2^e <= |x| < 2^(e+1).
fn exponent(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// `x` truncated toward zero to an f32.
fn to_f32_toward_zero(x: f64) -> f32 {
    let nearest = x as f32;
    if nearest != 0.0 && f64::from(nearest).abs() > x.abs() {
        // One step toward zero: the bit pattern of a float's magnitude orders like the magnitude.
        f32::from_bits(nearest.to_bits() - 1)
    } else {
        nearest
    }
}

impl TensorCoreModel {
    /// acc + the sum of `products` (each exact, at most `group` of them), as the tensor core
    /// adds them.
    pub fn group_add(&self, acc: f32, products: &[f64]) -> f32 {
        assert!(products.len() <= self.group, "one group at a time");
        let addends = || std::iter::once(f64::from(acc)).chain(products.iter().copied());
        let Some(top) = addends().filter(|&x| x != 0.0).map(exponent).max() else {
            return acc;
        };
        // Every addend in units of the grid 2^(top - fractional_bits), truncated toward zero:
        // below 2^(fractional_bits + 1) each, so 17 of them fit an i64, and the sum is exact.
        let unit = 2f64.powi(top - self.fractional_bits);
        let sum: i64 = addends().map(|x| (x / unit).trunc() as i64).sum();
        to_f32_toward_zero(sum as f64 * unit)
    }

    /// The dot product of `a` and `b` (widened bf16s, so each product is exact) from an
    /// accumulator of 0, group after group in k order; `drop` leaves one k-term out.
    pub fn dot(&self, a: &[f32], b: &[f32], drop: Option<usize>) -> f32 {
        let products: Vec<f64> = a
            .iter()
            .zip(b)
            .enumerate()
            .map(|(i, (&x, &y))| {
                if Some(i) == drop {
                    0.0
                } else {
                    f64::from(x) * f64::from(y)
                }
            })
            .collect();
        products
            .chunks(self.group)
            .fold(0.0f32, |acc, g| self.group_add(acc, g))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_integers_sum_exactly() {
        let a = [1.0f32, 2.0, 3.0, 4.0, -5.0, 6.0, 7.0, 8.0, 9.0];
        let b = [2.0f32; 9];
        for model in [SM90, SM80] {
            assert_eq!(model.dot(&a, &b, None), 70.0);
            assert_eq!(model.dot(&a, &b, Some(4)), 80.0);
        }
        assert_eq!(SM90.group_add(0.0, &[]), 0.0);
        assert_eq!(SM90.group_add(-3.0, &[0.0, 0.0]), -3.0);
    }

    #[test]
    fn the_sum_is_truncated_toward_zero_not_rounded() {
        // 1 + 3*2^-25 is exactly on sm_90's grid; to nearest it would be 1 + 2^-23 (0.75 ulp
        // up), toward zero it is 1.
        let tiny = 3.0 * 2f64.powi(-25);
        assert_eq!(SM90.group_add(1.0, &[tiny]), 1.0);
        assert_eq!(SM90.group_add(-1.0, &[-tiny]), -1.0);
        let nearest = (1.0 + tiny) as f32;
        assert_eq!(nearest, 1.0 + f32::EPSILON, "round to nearest differs");
        // Across a carry into the next binade: 2 + 3*2^-24 is 0.75 of an ulp above 2 there.
        let below_two = 2.0 - f64::from(f32::EPSILON);
        let carry = 5.0 * 2f64.powi(-24);
        assert_eq!(SM90.group_add(below_two as f32, &[carry]), 2.0);
        assert_eq!((below_two + carry) as f32, 2.0 + 2.0 * f32::EPSILON);
    }

    #[test]
    fn addends_are_truncated_on_the_largest_ones_grid() {
        // Sixteen products of 2^-26 under an accumulator of 1: each is half of sm_90's grid step
        // and truncates to nothing, though their sum, 2^-22, is an f32 step four times over.
        let small = [2f64.powi(-26); 16];
        assert_eq!(SM90.group_add(1.0, &small), 1.0);
        assert_eq!(1.0 + small.iter().sum::<f64>(), 1.0 + 2f64.powi(-22));
        // The same products alone keep every bit.
        assert_eq!(f64::from(SM90.group_add(0.0, &small)), 2f64.powi(-22));
        // sm_80 keeps one fractional bit fewer: 2^-25 is lost there, kept on sm_90.
        let half_step = [2f64.powi(-25); 8];
        assert_eq!(SM80.group_add(1.0, &half_step), 1.0);
        let kept = f64::from(SM90.group_add(1.0, &half_step));
        assert_eq!(kept, 1.0 + 2f64.powi(-22));
    }
}
