//! CPU model of the tensor-core microbenchmark `mma_bf16_ilp{ILP}` (the peer's contract,
//! ../shared/peer/README.md): one `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` over a
//! warp's registers, through the fragment layouts of `mma_layout.rs`, and from it what every
//! thread writes.
//!
//! The hardware's order and precision of the sums inside one mma are not specified, so the model
//! is only claimed exact where every order gives the same f32: integer inputs whose sums stay
//! within 2^24 in magnitude. The model checks that and refuses ([`Inexact`]) otherwise, so a
//! check against it can never pass by accident of rounding.

use crate::shapes::mma_layout::{
    a_element, b_element, d_element, A_REGS, B_REGS, D_REGS, LANES, MMA_K, MMA_M, MMA_N,
};

/// Integers up to this magnitude are exact in f32, and so is every sum that stays within it.
pub const EXACT_LIMIT: f64 = (1u32 << 24) as f64;

/// Why the model cannot vouch for a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inexact {
    /// An input element is not an integer (or not finite).
    NotAnInteger,
    /// Some sum may leave the range where f32 holds every integer.
    TooLarge,
}

/// The f32 value of a bf16 bit pattern (exact: bf16 is f32's upper half).
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// The bf16 bit pattern of a small integer, `|x| <= 256` (exact: 8 significant bits).
///
/// # Panics
/// If `x` has no exact bf16.
pub fn bf16_of_int(x: i32) -> u16 {
    assert!(x.unsigned_abs() <= 256, "{x} is not exact in bf16");
    ((x as f32).to_bits() >> 16) as u16
}

/// Whether `x` is a finite integer (`core` has no `f64::fract`; every f64 at or above 2^52 in
/// magnitude is one, and below that the cast to i64 is exact for integers only).
fn is_integer(x: f64) -> bool {
    x.is_finite() && (x.abs() >= 4_503_599_627_370_496.0 || (x as i64) as f64 == x)
}

/// Half `half` (0: low, 1: high) of a 32-bit fragment register.
fn half_of(word: u32, half: u32) -> u16 {
    (word >> (16 * half)) as u16
}

/// A warp's A fragments holding the 16 x 16 row-major `a` (bf16 bits), lane-major: lane l's
/// registers are words `4l..4l+4`, as the kernel reads them from its `a` argument.
pub fn a_fragments(a: &[[u16; MMA_K as usize]; MMA_M as usize]) -> [u32; LANES as usize * A_REGS] {
    fragments(a, A_REGS, a_element)
}

/// A warp's B fragments holding the 16 x 8 `b` (k rows, n columns; bf16 bits), lane-major: lane
/// l's registers are words `2l..2l+2`.
pub fn b_fragments(b: &[[u16; MMA_N as usize]; MMA_K as usize]) -> [u32; LANES as usize * B_REGS] {
    fragments(b, B_REGS, b_element)
}

/// A warp's fragments of `regs` words a lane holding `m` (bf16 bits), lane-major: word
/// `regs * l + reg` is lane l's register `reg`, its two halves the elements of `m` that
/// `element` (the fragment layout: lane, register, half -> row, column) places there.
fn fragments<const ROWS: usize, const COLS: usize, const WORDS: usize>(
    m: &[[u16; COLS]; ROWS],
    regs: usize,
    element: fn(u32, u32, u32) -> (u32, u32),
) -> [u32; WORDS] {
    core::array::from_fn(|i| {
        let (lane, reg) = ((i / regs) as u32, (i % regs) as u32);
        let word = |half| {
            let (r, c) = element(lane, reg, half);
            u32::from(m[r as usize][c as usize]) << (16 * half)
        };
        word(0) | word(1)
    })
}

/// The 16 x 8 product A*B of the matrices a warp's fragments hold (`a`: 4 words a lane, `b`: 2),
/// each element with the sum of its terms' magnitudes (the bound of any partial sum).
fn product(a: &[u32], b: &[u32]) -> Result<[[(f64, f64); 8]; 16], Inexact> {
    assert_eq!(
        a.len(),
        LANES as usize * A_REGS,
        "A fragments: 4 words a lane"
    );
    assert_eq!(
        b.len(),
        LANES as usize * B_REGS,
        "B fragments: 2 words a lane"
    );
    let mut am = [[0f64; 16]; 16];
    let mut bm = [[0f64; 8]; 16];
    for lane in 0..LANES {
        for half in 0..2 {
            for reg in 0..A_REGS as u32 {
                let (r, c) = a_element(lane, reg, half);
                let word = a[(lane * A_REGS as u32 + reg) as usize];
                am[r as usize][c as usize] = f64::from(bf16_to_f32(half_of(word, half)));
            }
            for reg in 0..B_REGS as u32 {
                let (k, n) = b_element(lane, reg, half);
                let word = b[(lane * B_REGS as u32 + reg) as usize];
                bm[k as usize][n as usize] = f64::from(bf16_to_f32(half_of(word, half)));
            }
        }
    }
    if !am.iter().flatten().all(|&x| is_integer(x)) || !bm.iter().flatten().all(|&x| is_integer(x))
    {
        return Err(Inexact::NotAnInteger);
    }
    let mut p = [[(0.0, 0.0); 8]; 16];
    for (r, row) in p.iter_mut().enumerate() {
        for (n, out) in row.iter_mut().enumerate() {
            for k in 0..MMA_K as usize {
                let term = am[r][k] * bm[k][n];
                out.0 += term;
                out.1 += term.abs();
            }
        }
    }
    Ok(p)
}

