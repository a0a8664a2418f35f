//! The `inflight` experiment's claims, judged by rules fixed before any data was seen. Each rule is
//! a function over the rows; it returns a [`Verdict`] with the numbers it used and their bootstrap
//! intervals ([`crate::confidence`]). Rows whose copy failed its check are never used, nor points
//! whose build spills (their loads are not all in flight, so their bytes in flight are not what the
//! point claims).

use super::law_claim::{loaded_law_predicts, sustained_law_predicts, warps_cannot_hide_latency};
use super::notes::median;
use super::output::Inflight;
use super::row::{fastest, usable, CopyReference, InflightRow, SPILLS_NOTE};
use crate::claim::{
    decide, interval_or_at, pick_coverage, ratio_at, verdict, with_interval_rule, Rules, Verdict,
    NOT_RUN,
};
use crate::confidence::{self, Interval, Timed};
use crate::table::{percent, percent_with};

/// Occupancy at or below which a row counts as "a few threads" (8 of 64 warps on sm_90).
pub const FEW_THREADS_OCCUPANCY: f64 = 0.125;
/// Occupancy at or above which a row counts as "many threads".
pub const MANY_THREADS_OCCUPANCY: f64 = 0.5;
/// The few-thread best must reach this fraction of the many-thread best to "match" ...
pub const MATCH_HOLDS: f64 = 0.95;
/// ... and falls short below this one.
pub const MATCH_FAILS: f64 = 0.90;
/// Largest median spread (in fractions of the copy) among rows with about the same bytes in
/// flight for bytes in flight to "set" the bandwidth.
pub const SAME_BYTES_SPREAD: f64 = 0.15;
/// Bins needed on each side for the spread rule to judge.
pub const MIN_BINS: usize = 3;

