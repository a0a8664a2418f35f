//! The blog's claims about the `occupancy` experiment, each judged by the rule written beside it.

use super::{GemmRow, GemmRun};
use crate::claim::{
    all_of, faster, pct, ratio, ratio_words, with_exclusions, Claim, Comparisons, Verdict,
    FAR_SLOWER, NOT_RUN, OCCUPANCY_EPS,
};
use crate::confidence::{Interval, NoInterval};
use crate::experiments::measured::{passing, two_passing};

/// The blog's three claims, judged on the seed family's rows (the blog's 64x64 tile), then the
/// lab's claim about the fastest GEMM of the run, ours or cuBLAS.
pub fn claims(run: Option<&GemmRun>) -> Vec<Verdict> {
    let seed: Option<Vec<GemmRow>> =
        run.map(|r| r.rows.iter().filter(|r| r.is_seed()).cloned().collect());
    let seed = seed.as_deref();
    vec![
        peak_below_max_occupancy(seed),
        accumulators_at_equal_occupancy(seed),
        falls_past_peak(seed),
        fastest_at_low_occupancy(run),
    ]
}

/// The occupancy the claim below holds the fastest GEMM to.
pub const LOW_OCCUPANCY: f64 = 0.125;

const CLAIM_4: &str = "The fastest GEMM of the run, ours or cuBLAS, runs at <= 12.5% theoretical \
occupancy.";
const RULE_4: &str =
    "Among the variants with a passing check, take the fastest by median GFLOP/s. \
cuBLAS (when it ran and passed its check) must be slower than it, its interval of ours over \
cuBLAS lying wholly above 1: the lab does not read which kernel cuBLAS runs (not its name, \
registers or shared memory), so while cuBLAS is as fast or faster the claim is NOT JUDGED until \
its kernel is read, and no occupancy is assumed for it. With ours the fastest: HOLDS when it is \
at <= 12.5% theoretical occupancy (driver and calculator) and faster than every variant above \
12.5% (its interval over the fastest of them wholly above 1); DOES NOT HOLD when it is above \
12.5% and faster than every variant at <= 12.5%. Not judged without cuBLAS in the run.";

fn low(r: &GemmRow) -> bool {
    r.figures.occupancy <= LOW_OCCUPANCY + OCCUPANCY_EPS / 100.0
}

fn speedup(a: &GemmRow, b: &GemmRow) -> Result<Interval, NoInterval> {
    ratio((a.figures.gflops, &a.figures.timing), (b.figures.gflops, &b.figures.timing))
}

pub fn fastest_at_low_occupancy(run: Option<&GemmRun>) -> Verdict {
    let claim = Claim::interval("fastest-gemm-at-low-occupancy", CLAIM_4, RULE_4);
    claim.judge(|| {
        let run = run.ok_or(NOT_RUN)?;
        let (ok, failed) = passing(&run.rows);
        let cublas =
            match &run.cublas {
                None => return Err(
                    "cuBLAS was not timed in this run (skipped, or a run recorded before cuBLAS \
                 was timed)"
                        .into(),
                ),
                Some(c) => match c.measured() {
                    None => {
                        return Err(with_exclusions(
                            format!("cuBLAS did not run: {}", super::cublas_reason(c)),
                            &failed,
                        ))
                    }
                    Some(m) => m,
                },
            };
        if ok.is_empty() {
            return Err(with_exclusions(
                "no variant passed its check".into(),
                &failed,
            ));
        }
        let best = fastest(&ok);
        let against_cublas = if cublas.check.passed {
            let iv = ratio((best.figures.gflops, &best.figures.timing), (cublas.gflops, &cublas.timing));
            let words = format!(
                "{}, {} x cuBLAS {} at {:.0} GFLOP/s",
                gf(best),
                ratio_words(&iv),
                cublas.version,
                cublas.gflops
            );
            if faster(&iv) != Some(true) {
                return Err(with_exclusions(
                    format!(
                    "fastest of ours: {words}: cuBLAS is as fast or faster, and the lab does not \
                     read which kernel it runs, so its occupancy is unknown; not judged until \
                     its kernel is read"
                ),
                    &failed,
                ));
            }
            format!("fastest: ours, {words}")
        } else {
            format!(
                "cuBLAS {} failed its check and is left out; fastest: ours, {}",
                cublas.version,
                gf(best)
            )
        };
        // Ours is the fastest GEMM: is it clearly faster than the best on the other side of 12.5%?
        let rivals: Vec<&GemmRow> = ok.iter().copied().filter(|r| low(r) != low(best)).collect();
        let (holds, rival) = if rivals.is_empty() {
            (
                Some(low(best)),
                format!(
                    "every variant is {} 12.5%",
                    if low(best) { "at or below" } else { "above" }
                ),
            )
        } else {
            let rival = fastest(&rivals);
            let iv = speedup(best, rival);
            let holds = match faster(&iv) {
                Some(true) => Some(low(best)),
                _ => None,
            };
            (
                holds,
                format!(
                    "fastest {} 12.5%: {}, {} over it{}",
                    if low(rival) { "at or below" } else { "above" },
                    gf(rival),
                    ratio_words(&iv),
                    if holds.is_none() { " (not judged)" } else { "" }
                ),
            )
        };
        Ok((
            holds,
            with_exclusions(format!("{against_cublas}; {rival}"), &failed),
        ))
    })
}

