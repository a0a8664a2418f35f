//! Occupancy compared at whole waves. Two builds at different blocks/SM, timed at a size where
//! either ends on a partial wave, differ by the tail as much as by the occupancy (issue 31: at
//! 4096³ line C's 64x64 tiles run 3.88 waves at 8 blocks/SM and 5.17 at 6). A verdict that
//! compares occupancies names its pair from what is known before timing (registers, spills,
//! the calculator's blocks/SM), the run picks with [`whole_wave_dims`] the size nearest the
//! default at which both sides run whole waves, times the pair again there, and the verdict is
//! judged on those figures with the default size's beside them ([`judge_at_whole_waves`]).

use serde::{Deserialize, Serialize};

use super::gemm_figures::GemmFigures;
use crate::claim::ratio_words;
use crate::confidence::{Interval, NoInterval};
use crate::flags::MAX_GEMM_SIZE;
use crate::occupancy::waves::{whole_wave_size, Side};
use crate::results::GemmDims;
use crate::table::percent;

/// A build timed again at a size where the pair it is compared in runs whole waves.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WholeWave {
    pub size: GemmDims,
    pub figures: GemmFigures,
}

/// The size nearest `dims` (same K) at which a line of `tile` (BM, BN) runs whole waves at
/// every one of `blocks` blocks/SM on `sms` SMs; `dims` itself when it already does. None when
/// none is within four times the area, or the nearest passes `--size`'s largest dimension.
pub fn whole_wave_dims(
    dims: GemmDims,
    tile: (u32, u32),
    blocks: &[u32],
    sms: u32,
) -> Option<GemmDims> {
    let sides: Vec<Side> = (blocks.iter())
        .map(|&b| Side {
            tile_m: tile.0.into(),
            tile_n: tile.1.into(),
            blocks_per_sm: b,
        })
        .collect();
    let (m, n) = whole_wave_size((dims.m.into(), dims.n.into()), &sides, sms)?;
    // The kernels index within `--size`'s bounds: a size past them is no size to time.
    let within = |x: u64| u32::try_from(x).ok().filter(|&x| x <= MAX_GEMM_SIZE);
    Some(GemmDims {
        m: within(m)?,
        n: within(n)?,
        k: dims.k,
    })
}

/// "3072x4224x4096": a size in words, every dimension named.
pub fn dims_words(d: GemmDims) -> String {
    format!("{}x{}x{}", d.m, d.n, d.k)
}

/// One side of a compared pair: its name, its figures at the default size and any timings at
/// whole-wave sizes.
#[derive(Debug, Clone, Copy)]
pub struct PairSide<'a> {
    pub name: &'a str,
    pub figures: &'a GemmFigures,
    pub whole_waves: &'a [WholeWave],
}

impl PairSide<'_> {
    fn at(&self, size: GemmDims) -> Option<&GemmFigures> {
        (self.whole_waves.iter())
            .find(|w| w.size == size)
            .map(|w| &w.figures)
    }
}

/// "cap 128 3.88 waves (tail 97.0%)": a side's schedule in words.
fn schedule_words(name: &str, f: &GemmFigures) -> String {
    match f.waves() {
        Some(w) => format!(
            "{name} {:.2} waves (tail {})",
            w.waves(),
            percent(w.tail_efficiency())
        ),
        None => format!("{name} (waves not recorded)"),
    }
}

