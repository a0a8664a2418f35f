//! The hash of a GEMM output that accounts for the launches the element check does not see
//! (`gemm_hash.rs` on the GPU; the host compares it with the verified launch's, see
//! `host/src/experiments/gemm_hashes.rs`). Compiled for the GPU and for the host, so that the
//! host's model of the kernel runs this very arithmetic.
//!
//! The hash of C is the wrapping sum, over every element, of [`mix`] of the element's index and
//! its 32 bits. A sum modulo 2^64 does not depend on the order of its terms, so the kernel may
//! add its threads' partial sums with atomics in whatever order they arrive and still give the
//! same bits for the same C: a deterministic kernel's outputs hash alike, launch after launch.
//! [`mix`] is a bijection of the pair (index, bits), so two Cs that differ in one element hash
//! differently, always; Cs that differ in several collide only if their terms' differences cancel
//! modulo 2^64, which for a well-mixed function is a chance of about 2^-64.

/// splitmix64's increment (the golden ratio in 64 bits): with it, a zero pair mixes to a
/// nonzero term.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The term of one element: splitmix64's finalizer (Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014) of the index in the high half and the bits in
/// the low half. Each step (an xor with a right shift, a multiply by an odd constant, adding a
/// constant) is invertible modulo 2^64, so the whole is a bijection.
#[inline(always)]
pub const fn mix(index: u32, bits: u32) -> u64 {
    let mut z = (((index as u64) << 32) | bits as u64).wrapping_add(GOLDEN);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The hash of `c` (fewer than 2^32 elements), as the kernel computes it: the CPU model the GPU
/// tests hold the kernel to.
pub fn hash(c: &[f32]) -> u64 {
    c.iter().enumerate().fold(0u64, |sum, (i, v)| {
        sum.wrapping_add(mix(i as u32, v.to_bits()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_changed_bit_anywhere_changes_the_hash() {
        let c: [f32; 64] = core::array::from_fn(|i| i as f32 * 0.37 - 5.0);
        let h = hash(&c);
        for at in [0, 1, 31, 63] {
            for bit in [0, 1, 22, 23, 31] {
                let mut d = c;
                d[at] = f32::from_bits(d[at].to_bits() ^ (1 << bit));
                assert_ne!(hash(&d), h, "bit {bit} of element {at}");
            }
        }
        // -0.0 and 0.0 compare equal but are different bits: the hash tells them apart.
        let (mut z, mut nz) = (c, c);
        z[5] = 0.0;
        nz[5] = -0.0;
        assert_ne!(hash(&z), hash(&nz));
    }

    #[test]
    fn swapped_elements_hash_differently_but_any_summing_order_hashes_alike() {
        let c: [f32; 8] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        let mut swapped = c;
        swapped.swap(2, 5);
        assert_ne!(hash(&c), hash(&swapped), "the index is part of each term");
        // The kernel adds per-thread sums in any order: the sum of the terms taken in reverse,
        // or in two interleaved halves, is the same word.
        let terms: [u64; 8] = core::array::from_fn(|i| mix(i as u32, c[i].to_bits()));
        let reversed = terms.iter().rev().fold(0u64, |s, t| s.wrapping_add(*t));
        let even = terms
            .iter()
            .step_by(2)
            .fold(0u64, |s, t| s.wrapping_add(*t));
        let odd = terms
            .iter()
            .skip(1)
            .step_by(2)
            .fold(0u64, |s, t| s.wrapping_add(*t));
        assert_eq!(reversed, hash(&c));
        assert_eq!(odd.wrapping_add(even), hash(&c));
    }

    #[test]
    fn mix_is_splitmix64s_finalizer() {
        // splitmix64's first output from seed 0 (its state advanced once by the increment).
        assert_eq!(mix(0, 0), 0xE220_A839_7B1D_CDAF);
        assert_ne!(
            mix(1, 0),
            mix(0, 1),
            "index and bits are not interchangeable"
        );
    }
}
