//! Every launch of a GEMM side accounted for, not only the one whose every element is checked (the
//! verified launch: its last timed launch). The kernels are deterministic (the same inputs give the
//! same bits), so the hash of C (`kernels_gpu::models::output_hash`, computed on the GPU by
//! `gemm_hash`) tells a launch that wrote anything else:
//!
//! - after every timed sample, outside the timed interval (`sampling::Sampled::after_sample`),
//!   C is hashed; each hash is compared with the verified launch's;
//! - after the checks, an untimed race check: up to [`RACE_LAUNCHES`] more launches
//!   ([`race_check_done`] says when it stops), each on a C filled
//!   first with a value no element comes near (so an element a launch skips shows), each followed
//!   by a hash compared with the verified launch's. A launch whose hash differs is checked
//!   element by element on the spot (its C is still there), with the GEMM check's rule.
//!
//! The judgment ([`LaunchHashes::passed`]): our kernels use no atomics and must give the verified
//! bits on every launch, so any difference fails our side. The compared module and cuBLAS are
//! not ours to know: the race check finds out. If all its launches give the verified bits, the
//! side is bit-deterministic and so must every sample be; if some differ (a split-K with atomics,
//! say), the side is recorded as not bit-deterministic, it passes when each differing race launch
//! passes the element check, and its samples' hashes are recorded but not judged (they cannot be:
//! a sample's C is gone before anything could check its elements).

use cudarc::driver::CudaSlice;

use super::gemm_check::{Checked, GemmChecker};
use crate::cuda::{CudaError, Gpu};
use crate::results::{Check, GemmDims, LaunchHashes};

/// Launches of each side's race check, at most.
pub const RACE_LAUNCHES: u32 = 100;

/// Launches of each side's race check, at least.
pub const RACE_LAUNCHES_LEAST: u32 = 10;

/// The wall time after which a race check stops, once it has made its least launches. A side
/// whose launch takes long (a register cap that spills) made its hundred launches the
/// longest part of a run; the hashes after every timed sample account for the rest.
pub const RACE_CHECK_BUDGET: std::time::Duration = std::time::Duration::from_millis(250);

/// Whether a race check that has made `launched` launches in `spent` is done: at
/// [`RACE_LAUNCHES`], or at [`RACE_LAUNCHES_LEAST`] or more once [`RACE_CHECK_BUDGET`] is spent.
pub fn race_check_done(launched: u32, spent: std::time::Duration) -> bool {
    launched >= RACE_LAUNCHES || (launched >= RACE_LAUNCHES_LEAST && spent >= RACE_CHECK_BUDGET)
}

/// How many indices a description lists before it counts the rest.
const LISTED: usize = 8;

/// Hashes enqueued on the device one after another, each in a word of its own, and read back
/// together. Words are allocated zeroed in chunks, the first sized to the expected count, so
/// that no allocation falls between the samples of a figure that keeps to its plan.
pub struct HashSlots {
    chunks: Vec<CudaSlice<u64>>,
    used: usize,
}

impl HashSlots {
    /// Room for `expected` hashes (at least one).
    pub fn new(gpu: &Gpu, expected: usize) -> Result<Self, CudaError> {
        Ok(Self {
            chunks: vec![gpu.zeros(expected.max(1))?],
            used: 0,
        })
    }

    /// Enqueues the hash of `c` into the next word.
    pub fn push(
        &mut self,
        gpu: &Gpu,
        checker: &GemmChecker,
        c: &CudaSlice<f32>,
    ) -> Result<(), CudaError> {
        let mut at = self.used;
        let mut chunk = 0;
        while at >= self.chunks[chunk].len() {
            at -= self.chunks[chunk].len();
            chunk += 1;
            if chunk == self.chunks.len() {
                let len = self.chunks[chunk - 1].len();
                self.chunks.push(gpu.zeros(len)?);
            }
        }
        checker.hash_into(gpu, c, &mut self.chunks[chunk], at)?;
        self.used += 1;
        Ok(())
    }

