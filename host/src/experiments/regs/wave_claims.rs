//! Seed 001's and seed 002's claims: a register cap against the occupancy it buys. Each compares
//! a pair named from registers, spill bytes and blocks/SM alone; a run that recorded its schedule
//! judges the pair at a size where both builds run whole waves.

use super::builds::{build, regs_rows, rg, spill_bytes};
use super::row::RegsRow;
use crate::claim::{faster, ratio_words, with_exclusions, Claim, Verdict};
use crate::confidence::{Interval, NoInterval};
use crate::experiments::contract::Row;
use crate::experiments::whole_waves::{judge_at_whole_waves, PairSide};
use crate::table::percent_with;

const CLAIM_001: &str = "A register cap that raises occupancy without spilling raises throughput \
(seed 001: cap 128 against the uncapped build).";
const RULE_001: &str = "Among the spill-free builds, take the uncapped one (the highest cap) and \
the lowest cap whose build holds more blocks per SM than it. HOLDS when the capped build's \
GFLOP/s over the uncapped one's lies wholly above 1, DOES NOT HOLD when wholly below 1. NOT \
JUDGED without such a cap.";

/// How the occupancy claims are judged in a run that recorded its schedule (waves): at the size
/// the run chose for the pair, where both run whole waves.
const AT_WHOLE_WAVES: &str = "The pair is named from registers, spill bytes and the calculator's \
blocks per SM alone, before any timing; the run times it again at the size nearest the default \
(same K, M and N multiples of the tile) at which both builds run whole waves (tiles a multiple of \
SMs x blocks/SM for each), and the claim is judged on the ratio there; the default size's ratio, \
which also measures the last partial wave, is shown beside it. NOT JUDGED without that size.";

/// Whether the run recorded its launches' schedule: such runs are judged at whole waves (the
/// runs before keep the verdicts they were rendered with).
fn at_whole_waves(rows: Option<&[RegsRow]>) -> bool {
    rows.is_some_and(|rows| rows.iter().any(|r| r.figures.schedule.is_some()))
}

/// The rule `rule`, with how the pair is judged at whole waves where the run is.
fn pair_rule(rule: &str, whole: bool) -> String {
    if whole {
        format!("{rule} {AT_WHOLE_WAVES}")
    } else {
        rule.to_owned()
    }
}

/// A compared pair's ratio in words, and how the evidence names each build and joins the two.
struct Judged {
    iv: Result<Interval, NoInterval>,
    words: String,
    name: fn(&RegsRow) -> String,
    verb: &'static str,
}

/// `a` over `b`. At whole waves, at the pair's whole-wave size with the default size's ratio
/// beside it, each build named without its GFLOP/s (the words give both sizes' figures);
/// otherwise at the default size, each build named with its GFLOP/s.
fn judged(a: &RegsRow, b: &RegsRow, whole: bool) -> Result<Judged, String> {
    if !whole {
        let iv = a.figures.over(&b.figures);
        let words = ratio_words(&iv);
        return Ok(Judged {
            iv,
            words,
            name: rg,
            verb: "over",
        });
    }
    let (na, nb) = (a.label(), b.label());
    let (iv, words) = judge_at_whole_waves(
        PairSide {
            name: &na,
            figures: &a.figures,
            whole_waves: &a.whole_waves,
        },
        PairSide {
            name: &nb,
            figures: &b.figures,
            whole_waves: &b.whole_waves,
        },
    )?;
    Ok(Judged {
        iv,
        words,
        name: build,
        verb: "against",
    })
}

/// Seed 001's pair among the passing builds, from registers, spills and blocks/SM alone: the
/// lowest spill-free cap holding more blocks per SM than the uncapped (highest spill-free) build,
/// and that build; or the uncapped build alone, or nothing when every cap spills.
fn pair_001<'r>(ok: &[&'r RegsRow]) -> (Option<&'r RegsRow>, Option<&'r RegsRow>) {
    let free: Vec<&RegsRow> = ok.iter().copied().filter(|r| spill_bytes(r) == 0).collect();
    let uncapped = free.last().copied();
    let capped = uncapped.and_then(|u| {
        free.iter()
            .copied()
            .find(|r| r.figures.blocks_per_sm > u.figures.blocks_per_sm)
    });
    (capped, uncapped)
}

/// Seed 002's pair among the passing builds, from registers and blocks/SM alone: the two
/// spill-free builds nearest either side of a block boundary (below it: more blocks).
fn pair_002<'r>(ok: &[&'r RegsRow]) -> Option<(&'r RegsRow, &'r RegsRow)> {
    let mut free: Vec<&RegsRow> = ok.iter().copied().filter(|r| spill_bytes(r) == 0).collect();
    free.sort_by_key(|r| (r.figures.regs, r.cap));
    free.windows(2)
        .filter(|w| w[0].figures.blocks_per_sm > w[1].figures.blocks_per_sm)
        .min_by_key(|w| w[1].figures.regs - w[0].figures.regs)
        .map(|w| (w[0], w[1]))
}