fn gemm_rows(rows: Option<&[GemmRow]>) -> Result<(Vec<&GemmRow>, Vec<String>), String> {
    two_passing(rows.ok_or(NOT_RUN)?, "GEMM variants")
}

fn fastest<'a>(rows: &[&'a GemmRow]) -> &'a GemmRow {
    rows.iter()
        .copied()
        .max_by(|a, b| a.figures.gflops.total_cmp(&b.figures.gflops))
        .expect("at least one row")
}

fn gf(r: &GemmRow) -> String {
    format!(
        "{} {:.0} GFLOP/s at {} ({} regs)",
        r.variant,
        r.figures.gflops,
        pct(r.figures.occupancy),
        r.figures.regs
    )
}

const CLAIM_1: &str = "Peak GFLOP/s is not reached at the highest occupancy.";
const RULE_1: &str = "Let B be the fastest variant (median GFLOP/s) below the highest theoretical \
occupancy measured. HOLDS when B's GFLOP/s over that of every variant at the highest occupancy \
lies wholly above 1; DOES NOT HOLD when one of those variants is faster than B (its interval \
wholly below 1).";

pub fn peak_below_max_occupancy(rows: Option<&[GemmRow]>) -> Verdict {
    let claim = Claim::interval("peak-below-max-occupancy", CLAIM_1, RULE_1);
    claim.judge(|| {
        let (ok, failed) = gemm_rows(rows)?;
        let max_occ = ok.iter().map(|r| r.figures.occupancy).fold(f64::MIN, f64::max);
        let min_occ = ok.iter().map(|r| r.figures.occupancy).fold(f64::MAX, f64::min);
        if max_occ - min_occ < OCCUPANCY_EPS {
            let why = format!(
                "every variant runs at the same occupancy ({})",
                pct(max_occ)
            );
            return Err(with_exclusions(why, &failed));
        }
        let (top, below): (Vec<&GemmRow>, Vec<&GemmRow>) = ok
            .iter()
            .copied()
            .partition(|r| max_occ - r.figures.occupancy < OCCUPANCY_EPS);
        let best = fastest(&below);
        let mut against_b = Comparisons::default();
        for t in &top {
            let iv = speedup(best, t);
            let o = faster(&iv);
            let mark = match o {
                Some(true) => "",
                Some(false) => ": faster than B",
                None => ": within noise",
            };
            against_b.push(o, format!("{}, {} over it{mark}", gf(t), ratio_words(&iv)));
        }
        let evidence = format!(
            "fastest below the highest occupancy (B): {}; at the highest occupancy: {}",
            gf(best),
            against_b.words("; ")
        );
        Ok((against_b.outcome(), with_exclusions(evidence, &failed)))
    })
}

const CLAIM_2: &str =
    "At equal occupancy, the variant with more accumulators per thread is faster \
(the blog's S vs A).";
const RULE_2: &str = "For every pair of GEMM variants at the same theoretical occupancy (within \
0.1 percentage point) with different accumulators per thread (TM x TN), the one with more \
accumulators is faster: its GFLOP/s over the other's lies wholly above 1. DOES NOT HOLD when \
one such ratio lies wholly below 1.";

