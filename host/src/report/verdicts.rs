//! The blog's claims, each judged from a run's measured figures by a rule stated next to it.
//!
//! Nothing here knows the answer in advance: every rule is written over the rows a run produced
//! (which variants exist, their occupancy, accumulators, threads, bytes in flight, spills), never
//! over a list of labels. A claim whose data is missing (experiment not run, no pair to compare,
//! every row failed its check) is NOT JUDGED, with the reason. Rows whose correctness check failed
//! are left out of every rule, and the evidence says which.

use crate::results::{Bandwidth, Check, CopyRow, GemmRow, RegsRow, RunResults, Timing};

/// Two occupancies closer than this (as a fraction, i.e. 0.1 percentage point) are equal.
pub const OCCUPANCY_EPS: f64 = 1e-3;
/// Claims 4 and 5: "reaches the bandwidth" means at least this fraction of the other figure.
pub const BANDWIDTH_WITHIN: f64 = 0.10;
/// Claim 5: the occupancy range (highest / lowest) the saturated variants must span.
pub const OCCUPANCY_SPAN: f64 = 10.0;
/// Claim 3: "far slower" means below this fraction of the fastest variant.
pub const FAR_SLOWER: f64 = 0.5;

/// One claim of the blog, judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Short stable key, e.g. `"peak-below-max-occupancy"`.
    pub key: &'static str,
    /// Which experiment (1, 2 or 3) the claim is about.
    pub experiment: u8,
    /// The claim, in words.
    pub claim: String,
    /// The rule it is judged by.
    pub rule: String,
    /// `Some(true)`: HOLDS; `Some(false)`: DOES NOT HOLD; `None`: NOT JUDGED (see evidence).
    pub holds: Option<bool>,
    /// The numbers the judgement used, or why there is no judgement.
    pub evidence: String,
}

impl Verdict {
    /// "HOLDS", "DOES NOT HOLD" or "NOT JUDGED".
    pub fn outcome(&self) -> &'static str {
        match self.holds {
            Some(true) => "HOLDS",
            Some(false) => "DOES NOT HOLD",
            None => "NOT JUDGED",
        }
    }
}

/// Judges every claim against `results`.
pub fn verdicts(results: &RunResults) -> Vec<Verdict> {
    let gemm = results.occupancy.as_deref();
    vec![
        peak_below_max_occupancy(gemm),
        accumulators_at_equal_occupancy(gemm),
        falls_past_peak(gemm),
        few_threads_match_many(results.bandwidth.as_ref()),
        bandwidth_flat_over_occupancy(results.bandwidth.as_ref()),
        spills_cost_throughput(results.regs.as_deref()),
        first_spill_free_cap_is_best(results.regs.as_deref()),
        more_registers_do_not_help(results.regs.as_deref()),
    ]
}

/// The throughput implied by the fastest and slowest samples around the median figure.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Spread {
    lo: f64,
    mid: f64,
    hi: f64,
}

fn spread(throughput: f64, t: &Timing) -> Spread {
    if t.median_ms > 0.0 && t.min_ms > 0.0 && t.max_ms >= t.min_ms {
        Spread {
            lo: throughput * t.median_ms / t.max_ms,
            mid: throughput,
            hi: throughput * t.median_ms / t.min_ms,
        }
    } else {
        Spread {
            lo: throughput,
            mid: throughput,
            hi: throughput,
        }
    }
}

fn pct(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

/// Splits rows into those whose check passed and the names of those whose check failed.
fn passing<T>(
    rows: &[T],
    check: impl Fn(&T) -> &Check,
    name: impl Fn(&T) -> String,
) -> (Vec<&T>, Vec<String>) {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for r in rows {
        if check(r).passed {
            ok.push(r);
        } else {
            failed.push(name(r));
        }
    }
    (ok, failed)
}

fn with_exclusions(evidence: String, failed: &[String]) -> String {
    if failed.is_empty() {
        evidence
    } else {
        format!("{evidence}. Excluded (check failed): {}", failed.join(", "))
    }
}

fn verdict(
    key: &'static str,
    experiment: u8,
    claim: &str,
    rule: &str,
    holds: Option<bool>,
    evidence: String,
) -> Verdict {
    Verdict {
        key,
        experiment,
        claim: claim.to_string(),
        rule: rule.to_string(),
        holds,
        evidence,
    }
}

fn gemm_rows(rows: Option<&[GemmRow]>) -> Result<(Vec<&GemmRow>, Vec<String>), String> {
    let rows = rows.ok_or("experiment 1 was not run")?;
    let (ok, failed) = passing(rows, |r| &r.check, |r| r.variant.clone());
    if ok.len() < 2 {
        return Err(with_exclusions(
            format!(
                "fewer than two GEMM variants with a passing check ({} of {})",
                ok.len(),
                rows.len()
            ),
            &failed,
        ));
    }
    Ok((ok, failed))
}

fn fastest<'a>(rows: &[&'a GemmRow]) -> &'a GemmRow {
    rows.iter()
        .copied()
        .max_by(|a, b| a.gflops.total_cmp(&b.gflops))
        .expect("at least one row")
}

