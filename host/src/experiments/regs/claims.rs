//! The blog's claims about the `regs` experiment, each judged by the rule written beside it.

use super::builds::{regs_rows, rg, spill_bytes};
use super::row::RegsRow;
use super::wave_claims::{cap_helps_without_spills, register_cliff};
use crate::claim::{
    all_of, faster, no_help, no_help_within, ratio_words, with_exclusions, with_interval_rule,
    Claim, Comparisons, Rules, Verdict, EQUIVALENCE,
};
use crate::confidence::{self, Coverage, Interval, NoInterval, Timed};
use crate::table::percent_with;

/// The claims, in order: the blog's three, then seed 001's and seed 002's.
pub fn claims(rows: Option<&[RegsRow]>) -> Vec<Verdict> {
    claims_under(rows, Rules::AsPublished)
}

/// [`claims`] under the run's edition of the rules: "more registers do not help" takes its band
/// from a measured codegen spread where the rules fix it in advance.
pub fn claims_under(rows: Option<&[RegsRow]>, rules: Rules) -> Vec<Verdict> {
    vec![
        spills_cost_throughput(rows),
        first_spill_free_cap_is_best(rows),
        if rules.fixed_in_advance() {
            more_registers_do_not_help_beyond_codegen(rows)
        } else {
            more_registers_do_not_help(rows)
        },
        cap_helps_without_spills(rows),
        register_cliff(rows),
    ]
}

const CLAIM_6: &str = "Under a register cap, throughput rises as spills fall.";
const RULE_6: &str = "Ordering the capped builds that spill by spill bytes (stores + loads), most \
first, and ending with the lowest spill-free cap: every build with fewer spill bytes than the one \
before it is faster, its GFLOP/s over the one before lying wholly above 1. DOES NOT HOLD when one \
such ratio lies wholly below 1.";

fn spills_cost_throughput(rows: Option<&[RegsRow]>) -> Verdict {
    let claim = Claim::interval("throughput-rises-as-spills-fall", CLAIM_6, RULE_6);
    claim.judge(|| {
        let (ok, failed) = regs_rows(rows)?;
        let mut chain: Vec<&RegsRow> = ok.iter().copied().filter(|r| spill_bytes(r) > 0).collect();
        if chain.is_empty() {
            let why = "no cap made the kernel spill".to_string();
            return Err(with_exclusions(why, &failed));
        }
        chain.sort_by(|a, b| spill_bytes(b).cmp(&spill_bytes(a)).then(a.cap.cmp(&b.cap)));
        if let Some(z) = ok.iter().copied().find(|r| spill_bytes(r) == 0) {
            chain.push(z);
        }
        if chain.len() < 2 {
            let why = format!("only one build to compare: {}", rg(chain[0]));
            return Err(with_exclusions(why, &failed));
        }
        let mut steps = vec![rg(chain[0])];
        let mut judged = Vec::new();
        for w in chain.windows(2) {
            let (prev, next) = (w[0], w[1]);
            if spill_bytes(next) >= spill_bytes(prev) {
                steps.push(format!("{} (same spill bytes, not compared)", rg(next)));
                continue;
            }
            let r = next.figures.over(&prev.figures);
            let rises = faster(&r);
            judged.push(rises);
            let mark = match rises {
                Some(true) => "",
                Some(false) => " (slower)",
                None => " (not judged)",
            };
            steps.push(format!(
                "{}, {} x the one before{mark}",
                rg(next),
                ratio_words(&r)
            ));
        }
        let steps = steps.join(" -> ");
        if judged.is_empty() {
            let why = format!("every build spills the same bytes: {steps}");
            return Err(with_exclusions(why, &failed));
        }
        Ok((all_of(judged), with_exclusions(steps, &failed)))
    })
}

const CLAIM_7: &str = "No register cap beats the first cap that removes every spill.";

fn rule_7() -> String {
    with_interval_rule(&format!(
        "Let Z be the lowest cap with zero spill stores and loads. For every other build, its \
         GFLOP/s over Z's: HOLDS when every interval lies at or below {:.2} (no build is more than \
         {} faster: equal within that band, or slower), DOES NOT HOLD when one lies wholly \
         above it.",
        1.0 + EQUIVALENCE,
        percent_with(EQUIVALENCE, 0)
    ))
}