pub fn accumulators_at_equal_occupancy(rows: Option<&[GemmRow]>) -> Verdict {
    let claim = Claim::interval("more-accumulators-at-equal-occupancy", CLAIM_2, RULE_2);
    claim.judge(|| {
        let (ok, failed) = gemm_rows(rows)?;
        let mut parts = Vec::new();
        let mut outcomes = Vec::new();
        for (i, a) in ok.iter().enumerate() {
            for b in &ok[i + 1..] {
                let (acc_a, acc_b) = (a.tm * a.tn, b.tm * b.tn);
                if (a.figures.occupancy - b.figures.occupancy).abs() >= OCCUPANCY_EPS || acc_a == acc_b {
                    continue;
                }
                let (more, fewer) = if acc_a > acc_b { (a, b) } else { (b, a) };
                let iv = speedup(more, fewer);
                let o = faster(&iv);
                outcomes.push(o);
                parts.push(format!(
                "at {}: {} ({} accumulators) {:.0} vs {} ({} accumulators) {:.0} GFLOP/s = {}{}",
                pct(more.figures.occupancy),
                more.variant,
                more.tm * more.tn,
                more.figures.gflops,
                fewer.variant,
                fewer.tm * fewer.tn,
                fewer.figures.gflops,
                ratio_words(&iv),
                if o.is_none() { " (not judged)" } else { "" }
            ));
            }
        }
        if parts.is_empty() {
            let why =
                "no two variants share an occupancy with different accumulator counts".to_string();
            return Err(with_exclusions(why, &failed));
        }
        Ok((all_of(outcomes), with_exclusions(parts.join("; "), &failed)))
    })
}

const CLAIM_3: &str = "Past the peak, throughput falls as the tile grows towards the 255-register \
limit, and the largest tile (which spills) is far slower.";
const RULE_3: &str = "Ordering GEMM variants by accumulators per thread, each variant with more \
accumulators than the fastest one (median GFLOP/s) is slower than the one before it (its GFLOP/s \
over that one's lies wholly below 1), and the variant with the most accumulators runs below 50% \
of the fastest variant's GFLOP/s (the interval of that ratio wholly below 0.5). DOES NOT HOLD when \
a step's interval lies wholly above 1, or the largest tile's wholly at or above 0.5.";

pub fn falls_past_peak(rows: Option<&[GemmRow]>) -> Verdict {
    let claim = Claim::interval("falls-past-peak", CLAIM_3, RULE_3);
    claim.judge(|| {
        let (mut ok, failed) = match gemm_rows(rows) {
            Ok(v) => v,
            Err(why) => return Err(why),
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
            return Ok((Some(false), with_exclusions(ev, &failed)));
        }
        let mut prev = best;
        let mut outcomes = Vec::new();
        let mut steps = Vec::new();
        for r in &past {
            let iv = speedup(r, prev);
            let falls = faster(&iv).map(|rises| !rises);
            outcomes.push(falls);
            steps.push(format!(
                "{} {:.0} ({} regs, {} x {}{})",
                r.variant,
                r.figures.gflops,
                r.figures.regs,
                ratio_words(&iv),
                prev.variant,
                match falls {
                    Some(true) => "",
                    Some(false) => ", not lower",
                    None => ", not judged",
                }
            ));
            prev = r;
        }
        let share = speedup(largest, best);
        let far = share
            .as_ref()
            .ok()
            .and_then(|iv| iv.exceeds(FAR_SLOWER))
            .map(|kept_up| !kept_up);
        outcomes.push(far);
        let ev = format!(
            "peak: {}; past it: {}; largest tile {} ({}x{}, {} of {} registers) at {} of the peak \
         (bound {})",
            gf(best),
            steps.join(", "),
            largest.variant,
            largest.tm,
            largest.tn,
            largest.figures.regs,
            kernels_gpu::variants::MAX_REGS_PER_THREAD,
            match &share {
                Ok(iv) => iv.show(pct),
                Err(e) => format!("{} (no interval: {e})", pct(largest.figures.gflops / best.figures.gflops)),
            },
            pct(FAR_SLOWER)
        );
        Ok((all_of(outcomes), with_exclusions(ev, &failed)))
    })
}
