//! Little's law against the bytes in flight the kernel itself shows: the persistent copies'
//! sustained verdict ([`super::law_claim::sustained_law_predicts`]) takes the NOMINAL bytes in
//! flight (every warp's loads outstanding all the time, times the rounds' fill), which no launch
//! measures. Each persistent copy's sampled launch ([`super::samples`]) gives the share of each
//! round its warps really had loads outstanding; this rule, fixed before any sampled run, sets
//! the law's prediction for the copy's own bandwidth against the time-averaged bytes that gives.

use super::loaded::{LoadedLatency, PREDICTION_WITHIN};
use super::model::BYTES_MOVED_PER_BYTE_LOADED;
use super::sustained::SustainedRow;
use crate::claim::{all_of, decide, verdict, Verdict};
use crate::table::percent;

/// The verdict's key.
pub const KEY: &str = "sampled-littles-law-time-averaged";

/// Little's law's bytes in flight per SM for a copy moving `gbps` (read + written) on `sms`
/// SMs when each load takes `latency_ns`: the per-SM bandwidth of loads x the latency.
pub fn predicted_bytes_per_sm(gbps: f64, latency_ns: f64, sms: u32) -> f64 {
    gbps * latency_ns / (BYTES_MOVED_PER_BYTE_LOADED * f64::from(sms))
}