/// The passing caps, those whose check failed, and where the first cap without spills is
/// among the passing ones (the claims about caps past it need one).
fn from_spill_free(
    rows: Option<&[RegsRow]>,
) -> Result<(Vec<&RegsRow>, Vec<String>, usize), String> {
    let (ok, failed) = regs_rows(rows)?;
    match ok.iter().position(|r| spill_bytes(r) == 0) {
        Some(zi) => Ok((ok, failed, zi)),
        None => Err(with_exclusions("every cap spills".to_string(), &failed)),
    }
}

/// "cap 192 (156 regs) 0.922 (95% CI ...)": a build's GFLOP/s over another's.
fn over(r: &RegsRow, iv: &Result<Interval, NoInterval>) -> String {
    format!(
        "cap {} ({} regs) {}",
        r.cap,
        r.figures.regs,
        ratio_words(iv)
    )
}

fn first_spill_free_cap_is_best(rows: Option<&[RegsRow]>) -> Verdict {
    let claim = Claim::new("first-spill-free-cap-is-best", CLAIM_7, rule_7());
    claim.judge(|| {
        let (ok, failed, zi) = from_spill_free(rows)?;
        let z = ok[zi];
        let mut outcomes = Vec::new();
        let mut beaters = Vec::new();
        let mut unsure = Vec::new();
        let mut others = Vec::new();
        for r in ok.iter().copied().filter(|r| r.cap != z.cap) {
            let iv = r.figures.over(&z.figures);
            let o = no_help(&iv);
            outcomes.push(o);
            match o {
                Some(false) => {
                    beaters.push(format!("cap {} {:.0} GFLOP/s", r.cap, r.figures.gflops))
                }
                None => unsure.push(format!("cap {}", r.cap)),
                Some(true) => {}
            }
            others.push(over(r, &iv));
        }
        let mut ev = format!(
            "first spill-free cap: {}; every other build's GFLOP/s over it: {}",
            rg(z),
            others.join(", ")
        );
        if !beaters.is_empty() {
            ev.push_str(&format!(
                "; beaten by more than {} by {}",
                percent_with(EQUIVALENCE, 0),
                beaters.join(", ")
            ));
        }
        if !unsure.is_empty() {
            ev.push_str(&format!(
                "; not judged (interval across {:.2}): {}",
                1.0 + EQUIVALENCE,
                unsure.join(", ")
            ));
        }
        Ok((all_of(outcomes), with_exclusions(ev, &failed)))
    })
}

const CLAIM_8: &str = "Above the first spill-free cap, more registers do not help.";

fn rule_8() -> String {
    with_interval_rule(&format!(
        "For each cap above the lowest spill-free cap, in ascending order, its GFLOP/s over the \
         cap before it: HOLDS when every interval lies at or below {:.2} (equal within +-{}, \
         or slower), DOES NOT HOLD when one lies wholly above it (that cap helps).",
        1.0 + EQUIVALENCE,
        percent_with(EQUIVALENCE, 0)
    ))
}

fn more_registers_do_not_help(rows: Option<&[RegsRow]>) -> Verdict {
    let claim = Claim::new("more-registers-do-not-help", CLAIM_8, rule_8());
    claim.judge(|| {
        let (ok, failed, zi) = from_spill_free(rows)?;
        if zi + 1 >= ok.len() {
            let why = format!("no cap above the first spill-free one ({})", rg(ok[zi]));
            return Err(with_exclusions(why, &failed));
        }
        let mut steps = Comparisons::default();
        for w in ok[zi..].windows(2) {
            let (prev, next) = (w[0], w[1]);
            let iv = next.figures.over(&prev.figures);
            let o = no_help(&iv);
            let mark = match o {
                Some(true) => String::new(),
                Some(false) => format!(
                    " (helps: more than {} faster)",
                    percent_with(EQUIVALENCE, 0)
                ),
                None => format!(" (not judged: interval across {:.2})", 1.0 + EQUIVALENCE),
            };
            let words = format!(
                "{}, {} x cap {}{mark}",
                rg(next),
                ratio_words(&iv),
                prev.cap
            );
            steps.push(o, words);
        }
        let chain = format!("{} -> {}", rg(ok[zi]), steps.words(" -> "));
        Ok((steps.outcome(), with_exclusions(chain, &failed)))
    })
}