/// What was left out of a claim, in words ("" when nothing was).
fn left_out(rows: &[InflightRow]) -> String {
    let failed = rows.iter().filter(|r| !r.measured.checked()).count();
    let spilled = rows
        .iter()
        .filter(|r| r.measured.checked() && r.spilled())
        .count();
    let mut parts = Vec::new();
    if spilled > 0 {
        parts.push(format!("{spilled} spilling points ({SPILLS_NOTE})"));
    }
    if failed > 0 {
        parts.push(format!("{failed} points whose check failed"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("; left out: {}", parts.join(", "))
    }
}

/// The groups of rows (indices into `rows`) sharing `key` whose rows take at least two values
/// of `other`.
fn mixed_groups(
    rows: &[&InflightRow],
    key: impl Fn(&InflightRow) -> i64,
    other: impl Fn(&InflightRow) -> i64,
) -> Vec<Vec<usize>> {
    let mut groups: std::collections::BTreeMap<i64, Vec<usize>> = Default::default();
    for (i, r) in rows.iter().enumerate() {
        groups.entry(key(r)).or_default().push(i);
    }
    groups
        .into_values()
        .filter(|g| g.iter().any(|&i| other(rows[i]) != other(rows[g[0]])))
        .collect()
}

/// The median over `groups` of each group's spread (max - min) of `fractions`.
fn median_spread(groups: &[Vec<usize>], fractions: &[f64]) -> Option<f64> {
    median(
        groups
            .iter()
            .map(|g| {
                let (lo, hi) = g
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &i| {
                        (lo.min(fractions[i]), hi.max(fractions[i]))
                    });
                hi - lo
            })
            .collect(),
    )
}

/// Half-octave bin of a byte count: rows within a factor of about 1.41 share a bin.
fn half_octave(bytes: u64) -> i64 {
    (2.0 * (bytes.max(1) as f64).log2()).floor() as i64
}

/// "Memory bandwidth is set by bytes in flight per SM rather than by occupancy": the spread of
/// the share of the copy among rows with about the same bytes in flight (`S_bytes`) against that
/// among rows with the same warps/SM (`S_occ`); the rule is the verdict's text below.
pub fn bytes_not_occupancy(rows: &[InflightRow], copy: &CopyReference) -> Verdict {
    let used: Vec<&InflightRow> = usable(rows).collect();
    let by_bytes = mixed_groups(
        &used,
        |r| half_octave(r.bytes_in_flight_per_sm),
        |r| i64::from(r.warps_per_sm),
    );
    let by_occ = mixed_groups(
        &used,
        |r| i64::from(r.warps_per_sm),
        |r| r.bytes_in_flight_per_sm as i64,
    );
    let (n_bytes, n_occ) = (by_bytes.len(), by_occ.len());
    // Every row's GB/s, then the copy's: a resample's fractions of the copy are their quotients.
    let mut figures: Vec<Timed<'_>> = used.iter().map(|r| Timed::new(r.gbps, &r.timing)).collect();
    figures.push(Timed::new(copy.gbps, &copy.timing));
    let fractions = |v: &[f64]| {
        let (rows, copy) = v.split_at(v.len() - 1);
        rows.iter().map(|g| g / copy[0]).collect::<Vec<f64>>()
    };
    let s_bytes = |v: &[f64]| median_spread(&by_bytes, &fractions(v));
    let s_occ = |v: &[f64]| median_spread(&by_occ, &fractions(v));
    let enough = n_bytes >= MIN_BINS && n_occ >= MIN_BINS;
    // The spreads, and the two margins the rule reads (S_occ - 2 S_bytes, S_occ - S_bytes), each
    // over the same resamples (one seed).
    let intervals = enough.then(|| {
        confidence::statistics(&figures, |v| {
            let (b, o) = (s_bytes(v)?, s_occ(v)?);
            Some([b, o, o - 2.0 * b, o - b])
        })
    });
    let points = |iv: &Interval| format!("{} points", iv.show(|x| format!("{:.1}", x * 100.0)));
    let (holds, evidence) = match intervals {
        None => (
            None,
            format!(
                "{n_bytes} groups of about the same bytes in flight and {n_occ} of the same \
                 warps/SM mix the other variable; {MIN_BINS} of each are needed"
            ),
        ),
        Some(Ok([b, o, twice, once])) => {
            let holds = decide(
                b.below(SAME_BYTES_SPREAD) && twice.above(0.0),
                once.below(0.0),
            );
            (
                holds,
                format!(
                    "S_bytes = {} over {n_bytes} groups; S_occ = {} over {n_occ} groups; \
                     S_occ - 2 S_bytes = {}",
                    points(&b),
                    points(&o),
                    points(&twice)
                ),
            )
        }
        Some(Err(e)) => (None, format!("no interval: {e}")),
    };
    verdict(
        "bandwidth-set-by-bytes-in-flight",
        "memory bandwidth is set by bytes in flight per SM rather than by occupancy",
        &format!(
            "median spread of % of copy among rows with about the same bytes in flight per SM \
             (half-octave bins) S_bytes below {:.0} points and at most half the median spread \
             among rows with the same warps/SM S_occ, each on its {} bootstrap interval \
             ({} resamples of every row's and the copy's samples, fixed seed): HOLDS when the \
             interval of S_bytes lies below {:.0} points and that of S_occ - 2 S_bytes above 0; \
             DOES NOT HOLD when that of S_occ - S_bytes lies below 0; NOT JUDGED otherwise, or \
             with fewer than {MIN_BINS} mixed groups of each; points whose build spills ({}) \
             and failed checks are left out",
            SAME_BYTES_SPREAD * 100.0,
            percent_with(confidence::LEVEL, 0),
            confidence::RESAMPLES,
            SAME_BYTES_SPREAD * 100.0,
            SPILLS_NOTE
        ),
        holds,
        format!("{evidence}; {} usable rows{}", used.len(), left_out(rows)),
    )
}

/// The `inflight` experiment's verdicts, in order; NOT JUDGED, saying so, when it did not run.
pub fn verdicts(result: Option<&Inflight>) -> Vec<Verdict> {
    verdicts_under(result, Rules::AsPublished)
}

/// [`verdicts`] under the run's edition of the rules: the claims that pick their best row after
/// the data read it on an interval Bonferroni-corrected over the rows it was picked from where
/// the rules correct picks.
pub fn verdicts_under(result: Option<&Inflight>, rules: Rules) -> Vec<Verdict> {
    let not_run = CopyReference {
        bytes: 0,
        gbps: 0.0,
        timing: Default::default(),
    };
    let (rows, copy, predictions, cycles) = match result {
        Some(r) => (
            &r.rows[..],
            &r.copy,
            &r.loaded_predictions[..],
            r.latency.cycles_per_step,
        ),
        None => (&[][..], &not_run, &[][..], 0.0),
    };
    let mut law = loaded_law_predicts(rows, copy, predictions);
    // What reads alone need beside the copy: the report's answer to "a copy moves bytes both
    // ways" (evidence only; the rule is the copy's).
    if let Some(reads) = result.and_then(|r| r.reads.as_ref()) {
        law.evidence = format!(
            "{} Read-only: {}",
            law.evidence,
            reads.need_notes().join("; ")
        );
    }
    let mut v = vec![
        bytes_not_occupancy(rows, copy),
        few_threads_match_many_under(rows, rules),
        law,
    ];
    // Little's law on the persistent copies, which hold their bytes in flight (in runs that
    // measured them: older runs render as they were).
    if let Some(s) = result.and_then(|r| r.sustained.as_ref()) {
        v.push(sustained_law_predicts(&s.rows, copy, predictions));
        v.extend(result.and_then(|r| {
            super::sampled_law::sampled_law_predicts(&s.rows, &r.loaded, r.model.sms)
        }));
    }
    v.extend([
        warps_cannot_hide_latency(rows, copy, cycles),
        one_warp_from_shared_memory_under(rows, copy, rules),
    ]);
    if result.is_none() {
        for x in &mut v {
            x.holds = None;
            x.evidence = NOT_RUN.into();
        }
    }
    v
}

/// "A few threads with many bytes in flight match many threads": the best usable row at low
/// occupancy against the best at high occupancy (the rule is the verdict's text below).
pub fn few_threads_match_many(rows: &[InflightRow]) -> Verdict {
    few_threads_match_many_under(rows, Rules::AsPublished)
}

/// [`few_threads_match_many`] under `rules`: both bests are picked after the data, so the ratio
/// is read Bonferroni-corrected over the rows of both sides where the rules correct picks.
pub fn few_threads_match_many_under(rows: &[InflightRow], rules: Rules) -> Verdict {
    let is_few = |r: &InflightRow| r.occupancy <= FEW_THREADS_OCCUPANCY + 1e-9;
    let is_many = |r: &InflightRow| r.occupancy >= MANY_THREADS_OCCUPANCY - 1e-9;
    let few = fastest(rows, is_few);
    let many = fastest(rows, is_many);
    let picked_from = usable(rows).filter(|r| is_few(r) || is_many(r)).count();
    let coverage = pick_coverage(rules, picked_from);
    let (holds, evidence) = match (few, many) {
        (Some(f), Some(m)) => {
            let iv = ratio_at((f.gbps, &f.timing), (m.gbps, &m.timing), coverage);
            let holds = iv.as_ref().ok().and_then(|iv| {
                decide(
                    iv.exceeds(MATCH_HOLDS) == Some(true),
                    iv.exceeds(MATCH_FAILS) == Some(false),
                )
            });
            (
                holds,
                format!(
                    "best at <= {} occupancy: {} at {} blocks/SM ({}, {} B in flight per \
                     SM) {:.0} GB/s; best at >= {}: {} at {} blocks/SM ({}) {:.0} GB/s; \
                     ratio {}",
                    percent(FEW_THREADS_OCCUPANCY),
                    f.entry,
                    f.blocks_per_sm,
                    percent(f.occupancy),
                    f.bytes_in_flight_per_sm,
                    f.gbps,
                    percent_with(MANY_THREADS_OCCUPANCY, 0),
                    m.entry,
                    m.blocks_per_sm,
                    percent(m.occupancy),
                    m.gbps,
                    interval_or_at(&iv, f.gbps / m.gbps, coverage, |x| format!("{x:.3}"))
                ),
            )
        }
        _ => (
            None,
            format!(
                "no usable row at {} occupancy",
                if few.is_none() { "low" } else { "high" }
            ),
        ),
    };
    let on = if rules.fixed_in_advance() {
        format!(
            "{} (the two bests are picked among the usable rows of both sides after the data), \
             of the ratio of medians",
            coverage.words()
        )
    } else {
        format!(
            "the {} bootstrap interval of the ratio of medians",
            percent_with(confidence::LEVEL, 0)
        )
    };
    verdict(
        "few-threads-with-bytes-match-many",
        "a few threads with many bytes in flight match many threads",
        &format!(
            "best GB/s at <= {} occupancy over best at >= {}, on {on} ({} resamples, fixed \
             seed): holds when it lies at or above {MATCH_HOLDS}, fails when it lies below \
             {MATCH_FAILS}, NOT JUDGED otherwise; points whose build spills ({}) and failed \
             checks are left out",
            percent(FEW_THREADS_OCCUPANCY),
            percent_with(MANY_THREADS_OCCUPANCY, 0),
            confidence::RESAMPLES,
            SPILLS_NOTE
        ),
        holds,
        format!("{evidence}{}", left_out(rows)),
    )
}

/// The share of the device-to-device copy one warp per SM must reach.
pub const ONE_WARP_SHARE: f64 = 0.90;

/// The copies whose bytes in flight live in shared memory (the `smem_copy` lines): registers cap
/// what a few warps can hold, so the register-held copies need many warps per SM; a warp whose
/// ring lives in shared memory holds as much as the SM's shared memory allows. The best usable
/// shared-memory row at one warp per SM against the copy (the rule is the verdict's text below).
pub fn one_warp_from_shared_memory(rows: &[InflightRow], copy: &CopyReference) -> Verdict {
    one_warp_from_shared_memory_under(rows, copy, Rules::AsPublished)
}

/// [`one_warp_from_shared_memory`] under `rules`: the best ring is picked after the data, so its
/// share is read Bonferroni-corrected over the usable rings at one warp per SM where the rules
/// correct picks.
pub fn one_warp_from_shared_memory_under(
    rows: &[InflightRow],
    copy: &CopyReference,
    rules: Rules,
) -> Verdict {
    let in_shared = |r: &InflightRow| r.point.shape.ring.is_some();
    let at_one = |r: &InflightRow| in_shared(r) && r.warps_per_sm == 1;
    let best = fastest(rows, at_one);
    let ran = rows.iter().filter(|r| in_shared(r)).count();
    let coverage = pick_coverage(rules, usable(rows).filter(|r| at_one(r)).count());
    let (holds, evidence) = match best {
        Some(b) => {
            let iv = ratio_at((b.gbps, &b.timing), (copy.gbps, &copy.timing), coverage);
            let holds = iv.as_ref().ok().and_then(|iv| iv.exceeds(ONE_WARP_SHARE));
            let ring = b.point.shape.ring.expect("filtered on the ring");
            (
                holds,
                format!(
                    "best at 1 warp/SM: {} ({} stages of {} B, {} B in flight per SM) {:.0} \
                     GB/s against the D2D copy's {:.0}: share {}",
                    b.entry,
                    ring.stages,
                    ring.stage_bytes,
                    b.bytes_in_flight_per_sm,
                    b.gbps,
                    copy.gbps,
                    interval_or_at(&iv, b.gbps / copy.gbps, coverage, |x| format!("{x:.3}"))
                ),
            )
        }
        None => (
            None,
            format!(
                "no usable shared-memory copy at 1 warp/SM ({ran} shared-memory rows in the \
                 run; a run recorded before these copies has none)"
            ),
        ),
    };
    let rule = format!(
        "best GB/s of the copies through shared memory (cp.async and bulk-copy rings) at 1 \
         resident warp per SM over the D2D copy's: HOLDS when the interval of the ratio lies \
         at or above {ONE_WARP_SHARE}, DOES NOT HOLD when it lies below, NOT JUDGED \
         otherwise; failed checks are left out"
    );
    let rule = if rules.fixed_in_advance() {
        format!(
            "{rule}. The best ring is picked among the usable rings at 1 warp per SM after the \
             data: its interval is {} ({} bootstrap resamples of each figure's samples, fixed \
             seed); one that straddles the bar, or a figure with fewer than {} samples, leaves \
             it NOT JUDGED",
            coverage.words(),
            confidence::RESAMPLES,
            confidence::MIN_SAMPLES
        )
    } else {
        with_interval_rule(&rule)
    };
    verdict(
        "one-warp-copies-from-shared-memory",
        "one warp per SM reaches 90% of the device-to-device copy when the bytes in \
                flight live in shared memory",
        &rule,
        holds,
        evidence,
    )
}

// A child module kept in its own file beside this one: it reaches the claims' private items.
#[cfg(test)]
#[path = "claims_test.rs"]
mod tests;
