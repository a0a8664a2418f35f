//! The read-only kernels beside their copies (`read_t{T}_l{L}_w{W}`, variant table `read:`):
//! each issues its copy's loads, sums what it loads exactly and writes one word per warp, so its
//! traffic is the copy's reads alone. Run at the residencies its copy's rows were held at, so
//! that each read row stands beside a copy row with the same bytes in flight per SM.
//!
//! The reference for reads: the device-to-device copy's bytes moved per second (read + written,
//! the figure the copy rows are set against). A read at 1.00 moves bytes as fast as the copy
//! moves them both ways; a memory whose reads and writes share one rate reaches it with fewer
//! bytes in flight than the copy needs, since a copy's stores occupy the memory too. CPU side.

use kernels_gpu::variants::{MemcpyPoint, READ_WARP};
use serde::{Deserialize, Serialize};

use crate::results::{Check, Timing};

/// The shares of the reference the notes ask the bytes in flight for (copy and reads alike).
pub const READ_FRACTIONS: [f64; 2] = [0.90, 0.95];

/// One read kernel at one residency, beside its copy's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadRow {
    pub entry: String,
    /// The copy row it stands beside (same threads, loads, width and blocks/SM).
    pub copy_entry: String,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    /// Bytes loaded before use per SM (the copy row's figure).
    pub bytes_in_flight_per_sm: u64,
    /// Bytes read per second (1e9), and as a share of the reference.
    pub gbps: f64,
    pub fraction_of_reference: f64,
    /// The copy row's GB/s (read + written) and its share of the same reference.
    pub copy_gbps: f64,
    pub copy_fraction: f64,
    pub timing: Timing,
    /// Every warp's sum against the CPU's.
    pub check: Check,
    /// The compared module's build (`--compare`), its GB/s and check, where it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared_gbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared_check: Option<Check>,
}

/// The read-only section of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadOnly {
    /// The D2D copy's GB/s (read + written): the reference of both columns.
    pub reference_gbps: f64,
    /// By entry, then blocks/SM, in the table's order.
    pub rows: Vec<ReadRow>,
}

/// Bytes read per second (1e9) for `bytes` read in `ms`.
pub fn read_gbps(bytes: u64, ms: f64) -> f64 {
    bytes as f64 / (ms * 1e-3) / 1e9
}

/// What each warp of a launch of `point` over `src` writes: the sum, as integers, of the bit
/// patterns of the whole vectors its lanes load (vector v belongs to thread v mod the grid's
/// threads, as in the copy).
pub fn expected_sums(src: &[f32], point: &MemcpyPoint) -> Vec<u64> {
    let n = src.len() as u64;
    let threads = point.grid(n) * u64::from(point.threads);
    let mut sums = vec![0u64; (threads / u64::from(READ_WARP)) as usize];
    let width = point.width as usize;
    for (v, vector) in src.chunks_exact(width).enumerate() {
        let warp = (v as u64 % threads) / u64::from(READ_WARP);
        let bits: u64 = vector.iter().map(|x| u64::from(x.to_bits())).sum();
        sums[warp as usize] += bits;
    }
    sums
}

/// The kernel's per-warp words against `want`, exactly; a failure names the first wrong warp by
/// its block and its warp in the block, and counts the wrong ones.
pub fn check_sums(want: &[u64], got: &[u64], threads_per_block: u32) -> Check {
    let warps_per_block = u64::from((threads_per_block / READ_WARP).max(1));
    let wrong =
        want.iter().zip(got).filter(|(w, g)| w != g).count() + want.len().abs_diff(got.len());
    let first = want.iter().zip(got).position(|(w, g)| w != g);
    let what = match (first, want.len() == got.len()) {
        (Some(i), _) => format!(
            "{wrong} of {} warp sums wrong; first: block {}, warp {} of it: {} where the CPU has {}",
            want.len(),
            i as u64 / warps_per_block,
            i as u64 % warps_per_block,
            got[i],
            want[i]
        ),
        (None, false) => format!(
            "{} warp sums written where the grid has {} warps",
            got.len(),
            want.len()
        ),
        (None, true) => format!("every one of {} warp sums exact", want.len()),
    };
    Check {
        passed: wrong == 0,
        error: wrong as f64,
        bound: 0.0,
        what,
        hashes: None,
    }
}