    /// Every hash pushed, in order (waits for the GPU).
    pub fn read(&self, gpu: &Gpu) -> Result<Vec<u64>, CudaError> {
        let mut all = Vec::with_capacity(self.used);
        for chunk in &self.chunks {
            all.extend(gpu.download(chunk)?);
        }
        all.truncate(self.used);
        Ok(all)
    }
}

/// One side's hashes over one figure: of its verified launch, and after each timed sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleHashes {
    pub verified: u64,
    pub samples: Vec<u64>,
}

/// One side's race check: the verified launch's hash it was held to, each launch's hash, and the
/// element check of each launch whose hash differed (its index among the launches).
#[derive(Debug, Clone, PartialEq)]
pub struct RaceCheck {
    pub verified: u64,
    pub hashes: Vec<u64>,
    pub checked: Vec<(u32, Checked)>,
}

/// The indices of `hashes` that differ from `verified`.
pub(super) fn differing(hashes: &[u64], verified: u64) -> Vec<u32> {
    (0u32..)
        .zip(hashes)
        .filter(|(_, h)| **h != verified)
        .map(|(i, _)| i)
        .collect()
}

/// The record of a side timed in `figures` (one per figure, in order: cuBLAS is timed beside
/// every line, the others in one), each sample held to its own figure's verified launch, and of
/// its `race` check; `bits_required` for our kernels.
pub fn account(bits_required: bool, figures: &[SampleHashes], race: &RaceCheck) -> LaunchHashes {
    let mut samples = 0u32;
    let mut samples_differing = Vec::new();
    for f in figures {
        samples_differing.extend(
            differing(&f.samples, f.verified)
                .iter()
                .map(|i| i + samples),
        );
        samples += f.samples.len() as u32;
    }
    LaunchHashes {
        samples,
        samples_differing,
        race_launches: race.hashes.len() as u32,
        race_differing: differing(&race.hashes, race.verified),
        race_failed: race
            .checked
            .iter()
            .filter(|(_, c)| !c.passed())
            .map(|(i, _)| *i)
            .collect(),
        bits_required,
    }
}

impl LaunchHashes {
    /// Every hashed launch gave the verified launch's bits.
    pub fn bit_deterministic(&self) -> bool {
        self.samples_differing.is_empty() && self.race_differing.is_empty()
    }

    /// No race launch failed its element check, and every launch gave the verified bits: always,
    /// for a side whose bits are required; for another, unless the race check showed its bits
    /// vary (then its samples cannot be judged by their hashes).
    pub fn passed(&self) -> bool {
        self.race_failed.is_empty()
            && (self.bit_deterministic()
                || (!self.bits_required && !self.race_differing.is_empty()))
    }

    /// The hashes in words: how many, which differed, and the verdict's reason when it is not
    /// plain.
    pub fn describe(&self) -> String {
        let samples = match self.samples_differing.as_slice() {
            [] => "all the verified launch's bits".to_owned(),
            d => format!(
                "{} from the verified launch's bits ({})",
                counted(d.len(), "differs", "differ"),
                listed(("sample", "samples"), d)
            ),
        };
        let race = match (self.race_differing.as_slice(), self.race_failed.as_slice()) {
            ([], _) => "all the verified launch's bits".to_owned(),
            (d, f) => format!(
                "{} ({}), each then checked element by element: {}",
                counted(d.len(), "differs", "differ"),
                listed(LAUNCHES, d),
                match f {
                    [] => "all pass".to_owned(),
                    f => format!(
                        "{} ({})",
                        counted(f.len(), "fails", "fail"),
                        listed(LAUNCHES, f)
                    ),
                }
            ),
        };
        let verdict = if !self.race_failed.is_empty() {
            " FAILED: a race launch failed the element check."
        } else if self.bit_deterministic() {
            ""
        } else if self.bits_required {
            " FAILED: the lab's kernels use no atomics and must give the same bits every launch."
        } else if self.race_differing.is_empty() {
            " FAILED: every race launch gave the verified bits, so a sample that differs is a \
             fault."
        } else {
            " Not bit-deterministic: the samples' hashes are recorded, not judged."
        };
        format!(
            "C hashed after each of the {} timed samples: {samples}; race check, {} untimed \
             launches each hashed: {race}.{verdict}",
            self.samples, self.race_launches
        )
    }
}