/// For every usable persistent copy with a checked sampled launch: the law's bytes per SM at
/// the copy's timed GB/s (the loaded chase's latency there) over the time-averaged bytes its
/// stamps show. None when no persistent copy has a sampled launch (runs before the samples
/// render as they were); NOT JUDGED when none of those is checked and usable, or there is no
/// loaded-latency curve. The rule is the verdict's text below.
pub fn sampled_law_predicts(
    rows: &[SustainedRow],
    loaded: &LoadedLatency,
    sms: u32,
) -> Option<Verdict> {
    if rows.iter().all(|r| r.samples.is_none()) {
        return None;
    }
    let (lo, hi) = (1.0 - PREDICTION_WITHIN, 1.0 + PREDICTION_WITHIN);
    let mut outcomes = Vec::new();
    let mut parts = Vec::new();
    for r in rows.iter().filter(|r| r.usable()) {
        let Some(s) = r.checked_samples() else {
            continue;
        };
        let c = &r.copy;
        let measured = s.time_averaged_bytes(c.bytes_in_flight_per_sm);
        let Some(latency) = loaded.latency_at(c.gbps) else {
            parts.push(format!(
                "{}: {measured:.0} B per SM time-averaged; no loaded-latency curve",
                c.entry
            ));
            continue;
        };
        let predicted = predicted_bytes_per_sm(c.gbps, latency, sms);
        let ratio = predicted / measured;
        outcomes.push(decide(
            (lo..=hi).contains(&ratio),
            !(lo..=hi).contains(&ratio),
        ));
        parts.push(format!(
            "{}: predicted {predicted:.0} B per SM ({:.1} GB/s x {latency:.0} ns), measured \
             {measured:.0} B ({} outstanding), ratio {ratio:.2}",
            c.entry,
            c.gbps,
            percent(s.outstanding)
        ));
    }
    let holds = if outcomes.is_empty() {
        parts.push("no usable persistent copy with a checked sampled launch and a latency".into());
        None
    } else {
        all_of(outcomes)
    };
    Some(verdict(
        KEY,
        "needed parallelism = latency x throughput, for memory, on the bytes the kernel really \
         keeps in flight: a copy's time-averaged bytes in flight per SM are its per-SM bandwidth \
         x the latency measured under load",
        &format!(
            "for every usable persistent copy (checked, not spilling) whose sampled launch (one \
             launch of its _sampled entry beside the timed ones; lane 0 of warp 0 of each block \
             stamps %clock64 before each round's loads, after its stores and at its end) is \
             checked: Little's law's bytes per SM (timed GB/s x L(timed GB/s) / (2 x SMs), L \
             interpolated on the chase timed under background copies) over the time-averaged \
             bytes in flight per SM (threads x blocks/SM x bytes per thread x the share of the \
             sampled warps' rounds with loads outstanding), on the point figures: HOLDS when \
             every ratio lies within {lo:.2} to {hi:.2}, DOES NOT HOLD when one lies outside, \
             NOT JUDGED without such a copy or without a loaded-latency curve"
        ),
        holds,
        parts.join("; "),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::inflight::loaded::LoadedPoint;
    use crate::experiments::inflight::samples::CopySamples;
    use crate::experiments::inflight::sustained::tests::sustained;
    use crate::experiments::verdict_check::says;
    use crate::results::Check;

    /// A flat latency curve at `ns` (one checked point).
    fn curve(ns: f64) -> LoadedLatency {
        LoadedLatency::new(vec![LoadedPoint {
            background: "memcpy".into(),
            background_gbps: 3000.0,
            ns_per_hop: ns,
            covered: true,
            check: passed(),
        }])
    }

    fn passed() -> Check {
        Check {
            passed: true,
            error: 0.0,
            bound: 0.0,
            what: "copy".into(),
            hashes: None,
        }
    }

    /// The 256 x `loads` x 16 B line (1 block/SM) at `fraction` of the 4000 GB/s copy, sampled
    /// with `outstanding`.
    fn sampled(loads: u32, fraction: f64, outstanding: f64) -> SustainedRow {
        let mut r = sustained((256, loads, 4), fraction, 132 * 256 * 16 * 5040);
        r.samples = Some(CopySamples {
            warps: 132,
            rounds: 1000,
            outstanding,
            latency_cycles: 1200.0,
            clock_ghz: 1.8,
            gbps: r.copy.gbps * 0.99,
            check: passed(),
        });
        r
    }

    #[test]
    fn the_law_holds_on_the_time_averaged_bytes_and_fails_on_far_ones() {
        // 3600 GB/s over 132 SMs at 1000 ns: 3600 x 1000 / 264 = 13,636 B per SM. A 16 KiB line
        // with its loads outstanding 80% of the time keeps 13,107 B: ratio 1.04.
        let rows = [sampled(4, 0.9, 0.8)];
        let v = sampled_law_predicts(&rows, &curve(1000.0), 132).expect("sampled");
        assert_eq!((v.key, v.holds), (KEY, Some(true)), "{}", v.evidence);
        says(&v, "stream_copy_t256_l4_w4: predicted 13636 B per SM");
        says(&v, "measured 13107 B (80.0% outstanding), ratio 1.04");
        // The 32 KiB line at the same bandwidth with its loads outstanding 20% of the time keeps
        // 6,554 B: the law's figure is twice the kernel's, and one such copy fails the rule.
        let rows = [sampled(4, 0.9, 0.8), sampled(8, 0.9, 0.2)];
        let v = sampled_law_predicts(&rows, &curve(1000.0), 132).unwrap();
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        says(&v, "measured 6554 B (20.0% outstanding), ratio 2.08");
    }

    #[test]
    fn without_samples_a_curve_or_a_checked_launch_it_is_not_judged() {
        // A run before the samples: no verdict at all, so it renders as it was.
        let plain = sustained((256, 4, 4), 0.9, 1 << 25);
        assert!(sampled_law_predicts(std::slice::from_ref(&plain), &curve(1000.0), 132).is_none());
        // A sampled launch whose copy failed is no evidence.
        let mut failed = sampled(4, 0.9, 0.8);
        failed.samples.as_mut().unwrap().check.passed = false;
        let v = sampled_law_predicts(&[failed, plain], &curve(1000.0), 132).unwrap();
        assert_eq!(v.holds, None, "{}", v.evidence);
        says(
            &v,
            "no usable persistent copy with a checked sampled launch",
        );
        // No loaded-latency curve.
        let v = sampled_law_predicts(&[sampled(4, 0.9, 0.8)], &LoadedLatency::default(), 132);
        let v = v.unwrap();
        assert_eq!(v.holds, None, "{}", v.evidence);
        says(&v, "no loaded-latency curve");
    }

    #[test]
    fn the_prediction_is_per_sm_bandwidth_of_loads_times_latency() {
        // 2640 GB/s read + written over 132 SMs: 10 GB/s of loads per SM; x 500 ns = 5000 B.
        assert!((predicted_bytes_per_sm(2640.0, 500.0, 132) - 5000.0).abs() < 1e-9);
    }
}