fn rule_8_codegen() -> String {
    format!(
        "First the codegen spread, from a pair of builds named before the data: the uncapped \
         build (the highest cap) and the spill-free build with the fewest registers at the same \
         blocks per SM (two codegens of one line at one occupancy). The band is the farthest its \
         GFLOP/s ratio's {} bootstrap interval lies from 1, or {} where that is less. Then, for \
         each cap above the lowest spill-free cap, in ascending order, its GFLOP/s over the cap \
         before it, on the interval Bonferroni-corrected over those steps (the step that helps \
         is one picked among them): HOLDS when every interval lies at or below 1 + the band \
         (equal within the codegen spread, or slower), DOES NOT HOLD when one lies wholly above \
         it (that cap helps more than codegen alone moves the line). NOT JUDGED otherwise, or \
         without the pair (no second register count at the uncapped build's blocks per SM). \
         Intervals: {} resamples of each figure's samples, fixed seed; a figure with fewer than \
         {} samples has none.",
        percent_with(confidence::LEVEL, 0),
        percent_with(EQUIVALENCE, 0),
        confidence::RESAMPLES,
        confidence::MIN_SAMPLES
    )
}

/// The pair of builds whose spread sets the band, named by rule before any figure is read: the
/// uncapped build (the highest passing cap, spill-free) and the spill-free build with the fewest
/// registers at its blocks per SM, when that count differs from the uncapped build's.
pub fn codegen_pair<'r>(ok: &[&'r RegsRow]) -> Option<(&'r RegsRow, &'r RegsRow)> {
    let uncapped = *ok.iter().max_by_key(|r| r.cap)?;
    if spill_bytes(uncapped) != 0 {
        return None;
    }
    let other = (ok.iter().copied())
        .filter(|r| spill_bytes(r) == 0)
        .filter(|r| r.figures.blocks_per_sm == uncapped.figures.blocks_per_sm)
        .filter(|r| r.figures.regs != uncapped.figures.regs)
        .min_by_key(|r| (r.figures.regs, r.cap))?;
    Some((uncapped, other))
}

/// The band the codegen pair's interval sets: the farthest it lies from 1, at least
/// [`EQUIVALENCE`]; None without an interval.
pub fn codegen_band(iv: &Result<Interval, NoInterval>) -> Option<f64> {
    let iv = iv.as_ref().ok()?;
    Some((iv.hi - 1.0).max(1.0 - iv.lo).max(EQUIVALENCE))
}

/// "Above the first spill-free cap, more registers do not help", with the band from a measured
/// codegen spread ([`codegen_pair`], [`codegen_band`]) and the steps Bonferroni-corrected.
pub fn more_registers_do_not_help_beyond_codegen(rows: Option<&[RegsRow]>) -> Verdict {
    let claim = Claim::new("more-registers-do-not-help", CLAIM_8, rule_8_codegen());
    claim.judge(|| {
        let (ok, failed, zi) = from_spill_free(rows)?;
        let (uncapped, other) = codegen_pair(&ok).ok_or_else(|| {
            with_exclusions(
                "no spill-free build with other registers at the uncapped build's blocks per SM: \
                 no codegen spread to set the band"
                    .to_owned(),
                &failed,
            )
        })?;
        let spread_iv = uncapped.figures.over(&other.figures);
        let spread = format!(
            "codegen spread (named in advance): cap {} ({} regs) over cap {} ({} regs), both at \
             {} blocks/SM: {}",
            uncapped.cap,
            uncapped.figures.regs,
            other.cap,
            other.figures.regs,
            uncapped.figures.blocks_per_sm,
            ratio_words(&spread_iv)
        );
        let band = codegen_band(&spread_iv)
            .ok_or_else(|| with_exclusions(format!("{spread}: no band"), &failed))?;
        let spread = format!("{spread}, band +-{}", percent_with(band, 1));
        if zi + 1 >= ok.len() {
            let why = format!(
                "{spread}; no cap above the first spill-free one ({})",
                rg(ok[zi])
            );
            return Err(with_exclusions(why, &failed));
        }
        let coverage = Coverage::bonferroni(ok.len() - zi - 1);
        let mut steps = Comparisons::default();
        for w in ok[zi..].windows(2) {
            let (prev, next) = (w[0], w[1]);
            let iv = confidence::ratio_at(
                Timed::new(next.figures.gflops, &next.figures.timing),
                Timed::new(prev.figures.gflops, &prev.figures.timing),
                coverage.level,
            );
            let o = no_help_within(&iv, band);
            let mark = match o {
                Some(true) => String::new(),
                Some(false) => format!(" (helps: more than {} faster)", percent_with(band, 1)),
                None => format!(" (not judged: interval across {:.3})", 1.0 + band),
            };
            let shown = match &iv {
                Ok(iv) => iv.show_at(coverage.level, |x| format!("{x:.3}")),
                Err(e) => format!("no interval ({e})"),
            };
            steps.push(o, format!("{}, {shown} x cap {}{mark}", rg(next), prev.cap));
        }
        let chain = format!(
            "{spread}; steps on {}: {} -> {}",
            coverage.words(),
            rg(ok[zi]),
            steps.words(" -> ")
        );
        Ok((steps.outcome(), with_exclusions(chain, &failed)))
    })
}
#[cfg(test)]
mod tests {
    use super::*;