/// The race launches, in [`listed`]'s words.
const LAUNCHES: (&str, &str) = ("launch", "launches");

/// `n` and its verb, singular or plural ("1 differs", "2 differ").
fn counted(n: usize, one: &str, more: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { more })
}

/// `indices` in words ("samples 3, 17"), named in the singular or the plural of `what`, the
/// first few listed and the rest counted.
fn listed(what: (&str, &str), indices: &[u32]) -> String {
    let name = if indices.len() == 1 { what.0 } else { what.1 };
    let some: Vec<String> = indices.iter().take(LISTED).map(u32::to_string).collect();
    let more = indices.len().saturating_sub(LISTED);
    let rest = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("{name} {}{rest}", some.join(", "))
}

/// `check` with `hashes` recorded: failed when they fail, its error the worst of its own and of
/// the race launches checked element by element (`race`), the hashes described after what it
/// says, with the first race launch that failed its element check.
pub fn with_hashes(
    mut check: Check,
    hashes: LaunchHashes,
    race: &[(u32, Checked)],
    dims: GemmDims,
) -> Check {
    let worst = race
        .iter()
        .map(|(_, c)| f64::from(c.tally.worst_ratio()))
        .fold(check.error, f64::max);
    check.error = worst;
    check.passed = check.passed && hashes.passed();
    check.what = format!("{} Hashes: {}", check.what, hashes.describe());
    if let Some((_, c)) = race.iter().find(|(_, c)| !c.passed()) {
        check.what = format!("{} First failed: {}", check.what, c.describe(dims));
    }
    check.hashes = Some(hashes);
    check
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::gemm_check::tests::checked;
    use crate::kernel_source::builtin;

    fn race(verified: u64, hashes: &[u64], failed: &[u32]) -> RaceCheck {
        let checked = differing(hashes, verified)
            .into_iter()
            .map(|i| {
                let over = u64::from(failed.contains(&i));
                let worst = if over > 0 { 3.0 } else { 0.5 };
                (i, checked(&format!("race launch {i}"), over, worst, 7))
            })
            .collect();
        RaceCheck {
            verified,
            hashes: hashes.to_vec(),
            checked,
        }
    }

    fn figure(verified: u64, samples: &[u64]) -> SampleHashes {
        SampleHashes {
            verified,
            samples: samples.to_vec(),
        }
    }

    /// Asserts that `h`'s words contain `part`.
    fn says(h: &LaunchHashes, part: &str) {
        let words = h.describe();
        assert!(words.contains(part), "{words}");
    }

    fn passing_check() -> Check {
        Check {
            passed: true,
            error: 0.3,
            bound: 1.0,
            what: "every element".into(),
            hashes: None,
        }
    }

    #[test]
    fn the_same_bits_everywhere_pass_for_every_side() {
        for required in [true, false] {
            let h = account(required, &[figure(9, &[9, 9, 9])], &race(9, &[9; 100], &[]));
            assert!(h.bit_deterministic() && h.passed());
            assert_eq!((h.samples, h.race_launches), (3, 100));
            says(&h, "each of the 3 timed samples: all the verified");
            assert!(!h.describe().contains("FAILED"), "{}", h.describe());
        }
    }

    #[test]
    fn a_sample_that_differs_fails_and_is_named() {
        // Sample 1 of 4 wrote other bits; the race check saw nothing.
        for required in [true, false] {
            let h = account(
                required,
                &[figure(9, &[9, 5, 9, 9])],
                &race(9, &[9; 100], &[]),
            );
            assert_eq!(h.samples_differing, [1]);
            assert!(!h.passed(), "bits required: {required}");
            says(&h, "1 differs from the verified launch's bits (sample 1)");
            says(&h, "FAILED");
        }
    }

    #[test]
    fn cublas_samples_are_counted_across_its_figures_each_against_its_own_verified_launch() {
        // Two lines: cuBLAS's verified launches differ between them (each passed its element
        // check); its samples are held to their own figure's.
        let h = account(
            false,
            &[figure(9, &[9, 9]), figure(4, &[4, 9, 4])],
            &race(4, &[4; 100], &[]),
        );
        assert_eq!((h.samples, h.samples_differing.clone()), (5, vec![3]));
        assert!(!h.passed());
    }

    #[test]
    fn bits_that_vary_in_the_race_check_are_judged_element_by_element_except_ours() {
        let mut hashes = [9u64; 100];
        hashes[10] = 1;
        hashes[70] = 2;
        let theirs = account(false, &[figure(9, &[9, 3, 9])], &race(9, &hashes, &[]));
        assert_eq!(theirs.race_differing, [10, 70]);
        assert!(!theirs.bit_deterministic());
        assert!(theirs.passed(), "{}", theirs.describe());
        says(&theirs, "Not bit-deterministic");
        says(&theirs, "2 differ (launches 10, 70)");

        let ours = account(true, &[figure(9, &[9, 9, 9])], &race(9, &hashes, &[]));
        assert!(!ours.passed(), "our kernels must give the same bits");
        says(&ours, "use no atomics");

        let failed = account(false, &[figure(9, &[9])], &race(9, &hashes, &[70]));
        assert_eq!(failed.race_failed, [70]);
        assert!(!failed.passed());
        says(&failed, "1 fails (launch 70)");
    }

    #[test]
    fn the_check_takes_the_hashes_verdict_and_the_race_launches_worst_error() {
        let mut hashes = [9u64; 100];
        hashes[3] = 1;
        let r = race(9, &hashes, &[3]);
        let dims = GemmDims::square(4);
        let c = with_hashes(passing_check(), account(false, &[], &r), &r.checked, dims);
        assert!(!c.passed);
        assert_eq!(c.error, 3.0, "the failed race launch's worst element");
        assert!(c.what.starts_with("every element Hashes: "), "{}", c.what);
        assert!(c.what.contains("First failed: race launch 3"), "{}", c.what);
        assert_eq!(c.hashes.as_ref().unwrap().race_failed, [3]);

        let fine = race(9, &[9; 100], &[]);
        let c = with_hashes(passing_check(), account(true, &[], &fine), &[], dims);
        assert!(c.passed && c.error == 0.3);
        // A failed element check stays failed whatever the hashes say.
        let failed = Check {
            passed: false,
            ..passing_check()
        };
        assert!(!with_hashes(failed, account(true, &[], &fine), &[], dims).passed);
    }

    /// The atomic and reduction instructions of `entry`'s body in `ptx` (`atom.*`, `red.*`), as
    /// written.
    fn atomics_of(ptx: &str, entry: &str) -> Option<Vec<String>> {
        let start = ptx.find(&format!(".entry {entry}("))?;
        let body = &ptx[start..];
        let body = &body[..body[1..].find(".entry ").map_or(body.len(), |e| e + 1)];
        let instructions = body.split(['\n', ';', '{']).map(str::trim);
        Some(
            instructions
                .filter(|i| i.starts_with("atom.") || i.starts_with("red."))
                .map(|i| i.split_whitespace().next().unwrap_or(i).to_owned())
                .collect(),
        )
    }

    /// Why our side's bits are required: no GEMM kernel of ours adds into global memory with
    /// atomics (each element of C is written by one thread from a sum in a fixed order); the
    /// atomics the TMA lines have count a ring slot's readers in shared memory and, on the
    /// wgmma lines, a cut tile's arrivals (split-K: the last arrival sums the units' partials
    /// in a fixed order, `split_k.rs`): integer counts, never values.
    #[test]
    fn our_gemm_kernels_have_no_global_atomics() {
        use kernels_gpu::variants::{BF16_GEMM, GEMM, WGEMM};
        let modules = [
            ("main", builtin::MAIN),
            ("unbounded", builtin::UNBOUNDED),
            ("tensor", builtin::TENSOR),
            ("sm_90a", builtin::HOPPER),
        ]
        .into_iter()
        .chain(builtin::CAPPED.iter().map(|(_, ptx)| ("capped", *ptx)));
        let entries: Vec<&str> = GEMM
            .iter()
            .map(|v| v.entry)
            .chain(BF16_GEMM.iter().map(|v| v.entry))
            .chain(WGEMM.iter().map(|v| v.entry))
            .collect();
        let mut seen = 0;
        let mut shared = 0;
        for (module, ptx) in modules {
            for entry in &entries {
                let Some(atomics) = atomics_of(ptx, entry) else {
                    continue;
                };
                seen += 1;
                let counts_arrivals = WGEMM.iter().any(|v| v.entry == *entry && v.streams_tail());
                for a in atomics {
                    if a == "atom.acq_rel.gpu.global.add.u32" && counts_arrivals {
                        continue;
                    }
                    assert!(a.contains(".shared"), "{module} {entry}: {a}");
                    shared += 1;
                }
            }
        }
        assert!(seen >= GEMM.len() + BF16_GEMM.len() + WGEMM.len(), "{seen}");
        assert!(
            shared > 0,
            "the reader finds the ring's shared-memory atomic"
        );
        // And the reader does find a global atomic where there is one: the check's own kernels.
        let hash = atomics_of(builtin::CHECKS, "gemm_hash_f32").unwrap();
        assert_eq!(hash, ["atom.global.add.u64"]);
    }

    #[test]
    fn long_lists_are_cut_short() {
        let all: Vec<u32> = (0..20).collect();
        assert_eq!(
            listed(("sample", "samples"), &all),
            "samples 0, 1, 2, 3, 4, 5, 6, 7 and 12 more"
        );
        assert_eq!(listed(LAUNCHES, &[4]), "launch 4");
        assert_eq!(counted(1, "differs", "differ"), "1 differs");
    }

    #[test]
    fn a_check_without_hashes_reads_and_writes_as_before() {
        // A check of a run recorded before the hashes: no `hashes` field, read and written back
        // byte for byte.
        let old = r#"{"passed":true,"error":0.3,"bound":1.0,"what":"every element"}"#;
        let c: Check = serde_json::from_str(old).unwrap();
        assert_eq!(c, passing_check());
        assert_eq!(serde_json::to_string(&c).unwrap(), old);
        // And one with them round-trips.
        let r = race(9, &[9; 100], &[]);
        let new = with_hashes(
            passing_check(),
            account(true, &[figure(9, &[9])], &r),
            &[],
            GemmDims::square(2),
        );
        let text = serde_json::to_string(&new).unwrap();
        assert!(
            text.contains(r#""hashes":{"samples":1,"samples_differing":[],"race_launches":100"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Check>(&text).unwrap(), new);
    }

    #[test]
    fn a_race_check_stops_at_its_most_or_at_its_least_once_its_time_is_spent() {
        use std::time::Duration;
        let (short, spent) = (Duration::from_millis(1), RACE_CHECK_BUDGET);
        // Quick launches: the full count.
        assert!(!race_check_done(RACE_LAUNCHES - 1, short));
        assert!(race_check_done(RACE_LAUNCHES, short));
        // Slow launches: the least, and no fewer.
        assert!(!race_check_done(RACE_LAUNCHES_LEAST - 1, spent * 10));
        assert!(race_check_done(RACE_LAUNCHES_LEAST, spent));
        assert!(!race_check_done(RACE_LAUNCHES_LEAST, spent - short));
    }
}