fn gf(r: &GemmRow) -> String {
    format!(
        "{} {:.0} GFLOP/s at {} ({} regs)",
        r.variant,
        r.gflops,
        pct(r.occupancy),
        r.regs
    )
}

const CLAIM_1: &str = "Peak GFLOP/s is not reached at the highest occupancy.";
const RULE_1: &str = "The fastest GEMM variant (median GFLOP/s) has a lower theoretical occupancy \
than the highest one measured, and its slowest sample beats the fastest sample of every variant \
at the highest occupancy.";

fn peak_below_max_occupancy(rows: Option<&[GemmRow]>) -> Verdict {
    let key = "peak-below-max-occupancy";
    let (ok, failed) = match gemm_rows(rows) {
        Ok(v) => v,
        Err(why) => return verdict(key, 1, CLAIM_1, RULE_1, None, why),
    };
    let max_occ = ok.iter().map(|r| r.occupancy).fold(f64::MIN, f64::max);
    let min_occ = ok.iter().map(|r| r.occupancy).fold(f64::MAX, f64::min);
    if max_occ - min_occ < OCCUPANCY_EPS {
        let why = format!(
            "every variant runs at the same occupancy ({})",
            pct(max_occ)
        );
        return verdict(key, 1, CLAIM_1, RULE_1, None, with_exclusions(why, &failed));
    }
    let best = fastest(&ok);
    let top: Vec<&GemmRow> = ok
        .iter()
        .copied()
        .filter(|r| max_occ - r.occupancy < OCCUPANCY_EPS)
        .collect();
    let best_spread = spread(best.gflops, &best.timing);
    let (holds, evidence) = if max_occ - best.occupancy < OCCUPANCY_EPS {
        (
            false,
            format!(
                "the fastest variant is at the highest occupancy: {}",
                gf(best)
            ),
        )
    } else {
        let mut parts = Vec::new();
        let mut beats_all = true;
        for t in &top {
            let ts = spread(t.gflops, &t.timing);
            let beats = best_spread.lo > ts.hi;
            beats_all &= beats;
            parts.push(format!(
                "{} ({:.2}x; slowest sample of {} {:.0} vs fastest of {} {:.0}{})",
                gf(t),
                best.gflops / t.gflops,
                best.variant,
                best_spread.lo,
                t.variant,
                ts.hi,
                if beats { "" } else { ": within noise" }
            ));
        }
        (
            beats_all,
            format!(
                "fastest: {}; at the highest occupancy: {}",
                gf(best),
                parts.join("; ")
            ),
        )
    };
    verdict(
        key,
        1,
        CLAIM_1,
        RULE_1,
        Some(holds),
        with_exclusions(evidence, &failed),
    )
}

const CLAIM_2: &str =
    "At equal occupancy, the variant with more accumulators per thread is faster \
(the blog's S vs A).";
const RULE_2: &str = "For every pair of GEMM variants at the same theoretical occupancy (within \
0.1 percentage point) with different accumulators per thread (TM x TN), the one with more \
accumulators has the higher median GFLOP/s.";