/// `a`'s GFLOP/s over `b`'s at the whole-wave size both were timed at, and the evidence: that
/// ratio and size with each side's waves, then the default size's ratio and waves beside it.
/// Err (the claim is not judged) when the pair was not timed at a common size where both run
/// whole waves, saying so with the default size's figures.
pub fn judge_at_whole_waves(
    a: PairSide<'_>,
    b: PairSide<'_>,
) -> Result<(Result<Interval, NoInterval>, String), String> {
    let default = format!(
        "at the default size {} over {}: {} ({}; {})",
        a.name,
        b.name,
        ratio_words(&a.figures.over(b.figures)),
        schedule_words(a.name, a.figures),
        schedule_words(b.name, b.figures)
    );
    let common = (a.whole_waves.iter()).find_map(|w| Some((w.size, &w.figures, b.at(w.size)?)));
    let Some((size, fa, fb)) = common else {
        return Err(format!(
            "the pair was not timed at a size where both run whole waves; {default}"
        ));
    };
    let whole = |f: &GemmFigures| f.waves().is_some_and(|w| w.whole());
    if !whole(fa) || !whole(fb) {
        return Err(format!(
            "at {}, the size the pair was timed again at, a side ends on a partial wave ({}; {}); \
             {default}",
            dims_words(size),
            schedule_words(a.name, fa),
            schedule_words(b.name, fb)
        ));
    }
    let iv = fa.over(fb);
    let words = format!(
        "at {} (whole waves: {}; {}) {} {:.0} GFLOP/s over {} {:.0} GFLOP/s: {}; {default}",
        dims_words(size),
        schedule_words(a.name, fa),
        schedule_words(b.name, fb),
        a.name,
        fa.gflops,
        b.name,
        fb.gflops,
        ratio_words(&iv)
    );
    Ok((iv, words))
}

