//! The epilogue that reads C, timed: a line and cuBLAS at alpha=1.5, beta=0.5, their samples
//! interleaved as every GEMM figure's are. The lab's other figures time alpha=1, beta=0, where
//! the kernels never read C; this one prices the read a real `C = alpha A B + beta C` makes.
//!
//! Each launch reads what the one before it wrote, so a sample starts from the problem's
//! initial C (copied in after the warm-up launch and after each sample, outside the timed
//! interval) and every sample makes the same launches from the same C: a deterministic side
//! gives the same bits after each, which a hash of C after each sample shows. The values stay
//! bounded (beta = 0.5 halves what each launch carries over, so C tends to 3 A B), and nothing
//! in a GEMM's time depends on them. What the elements must be after many such launches has no
//! rule of its own, so the element check is of one launch at the same setting on a fresh C,
//! held to the family's rule.

use serde::{Deserialize, Serialize};

use super::error::ExperimentError;
use super::gemm_check::Checked;
use super::gemm_hashes::differing;
use super::gemm_sides::{
    sample_slots, GemmKind, GemmSides, Launcher, Sampling, Side, SideLaunch, Who, EPILOGUE,
};
use crate::cuda::{prepare, Cublas, Gpu, Kernel, LaunchShape};
use crate::results::{Check, Timing};
use crate::sampling::{time_sampled, SamplingConfig};

/// alpha and beta of the launches this figure times: the extra checked launch's, so both
/// terms of the epilogue run.
pub const READING_C: (f32, f32) = EPILOGUE;

/// The launch whose every element is checked, in the records' words.
const CHECKED_LAUNCH: &str = "one launch on a fresh C at the timed setting";

/// One line and cuBLAS timed at [`READING_C`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ReadingC {
    pub alpha: f32,
    pub beta: f32,
    /// The line's samples.
    pub timing: Timing,
    /// Its one launch at the setting checked element by element, and its samples' hashes.
    pub check: Check,
    /// cuBLAS's samples and check, where it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cublas: Option<(Timing, Check)>,
}

impl ReadingC {
    /// Ours over cuBLAS, from the medians of the samples taken together.
    pub fn vs_cublas(&self) -> Option<f64> {
        let (c, _) = self.cublas.as_ref()?;
        Some(c.median_ms / self.timing.median_ms)
    }

    /// Both sides' checks passed.
    pub fn passed(&self) -> bool {
        self.check.passed && self.cublas.as_ref().is_none_or(|(_, c)| c.passed)
    }
}

/// The samples whose hash differs from the first's (0-based).
pub fn differing_from_first(hashes: &[u64]) -> Vec<u32> {
    hashes
        .first()
        .map_or_else(Vec::new, |&first| differing(hashes, first))
}

/// `check` with its side's sample hashes recorded: for the lab's kernels (`required`) any
/// sample that differs fails it; for cuBLAS a difference is recorded, not judged (its bits are
/// not ours to know: a kernel that splits K with atomics may vary).
pub fn with_sample_hashes(mut check: Check, hashes: &[u64], required: bool) -> Check {
    let differing = differing_from_first(hashes);
    let n = hashes.len();
    let words = match (differing.as_slice(), required) {
        ([], _) => format!("all {n} the same bits"),
        (d, true) => {
            check.passed = false;
            format!(
                "{} of {n} differ from the first (samples {d:?}): FAILED, the lab's kernels use \
                 no atomics and must give the same bits from the same C",
                d.len()
            )
        }
        (d, false) => format!(
            "{} of {n} differ from the first (samples {d:?}): recorded, not judged",
            d.len()
        ),
    };
    check.what = format!(
        "{} C hashed after each timed sample, each sample from the initial C: {words}.",
        check.what
    );
    check
}

