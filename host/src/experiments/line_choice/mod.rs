//! The choice of a GEMM line for a shape, shared by `occupancy` and `gemm_bf16` (`--variants
//! auto`) and the shape sweep (`shapes`). The rule, stated before any timing:
//!
//! 1. **Candidates** are fixed per family ([`timed`]): FP32, every tuned line of the table; BF16,
//!    every `mma.sync` line and every TMA-ring line (wgmma on shared tiles, wgmma in turns, and ring
//!    `mma.sync`: three kinds). A line that cannot run the shape (a device without sm_90a for the
//!    ring lines, an odd N for the `mma.sync` ring lines, a launch the calculator refuses) is
//!    excluded with the reason; a K or N off TMA's 16-byte strides is read through a padded copy.
//! 2. **The heuristic** ([`short_list`]) places each line by the table (its tile) and the
//!    occupancy calculator (blocks/SM from its registers, threads and shared memory): tiles,
//!    waves and tail efficiency, and its SM efficiency: the product's area over the area the
//!    busiest SM computes (SMs x the tiles it runs x the tile), which counts idle SMs under one
//!    wave, a partial last wave and the edge tiles' waste alike. Lines are ranked by SM
//!    efficiency, then by the tile's arithmetic intensity (BM·BN/(BM+BN): operands reused),
//!    then by blocks/SM (latency hidden), then by table order; the first [`KEEP_PER_KIND`] of
//!    each kind of kernel make the short list, with any line tied with the last of them on all
//!    three figures and any line within [`EFFICIENCY_TIE`] of the kind's best efficiency (kinds
//!    are not ranked against each other: their per-SM throughput differs, which the table does
//!    not say; nor are lines the figures cannot part).
//! 3. **A short timing** ([`decide`]) of the short list, few samples each, the lines' samples
//!    interleaved (`together.rs`), then every element of one launch of each checked, picks the
//!    fastest line that passed; the caller then times it again, interleaved with cuBLAS, and
//!    checks it.

#[cfg(test)]
mod tests;
pub mod timed;
pub mod together;

use serde::{Deserialize, Serialize};

use kernels_gpu::sections::wgemm_tail::StreamTail;

use crate::occupancy::calc::{occupancy, KernelResources};
use crate::occupancy::waves::{tiles, Waves};
use crate::occupancy::Limits;
use crate::results::GemmDims;
use crate::table::percent;

/// Lines of each kind the heuristic keeps for the short timing. Three, not two: at 8192³ FP32 a
/// smaller tile's fuller last wave (R5, SM efficiency 98.5%) and table order between two tiles
/// of equal reuse (R3 before R4) kept R4 off a list of two, though it was the fastest line
/// (session 17's S17d): lines the table cannot tell apart are for the timing to tell.
pub const KEEP_PER_KIND: usize = 3;

/// Every line whose SM efficiency is within this fraction of its kind's best is timed, however
/// many that makes. The efficiency counts a partial wave's idle SMs and nothing of what a tile
/// costs on its SM, so a difference this small is for the timing to tell: it is within what a
/// tail's own costs move (a streamed tail against the same tail dealt whole: 0.99-1.04 in S20b),
/// and a tile's reuse can outweigh it (W1 led W2 by 12% at 8192³ BF16, S18d). In S28b the
/// lines it added were chosen at FP32 2048x8192x1024 (R2: 1.004 of cuBLAS, where S26c's R4 ran
/// 0.932) and 2048³ (R2, and BF16 W3); at 16384³ BF16, where it added the 128x256 lines (98.5%:
/// eight tiles in the last of 63 waves), they were no faster than the streamed ones (S28a).
pub const EFFICIENCY_TIE: f64 = 0.02;

/// Samples each short-listed line is timed for.
pub const SHORT_SAMPLES: u32 = 3;

