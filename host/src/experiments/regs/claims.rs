//! The blog's claims about experiment 3, each judged by the rule written beside it.

use super::RegsRow;
use crate::claim::{passing, spread, verdict, with_exclusions, Spread, Verdict};

/// The three claims, in order.
pub fn claims(rows: Option<&[RegsRow]>) -> Vec<Verdict> {
    vec![
        spills_cost_throughput(rows),
        first_spill_free_cap_is_best(rows),
        more_registers_do_not_help(rows),
    ]
}

fn spill_bytes(r: &RegsRow) -> u64 {
    r.spill_stores as u64 + r.spill_loads as u64
}

fn regs_rows(rows: Option<&[RegsRow]>) -> Result<(Vec<&RegsRow>, Vec<String>), String> {
    let rows = rows.ok_or("experiment 3 was not run")?;
    let (mut ok, failed) = passing(rows, |r| &r.check, |r| format!("cap {}", r.cap));
    ok.sort_by_key(|r| r.cap);
    let unknown: Vec<String> = ok
        .iter()
        .filter(|r| r.spills_unknown)
        .map(|r| format!("cap {}", r.cap))
        .collect();
    if !unknown.is_empty() {
        return Err(with_exclusions(
            format!(
                "spill bytes unknown (no compiler report) for {}",
                unknown.join(", ")
            ),
            &failed,
        ));
    }
    if ok.len() < 2 {
        return Err(with_exclusions(
            format!(
                "fewer than two register caps with a passing check ({} of {})",
                ok.len(),
                rows.len()
            ),
            &failed,
        ));
    }
    Ok((ok, failed))
}

fn rg(r: &RegsRow) -> String {
    format!(
        "cap {} ({} regs, {} spill B) {:.0} GFLOP/s",
        r.cap,
        r.regs,
        spill_bytes(r),
        r.gflops
    )
}

const CLAIM_6: &str = "Under a register cap, throughput rises as spills fall.";
const RULE_6: &str = "Ordering the capped builds that spill by spill bytes (stores + loads), most \
first, and ending with the lowest spill-free cap: every build with fewer spill bytes than the one \
before it has a higher median GFLOP/s.";

fn spills_cost_throughput(rows: Option<&[RegsRow]>) -> Verdict {
    let key = "throughput-rises-as-spills-fall";
    let (ok, failed) = match regs_rows(rows) {
        Ok(v) => v,
        Err(why) => return verdict(key, 3, CLAIM_6, RULE_6, None, why),
    };
    let mut chain: Vec<&RegsRow> = ok.iter().copied().filter(|r| spill_bytes(r) > 0).collect();
    if chain.is_empty() {
        let why = "no cap made the kernel spill".to_string();
        return verdict(key, 3, CLAIM_6, RULE_6, None, with_exclusions(why, &failed));
    }
    chain.sort_by(|a, b| spill_bytes(b).cmp(&spill_bytes(a)).then(a.cap.cmp(&b.cap)));
    if let Some(z) = ok.iter().copied().find(|r| spill_bytes(r) == 0) {
        chain.push(z);
    }
    if chain.len() < 2 {
        let why = format!("only one build to compare: {}", rg(chain[0]));
        return verdict(key, 3, CLAIM_6, RULE_6, None, with_exclusions(why, &failed));
    }
    let mut holds = true;
    let mut compared = false;
    let mut steps = vec![rg(chain[0])];
    for w in chain.windows(2) {
        let (prev, next) = (w[0], w[1]);
        if spill_bytes(next) < spill_bytes(prev) {
            compared = true;
            let rises = next.gflops > prev.gflops;
            holds &= rises;
            steps.push(format!(
                "{}{}",
                rg(next),
                if rises { "" } else { " (not faster)" }
            ));
        } else {
            steps.push(format!("{} (same spill bytes, not compared)", rg(next)));
        }
    }
    if !compared {
        let why = format!("every build spills the same bytes: {}", steps.join(" -> "));
        return verdict(key, 3, CLAIM_6, RULE_6, None, with_exclusions(why, &failed));
    }
    verdict(
        key,
        3,
        CLAIM_6,
        RULE_6,
        Some(holds),
        with_exclusions(steps.join(" -> "), &failed),
    )
}

