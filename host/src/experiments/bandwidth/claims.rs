//! The blog's claims about experiment 2, each judged by the rule written beside it.

use super::{Bandwidth, CopyRow};
use crate::claim::{
    passing, pct, verdict, with_exclusions, Verdict, BANDWIDTH_WITHIN, OCCUPANCY_SPAN,
};

/// The two claims, in order.
pub fn claims(bw: Option<&Bandwidth>) -> Vec<Verdict> {
    vec![
        few_threads_match_many(bw),
        bandwidth_flat_over_occupancy(bw),
    ]
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
