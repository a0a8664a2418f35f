//! Writes the CPU references of `kernels_gpu::models::probe_results` out for a check written in
//! another language (the GPU check script compares the kernels' output with them):
//!
//! - `reference_dump fma A B ITERS G...`: one line `ilp g bits` per FMA kernel and thread g, the
//!   bits of `probe_results::fma_ilp(g, ilp, A, B, ITERS)` as hex;
//! - `reference_dump ring FILE ELEMS SEED START STEPS...`: writes a chase ring of ELEMS u32 (slots
//!   of the chase line's size, Sattolo over a SplitMix64 stream from SEED) to FILE, raw
//!   little-endian, and prints `end STEPS INDEX` per step count: where the chase from START ends.

use std::io::Write;

use kernels_gpu::models::probe_results;
use kernels_gpu::variants::{CHASE, FMA};

fn arg<T: std::str::FromStr>(args: &[String], i: usize, what: &str) -> T {
    args.get(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("argument {i} ({what}) missing or malformed"))
}

/// SplitMix64, uniform below a bound by the multiply-shift method.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: u32) -> u32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (((z >> 32) * u64::from(n)) >> 32) as u32
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = std::io::stdout();
    let mut out = out.lock();
    match args.first().map(String::as_str) {
        Some("fma") => {
            let (a, b, iters): (f32, f32, i32) = (
                arg(&args, 1, "A"),
                arg(&args, 2, "B"),
                arg(&args, 3, "ITERS"),
            );
            for v in FMA {
                for i in 4..args.len() {
                    let g: u32 = arg(&args, i, "G");
                    let x = probe_results::fma_ilp(g, v.ilp, a, b, iters);
                    writeln!(out, "{} {g} {:08x}", v.ilp, x.to_bits()).unwrap();
                }
            }
        }
        Some("ring") => {
            let file: String = arg(&args, 1, "FILE");
            let (elems, seed, start): (usize, u64, u32) = (
                arg(&args, 2, "ELEMS"),
                arg(&args, 3, "SEED"),
                arg(&args, 4, "START"),
            );
            let mut next = vec![0u32; elems];
            let mut rng = SplitMix(seed);
            probe_results::build_chase_ring(&mut next, CHASE.slot_elems(), |n| rng.below(n));
            let bytes: Vec<u8> = next.iter().flat_map(|v| v.to_le_bytes()).collect();
            std::fs::write(&file, bytes).expect("writing the ring");
            for i in 5..args.len() {
                let steps: u64 = arg(&args, i, "STEPS");
                let end = probe_results::chase_end(&next, start, steps);
                writeln!(out, "end {steps} {end}").unwrap();
            }
        }
        _ => {
            panic!("usage: reference_dump fma A B ITERS G... | ring FILE ELEMS SEED START STEPS...")
        }
    }
}