/// One `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` over a warp: each lane's D registers
/// from its C registers and the warp's A and B fragments (lane-major, as [`a_fragments`] and
/// [`b_fragments`] lay them out).
pub fn mma_m16n8k16(
    a: &[u32],
    b: &[u32],
    c: &[[f32; D_REGS]; LANES as usize],
) -> Result<[[f32; D_REGS]; LANES as usize], Inexact> {
    let p = product(a, b)?;
    let mut d = [[0.0f32; D_REGS]; LANES as usize];
    for (lane, regs) in d.iter_mut().enumerate() {
        for (reg, out) in regs.iter_mut().enumerate() {
            let (r, n) = d_element(lane as u32, reg as u32);
            let (sum, bound) = p[r as usize][n as usize];
            let old = f64::from(c[lane][reg]);
            if !is_integer(old) {
                return Err(Inexact::NotAnInteger);
            }
            if old.abs() + bound > EXACT_LIMIT {
                return Err(Inexact::TooLarge);
            }
            *out = (old + sum) as f32;
        }
    }
    Ok(d)
}

/// What `mma_bf16_ilp{ilp}(a, b, out, iters)` writes for each lane: thread g writes entry
/// `threadIdx.x % 32` (blocks are whole warps, and every warp holds the same fragments).
///
/// Each of the ILP accumulators runs `iters` rounds of D = A*B + D from 0, so it holds
/// `iters * (A*B)` (no rounds when `iters <= 0`); the thread's sum runs over accumulators, then
/// registers, from 0.0. Every partial sum is bounded by `iters` times the sum of the terms'
/// magnitudes, and the thread's total by ILP * 4 such, which the model checks against 2^24.
pub fn mma_bf16_ilp_outputs(
    a: &[u32],
    b: &[u32],
    ilp: u32,
    iters: i32,
) -> Result<[f32; LANES as usize], Inexact> {
    let p = product(a, b)?;
    let rounds = f64::from(iters.max(0));
    let worst = p
        .iter()
        .flatten()
        .map(|&(_, bound)| bound)
        .fold(0.0, f64::max);
    if rounds * worst * f64::from(ilp) * D_REGS as f64 > EXACT_LIMIT {
        return Err(Inexact::TooLarge);
    }
    Ok(core::array::from_fn(|lane| {
        let mut t = 0.0f32;
        for _ in 0..ilp {
            for reg in 0..D_REGS as u32 {
                let (r, n) = d_element(lane as u32, reg);
                t += (rounds * p[r as usize][n as usize].0) as f32;
            }
        }
        t
    }))
}