const CLAIM_7: &str = "No register cap beats the first cap that removes every spill.";
const RULE_7: &str = "Let Z be the lowest cap with zero spill stores and loads. No other build's \
slowest sample is faster than Z's fastest sample (the run's own timing spread is the noise).";

fn first_spill_free(ok: &[&RegsRow]) -> Option<usize> {
    ok.iter().position(|r| spill_bytes(r) == 0)
}

fn first_spill_free_cap_is_best(rows: Option<&[RegsRow]>) -> Verdict {
    let key = "first-spill-free-cap-is-best";
    let (ok, failed) = match regs_rows(rows) {
        Ok(v) => v,
        Err(why) => return verdict(key, 3, CLAIM_7, RULE_7, None, why),
    };
    let Some(zi) = first_spill_free(&ok) else {
        let why = "every cap spills".to_string();
        return verdict(key, 3, CLAIM_7, RULE_7, None, with_exclusions(why, &failed));
    };
    let z = ok[zi];
    let zs = spread(z.gflops, &z.timing);
    let mut beaters = Vec::new();
    let mut best_other: Option<(&RegsRow, Spread)> = None;
    for r in ok.iter().copied().filter(|r| r.cap != z.cap) {
        let s = spread(r.gflops, &r.timing);
        if s.lo > zs.hi {
            beaters.push(format!(
                "cap {} {:.0} GFLOP/s (slowest sample {:.0} > {:.0})",
                r.cap, s.mid, s.lo, zs.hi
            ));
        }
        if best_other.is_none_or(|(_, b)| s.mid > b.mid) {
            best_other = Some((r, s));
        }
    }
    let (other, os) = best_other.expect("two rows");
    let mut ev = format!(
        "first spill-free cap: {} (samples {:.0}-{:.0}); best other: cap {} {:.0} GFLOP/s (samples {:.0}-{:.0})",
        rg(z),
        zs.lo,
        zs.hi,
        other.cap,
        os.mid,
        os.lo,
        os.hi
    );
    if !beaters.is_empty() {
        ev.push_str(&format!("; beaten by {}", beaters.join(", ")));
    }
    verdict(
        key,
        3,
        CLAIM_7,
        RULE_7,
        Some(beaters.is_empty()),
        with_exclusions(ev, &failed),
    )
}

const CLAIM_8: &str = "Above the first spill-free cap, more registers do not help.";
const RULE_8: &str =
    "For each cap above the lowest spill-free cap, in ascending order, its slowest \
sample is not faster than the fastest sample of the cap before it.";

fn more_registers_do_not_help(rows: Option<&[RegsRow]>) -> Verdict {
    let key = "more-registers-do-not-help";
    let (ok, failed) = match regs_rows(rows) {
        Ok(v) => v,
        Err(why) => return verdict(key, 3, CLAIM_8, RULE_8, None, why),
    };
    let Some(zi) = first_spill_free(&ok) else {
        let why = "every cap spills".to_string();
        return verdict(key, 3, CLAIM_8, RULE_8, None, with_exclusions(why, &failed));
    };
    if zi + 1 >= ok.len() {
        let why = format!("no cap above the first spill-free one ({})", rg(ok[zi]));
        return verdict(key, 3, CLAIM_8, RULE_8, None, with_exclusions(why, &failed));
    }
    let mut holds = true;
    let mut steps = vec![rg(ok[zi])];
    for w in ok[zi..].windows(2) {
        let (prev, next) = (w[0], w[1]);
        let (ps, ns) = (
            spread(prev.gflops, &prev.timing),
            spread(next.gflops, &next.timing),
        );
        let helps = ns.lo > ps.hi;
        holds &= !helps;
        steps.push(format!(
            "{}{}",
            rg(next),
            if helps {
                format!(" (faster: slowest sample {:.0} > {:.0})", ns.lo, ps.hi)
            } else {
                String::new()
            }
        ));
    }
    verdict(
        key,
        3,
        CLAIM_8,
        RULE_8,
        Some(holds),
        with_exclusions(steps.join(" -> "), &failed),
    )
}