/// The notes under a table whose rows carry whole-wave timings: one per size, naming each
/// build timed there with its GFLOP/s and waves beside its default size's. Empty when none was
/// (and for runs before whole waves were).
pub fn whole_wave_notes<'a>(
    sides: impl IntoIterator<Item = (String, &'a GemmFigures, &'a [WholeWave])>,
) -> Vec<String> {
    let mut by_size: Vec<(GemmDims, Vec<String>)> = Vec::new();
    for (name, default, whole) in sides {
        for w in whole {
            let waves = |f: &GemmFigures| {
                f.waves()
                    .map_or(String::new(), |w| format!(", {:.2} waves", w.waves()))
            };
            let words = format!(
                "{name} {:.0} GFLOP/s{} (default size: {:.0} GFLOP/s{})",
                w.figures.gflops,
                waves(&w.figures),
                default.gflops,
                waves(default)
            );
            match by_size.iter_mut().find(|(s, _)| *s == w.size) {
                Some((_, list)) => list.push(words),
                None => by_size.push((w.size, vec![words])),
            }
        }
    }
    (by_size.into_iter())
        .map(|(size, list)| {
            format!(
                "Timed again at {}, where the pairs the verdicts compare run whole waves (the \
                 verdicts are judged there): {}.",
                dims_words(size),
                list.join("; ")
            )
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cuda::LaunchShape;
    use crate::experiments::gemm_figures::Schedule;

    const H200_SMS: u32 = 132;

    /// Figures of a 64x64-tile line at `blocks` blocks/SM and `gflops` (nine samples within
    /// +-0.4%), launched over `size` on 132 SMs.
    pub(crate) fn figures(size: GemmDims, blocks: u32, gflops: f64) -> GemmFigures {
        let ms = 1000.0 / gflops;
        let samples: Vec<f64> = (0..9)
            .map(|i| ms * (1.0 + 0.001 * f64::from(i - 4)))
            .collect();
        let shape = LaunchShape {
            grid: (size.n.div_ceil(64), size.m.div_ceil(64)),
            threads: 256,
            dyn_smem: 0,
        };
        GemmFigures {
            regs: 128,
            blocks_per_sm: blocks,
            occupancy: f64::from(blocks) / 32.0,
            limiter: "registers".into(),
            timing: crate::sampling::summarize(samples, None, None),
            gflops,
            schedule: Some(Schedule::one_block_per_tile(&shape, H200_SMS)),
            block_trace: None,
        }
    }

    pub(crate) const DEFAULT: GemmDims = GemmDims::square(4096);
    pub(crate) const WHOLE: GemmDims = GemmDims {
        m: 3072,
        n: 4224,
        k: 4096,
    };

    #[test]
    fn line_c_at_8_and_6_blocks_runs_whole_waves_at_3072_by_4224() {
        let size = whole_wave_dims(DEFAULT, (64, 64), &[8, 6], H200_SMS);
        assert_eq!(size, Some(WHOLE), "K kept, M and N as the issue measured");
        for b in [8, 6] {
            assert!(figures(WHOLE, b, 1.0).waves().unwrap().whole());
            assert!(!figures(DEFAULT, b, 1.0).waves().unwrap().whole());
        }
        // A size already whole for both is its own whole-wave size.
        assert_eq!(
            whole_wave_dims(WHOLE, (64, 64), &[8, 6], H200_SMS),
            Some(WHOLE)
        );
        assert_eq!(whole_wave_dims(DEFAULT, (64, 64), &[], H200_SMS), None);
        // At the largest size, the nearest whole-wave size would pass it: none.
        let largest = GemmDims::square(MAX_GEMM_SIZE);
        if let Some(d) = whole_wave_dims(largest, (64, 64), &[8, 6], H200_SMS) {
            assert!(d.m <= MAX_GEMM_SIZE && d.n <= MAX_GEMM_SIZE, "{d:?}");
        }
    }

    fn side<'a>(name: &'a str, f: &'a GemmFigures, w: &'a [WholeWave]) -> PairSide<'a> {
        PairSide {
            name,
            figures: f,
            whole_waves: w,
        }
    }

    #[test]
    fn a_pair_is_judged_at_its_whole_wave_size_with_the_default_beside() {
        let (a, b) = (figures(DEFAULT, 8, 1150.0), figures(DEFAULT, 6, 1000.0));
        let wa = [WholeWave {
            size: WHOLE,
            figures: figures(WHOLE, 8, 1010.0),
        }];
        let wb = [WholeWave {
            size: WHOLE,
            figures: figures(WHOLE, 6, 1000.0),
        }];
        let (iv, words) = judge_at_whole_waves(side("8", &a, &wa), side("6", &b, &wb)).unwrap();
        let iv = iv.unwrap();
        assert!(
            (iv.point - 1.01).abs() < 1e-9,
            "judged at whole waves: {iv:?}"
        );
        assert!(words.starts_with("at 3072x4224x4096 (whole waves: 8 3.00 waves"));
        assert!(
            words.contains("at the default size 8 over 6: 1.150"),
            "{words}"
        );
        assert!(words.contains("3.88 waves"), "{words}");
    }

    #[test]
    fn a_pair_without_a_common_whole_wave_timing_is_not_judged() {
        let (a, b) = (figures(DEFAULT, 8, 1150.0), figures(DEFAULT, 6, 1000.0));
        let why = judge_at_whole_waves(side("8", &a, &[]), side("6", &b, &[])).unwrap_err();
        assert!(why.starts_with("the pair was not timed"), "{why}");
        assert!(
            why.contains("1.150"),
            "the default size's ratio beside: {why}"
        );
        // Timed at a size where one side ends on a partial wave: not judged either.
        let wa = [WholeWave {
            size: DEFAULT,
            figures: a.clone(),
        }];
        let wb = [WholeWave {
            size: DEFAULT,
            figures: b.clone(),
        }];
        let why = judge_at_whole_waves(side("8", &a, &wa), side("6", &b, &wb)).unwrap_err();
        assert!(why.contains("partial wave"), "{why}");
    }

    #[test]
    fn the_notes_name_each_build_timed_at_whole_waves() {
        let (a, b) = (figures(DEFAULT, 8, 1150.0), figures(DEFAULT, 6, 1000.0));
        let wa = [WholeWave {
            size: WHOLE,
            figures: figures(WHOLE, 8, 1010.0),
        }];
        let none: [(String, &GemmFigures, &[WholeWave]); 0] = [];
        assert!(whole_wave_notes(none).is_empty());
        let notes = whole_wave_notes([
            ("cap 128".to_owned(), &a, &wa[..]),
            ("cap 255".to_owned(), &b, &[][..]),
        ]);
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with("Timed again at 3072x4224x4096"),
            "{}",
            notes[0]
        );
        assert!(
            notes[0].contains(
                "cap 128 1010 GFLOP/s, 3.00 waves (default size: 1150 GFLOP/s, 3.88 waves)"
            ),
            "{}",
            notes[0]
        );
        assert!(!notes[0].contains("cap 255"));
    }
}