/// Small-integer fragments for the microbenchmark, from any source of integers (the host's
/// seeded generator): every element in `-range..=range`, drawn row by row.
pub fn small_integer_fragments(
    range: i32,
    mut next: impl FnMut() -> u32,
) -> (
    [u32; LANES as usize * A_REGS],
    [u32; LANES as usize * B_REGS],
) {
    let span = (2 * range + 1) as u32;
    let mut draw = || bf16_of_int((next() % span) as i32 - range);
    let mut a = [[0u16; 16]; 16];
    a.iter_mut().flatten().for_each(|x| *x = draw());
    let mut b = [[0u16; 8]; 16];
    b.iter_mut().flatten().for_each(|x| *x = draw());
    (a_fragments(&a), b_fragments(&b))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    fn ints_a(f: impl Fn(usize, usize) -> i32) -> [[u16; 16]; 16] {
        core::array::from_fn(|r| core::array::from_fn(|c| bf16_of_int(f(r, c))))
    }

    fn ints_b(f: impl Fn(usize, usize) -> i32) -> [[u16; 8]; 16] {
        core::array::from_fn(|k| core::array::from_fn(|n| bf16_of_int(f(k, n))))
    }

    const ZERO: [[f32; 4]; 32] = [[0.0; 4]; 32];

    #[test]
    fn bf16_conversions_are_exact_for_small_integers() {
        for x in -256..=256 {
            assert_eq!(bf16_to_f32(bf16_of_int(x)), x as f32);
        }
        assert_eq!(bf16_of_int(1), 0x3f80);
        assert_eq!(bf16_of_int(-2), 0xc000);
    }

    /// Known matrices placed through the layouts: the warp's D, read back through the D layout,
    /// is the matrix product plus C.
    #[test]
    fn placed_matrices_multiply_to_their_product() {
        let a = ints_a(|r, c| (r as i32 * 3 - c as i32 * 2) % 7);
        let b = ints_b(|k, n| (k as i32 - 2 * n as i32) % 5);
        let mut c = ZERO;
        for (lane, regs) in c.iter_mut().enumerate() {
            for (reg, x) in regs.iter_mut().enumerate() {
                let (r, n) = d_element(lane as u32, reg as u32);
                *x = (r * 100 + n) as f32;
            }
        }
        let d = mma_m16n8k16(&a_fragments(&a), &b_fragments(&b), &c).unwrap();
        for (lane, regs) in d.iter().enumerate() {
            for (reg, &x) in regs.iter().enumerate() {
                let (r, n) = d_element(lane as u32, reg as u32);
                let (r, n) = (r as usize, n as usize);
                let want: i32 = (0..16)
                    .map(|k| (r as i32 * 3 - k * 2) % 7 * ((k - 2 * n as i32) % 5))
                    .sum::<i32>()
                    + (r * 100 + n) as i32;
                assert_eq!(x, want as f32, "D[{r}][{n}] in lane {lane} reg {reg}");
            }
        }
    }

    /// One A element set by hand where the ISA's figure puts A[9][3] (lane 5: group 1, thread 1;
    /// register 1: row + 8, columns 0..8; high half: column 2*1 + 1), B all ones: row 9 of D is
    /// ones, held by registers 2 and 3 of lanes 4-7, and nothing else is.
    #[test]
    fn a_hand_placed_element_lands_in_its_row_of_d() {
        let mut a = [0u32; 128];
        a[5 * 4 + 1] = u32::from(bf16_of_int(1)) << 16;
        let ones = u32::from(bf16_of_int(1)) * 0x0001_0001;
        let b = [ones; 64];
        let d = mma_m16n8k16(&a, &b, &ZERO).unwrap();
        for (lane, regs) in d.iter().enumerate() {
            for (reg, &x) in regs.iter().enumerate() {
                let want = (4..8).contains(&lane) && reg >= 2;
                assert_eq!(x, f32::from(u8::from(want)), "lane {lane} reg {reg}");
            }
        }
    }

    #[test]
    fn ilp_outputs_sum_accumulators_then_registers() {
        let a = ints_a(|r, c| if r == c { 1 } else { 0 });
        let b = ints_b(|k, n| (k * 8 + n) as i32 % 9 - 4);
        let (af, bf) = (a_fragments(&a), b_fragments(&b));
        // A = I: A*B is the top 16 rows of B; each lane sums its 4 D positions.
        for (ilp, iters) in [(1, 1), (2, 3), (8, 1000), (4, 0), (4, -5)] {
            let out = mma_bf16_ilp_outputs(&af, &bf, ilp, iters).unwrap();
            for (lane, &x) in out.iter().enumerate() {
                let per_round: i32 = (0..4)
                    .map(|reg| {
                        let (r, n) = d_element(lane as u32, reg);
                        (r * 8 + n) as i32 % 9 - 4
                    })
                    .sum();
                let want = per_round * ilp as i32 * iters.max(0);
                assert_eq!(x, want as f32, "ilp {ilp} iters {iters} lane {lane}");
            }
        }
        // The model agrees with rounds of the one-instruction model.
        let mut d = ZERO;
        for _ in 0..5 {
            d = mma_m16n8k16(&af, &bf, &d).unwrap();
        }
        let out = mma_bf16_ilp_outputs(&af, &bf, 1, 5).unwrap();
        for lane in 0..32 {
            let sum = d[lane].iter().fold(0.0f32, |t, &x| t + x);
            assert_eq!(out[lane], sum);
        }
    }

    #[test]
    fn inexact_inputs_are_refused() {
        let half = (0.5f32.to_bits() >> 16) as u16;
        let mut a = [[0u16; 16]; 16];
        a[0][0] = half;
        let b = ints_b(|_, _| 1);
        assert_eq!(
            mma_bf16_ilp_outputs(&a_fragments(&a), &b_fragments(&b), 1, 1),
            Err(Inexact::NotAnInteger)
        );
        let a = ints_a(|_, _| 256);
        let b = ints_b(|_, _| 256);
        // 16 terms of 65536 each: 2^20 a round; 16 rounds reach 2^24, times 4 registers more.
        let (af, bf) = (a_fragments(&a), b_fragments(&b));
        assert!(mma_bf16_ilp_outputs(&af, &bf, 1, 4).is_ok());
        assert_eq!(mma_bf16_ilp_outputs(&af, &bf, 1, 5), Err(Inexact::TooLarge));
        let big = [[16_777_216.0f32; 4]; 32];
        assert_eq!(mma_m16n8k16(&af, &bf, &big), Err(Inexact::TooLarge));
    }

    #[test]
    fn drawn_fragments_stay_in_range() {
        let mut state = 1u32;
        let (a, b) = small_integer_fragments(3, || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            state >> 8
        });
        for w in a.iter().chain(b.iter()) {
            for half in 0..2 {
                let x = bf16_to_f32(half_of(*w, half));
                assert!(x.fract() == 0.0 && x.abs() <= 3.0, "{x}");
            }
        }
        assert!(a.iter().any(|&w| w != 0) && b.iter().any(|&w| w != 0));
    }
}
