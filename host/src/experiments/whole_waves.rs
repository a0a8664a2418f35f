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
/// none is within four times the area.
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
    Some(GemmDims {
        m: u32::try_from(m).ok()?,
        n: u32::try_from(n).ok()?,
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

/// "cap 128 3.88 waves (tail 97.0%) at 8 blocks/SM": a side's schedule in words.
fn schedule_words(name: &str, f: &GemmFigures) -> String {
    match f.waves() {
        Some(w) => format!(
            "{name} {:.2} waves (tail {}) at {} blocks/SM",
            w.waves(),
            percent(w.tail_efficiency()),
            f.blocks_per_sm
        ),
        None => format!("{name} at {} blocks/SM", f.blocks_per_sm),
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
