//! The blog's claims about the `bandwidth` experiment, each judged by the rule written beside it.

use super::row::{Bandwidth, CopyRow};
use crate::claim::{
    interval_or_at, pick_coverage, ratio, ratio_at, with_exclusions, Claim, Rules, Verdict,
    BANDWIDTH_WITHIN, NOT_RUN, OCCUPANCY_EPS, OCCUPANCY_SPAN,
};
use crate::confidence::{self, Interval, NoInterval};
use crate::experiments::row_views::two_passing;
use crate::results::Timing;
use crate::table::percent as pct;
use crate::table::percent_with;

/// The two claims, in order.
pub fn claims(bw: Option<&Bandwidth>) -> Vec<Verdict> {
    claims_under(bw, Rules::AsPublished)
}

/// [`claims`] under the run's edition of the rules: the best many-thread variant, picked after
/// the data, is judged on an interval Bonferroni-corrected over the variants it was picked from
/// where the rules correct picks.
pub fn claims_under(bw: Option<&Bandwidth>, rules: Rules) -> Vec<Verdict> {
    vec![
        few_threads_match_many(bw, rules),
        bandwidth_flat_over_occupancy(bw),
    ]
}

fn copy_rows(bw: Option<&Bandwidth>) -> Result<(Vec<&CopyRow>, Vec<String>), String> {
    two_passing(&bw.ok_or(NOT_RUN)?.rows, "copy variants")
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
threads (the blog's T14f4 against the best many-thread variant).";
const RULE_4: &str = "The copy variant with the fewest threads per block (ties: most bytes in \
flight per thread) reaches at least 90% of the GB/s of the fastest variant at 50% occupancy or \
more with more threads per block than it (the best many-thread variant, not the weakest): the \
interval of its GB/s over that one's lies wholly at or above 0.9. DOES NOT HOLD when it lies \
wholly below 0.9.";

/// Occupancy at or above which a copy variant counts as "many threads" (as `inflight`'s
/// verdict counts it).
pub const MANY_THREADS_OCCUPANCY: f64 = 0.5;

fn share(a: &CopyRow, b: (f64, &Timing)) -> Result<Interval, NoInterval> {
    ratio((a.gbps, &a.timing), b)
}

fn share_words(r: &Result<Interval, NoInterval>, point: f64) -> String {
    match r {
        Ok(iv) => iv.show(pct),
        Err(e) => format!("{} (no interval: {e})", pct(point)),
    }
}

fn few_threads_match_many(bw: Option<&Bandwidth>, rules: Rules) -> Verdict {
    let claim = if rules.fixed_in_advance() {
        Claim::new("few-threads-match-many", CLAIM_4, rule_4_corrected())
    } else {
        Claim::interval("few-threads-match-many", CLAIM_4, RULE_4)
    };
    claim.judge(|| {
        let (ok, failed) = copy_rows(bw)?;
        // By threads per block; among equal threads, more bytes in flight counts as fewer threads.
        let order = |a: &&CopyRow, b: &&CopyRow| {
            let fewer_bytes = b.bytes_per_thread.cmp(&a.bytes_per_thread);
            a.threads.cmp(&b.threads).then(fewer_bytes)
        };
        let few = ok.iter().copied().min_by(order).expect("two rows");
        // The best many-thread variant: the fastest (median GB/s) at >= 50% occupancy with more
        // threads per block and fewer bytes per thread than `few`.
        let candidates: Vec<&CopyRow> = (ok.iter().copied())
            .filter(|r| r.occupancy >= MANY_THREADS_OCCUPANCY - OCCUPANCY_EPS)
            .filter(|r| r.threads > few.threads && r.bytes_per_thread < few.bytes_per_thread)
            .collect();
        let many = (candidates.iter().copied()).max_by(|a, b| a.gbps.total_cmp(&b.gbps));
        let coverage = pick_coverage(rules, candidates.len());
        let Some(many) = many else {
            let why = format!(
                "no variant at {} occupancy or more has both more threads and fewer bytes in \
                 flight per thread than {}",
                pct(MANY_THREADS_OCCUPANCY),
                cp(few)
            );
            return Err(with_exclusions(why, &failed));
        };
        let iv = ratio_at((few.gbps, &few.timing), (many.gbps, &many.timing), coverage);
        let holds = iv
            .as_ref()
            .ok()
            .and_then(|iv| iv.exceeds(1.0 - BANDWIDTH_WITHIN));
        let shown = if coverage.comparisons > 1 {
            interval_or_at(&iv, few.gbps / many.gbps, coverage, pct)
        } else {
            share_words(&iv, few.gbps / many.gbps)
        };
        let mut ev = format!(
            "{} vs the best many-thread variant {}: {shown} (bound {})",
            cp(few),
            cp(many),
            pct(1.0 - BANDWIDTH_WITHIN)
        );
        if rules.fixed_in_advance() {
            ev.push_str(&format!(
                "; the best picked among {} many-thread variants, read on {}",
                candidates.len(),
                coverage.words()
            ));
        }
        Ok((holds, with_exclusions(ev, &failed)))
    })
}

fn rule_4_corrected() -> String {
    format!(
        "{RULE_4} The best many-thread variant is picked among the candidates after the data, \
         so the ratio's percentile-bootstrap interval ({} resamples of each figure's samples, \
         fixed seed) is Bonferroni-corrected over them: {} coverage over all of them together. \
         An interval that straddles 0.9, or a figure with fewer than {} samples, leaves it NOT \
         JUDGED.",
        confidence::RESAMPLES,
        percent_with(confidence::LEVEL, 0),
        confidence::MIN_SAMPLES
    )
}

const CLAIM_5: &str = "With the blog's copy variants (bytes in flight per thread fixed by the \
variant, sized on the blog's GPU), bandwidth stays saturated across a wide range of occupancy: \
many threads are not needed to hide memory latency.";
const RULE_5: &str = "The copy variants that reach at least 90% of the device-to-device copy \
bandwidth measured in the same run (the interval of their GB/s over the copy's wholly at or \
above 0.9) span at least a 10x range of theoretical occupancy (highest / lowest occupancy among \
them). DOES NOT HOLD when even the variants not shown below 90% (interval not wholly below 0.9) \
span less than 10x.";

fn bandwidth_flat_over_occupancy(bw: Option<&Bandwidth>) -> Verdict {
    let claim = Claim::interval("bandwidth-flat-over-occupancy", CLAIM_5, RULE_5);
    claim.judge(|| {
        let (ok, failed) = copy_rows(bw)?;
        let Some(bw) = bw.filter(|b| b.reference_gbps > 0.0) else {
            let why = "no copy reference bandwidth was measured".to_string();
            return Err(with_exclusions(why, &failed));
        };
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
            return Err(with_exclusions(why, &failed));
        }
        let reference = (bw.reference_gbps, &bw.reference_timing);
        let mut within = Vec::new();
        let mut possible = Vec::new();
        let mut listed = Vec::new();
        for r in &ok {
            let iv = share(r, reference);
            let reaches = iv
                .as_ref()
                .ok()
                .and_then(|iv| iv.exceeds(1.0 - BANDWIDTH_WITHIN));
            if reaches == Some(true) {
                within.push(*r);
            }
            if reaches != Some(false) {
                possible.push(*r);
            }
            listed.push(format!(
                "{} at {}: {}{}",
                r.variant,
                pct(r.occupancy),
                share_words(&iv, r.gbps / bw.reference_gbps),
                match reaches {
                    Some(true) => "",
                    Some(false) => " (below)",
                    None => " (not judged)",
                }
            ));
        }
        let span = |rows: &[&CopyRow]| {
            let (lo, hi) = occ(rows);
            (!rows.is_empty()).then(|| (lo, hi, hi / lo))
        };
        let (holds, span_text) = match (span(&within), span(&possible)) {
            (Some((lo, hi, s)), _) if s >= OCCUPANCY_SPAN => (
                Some(true),
                format!(
                    "those reaching it span {} to {} = {:.1}x (need {:.0}x)",
                    pct(lo),
                    pct(hi),
                    s,
                    OCCUPANCY_SPAN
                ),
            ),
            (_, None) => (Some(false), "no variant reaches the bound".to_string()),
            (_, Some((lo, hi, s))) => (
                (s < OCCUPANCY_SPAN).then_some(false),
                format!(
                    "those not shown below it span {} to {} = {:.1}x (need {:.0}x)",
                    pct(lo),
                    pct(hi),
                    s,
                    OCCUPANCY_SPAN
                ),
            ),
        };
        let ev = format!(
            "reference {:.1} GB/s, bound {}; each variant's share of it: {}; {}",
            bw.reference_gbps,
            pct(1.0 - BANDWIDTH_WITHIN),
            listed.join(", "),
            span_text
        );
        Ok((holds, with_exclusions(ev, &failed)))
    })
}
