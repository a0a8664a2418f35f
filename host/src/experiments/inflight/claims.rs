//! The `inflight` experiment's claims, judged by rules fixed before any data was seen. Each rule is
//! a function over the rows; it returns a [`Verdict`] with the numbers it used and their bootstrap
//! intervals ([`crate::confidence`]). Rows whose copy failed its check are never used, nor points
//! whose build spills (their loads are not all in flight, so their bytes in flight are not what the
//! point claims).

use super::law_claim::{loaded_law_predicts, warps_cannot_hide_latency};
use super::notes::median;
use super::output::Inflight;
use super::row::{usable, CopyReference, InflightRow, SPILLS_NOTE};
use super::smem_claim::one_warp_from_shared_memory;
use crate::claim::{decide, interval_or, ratio, verdict, Verdict, NOT_RUN};
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

/// "Memory bandwidth is set by bytes in flight per SM rather than by occupancy."
///
/// Rule: group the usable rows by bytes in flight per SM (half-octave bins) and, separately,
/// by warps per SM; in each group that mixes values of the other variable, take the spread
/// (max - min) of the fraction of the copy. Let `S_bytes` and `S_occ` be the medians over the
/// groups, each with its bootstrap interval (every row's and the copy's samples resampled
/// together). HOLDS when the interval of `S_bytes` lies below 0.15 and that of
/// `S_occ - 2 S_bytes` above 0; DOES NOT HOLD when that of `S_occ - S_bytes` lies below 0;
/// otherwise, or with fewer than 3 groups of either kind, NOT JUDGED.
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
    match result {
        Some(r) => {
            let mut law = loaded_law_predicts(&r.rows, &r.copy, &r.loaded_predictions);
            // What reads alone need beside the copy: the report's answer to "a copy moves bytes
            // both ways" (evidence only; the rule is the copy's).
            if let Some(reads) = &r.reads {
                law.evidence = format!(
                    "{} Read-only: {}",
                    law.evidence,
                    reads.need_notes().join("; ")
                );
            }
            vec![
                bytes_not_occupancy(&r.rows, &r.copy),
                few_threads_match_many(&r.rows),
                law,
                warps_cannot_hide_latency(&r.rows, &r.copy, r.latency.cycles_per_step),
                one_warp_from_shared_memory(&r.rows, &r.copy),
            ]
        }
        None => {
            let copy = CopyReference {
                bytes: 0,
                gbps: 0.0,
                timing: Default::default(),
            };
            let mut v = vec![
                bytes_not_occupancy(&[], &copy),
                few_threads_match_many(&[]),
                loaded_law_predicts(&[], &copy, &[]),
                warps_cannot_hide_latency(&[], &copy, 0.0),
                one_warp_from_shared_memory(&[], &copy),
            ];
            for x in &mut v {
                x.holds = None;
                x.evidence = NOT_RUN.into();
            }
            v
        }
    }
}