/// What kind of kernel a line is: lines are ranked within their kind only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LineKind {
    /// The tuned FP32 SGEMM family (a grid of one block per tile).
    Tuned,
    /// The BF16 `mma.sync` lines with `cp.async` stages (a grid of one block per tile).
    MmaSync,
    /// The BF16 TMA-ring lines whose consumers run wgmma on shared tiles (a persistent grid of one
    /// block per SM).
    Ring,
    /// The BF16 TMA-ring lines whose two wgmma consumers take tiles in turn (`wgmma_turns`): a
    /// kind of its own, as what its schedule hides (a tile's C written under the other
    /// consumer's MMAs) is not in the table, whose reuse figure ranks its tiles below shared
    /// tiles twice their size: at 4096³ that kept W6 untimed, though it had run 0.969 of cuBLAS
    /// against W1's 0.962 in one call (S22f).
    RingTurns,
    /// The BF16 TMA-ring lines whose consumers run `mma.sync` (the same ring and grid): a kind of
    /// its own, as their MMA's per-SM throughput is not wgmma's, which the table does not say.
    RingSync,
}

impl LineKind {
    pub fn words(self) -> &'static str {
        match self {
            LineKind::Tuned => "tuned SGEMM",
            LineKind::MmaSync => "mma.sync",
            LineKind::Ring => "TMA ring (wgmma)",
            LineKind::RingTurns => "TMA ring (wgmma, consumers in turn)",
            LineKind::RingSync => "TMA ring (mma.sync)",
        }
    }
}

/// A line offered for a shape: its label and kind, its output tile, its launch resources, and why
/// it cannot run the shape (none when it can).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub label: &'static str,
    pub kind: LineKind,
    /// BM x BN.
    pub tile: (u32, u32),
    /// Its grid is persistent: at most one block per SM, each walking tiles.
    pub persistent: bool,
    /// Units each tile's K is cut into at this shape (split-K, the wgmma lines'
    /// `WgemmVariant::k_split`); 1 where K is whole.
    pub k_splits: u32,
    /// Its last partial wave streamed over the grid at this shape (`WgemmVariant::stream_tail`).
    pub streamed: Option<StreamTail>,
    pub resources: KernelResources,
    pub refusal: Option<String>,
}

/// A line placed on a shape by the table and the calculator.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessed {
    pub label: &'static str,
    pub kind: LineKind,
    pub tile: (u32, u32),
    pub tiles: u64,
    /// Units each tile's K is cut into (1: whole).
    pub k_splits: u32,
    /// The last partial wave streamed over the grid.
    pub streamed: bool,
    pub blocks_per_sm: u32,
    pub occupancy: f64,
    pub waves: Waves,
    /// The product's area over SMs x the busiest SM's work units x a unit's share of a tile's
    /// area (a tile's area over its K splits) (0..=1).
    pub sm_efficiency: f64,
}

impl Assessed {
    /// BM·BN/(BM+BN): output elements per operand element loaded, a tile's reuse.
    pub fn intensity(&self) -> f64 {
        let (m, n) = (f64::from(self.tile.0), f64::from(self.tile.1));
        m * n / (m + n)
    }

    /// Fewer tiles than the slots of one wave.
    pub fn under_one_wave(&self) -> bool {
        self.waves.tiles < self.waves.slots
    }

    /// "W3 (16 tiles, 0.12 waves, tail 12.1%, 1 blocks/SM, SM efficiency 3.0%)", with "K in 8
    /// units" after the tiles where K is cut, "last wave streamed" where it is.
    pub fn words(&self) -> String {
        let cut = if self.k_splits > 1 {
            format!(", K in {} units", self.k_splits)
        } else if self.streamed {
            ", last wave streamed".to_owned()
        } else {
            String::new()
        };
        format!(
            "{} ({} tiles{cut}, {:.2} waves, tail {}, {} blocks/SM, SM efficiency {})",
            self.label,
            self.tiles,
            self.waves.waves(),
            percent(self.waves.tail_efficiency()),
            self.blocks_per_sm,
            percent(self.sm_efficiency)
        )
    }
}