impl<K: GemmKind> GemmSides<K> {
    /// Times `kernel` (launched in `shape` by `launcher`) and cuBLAS, where given, at
    /// [`READING_C`], each sample from the initial C; then checks each side's hashes and one
    /// launch at the setting on a fresh C.
    pub fn time_reading_c(
        &mut self,
        gpu: &Gpu,
        (kernel, shape, launcher): (&Kernel<'_>, LaunchShape, Launcher<'_, K::Elem>),
        cublas: Option<&Cublas>,
        plan: &SamplingConfig,
    ) -> Result<ReadingC, ExperimentError> {
        prepare(kernel, shape)?;
        let ours = SideLaunch {
            side: Side::Ours,
            kernel,
            shape,
            launcher,
        };
        let mut who = vec![Who::Kernel(&ours)];
        who.extend(cublas.map(Who::Cublas));
        for w in &who {
            self.fresh_c(gpu, w.side())?;
        }
        let mut sampling = Sampling {
            gpu,
            sides: self,
            who: &who,
            slots: sample_slots(gpu, plan, who.len())?,
            setting: READING_C,
            afresh: true,
        };
        let timings = time_sampled(gpu, plan, who.len(), &mut sampling)?;
        let slots = sampling.slots;
        let mut sides = Vec::with_capacity(who.len());
        for ((w, timing), slots) in who.iter().zip(timings).zip(slots) {
            let hashes = slots.read(gpu)?;
            let side = w.side();
            self.fresh_c(gpu, side)?;
            self.launch_who(gpu, *w, READING_C)?;
            let checked: Checked = self.check_side(gpu, side, CHECKED_LAUNCH, READING_C)?;
            let check = K::record(self.dims(), &[checked]);
            let check = with_sample_hashes(check, &hashes, side == Side::Ours);
            sides.push((timing, check));
        }
        let mut sides = sides.into_iter();
        let (timing, check) = sides.next().expect("ours is timed");
        Ok(ReadingC {
            alpha: READING_C.0,
            beta: READING_C.1,
            timing,
            check,
            cublas: sides.next(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check() -> Check {
        Check {
            passed: true,
            error: 0.1,
            bound: 1.0,
            what: "checked.".into(),
            hashes: None,
        }
    }

    #[test]
    fn samples_are_held_to_the_first() {
        assert_eq!(differing_from_first(&[]), Vec::<u32>::new());
        assert_eq!(differing_from_first(&[7, 7, 7]), Vec::<u32>::new());
        assert_eq!(differing_from_first(&[7, 8, 7, 9]), vec![1, 3]);
    }

    #[test]
    fn a_differing_sample_fails_ours_and_is_recorded_for_cublas() {
        let same = with_sample_hashes(check(), &[5, 5, 5], true);
        assert!(
            same.passed && same.what.contains("all 3 the same bits"),
            "{}",
            same.what
        );
        let ours = with_sample_hashes(check(), &[5, 6, 5], true);
        assert!(
            !ours.passed && ours.what.contains("1 of 3 differ"),
            "{}",
            ours.what
        );
        assert!(ours.what.contains("FAILED"), "{}", ours.what);
        let theirs = with_sample_hashes(check(), &[5, 6, 5], false);
        assert!(
            theirs.passed && theirs.what.contains("not judged"),
            "{}",
            theirs.what
        );
    }

    #[test]
    fn the_ratio_is_cublas_time_over_ours_and_a_failed_side_fails_the_figure() {
        let t = |ms| Timing {
            median_ms: ms,
            ..Timing::default()
        };
        let mut r = ReadingC {
            alpha: 1.5,
            beta: 0.5,
            timing: t(2.0),
            check: check(),
            cublas: Some((t(1.9), check())),
        };
        assert!((r.vs_cublas().unwrap() - 0.95).abs() < 1e-12);
        assert!(r.passed());
        r.cublas.as_mut().unwrap().1.passed = false;
        assert!(!r.passed());
        r.cublas = None;
        assert!(r.vs_cublas().is_none() && r.passed());
    }
}