fn accumulators_at_equal_occupancy(rows: Option<&[GemmRow]>) -> Verdict {
    let key = "more-accumulators-at-equal-occupancy";
    let (ok, failed) = match gemm_rows(rows) {
        Ok(v) => v,
        Err(why) => return verdict(key, 1, CLAIM_2, RULE_2, None, why),
    };
    let mut parts = Vec::new();
    let mut holds = true;
    for (i, a) in ok.iter().enumerate() {
        for b in &ok[i + 1..] {
            let (acc_a, acc_b) = (a.tm * a.tn, b.tm * b.tn);
            if (a.occupancy - b.occupancy).abs() >= OCCUPANCY_EPS || acc_a == acc_b {
                continue;
            }
            let (more, fewer) = if acc_a > acc_b { (a, b) } else { (b, a) };
            let faster = more.gflops > fewer.gflops;
            holds &= faster;
            parts.push(format!(
                "at {}: {} ({} accumulators) {:.0} vs {} ({} accumulators) {:.0} GFLOP/s = {:.2}x",
                pct(more.occupancy),
                more.variant,
                more.tm * more.tn,
                more.gflops,
                fewer.variant,
                fewer.tm * fewer.tn,
                fewer.gflops,
                more.gflops / fewer.gflops
            ));
        }
    }
    if parts.is_empty() {
        let why =
            "no two variants share an occupancy with different accumulator counts".to_string();
        return verdict(key, 1, CLAIM_2, RULE_2, None, with_exclusions(why, &failed));
    }
    verdict(
        key,
        1,
        CLAIM_2,
        RULE_2,
        Some(holds),
        with_exclusions(parts.join("; "), &failed),
    )
}

const CLAIM_3: &str = "Past the peak, throughput falls as the tile grows towards the 255-register \
limit, and the largest tile (which spills) is far slower.";
const RULE_3: &str = "Ordering GEMM variants by accumulators per thread, each variant with more \
accumulators than the fastest one has a lower median GFLOP/s than the one before it, and the \
variant with the most accumulators runs below 50% of the fastest variant's GFLOP/s.";

fn falls_past_peak(rows: Option<&[GemmRow]>) -> Verdict {
    let key = "falls-past-peak";
    let (mut ok, failed) = match gemm_rows(rows) {
        Ok(v) => v,
        Err(why) => return verdict(key, 1, CLAIM_3, RULE_3, None, why),
    };
    ok.sort_by_key(|r| r.tm * r.tn);
    let best = fastest(&ok);
    let largest = *ok.last().expect("two rows");
    let past: Vec<&GemmRow> = ok
        .iter()
        .copied()
        .filter(|r| r.tm * r.tn > best.tm * best.tn)
        .collect();
    if past.is_empty() {
        let ev = format!(
            "the fastest variant has the most accumulators per thread: {}; nothing falls past it",
            gf(best)
        );
        return verdict(
            key,
            1,
            CLAIM_3,
            RULE_3,
            Some(false),
            with_exclusions(ev, &failed),
        );
    }
    let mut prev = best;
    let mut falling = true;
    let mut steps = Vec::new();
    for r in &past {
        let falls = r.gflops < prev.gflops;
        falling &= falls;
        steps.push(format!(
            "{} {:.0} ({} regs{})",
            r.variant,
            r.gflops,
            r.regs,
            if falls { "" } else { ", not lower" }
        ));
        prev = r;
    }
    let share = largest.gflops / best.gflops;
    let far = share < FAR_SLOWER;
    let ev = format!(
        "peak: {}; past it: {}; largest tile {} ({}x{}, {} of {} registers) at {} of the peak (bound {})",
        gf(best),
        steps.join(", "),
        largest.variant,
        largest.tm,
        largest.tn,
        largest.regs,
        kernels_gpu::variants::MAX_REGS_PER_THREAD,
        pct(share),
        pct(FAR_SLOWER)
    );
    verdict(
        key,
        1,
        CLAIM_3,
        RULE_3,
        Some(falling && far),
        with_exclusions(ev, &failed),
    )
}

fn copy_rows(bw: Option<&Bandwidth>) -> Result<(Vec<&CopyRow>, Vec<String>), String> {
    let bw = bw.ok_or("experiment 2 was not run")?;
    let (ok, failed) = passing(&bw.rows, |r| &r.check, |r| r.variant.clone());
    if ok.len() < 2 {
        return Err(with_exclusions(
            format!(
                "fewer than two copy variants with a passing check ({} of {})",
                ok.len(),
                bw.rows.len()
            ),
            &failed,
        ));
    }
    Ok((ok, failed))
}

fn cp(r: &CopyRow) -> String {
    format!(
        "{} ({} threads, {} B/thread in flight, {} occupancy) {:.1} GB/s",
        r.variant,
        r.threads,
        r.bytes_per_thread,
        pct(r.occupancy),
        r.gbps
    )
}

const CLAIM_4: &str = "A few threads with many bytes in flight reach the bandwidth of many \
threads (the blog's T14f4 vs T1).";
const RULE_4: &str = "The copy variant with the fewest threads per block (ties: most bytes in \
flight per thread) reaches at least 90% of the GB/s of the variant with the most threads per \
block (ties: fewest bytes per thread).";

