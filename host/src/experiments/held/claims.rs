//! What `held`'s curves show, judged on intervals: with the code fixed, does a binary need
//! its highest occupancy for its best throughput?

use super::row::HeldRow;
use crate::claim::{
    no_help, ratio_words, with_exclusions, Claim, Comparisons, Verdict, EQUIVALENCE, NOT_RUN,
};
use crate::experiments::row_views::passing;
use crate::experiments::whole_waves::{judge_at_whole_waves, PairSide};

const CLAIM: &str =
    "With the code fixed, the highest occupancy is not needed: each binary runs as \
fast at a lower occupancy as at its highest.";
/// Each binary's highest occupancy against its best lower one, within the "no help" band.
fn rule() -> String {
    format!(
        "For each binary, its GFLOP/s at its most resident blocks over its best at fewer: the \
         ratio lying wholly at or below {:.2} holds for it, wholly above does not; the claim holds \
         when it holds for every binary.",
        1.0 + EQUIVALENCE
    )
}

/// In a run that recorded its waves: each binary's pair fixed before the data and judged where
/// both run whole waves.
fn rule_at_whole_waves() -> String {
    format!(
        "For each binary, a pair fixed before the data: its most resident blocks per SM (H) and \
         three quarters of them rounded up, at most H - 1 (L). The run times the pair again at the \
         size nearest the default (same K, M and N multiples of the tile) at which both \
         residencies run whole waves (tiles a multiple of SMs x blocks/SM), and its GFLOP/s at H \
         over L's there lying wholly at or below {:.2} holds for it, wholly above does not; the \
         default size's ratio, which also measures the last partial wave, is shown beside it. \
         The claim holds when it holds for every binary with two residencies; a binary without \
         that size is not judged.",
        1.0 + EQUIVALENCE
    )
}

/// The lower residency each binary's verdict compares its most blocks per SM `most` with: three
/// quarters of them rounded up, at most one fewer (None with a single residency). Fixed before
/// the data: the run times this pair again at whole waves.
pub fn compared_residency(most: u32) -> Option<u32> {
    (most >= 2).then(|| (3 * most).div_ceil(4).min(most - 1))
}

/// The verdict on `rows` (NOT JUDGED without a binary measured at two residencies): at whole
/// waves where the run recorded its waves, else (runs before) as those runs were judged.
pub fn verdicts(rows: Option<&Vec<HeldRow>>) -> Vec<Verdict> {
    let whole = rows.is_some_and(|rows| rows.iter().any(|r| r.figures.schedule.is_some()));
    if whole {
        let claim = Claim::interval("occupancy-apart-from-code", CLAIM, &rule_at_whole_waves());
        return vec![claim.judge(|| judge_at_whole_waves_of(rows.ok_or(NOT_RUN)?))];
    }
    let claim = Claim::interval("occupancy-apart-from-code", CLAIM, &rule());
    vec![claim.judge(|| judge(rows.ok_or(NOT_RUN)?))]
}

/// A row as one side of a pair, named `name`.
fn side<'a>(name: &'a str, r: &'a HeldRow) -> PairSide<'a> {
    PairSide {
        name,
        figures: &r.figures,
        whole_waves: &r.whole_waves,
    }
}

/// Each binary's comparison (`compare` of its label, None where it has no pair), binaries in
/// the order of `labels`, and the outcome over them all; NOT JUDGED when no binary has one.
fn over_binaries<'r>(
    labels: impl Iterator<Item = &'r str>,
    failed: &[String],
    mut compare: impl FnMut(&str) -> Option<(Option<bool>, String)>,
) -> Result<(Option<bool>, String), String> {
    let mut labels: Vec<&str> = labels.collect();
    labels.dedup();
    let mut found = Comparisons::default();
    for (outcome, words) in labels.into_iter().filter_map(&mut compare) {
        found.push(outcome, words);
    }
    if found.words("").is_empty() {
        return Err(with_exclusions(
            "no binary was measured at two residencies".to_owned(),
            failed,
        ));
    }
    Ok((found.outcome(), with_exclusions(found.words("; "), failed)))
}

/// Each binary's fixed pair at whole waves.
fn judge_at_whole_waves_of(rows: &[HeldRow]) -> Result<(Option<bool>, String), String> {
    let (ok, failed) = passing(rows);
    let labels = rows.iter().map(|r| r.binary.as_str());
    over_binaries(labels, &failed, |label| {
        let curve = || rows.iter().filter(|r| r.binary == label);
        let most = curve().map(|r| r.figures.blocks_per_sm).max()?;
        let lower = compared_residency(most)?;
        let at = |blocks: u32| {
            (ok.iter().copied()).find(|r| r.binary == label && r.figures.blocks_per_sm == blocks)
        };
        let (Some(h), Some(l)) = (at(most), at(lower)) else {
            let why = format!(
                "{label}: {most} over {lower} blocks/SM not judged: a side failed its check"
            );
            return Some((None, why));
        };
        let (nh, nl) = (format!("{most} blocks/SM"), format!("{lower} blocks/SM"));
        Some(match judge_at_whole_waves(side(&nh, h), side(&nl, l)) {
            Ok((iv, words)) => (no_help(&iv), format!("{label}: {words}")),
            Err(why) => (None, format!("{label}: not judged: {why}")),
        })
    })
}

fn judge(rows: &[HeldRow]) -> Result<(Option<bool>, String), String> {
    let (ok, failed) = passing(rows);
    let labels = ok.iter().map(|r| r.binary.as_str());
    over_binaries(labels, &failed, |label| {
        let curve: Vec<&HeldRow> = ok.iter().copied().filter(|r| r.binary == label).collect();
        let by_occ =
            |a: &&&HeldRow, b: &&&HeldRow| a.figures.occupancy.total_cmp(&b.figures.occupancy);
        let &highest = curve.iter().max_by(by_occ)?;
        let &best_lower = curve
            .iter()
            .filter(|r| r.figures.occupancy < highest.figures.occupancy)
            .max_by(|a, b| a.figures.gflops.total_cmp(&b.figures.gflops))?;
        let (h, l) = (&highest.figures, &best_lower.figures);
        let r = h.over(l);
        let words = format!(
            "{label}: {} blocks/SM over {} {}",
            h.blocks_per_sm,
            l.blocks_per_sm,
            ratio_words(&r)
        );
        Some((no_help(&r), words))
    })
}
