//! Random inputs: SplitMix64 used as a counter-based generator (element i of a sequence is the
//! mix of `seed + (i+1)*gamma`), so a buffer fills in parallel chunks and is the same on every
//! machine for a seed; uniform floats in [-1, 1).

use std::ops::Range;
use std::thread;

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn unit(bits: u64) -> f32 {
    let u = (bits >> 40) as f32 / (1u64 << 24) as f32;
    2.0 * u - 1.0
}

/// SplitMix64: small, fast, and the same sequence on every machine for a seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        mix(self.0)
    }

    /// Uniform in [-1, 1), with 24 random mantissa bits.
    pub fn next_signed_unit(&mut self) -> f32 {
        unit(self.next_u64())
    }

    /// Uniform in 0..bound (bound > 0).
    pub fn below(&mut self, bound: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(bound)) >> 32) as u32
    }
}

/// Threads for host-side work on large buffers.
pub fn host_threads() -> usize {
    thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(32)
}

/// Fills `out` with `f` of each element's index, in parts of `chunk` elements on the CPU's
/// threads.
pub fn par_fill<T: Send>(out: &mut [T], chunk: usize, f: impl Fn(usize) -> T + Sync) {
    let f = &f;
    thread::scope(|s| {
        for (c, part) in out.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                for (i, x) in part.iter_mut().enumerate() {
                    *x = f(c * chunk + i);
                }
            });
        }
    });
}

/// `f` of each part of `0..len` of `chunk` indices (the last may be shorter), in order, each
/// on a thread of its own.
pub fn par_ranges<T: Send>(
    len: usize,
    chunk: usize,
    f: impl Fn(Range<usize>) -> T + Sync,
) -> Vec<T> {
    let f = &f;
    thread::scope(|s| {
        let parts: Vec<_> = (0..len)
            .step_by(chunk)
            .map(|start| s.spawn(move || f(start..(start + chunk).min(len))))
            .collect();
        let joined = parts.into_iter().map(|h| h.join());
        joined.map(|r| r.expect("a host thread panicked")).collect()
    })
}

/// `len` floats uniform in [-1, 1): element i is the (i+1)-th output of `Rng::new(seed)`.
pub fn random_floats(len: usize, seed: u64) -> Vec<f32> {
    let mut out = vec![0.0f32; len];
    let chunk = len.div_ceil(host_threads()).max(1 << 16);
    par_fill(&mut out, chunk, |i| {
        unit(mix(seed.wrapping_add((i as u64 + 1).wrapping_mul(GAMMA))))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_in_range_and_not_constant() {
        let v = random_floats(10_000, 7);
        assert!(v.iter().all(|x| (-1.0..1.0).contains(x)));
        let mean = v.iter().map(|&x| f64::from(x)).sum::<f64>() / v.len() as f64;
        assert!(mean.abs() < 0.05, "mean {mean}");
        assert!(v.iter().any(|&x| x < -0.9) && v.iter().any(|&x| x > 0.9));
    }

    #[test]
    fn same_seed_same_sequence_other_seed_other_sequence() {
        assert_eq!(random_floats(16, 1), random_floats(16, 1));
        assert_ne!(random_floats(16, 1), random_floats(16, 2));
    }

    #[test]
    fn parallel_fill_equals_the_sequential_generator() {
        let len = 3 * (1 << 16) + 5;
        let mut rng = Rng::new(42);
        let sequential: Vec<f32> = (0..len).map(|_| rng.next_signed_unit()).collect();
        assert_eq!(random_floats(len, 42), sequential);
    }

    #[test]
    fn below_stays_below() {
        let mut r = Rng::new(3);
        assert!((0..1000).all(|_| r.below(64) < 64));
    }
}