fn few_threads_match_many(bw: Option<&Bandwidth>) -> Verdict {
    let key = "few-threads-match-many";
    let (ok, failed) = match copy_rows(bw) {
        Ok(v) => v,
        Err(why) => return verdict(key, 2, CLAIM_4, RULE_4, None, why),
    };
    let few = ok
        .iter()
        .copied()
        .min_by(|a, b| {
            a.threads
                .cmp(&b.threads)
                .then(b.bytes_per_thread.cmp(&a.bytes_per_thread))
        })
        .expect("two rows");
    let many = ok
        .iter()
        .copied()
        .max_by(|a, b| {
            a.threads
                .cmp(&b.threads)
                .then(b.bytes_per_thread.cmp(&a.bytes_per_thread))
        })
        .expect("two rows");
    if few.threads == many.threads || few.bytes_per_thread <= many.bytes_per_thread {
        let why = format!(
            "no variant has both fewer threads and more bytes in flight than another ({} vs {})",
            cp(few),
            cp(many)
        );
        return verdict(key, 2, CLAIM_4, RULE_4, None, with_exclusions(why, &failed));
    }
    let share = few.gbps / many.gbps;
    let holds = share >= 1.0 - BANDWIDTH_WITHIN;
    let ev = format!(
        "{} vs {}: {} (bound {})",
        cp(few),
        cp(many),
        pct(share),
        pct(1.0 - BANDWIDTH_WITHIN)
    );
    verdict(
        key,
        2,
        CLAIM_4,
        RULE_4,
        Some(holds),
        with_exclusions(ev, &failed),
    )
}

const CLAIM_5: &str = "Bandwidth stays saturated across a wide range of occupancy: many threads \
are not needed to hide memory latency.";
const RULE_5: &str = "The copy variants that reach at least 90% of the device-to-device copy \
bandwidth measured in the same run span at least a 10x range of theoretical occupancy (highest / \
lowest occupancy among them).";

fn bandwidth_flat_over_occupancy(bw: Option<&Bandwidth>) -> Verdict {
    let key = "bandwidth-flat-over-occupancy";
    let (ok, failed) = match copy_rows(bw) {
        Ok(v) => v,
        Err(why) => return verdict(key, 2, CLAIM_5, RULE_5, None, why),
    };
    let reference = bw.map(|b| b.reference_gbps).unwrap_or(0.0);
    if reference <= 0.0 {
        let why = "no copy reference bandwidth was measured".to_string();
        return verdict(key, 2, CLAIM_5, RULE_5, None, with_exclusions(why, &failed));
    }
    let occ = |rows: &[&CopyRow]| {
        let hi = rows.iter().map(|r| r.occupancy).fold(f64::MIN, f64::max);
        let lo = rows.iter().map(|r| r.occupancy).fold(f64::MAX, f64::min);
        (lo, hi)
    };
    let (lo_all, hi_all) = occ(&ok);
    if lo_all <= 0.0 || hi_all / lo_all < OCCUPANCY_SPAN {
        let why = format!(
            "the sweep spans only {} to {} occupancy, less than {:.0}x",
            pct(lo_all),
            pct(hi_all),
            OCCUPANCY_SPAN
        );
        return verdict(key, 2, CLAIM_5, RULE_5, None, with_exclusions(why, &failed));
    }
    let bound = reference * (1.0 - BANDWIDTH_WITHIN);
    let (within, below): (Vec<&CopyRow>, Vec<&CopyRow>) =
        ok.iter().copied().partition(|r| r.gbps >= bound);
    let list = |rows: &[&CopyRow]| {
        if rows.is_empty() {
            "none".to_string()
        } else {
            rows.iter()
                .map(|r| format!("{} {:.1} GB/s at {}", r.variant, r.gbps, pct(r.occupancy)))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let (holds, span_text) = if within.is_empty() {
        (false, "no variant reaches the bound".to_string())
    } else {
        let (lo, hi) = occ(&within);
        let span = hi / lo;
        (
            span >= OCCUPANCY_SPAN,
            format!(
                "they span {} to {} = {:.1}x (need {:.0}x)",
                pct(lo),
                pct(hi),
                span,
                OCCUPANCY_SPAN
            ),
        )
    };
    let ev = format!(
        "reference {:.1} GB/s, bound {:.1} GB/s; at or above: {}; {}; below: {}",
        reference,
        bound,
        list(&within),
        span_text,
        list(&below)
    );
    verdict(
        key,
        2,
        CLAIM_5,
        RULE_5,
        Some(holds),
        with_exclusions(ev, &failed),
    )
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