/// "A few threads with many bytes in flight match many threads."
///
/// Rule: the best usable row (median GB/s) at occupancy <= 12.5% against the best at 50% or
/// more, on the bootstrap interval of the ratio: HOLDS when it lies wholly at or above 0.95,
/// DOES NOT HOLD when wholly below 0.90, NOT JUDGED otherwise or when either side has no row.
pub fn few_threads_match_many(rows: &[InflightRow]) -> Verdict {
    let best = |keep: &dyn Fn(&InflightRow) -> bool| {
        usable(rows)
            .filter(|r| keep(r))
            .max_by(|a, b| a.gbps.total_cmp(&b.gbps))
    };
    let few = best(&|r| r.occupancy <= FEW_THREADS_OCCUPANCY + 1e-9);
    let many = best(&|r| r.occupancy >= MANY_THREADS_OCCUPANCY - 1e-9);
    let (holds, evidence) = match (few, many) {
        (Some(f), Some(m)) => {
            let iv = ratio((f.gbps, &f.timing), (m.gbps, &m.timing));
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
                    interval_or(&iv, f.gbps / m.gbps, |x| format!("{x:.3}"))
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
    verdict(
        "few-threads-with-bytes-match-many",
        "a few threads with many bytes in flight match many threads",
        &format!(
            "best GB/s at <= {} occupancy over best at >= {}, on the {} bootstrap \
             interval of the ratio of medians ({} resamples, fixed seed): holds when it lies at \
             or above {MATCH_HOLDS}, fails when it lies below {MATCH_FAILS}, NOT JUDGED \
             otherwise; points whose build spills ({}) and failed checks are left out",
            percent(FEW_THREADS_OCCUPANCY),
            percent_with(MANY_THREADS_OCCUPANCY, 0),
            percent_with(confidence::LEVEL, 0),
            confidence::RESAMPLES,
            SPILLS_NOTE
        ),
        holds,
        format!("{evidence}{}", left_out(rows)),
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::inflight::model::LittlesLaw;
    use crate::experiments::inflight::row::tests::{row, spilling};
    use crate::experiments::verdict_check::says;

    /// The 4000 GB/s copy the synthetic rows are fractions of, timed like them.
    pub(crate) fn copy() -> CopyReference {
        CopyReference {
            bytes: 1 << 27,
            gbps: 4000.0,
            timing: row(32, 1, 4, 1.0).timing,
        }
    }

    /// The rows with every sample spread by +-`noise` (a fraction) around its median.
    fn noisy(mut rows: Vec<InflightRow>, noise: f64) -> Vec<InflightRow> {
        for r in &mut rows {
            let m = r.timing.median_ms;
            let samples: Vec<f64> = (0..9)
                .map(|i| m * (1.0 + noise * (f64::from((i * 5) % 9) / 4.0 - 1.0)))
                .collect();
            r.timing = crate::sampling::summarize(samples, None, None);
        }
        rows
    }

    /// Synthetic rows over several occupancies and bytes per thread each, at the fraction of the
    /// copy `fraction(threads x blocks, bytes per thread)` gives.
    fn over_the_grid(fraction: impl Fn(u32, u32) -> f64) -> Vec<InflightRow> {
        let mut rows = Vec::new();
        for (threads, blocks) in [(32, 1), (128, 1), (512, 1), (1024, 2)] {
            for bytes in [4, 16, 64, 256, 512] {
                rows.push(row(
                    threads,
                    blocks,
                    bytes,
                    fraction(threads * blocks, bytes),
                ));
            }
        }
        rows
    }

    /// Synthetic rows where the fraction of the copy depends only on bytes in flight per SM
    /// (a Little's-law curve with a knee at 16 KiB), over several occupancies each.
    fn bytes_driven() -> Vec<InflightRow> {
        over_the_grid(|resident, bytes| (f64::from(resident * bytes) / 16384.0).min(0.98))
    }

    /// Synthetic rows where only the occupancy matters.
    fn occupancy_driven() -> Vec<InflightRow> {
        over_the_grid(|resident, _| f64::from(resident) / 2048.0)
    }

    /// Rows exactly on Little's law over the default sweep, each off by a deterministic
    /// 0-15% shortfall, as a real GPU's noise and detail might put them.
    fn littles_law_over_the_default_grid() -> Vec<InflightRow> {
        let model = LittlesLaw {
            sms: 132,
            latency_ns: 600.0,
            peak_gbps: 4200.0,
        };
        crate::experiments::inflight::grid::tests::default_points()
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let bytes = p.shape.bytes_per_thread();
                let bif = f64::from(p.shape.threads * p.blocks_per_sm * bytes);
                let shortfall = 0.15 * ((i * 7) % 16) as f64 / 15.0;
                let fraction = model.predicted_gbps(bif) / model.peak_gbps * (1.0 - shortfall);
                let mut r = row(p.shape.threads, p.blocks_per_sm, bytes, fraction);
                r.point = *p;
                r
            })
            .collect()
    }

    #[test]
    fn littles_law_data_with_noise_holds_both_claims() {
        let rows = littles_law_over_the_default_grid();
        let v = bytes_not_occupancy(&rows, &copy());
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        let v = few_threads_match_many(&rows);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
    }

    #[test]
    fn bytes_driven_data_holds_the_claim() {
        let v = bytes_not_occupancy(&bytes_driven(), &copy());
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        says(&v, "S_bytes = ");
        says(&v, "95% CI");
    }

    #[test]
    fn occupancy_driven_data_fails_the_claim() {
        let v = bytes_not_occupancy(&occupancy_driven(), &copy());
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
    }

    #[test]
    fn too_few_groups_are_not_judged() {
        let v = bytes_not_occupancy(&bytes_driven()[..3], &copy());
        assert_eq!(v.holds, None, "{}", v.evidence);
    }

    #[test]
    fn noise_can_only_take_a_judgement_away() {
        // The same medians with every figure +-40% noisy: the spreads' intervals widen past the
        // thresholds, and the claim that held is no longer judged.
        let v = bytes_not_occupancy(&noisy(bytes_driven(), 0.4), &copy());
        assert_eq!(v.holds, None, "{}", v.evidence);
        let v = bytes_not_occupancy(&noisy(bytes_driven(), 0.001), &copy());
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
    }

    #[test]
    fn spilling_points_are_left_out_of_the_claims() {
        // The fastest few-thread point spills: the claim falls to the next one, which is short.
        let spills = spilling(row(128, 1, 512, 0.99), 368, 376);
        let rows = [spills, row(256, 1, 256, 0.80), row(1024, 2, 8, 0.98)];
        let v = few_threads_match_many(&rows);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        says(&v, "memcpy_t256_l64_w1");
        says(
            &v,
            "left out: 1 spilling points (spills: not all loads in flight)",
        );
    }

    #[test]
    fn few_threads_match_many_by_the_ratio_of_bests() {
        let holds = few_threads_match_many(&[row(256, 1, 256, 0.96), row(1024, 2, 8, 0.98)]);
        assert_eq!(holds.holds, Some(true), "{}", holds.evidence);
        let fails = few_threads_match_many(&[row(256, 1, 256, 0.80), row(1024, 2, 8, 0.98)]);
        assert_eq!(fails.holds, Some(false));
        let between = few_threads_match_many(&[row(256, 1, 256, 0.91), row(1024, 2, 8, 0.98)]);
        assert_eq!(between.holds, None);
        // 0.96 against 0.98 holds on quiet figures; +-10% noise puts the interval across 0.95.
        let quiet = noisy(vec![row(256, 1, 256, 0.96), row(1024, 2, 8, 0.98)], 0.001);
        assert_eq!(few_threads_match_many(&quiet).holds, Some(true));
        let loud = noisy(vec![row(256, 1, 256, 0.96), row(1024, 2, 8, 0.98)], 0.1);
        let v = few_threads_match_many(&loud);
        assert_eq!(v.holds, None, "{}", v.evidence);
        says(&v, "95% CI");
        let missing = few_threads_match_many(&[row(1024, 2, 8, 0.98)]);
        assert_eq!(missing.holds, None);
        assert!(missing.evidence.contains("low"));
    }

    #[test]
    fn a_failed_copy_does_not_count() {
        let mut fast_but_wrong = row(256, 1, 256, 0.99);
        fast_but_wrong.measured.check.passed = false;
        let v = few_threads_match_many(&[fast_but_wrong, row(1024, 2, 8, 0.98)]);
        assert_eq!(v.holds, None, "{}", v.evidence);
    }
}