impl ReadOnly {
    /// The fewest bytes in flight per SM among the verified rows whose share (by `share`)
    /// reaches `fraction`.
    fn least_bytes(&self, fraction: f64, share: impl Fn(&ReadRow) -> f64) -> Option<u64> {
        self.rows
            .iter()
            .filter(|r| r.check.passed && share(r) >= fraction)
            .map(|r| r.bytes_in_flight_per_sm)
            .min()
    }

    /// The fewest bytes in flight per SM at which reads, and at which the copies beside them,
    /// reach `fraction` of the reference.
    pub fn need(&self, fraction: f64) -> (Option<u64>, Option<u64>) {
        (
            self.least_bytes(fraction, |r| r.fraction_of_reference),
            self.least_bytes(fraction, |r| r.copy_fraction),
        )
    }

    /// The table notes: the reference, each row beside its copy, and the bytes in flight reads
    /// and copies need for the shares of [`READ_FRACTIONS`].
    pub fn notes(&self) -> Vec<String> {
        let mut notes = vec![format!(
            "Read-only kernels (read_t{{T}}_l{{L}}_w{{W}}: the copy's loads summed exactly, one \
             word written per warp) beside their copies at the same blocks/SM, so at equal bytes \
             in flight per SM. Reference for both: the D2D copy's bytes moved per second, read + \
             written ({:.0} GB/s); a read counts the bytes it reads, a copy those it reads and \
             writes",
            self.reference_gbps
        )];
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                let compared = r.compared_gbps.map_or(String::new(), |c| {
                    format!(", compared module {c:.0} GB/s ({:.2}x)", r.gbps / c)
                });
                format!(
                    "{} x{} ({} KiB in flight/SM): read {:.0} GB/s ({:.2}), copy {:.0} GB/s \
                     ({:.2}){compared}{}",
                    r.entry,
                    r.blocks_per_sm,
                    r.bytes_in_flight_per_sm >> 10,
                    r.gbps,
                    r.fraction_of_reference,
                    r.copy_gbps,
                    r.copy_fraction,
                    if r.check.passed {
                        String::new()
                    } else {
                        format!(", CHECK FAILED: {}", r.check.what)
                    }
                )
            })
            .collect();
        notes.push(format!("Read-only vs copy: {}", rows.join("; ")));
        notes.extend(self.need_notes());
        notes
    }

    /// For each share of [`READ_FRACTIONS`]: the bytes in flight per SM reads and copies need
    /// to reach it, and what the two say together.
    pub fn need_notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        let kib = |b: Option<u64>| {
            b.map_or("none of these rows".to_owned(), |b| {
                format!("{} KiB", b >> 10)
            })
        };
        for f in READ_FRACTIONS {
            let (read, copy) = self.need(f);
            let verdict = match (read, copy) {
                (Some(r), Some(c)) if r != c => format!(
                    "reads need {:.2}x the copy's bytes in flight",
                    r as f64 / c as f64
                ),
                (Some(_), Some(_)) => "the same bytes in flight".to_owned(),
                _ => "no comparison within these rows".to_owned(),
            };
            out.push(format!(
                "Bytes in flight per SM for {:.0}% of the reference: reads {}, copy {} ({verdict})",
                f * 100.0,
                kib(read),
                kib(copy)
            ));
        }
        out
    }

    /// The rows whose check failed, for the run's failure list.
    pub fn failures(&self) -> impl Iterator<Item = String> + '_ {
        let ours = self
            .rows
            .iter()
            .filter(|r| !r.check.passed)
            .map(|r| format!("{} x{}: {}", r.entry, r.blocks_per_sm, r.check.what));
        let theirs = self.rows.iter().filter_map(|r| {
            let c = r.compared_check.as_ref().filter(|c| !c.passed)?;
            Some(format!(
                "{} x{} (compared module): {}",
                r.entry, r.blocks_per_sm, c.what
            ))
        });
        ours.chain(theirs)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::inflight::row::tests::{copy, passed};
    use kernels_gpu::variants::READ;

    #[test]
    fn the_sums_follow_the_copys_layout() {
        // Blocks of 64 threads, 2 loads of 4 floats: 512 floats per block; 1024 floats and a
        // ragged tail of 3 (not read) take 3 blocks, 192 threads, and thread g owns vectors g
        // and g + 192 of the 256.
        let src: Vec<f32> = (0..1024 + 3).map(|i| i as f32 * 0.5).collect();
        let p = MemcpyPoint {
            threads: 64,
            loads: 2,
            width: 4,
            entry: "memcpy_test",
        };
        let sums = expected_sums(&src, &p);
        assert_eq!(p.grid(src.len() as u64), 3, "the tail starts a third block");
        assert_eq!(sums.len(), 3 * 2);
        let bits = |v: usize| -> u64 { (0..4).map(|k| u64::from(src[4 * v + k].to_bits())).sum() };
        // Warp 0: threads 0..32, vectors 0..32 and 192..224 (grid stride 192 threads).
        assert_eq!(sums[0], (0..32).chain(192..224).map(bits).sum::<u64>());
        // The third block's warps own vectors 128..192 and nothing past the whole vectors.
        assert_eq!(sums[4], (128..160).map(bits).sum::<u64>());
        assert_eq!(sums.iter().sum::<u64>(), (0..256).map(bits).sum::<u64>());
    }

    #[test]
    fn a_wrong_or_missing_sum_fails_naming_its_block_and_warp() {
        let want: Vec<u64> = (0..16).map(|i| 1000 + i).collect();
        assert!(check_sums(&want, &want, 256).passed);
        let mut got = want.clone();
        got[11] += 1;
        got[13] = 0;
        let c = check_sums(&want, &got, 256);
        assert!(!c.passed);
        assert_eq!(c.error, 2.0);
        // 8 warps per 256-thread block: word 11 is block 1's warp 3.
        let named = "block 1, warp 3 of it: 1012 where the CPU has 1011";
        assert!(c.what.contains(named), "{}", c.what);
        let short = check_sums(&want, &want[..15], 256);
        let said = short.what.contains("15 warp sums written");
        assert!(!short.passed && said, "{}", short.what);
    }

    /// A read row of `read_t256_l{loads}_w4` at 1 block/SM (8 warps), at `read` of a 4000 GB/s
    /// reference beside its copy at `copy_fraction`.
    pub(crate) fn read_row(loads: u32, read: f64, copy_fraction: f64) -> ReadRow {
        ReadRow {
            entry: format!("read_t256_l{loads}_w4"),
            copy_entry: format!("memcpy_t256_l{loads}_w4"),
            blocks_per_sm: 1,
            warps_per_sm: 8,
            bytes_in_flight_per_sm: u64::from(loads) << 12,
            gbps: read * 4000.0,
            fraction_of_reference: read,
            copy_gbps: copy_fraction * 4000.0,
            copy_fraction,
            timing: copy().timing,
            check: passed(),
            compared_gbps: None,
            compared_check: None,
        }
    }

    #[test]
    fn the_notes_set_reads_against_copies_at_equal_bytes() {
        let mut s = ReadOnly {
            reference_gbps: 4000.0,
            rows: vec![
                read_row(2, 0.60, 0.40),
                read_row(8, 0.93, 0.75),
                read_row(16, 0.97, 0.91),
                read_row(32, 0.97, 0.96),
            ],
        };
        assert_eq!(s.need(0.90), (Some(32 << 10), Some(64 << 10)));
        assert_eq!(s.need(0.95), (Some(64 << 10), Some(128 << 10)));
        let notes = s.notes();
        let said = [
            "read + written (4000 GB/s)",
            "read_t256_l8_w4 x1 (32 KiB in flight/SM): read 3720 GB/s (0.93), copy 3000 GB/s (0.75)",
            "90% of the reference: reads 32 KiB, copy 64 KiB (reads need 0.50x",
        ];
        for (note, said) in notes.iter().zip(said) {
            assert!(note.contains(said), "{note}");
        }
        // A failed check is named and leaves the row out of the need.
        s.rows[1].check.passed = false;
        s.rows[1].check.what = "1 of 8 warp sums wrong".into();
        assert_eq!(s.need(0.90).0, Some(64 << 10));
        assert!(s.notes()[1].contains("CHECK FAILED: 1 of 8"));
        assert_eq!(s.failures().count(), 1);
    }

    #[test]
    fn every_read_line_mirrors_a_copy_point_and_counts_bytes_read_only() {
        assert!(!READ.is_empty());
        for r in READ {
            assert_eq!(r.copy.entry.replacen("memcpy", "read", 1), r.entry);
            assert_eq!(r.copy.threads % READ_WARP, 0);
            let words = r.words(r.floats_per_block() * 3);
            assert_eq!(words, 3 * u64::from(r.threads / 32));
        }
        assert!((read_gbps(1 << 30, 1.0) - 1073.741824).abs() < 1e-9);
    }
}