/// Which case of the rule the best-ranked line fell in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Branch {
    /// Fewer tiles than one wave's slots: SMs sit idle, smaller tiles rank first.
    UnderOneWave,
    /// Every wave full.
    WholeWaves,
    /// At least one wave, the last partial.
    PartialWave,
    /// No candidate can run the shape.
    NoLine,
}

/// The heuristic's outcome: its branch, the short list (best first within each kind, kinds in
/// candidate order) and the lines excluded with why.
#[derive(Debug, Clone, PartialEq)]
pub struct ShortList {
    pub branch: Branch,
    pub kept: Vec<Assessed>,
    pub excluded: Vec<(&'static str, String)>,
}

impl ShortList {
    /// The rule's words for this shape.
    pub fn words(&self) -> String {
        let kept: Vec<String> = self.kept.iter().map(Assessed::words).collect();
        let case = match self.branch {
            Branch::UnderOneWave => "under one wave: smaller tiles keep more SMs busy",
            Branch::WholeWaves => "whole waves",
            Branch::PartialWave => "a partial last wave",
            Branch::NoLine => "no line can run the shape",
        };
        let mut out = format!("{case}; short list: {}", kept.join(", "));
        if self.kept.is_empty() {
            out = case.to_owned();
        }
        if !self.excluded.is_empty() {
            let ex: Vec<String> = (self.excluded.iter())
                .map(|(l, why)| format!("{l}: {why}"))
                .collect();
            out.push_str(&format!("; excluded {}", ex.join("; ")));
        }
        out
    }
}

/// Places `c` on an M x N product on `sms` SMs of `limits`, or says why it cannot run.
pub fn assess(
    dims: GemmDims,
    c: &Candidate,
    limits: &Limits,
    sms: u32,
) -> Result<Assessed, String> {
    if let Some(why) = &c.refusal {
        return Err(why.clone());
    }
    let o = occupancy(limits, &c.resources).map_err(|e| e.to_string())?;
    if o.blocks_per_sm == 0 {
        return Err("no block fits on an SM".into());
    }
    let (bm, bn) = (u64::from(c.tile.0), u64::from(c.tile.1));
    let t = tiles(dims.m.into(), dims.n.into(), bm, bn);
    let splits = c.k_splits.max(1);
    // The work units: tiles, each cut into K's units where the line cuts it.
    let units = t * u64::from(splits);
    let waves = if c.persistent {
        // One block per SM at most, each walking its units.
        Waves {
            tiles: units,
            slots: units.min(u64::from(sms)),
            grain: 1,
        }
        .streamed(c.streamed.map_or(1, |s| s.k_steps.into()))
    } else {
        Waves::new(units, sms, o.blocks_per_sm)
    };
    // Parts the busiest SM computes, whether resident together or one after another, each a
    // tile's area over its K splits, or over its K slices where the last wave is streamed.
    let grain = waves.grain * u64::from(splits);
    let busiest = (units * waves.grain).div_ceil(u64::from(sms));
    let area = f64::from(dims.m) * f64::from(dims.n);
    let part_area = (bm * bn) as f64 / grain as f64;
    let sm_efficiency = area / (f64::from(sms) * busiest as f64 * part_area);
    Ok(Assessed {
        label: c.label,
        kind: c.kind,
        tile: c.tile,
        tiles: t,
        k_splits: splits,
        streamed: c.streamed.is_some(),
        blocks_per_sm: if c.persistent { 1 } else { o.blocks_per_sm },
        occupancy: o.occupancy,
        waves,
        sm_efficiency,
    })
}

/// The heuristic: every candidate placed, those that cannot run excluded with why, each kind
/// ranked ([`rank`], then candidate order) and its first [`KEEP_PER_KIND`] kept, with every line
/// tied with the last of them and every line within [`EFFICIENCY_TIE`] of the kind's best.
pub fn short_list(
    dims: GemmDims,
    candidates: &[Candidate],
    limits: &Limits,
    sms: u32,
) -> ShortList {
    let mut placed = Vec::new();
    let mut excluded = Vec::new();
    for c in candidates {
        match assess(dims, c, limits, sms) {
            Ok(a) => placed.push(a),
            Err(why) => excluded.push((c.label, why)),
        }
    }
    let mut kinds: Vec<LineKind> = Vec::new();
    for a in &placed {
        if !kinds.contains(&a.kind) {
            kinds.push(a.kind);
        }
    }
    let mut kept = Vec::new();
    for kind in kinds {
        let mut of_kind: Vec<Assessed> = (placed.iter())
            .filter(|a| a.kind == kind)
            .cloned()
            .collect();
        // A stable sort: equal lines keep the candidates' (the table's) order.
        of_kind.sort_by(rank);
        // The cut never falls inside a tie: lines equal to the last kept one on every ranked
        // figure are kept with it, as table order is no measurement (at 4096³ W8, W1 with the
        // storer warps, stood behind W1 and W5 on the same tile and was never timed). Nor does
        // it fall within EFFICIENCY_TIE of the kind's best.
        let top = of_kind.first().map_or(0.0, |a| a.sm_efficiency);
        let mut keep = of_kind.len().min(KEEP_PER_KIND);
        while keep > 0
            && keep < of_kind.len()
            && (rank(&of_kind[keep - 1], &of_kind[keep]).is_eq()
                || of_kind[keep].sm_efficiency >= top * (1.0 - EFFICIENCY_TIE))
        {
            keep += 1;
        }
        kept.extend(of_kind.into_iter().take(keep));
    }
    let best = kept.iter().min_by(|a, b| rank(a, b));
    let branch = match best {
        None => Branch::NoLine,
        Some(b) if b.under_one_wave() => Branch::UnderOneWave,
        Some(b) if b.waves.whole() => Branch::WholeWaves,
        Some(_) => Branch::PartialWave,
    };
    ShortList {
        branch,
        kept,
        excluded,
    }
}

/// The heuristic's order (`Less`: `a` first): SM efficiency, then the tile's reuse, then
/// blocks/SM.
fn rank(a: &Assessed, b: &Assessed) -> std::cmp::Ordering {
    (b.sm_efficiency.total_cmp(&a.sm_efficiency))
        .then(b.intensity().total_cmp(&a.intensity()))
        .then(b.blocks_per_sm.cmp(&a.blocks_per_sm))
}

/// A short-listed line's short timing: its median GFLOP/s and whether every element passed.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    pub label: &'static str,
    pub gflops: f64,
    pub passed: bool,
}

