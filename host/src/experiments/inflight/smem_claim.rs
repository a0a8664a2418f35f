//! The verdict on the copies whose bytes in flight live in shared memory (the `smem_copy`
//! lines): registers cap what a few warps can hold, so the register-held copies need many warps
//! per SM; a warp whose ring lives in shared memory holds as much as the SM's shared memory
//! allows. Judged like the other rules, on the bootstrap interval of a ratio of medians.

use super::row::{usable, CopyReference, InflightRow};
use crate::claim::{interval_or, ratio, verdict, with_interval_rule, Verdict};

/// The share of the device-to-device copy one warp per SM must reach.
pub const ONE_WARP_SHARE: f64 = 0.90;

/// The best usable shared-memory row at one warp per SM against the copy (the rule is the
/// verdict's text below).
pub fn one_warp_from_shared_memory(rows: &[InflightRow], copy: &CopyReference) -> Verdict {
    let in_shared = |r: &&InflightRow| r.point.shape.ring.is_some();
    let best = usable(rows)
        .filter(in_shared)
        .filter(|r| r.warps_per_sm == 1)
        .max_by(|a, b| a.gbps.total_cmp(&b.gbps));
    let ran = rows.iter().filter(in_shared).count();
    let (holds, evidence) = match best {
        Some(b) => {
            let iv = ratio((b.gbps, &b.timing), (copy.gbps, &copy.timing));
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
                    interval_or(&iv, b.gbps / copy.gbps, |x| format!("{x:.3}"))
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
    verdict(
        "one-warp-copies-from-shared-memory",
        "one warp per SM reaches 90% of the device-to-device copy when the bytes in \
                flight live in shared memory",
        &with_interval_rule(&format!(
            "best GB/s of the copies through shared memory (cp.async and bulk-copy rings) at 1 \
             resident warp per SM over the D2D copy's: HOLDS when the interval of the ratio lies \
             at or above {ONE_WARP_SHARE}, DOES NOT HOLD when it lies below, NOT JUDGED \
             otherwise; failed checks are left out"
        )),
        holds,
        evidence,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::inflight::grid::SmemRing;
    use crate::experiments::inflight::row::tests::{copy, row};
    use crate::experiments::verdict_check::says;

    /// A shared-memory row: one 32-thread block per SM with a ring of `stages` x 4 KiB.
    fn ring_row(blocks: u32, stages: u32, fraction: f64) -> InflightRow {
        let mut r = row(32, blocks, 128 * stages, fraction);
        r.point.shape.ring = Some(SmemRing {
            stage_bytes: 4096,
            stages,
            bulk: false,
        });
        r.entry = format!("cp_async_copy_t32_b4096_s{stages}");
        r
    }

    fn judge(rows: Vec<InflightRow>) -> Verdict {
        one_warp_from_shared_memory(&rows, &copy())
    }

    #[test]
    fn the_best_one_warp_ring_decides() {
        let v = judge(vec![
            ring_row(1, 8, 0.7),
            ring_row(1, 16, 0.95),
            ring_row(2, 16, 0.99),
        ]);
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        says(&v, "cp_async_copy_t32_b4096_s16");
        assert!(v.evidence.contains("(95% CI "), "{}", v.evidence);
        // Two warps per SM at 99% do not count; one at 80% fails.
        let v = judge(vec![ring_row(1, 8, 0.8), ring_row(2, 16, 0.99)]);
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
    }

    #[test]
    fn register_rows_failed_checks_and_no_rows_leave_it_unjudged() {
        let v = judge(vec![row(32, 1, 512, 0.99)]);
        assert_eq!(v.holds, None);
        says(&v, "no usable shared-memory copy");
        let mut wrong = ring_row(1, 16, 0.99);
        wrong.measured.check.passed = false;
        let v = judge(vec![wrong, ring_row(1, 4, 0.5)]);
        assert_eq!(
            v.holds,
            Some(false),
            "the failed row is left out: {}",
            v.evidence
        );
        // At the threshold the interval straddles it.
        let v = judge(vec![ring_row(1, 16, ONE_WARP_SHARE)]);
        assert_eq!(v.holds, None, "{}", v.evidence);
    }
}