    /// The regs rows of a committed run (its results.json read as JSON, so that no layer above
    /// the experiment is needed).
    fn committed(run: &str) -> Vec<RegsRow> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../results/").to_owned() + run;
        let text = crate::run_json::read_run_json(std::path::Path::new(&dir), u64::MAX).1;
        let json: serde_json::Value = serde_json::from_slice(&text.unwrap()).unwrap();
        serde_json::from_value(json["regs"].clone()).unwrap()
    }

    fn cap(rows: &mut [RegsRow], cap: u32) -> &mut RegsRow {
        rows.iter_mut().find(|r| r.cap == cap).unwrap()
    }

    #[test]
    fn the_codegen_pair_is_the_uncapped_build_and_the_fewest_registers_at_its_blocks() {
        let rows = committed("2026-12-02-h200-s11");
        let ok: Vec<&RegsRow> = rows.iter().collect();
        let (uncapped, other) = codegen_pair(&ok).unwrap();
        assert_eq!((uncapped.cap, other.cap), (255, 144));
        assert_eq!(uncapped.figures.blocks_per_sm, other.figures.blocks_per_sm);
        assert_ne!(uncapped.figures.regs, other.figures.regs);
        let iv = |lo, hi| {
            Ok(Interval {
                point: (lo + hi) / 2.0,
                lo,
                hi,
            })
        };
        assert_eq!(codegen_band(&iv(0.99, 1.01)), Some(EQUIVALENCE));
        assert!((codegen_band(&iv(0.995, 1.04)).unwrap() - 0.04).abs() < 1e-12);
        assert!((codegen_band(&iv(0.95, 1.001)).unwrap() - 0.05).abs() < 1e-12);
        assert_eq!(codegen_band(&Err(NoInterval::Undefined)), None);
    }

    #[test]
    fn more_registers_judged_beyond_the_codegen_spread_hold_fail_or_are_not_judged() {
        let judge = |rows: &[RegsRow]| more_registers_do_not_help_beyond_codegen(Some(rows));
        let run = committed("2026-12-02-h200-s11");
        let v = judge(&run);
        assert!(
            v.evidence
                .starts_with("codegen spread (named in advance): cap 255 (156 regs) over cap 144"),
            "{}",
            v.evidence
        );
        // Every cap above 128 a little slower than the one before: no step helps.
        let mut flat = run.clone();
        let level = cap(&mut flat, 160).figures.gflops;
        for (c, f) in [(144, 1.0), (160, 0.98), (192, 0.97), (255, 0.97)] {
            cap(&mut flat, c).figures.gflops = f * level;
        }
        let v = judge(&flat);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        // Cap 192 15% above cap 160: more than codegen alone moves the line.
        let mut helps = run.clone();
        cap(&mut helps, 192).figures.gflops = 1.15 * level;
        let v = judge(&helps);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        assert!(v.evidence.contains("(helps: more than"), "{}", v.evidence);
        // No second register count at the uncapped build's blocks per SM: no band, no verdict.
        let lone: Vec<RegsRow> = (run.iter())
            .filter(|r| r.cap != 144 && r.cap != 160)
            .cloned()
            .collect();
        let v = judge(&lone);
        assert_eq!(v.holds, None);
        assert!(v.evidence.contains("no codegen spread"), "{}", v.evidence);
        // Runs recorded before the band was measured keep the fixed one.
        assert_eq!(
            claims_under(Some(&run), Rules::AsPublished),
            claims(Some(&run))
        );
        assert_eq!(
            claims_under(Some(&run), Rules::FixedInAdvance)[2],
            judge(&run)
        );
    }
}
