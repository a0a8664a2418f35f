//! The blog's claims about experiment 1, each judged by the rule written beside it.

use super::{GemmRow, GemmRun};
use crate::claim::{
    passing, pct, spread, verdict, with_exclusions, Verdict, FAR_SLOWER, OCCUPANCY_EPS,
};

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
const RULE_4: &str = "Among the variants with a passing check and cuBLAS (when it ran and passed \
its check), take the highest median GFLOP/s. When that is one of our variants, the claim holds \
if its theoretical occupancy (driver and calculator) is at most 12.5%. When it is cuBLAS, whose \
kernel the lab does not read (not its name, registers or shared memory), its occupancy is not \
known to the lab: the claim is judged on the fastest of our variants and the evidence says so; \
no occupancy is assumed for cuBLAS. Not judged without cuBLAS in the run.";

pub fn fastest_at_low_occupancy(run: Option<&GemmRun>) -> Verdict {
    let key = "fastest-gemm-at-low-occupancy";
    let not_judged = |why: String| verdict(key, 1, CLAIM_4, RULE_4, None, why);
    let Some(run) = run else {
        return not_judged("experiment 1 was not run".into());
    };
    let (ok, failed) = passing(&run.rows, |r| &r.check, |r| r.variant.clone());
    let cublas = match &run.cublas {
        None => {
            return not_judged(
                "cuBLAS was not timed in this run (skipped, or a run recorded before cuBLAS \
                 was timed)"
                    .into(),
            )
        }
        Some(c) => match c.measured() {
            None => {
                return not_judged(with_exclusions(
                    format!("cuBLAS did not run: {}", super::cublas_reason(c)),
                    &failed,
                ))
            }
            Some(m) => m,
        },
    };
    if ok.is_empty() {
        return not_judged(with_exclusions(
            "no variant passed its check".into(),
            &failed,
        ));
    }
    let best = fastest(&ok);
    let holds = best.occupancy <= LOW_OCCUPANCY + OCCUPANCY_EPS / 100.0;
    let ours = format!(
        "fastest of ours: {} ({})",
        gf(best),
        if holds { "<= 12.5%" } else { "above 12.5%" }
    );
    let ev = if !cublas.check.passed {
        format!(
            "cuBLAS {} failed its check and is left out; {ours}",
            cublas.version
        )
    } else if cublas.gflops > best.gflops {
        format!(
            "fastest: cuBLAS {} at {:.0} GFLOP/s ({:.3}x the fastest of ours; its occupancy is \
             not measured by the lab, so the claim is judged on ours); {ours}",
            cublas.version,
            cublas.gflops,
            cublas.gflops / best.gflops
        )
    } else {
        format!(
            "fastest: ours, {} ({:.3}x cuBLAS {} at {:.0} GFLOP/s); {ours}",
            best.variant,
            best.gflops / cublas.gflops,
            cublas.version,
            cublas.gflops
        )
    };
    verdict(
        key,
        1,
        CLAIM_4,
        RULE_4,
        Some(holds),
        with_exclusions(ev, &failed),
    )
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

pub fn peak_below_max_occupancy(rows: Option<&[GemmRow]>) -> Verdict {
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

pub fn accumulators_at_equal_occupancy(rows: Option<&[GemmRow]>) -> Verdict {
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

pub fn falls_past_peak(rows: Option<&[GemmRow]>) -> Verdict {
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