/// The line chosen for a shape (none: a miss) and the rule's words for it, as a run records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub label: Option<String>,
    pub why: String,
}

/// The short timing's pick: the fastest short-listed line whose every element passed; none when
/// the list is empty or every line failed its check.
pub fn decide(list: &ShortList, trials: &[Trial]) -> Choice {
    let passed: Vec<&Trial> = trials.iter().filter(|t| t.passed).collect();
    let best = (passed.iter().copied()).max_by(|a, b| a.gflops.total_cmp(&b.gflops));
    let timed: Vec<String> = (trials.iter())
        .map(|t| {
            let failed = if t.passed { "" } else { " (check failed)" };
            format!("{} {:.0} GFLOP/s{failed}", t.label, t.gflops)
        })
        .collect();
    let words = list.words();
    match best {
        Some(b) => Choice {
            label: Some(b.label.to_owned()),
            why: format!(
                "{words}; timed {SHORT_SAMPLES} samples each: {}; fastest {}",
                timed.join(", "),
                b.label
            ),
        },
        None if trials.is_empty() => Choice {
            label: None,
            why: words,
        },
        None => Choice {
            label: None,
            why: format!(
                "{words}; no short-listed line passed its check: {}",
                timed.join(", ")
            ),
        },
    }
}

/// The table's note on a line chosen by `--variants auto`: which line, and the rule's words.
pub fn auto_note(c: &Choice) -> String {
    match &c.label {
        Some(l) => format!(
            "--variants auto chose {l} (the line-choice rule, docs/design.md): {}.",
            c.why
        ),
        None => format!("--variants auto: no line ran ({}).", c.why),
    }
}
