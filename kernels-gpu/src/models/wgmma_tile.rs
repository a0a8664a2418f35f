//! CPU model of the wgmma microbenchmark (`wgmma_bf16_n{N}_g{GROUPS}`, see `sections/wgmma.rs`):
//! the 64 x N tile every block writes after `iters` rounds of GROUPS m64nNk16 MMAs on the same
//! accumulators, D = iters * GROUPS * (A B), from the same operand values the kernel writes.
//!
//! As for `mma.sync`'s model (`models/mma_sync.rs`), the model is only claimed exact while every
//! partial sum is an integer within 2^24, whatever order the tensor cores add in; it refuses
//! otherwise.

use crate::models::mma_sync::{Inexact, EXACT_LIMIT};
use crate::sections::wgmma::{a_value, b_value, WgmmaVariant, WGMMA_K, WGMMA_M};

/// The model of one line after `iters` rounds: what every block writes, element by element.
#[derive(Debug, Clone, Copy)]
pub struct WgmmaTile {
    n: u32,
    mmas: i64,
}

impl WgmmaTile {
    /// The tile of `v` after `iters` rounds, or why the model cannot vouch for it.
    pub fn new(v: &WgmmaVariant, iters: u32) -> Result<Self, Inexact> {
        // Each MMA adds at most K products of magnitude 1 to an accumulator.
        let mmas = i64::from(iters) * i64::from(v.groups);
        if (mmas * i64::from(WGMMA_K)) as f64 >= EXACT_LIMIT {
            return Err(Inexact::TooLarge);
        }
        Ok(Self { n: v.n, mmas })
    }

    /// Element `i` of the row-major 64 x N tile.
    pub fn element(&self, i: usize) -> f32 {
        let (m, n) = (i as u32 / self.n, i as u32 % self.n);
        debug_assert!(m < WGMMA_M);
        let dot: i32 = (0..WGMMA_K).map(|k| a_value(m, k) * b_value(k, n)).sum();
        // In integers: the accumulators start at +0.0 and a zero sum stays +0.0 (a float
        // product of a negative dot and zero rounds would be -0.0, which the GPU never writes).
        (i64::from(dot) * self.mmas) as f32
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::sections::wgmma::{
        accumulator_position, b_offset, k_major_offset, small_bf16, wgmma_descriptor,
        WARPGROUP_THREADS,
    };
    use crate::variants::WGMMA_BF16;
    use std::vec;

    /// Every element of the 64 x N tile is held by exactly one (thread, register).
    #[test]
    fn the_accumulator_fragment_covers_the_tile_once() {
        for n in [64u32, 128, 256] {
            let mut seen = vec![0u8; (WGMMA_M * n) as usize];
            for t in 0..WARPGROUP_THREADS {
                for r in 0..n / 2 {
                    let (row, col) = accumulator_position(t, r);
                    assert!(
                        row < WGMMA_M && col < n,
                        "n {n}: ({t}, {r}) -> ({row}, {col})"
                    );
                    seen[(row * n + col) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "n {n}");
        }
        // The ISA's figure: lane 5 of warp 1 holds row 16 + 1, columns 2 and 3 of each slice.
        assert_eq!(accumulator_position(37, 0), (17, 2));
        assert_eq!(accumulator_position(37, 3), (25, 3));
        assert_eq!(accumulator_position(37, 5), (17, 11));
    }

    /// The epilogue of a whole tile (`gemm_wgmma.rs` `write_inside`) places a register at the
    /// thread's first element plus the register's own place (thread 0's): 0 or 8 rows down and
    /// a column that is the same for every thread, even for every even register (pairs stay
    /// 8-byte aligned where N is even). A layout where that sum failed would write C wrong.
    #[test]
    fn a_register_lies_at_the_threads_first_element_plus_its_own_offset() {
        for t in 0..WARPGROUP_THREADS {
            let (row, col) = accumulator_position(t, 0);
            assert_eq!(col % 2, 0, "thread {t}");
            for r in 0..256 / 2 {
                let (down, across) = accumulator_position(0, r);
                assert!(down == 0 || down == 8, "register {r}");
                assert_eq!(across % 2, r % 2, "register {r}");
                assert_eq!(
                    accumulator_position(t, r),
                    (row + down, col + across),
                    "thread {t}, register {r}"
                );
            }
        }
    }

    /// The K-major layout puts every element of a 64 x 16 or N x 16 operand at its own 2-byte
    /// slot, core matrices of 8 rows x 16 bytes contiguous, and A ends where B starts.
    #[test]
    fn the_operand_layout_is_a_bijection_of_core_matrices() {
        for rows in [64u32, 128, 256] {
            let mut seen = vec![false; (rows * WGMMA_K) as usize];
            for row in 0..rows {
                for k in 0..WGMMA_K {
                    let off = k_major_offset(row, k);
                    assert_eq!(off % 2, 0);
                    assert!(!core::mem::replace(&mut seen[(off / 2) as usize], true));
                    // Within a core matrix: rows 16 bytes apart, K contiguous.
                    assert_eq!(off / 128, (row / 8) * 2 + k / 8, "({row}, {k})");
                }
            }
        }
        assert_eq!(b_offset(), k_major_offset(63, 15) + 2);
    }

    #[test]
    fn descriptors_encode_16_byte_units_in_their_fields() {
        let d = wgmma_descriptor(0x1230, 128, 256);
        assert_eq!(d & 0x3fff, 0x123);
        assert_eq!((d >> 16) & 0x3fff, 8);
        assert_eq!((d >> 32) & 0x3fff, 16);
        assert_eq!(d >> 46, 0, "no swizzle, base offset 0");
    }

    #[test]
    fn operands_are_small_integers_that_mix_their_indices() {
        for i in 0..64 {
            for k in 0..16 {
                assert!((-1..=1).contains(&a_value(i, k)));
                assert!((-1..=1).contains(&b_value(k, i)));
            }
        }
        assert_eq!(small_bf16(1), 0x3f80);
        assert_eq!(small_bf16(-1), 0xbf80);
        assert_eq!(small_bf16(0), 0);
        // A transposed A (or B) would give another product: the patterns are not symmetric.
        assert!((0..16).any(|i| (0..16).any(|k| a_value(i, k) != a_value(k, i))));
        assert!((0..16).any(|i| (0..16).any(|k| b_value(i, k) != b_value(k, i))));
    }

    #[test]
    fn the_model_scales_one_product_by_the_mmas_and_refuses_past_2_pow_24() {
        let v = WGMMA_BF16
            .iter()
            .find(|v| v.n == 64 && v.groups == 2)
            .unwrap();
        let one = WgmmaTile::new(v, 1).unwrap();
        let many = WgmmaTile::new(v, 1000).unwrap();
        assert!(
            (0..64 * 64).any(|i| one.element(i) != 0.0),
            "the product is not all zeros"
        );
        for i in 0..64 * 64 {
            assert_eq!(one.element(i) * 1000.0, many.element(i));
        }
        // Element (1, 3): sum over k of a(1, k) * b(k, 3), twice per round.
        let dot: i32 = (0..16).map(|k| a_value(1, k) * b_value(k, 3)).sum();
        assert_eq!(one.element(64 + 3), (2 * dot) as f32);
        assert_eq!(WgmmaTile::new(v, 1 << 20).unwrap_err(), Inexact::TooLarge);
        // No rounds: every element is +0.0, as the accumulators start.
        let none = WgmmaTile::new(v, 0).unwrap();
        assert!((0..64 * 64).all(|i| none.element(i).to_bits() == 0));
    }
}