/// The pairs (caps) seed 001's and seed 002's verdicts compare, named from what is known before
/// timing (registers, spills, blocks/SM, checks): what the run times again at whole waves.
pub fn compared_pairs(rows: &[RegsRow]) -> Vec<(u32, u32)> {
    let Ok((ok, _)) = regs_rows(Some(rows)) else {
        return Vec::new();
    };
    let mut pairs = Vec::new();
    if let (Some(c), Some(u)) = pair_001(&ok) {
        pairs.push((c.cap, u.cap));
    }
    if let Some((below, above)) = pair_002(&ok) {
        if above.figures.regs - below.figures.regs <= CLIFF_GAP {
            pairs.push((below.cap, above.cap));
        }
    }
    pairs.dedup();
    pairs
}

/// Seed 001: a cap's benefit where it costs no spills.
pub fn cap_helps_without_spills(rows: Option<&[RegsRow]>) -> Verdict {
    let whole = at_whole_waves(rows);
    let claim = Claim::interval(
        "cap-helps-without-spills",
        CLAIM_001,
        &pair_rule(RULE_001, whole),
    );
    claim.judge(|| {
        let (ok, failed) = regs_rows(rows)?;
        let (capped, uncapped) = pair_001(&ok);
        let uncapped =
            uncapped.ok_or_else(|| with_exclusions("every cap spills".into(), &failed))?;
        let Some(capped) = capped else {
            let why = format!(
                "no spill-free cap holds more blocks per SM than the uncapped build ({}, {} \
                 blocks/SM)",
                rg(uncapped),
                uncapped.figures.blocks_per_sm
            );
            return Err(with_exclusions(why, &failed));
        };
        let j = judged(capped, uncapped, whole).map_err(|why| with_exclusions(why, &failed))?;
        let ev = format!(
            "{} at {} blocks/SM ({} occupancy) {} the uncapped {} at {} blocks/SM ({}): {}",
            (j.name)(capped),
            capped.figures.blocks_per_sm,
            percent_with(capped.figures.occupancy, 1),
            j.verb,
            (j.name)(uncapped),
            uncapped.figures.blocks_per_sm,
            percent_with(uncapped.figures.occupancy, 1),
            j.words
        );
        Ok((faster(&j.iv), with_exclusions(ev, &failed)))
    })
}

/// Registers apart the two builds either side of a block boundary may be for seed 002's cliff:
/// two of the calculator's 256-register-a-warp allocation units (8 a thread each). ptxas does
/// not build every register count (the cap-128 build of C uses 128 registers at caps 129 to
/// 140, and 139 at cap 144), so the nearest build past a boundary can be a few registers away.
pub const CLIFF_GAP: u32 = 16;

const CLAIM_002: &str = "The register cliff: a few registers more, past a block boundary, cost \
a block per SM and the throughput with it (seed 002).";
const RULE_002: &str = "Among the spill-free builds ordered by registers, take the two nearest \
either side of a block boundary (adjacent builds whose blocks per SM differ), at most 16 \
registers apart. HOLDS when the build below the boundary (more blocks) is faster, its GFLOP/s \
over the other's wholly above 1; DOES NOT HOLD when wholly below 1. NOT JUDGED without such a \
pair (the regs line of the variant table needs caps either side: `host calc --threads T --regs \
R` gives the boundary).";

/// Seed 002: the register cliff on a real kernel.
pub fn register_cliff(rows: Option<&[RegsRow]>) -> Verdict {
    let whole = at_whole_waves(rows);
    let claim = Claim::interval("register-cliff", CLAIM_002, &pair_rule(RULE_002, whole));
    claim.judge(|| {
        let (ok, failed) = regs_rows(rows)?;
        let Some((below, above)) = pair_002(&ok) else {
            let why = "no two spill-free builds either side of a block boundary".to_owned();
            return Err(with_exclusions(why, &failed));
        };
        let gap = above.figures.regs - below.figures.regs;
        let side = |r: &RegsRow| format!("{} at {} blocks/SM", rg(r), r.figures.blocks_per_sm);
        let iv = below.figures.over(&above.figures);
        if gap > CLIFF_GAP {
            let why = format!(
                "the nearest builds either side of a block boundary are {gap} registers apart \
                 ({} over {}: {}), more than {CLIFF_GAP}: a cap between them would give the \
                 cliff",
                side(below),
                side(above),
                ratio_words(&iv)
            );
            return Err(with_exclusions(why, &failed));
        }
        let j = judged(below, above, whole).map_err(|why| with_exclusions(why, &failed))?;
        let at = |r: &RegsRow| format!("{} at {} blocks/SM", (j.name)(r), r.figures.blocks_per_sm);
        let ev = format!(
            "{} {} {} ({gap} registers apart): {}",
            at(below),
            j.verb,
            at(above),
            j.words
        );
        Ok((faster(&j.iv), with_exclusions(ev, &failed)))
    })
}
