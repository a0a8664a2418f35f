//! The figures the `inflight` experiment's table notes quote besides the verdicts: how well
//! Little's law fits the rows, wide against narrow accesses at the same bytes in flight, and the
//! sentence that points the `bandwidth` experiment here. Like the verdicts, they use only the
//! usable rows (checked, and not spilling: a spilling point's bytes in flight are not what it
//! claims).

use kernels_gpu::variants::MemcpyVariant;

use super::loaded::PREDICTION_WITHIN;
use super::model::{bytes_in_flight_per_sm, LittlesLaw};
use super::output::Inflight;
use super::row::{least_bytes_reaching, usable, InflightRow};
use super::spec::Spec;
use crate::confidence;
use crate::experiments::contract::Registered;
use crate::table::{percent, percent_with};

/// The median of `v` ([`confidence::median`]); `None` when empty.
pub(super) fn median(mut v: Vec<f64>) -> Option<f64> {
    (!v.is_empty()).then(|| confidence::median(&mut v))
}

/// How well Little's law describes the rows: the share within 15% of the prediction, and the
/// median measured/predicted below and above the knee.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelFit {
    pub rows: usize,
    pub within_15_percent: usize,
    pub median_ratio_below_knee: Option<f64>,
    pub median_ratio_above_knee: Option<f64>,
}

pub fn model_fit(rows: &[InflightRow], model: &LittlesLaw) -> ModelFit {
    let knee = model.bytes_needed_per_sm(1.0);
    let ratio = |bytes: f64, gbps: f64| (bytes, gbps / model.predicted_gbps(bytes));
    let ratios: Vec<(f64, f64)> = usable(rows)
        .map(|r| ratio(r.bytes_in_flight_per_sm as f64, r.gbps))
        .collect();
    let median_where = |side: fn(f64, f64) -> bool| {
        median(
            ratios
                .iter()
                .filter(|(b, _)| side(*b, knee))
                .map(|x| x.1)
                .collect(),
        )
    };
    ModelFit {
        rows: ratios.len(),
        within_15_percent: ratios.iter().filter(|x| (x.1 - 1.0).abs() <= 0.15).count(),
        median_ratio_below_knee: median_where(|b, knee| b < knee),
        median_ratio_above_knee: median_where(|b, knee| b >= knee),
    }
}

/// Wide against narrow requests at the same bytes in flight: for every (residency, bytes per
/// thread) measured at both `wide` and `narrow` widths, GB/s wide over narrow; the median and
/// the number of pairs. Register-held copies only (a ring in shared memory has no width).
pub fn width_effect(rows: &[InflightRow], wide: u32, narrow: u32) -> Option<(f64, usize)> {
    let key = |r: &InflightRow| (r.point.shape.threads, r.blocks_per_sm, r.bytes_per_thread);
    let in_registers = || usable(rows).filter(|r| r.point.shape.ring.is_none());
    let ratios: Vec<f64> = in_registers()
        .filter(|w| w.point.shape.width == wide)
        .filter_map(|w| {
            in_registers()
                .find(|n| n.point.shape.width == narrow && key(n) == key(w))
                .map(|n| w.gbps / n.gbps)
        })
        .collect();
    let n = ratios.len();
    median(ratios).map(|m| (m, n))
}

/// The seed blog's GPU, for bandwidth per SM across GPUs: its name, its spec DRAM GB/s (all
/// bytes moved, as a copy's read + written count) and its SMs. A copy reaches most of the spec,
/// so the figure per SM is an upper bound on what the blog's copies moved per SM.
pub const BLOG_GPU: (&str, f64, u32) = ("RTX 2000 Ada", 224.0, 22);

/// Bandwidth per SM here against the blog's GPU: why the blog's bytes in flight fall short
/// here. At equal latency Little's law asks bytes in flight per SM in proportion to GB/s per SM.
pub fn per_sm_scale(model: &LittlesLaw) -> String {
    let (name, gbps, sms) = BLOG_GPU;
    let blog = gbps / f64::from(sms);
    let here = model.peak_gbps / f64::from(model.sms.max(1));
    format!(
        "Per SM, this GPU's copy moves {here:.1} GB/s (read + written, {:.0} GB/s over {} SMs), \
         {:.1}x the seed blog's {name} ({blog:.1} GB/s per SM at its spec {gbps:.0} GB/s over \
         {sms} SMs): at an equal latency each SM here needs {:.1}x the bytes in flight, so \
         variants sized to saturate that GPU fall short on this one; the claim at this GPU's \
         scale (bytes in flight chosen freely) is experiment {}'s \"a few threads with many \
         bytes in flight match many threads\".",
        model.peak_gbps,
        model.sms,
        here / blog,
        here / blog,
        Spec::NUMBER
    )
}

/// The sentence the `bandwidth` experiment's verdicts point here with: the bytes in flight per SM
/// its labelled variants hold at `blocks_per_sm` against what the model says this GPU needs for 95%
/// of the copy. Takes labelled variants (`MemcpyVariant`), not grid points, so the `bandwidth`
/// experiment's sentence can only speak of the `bandwidth` experiment's variants.
pub fn variants_in_flight_pointer(
    variants: &[MemcpyVariant],
    blocks_per_sm: u32,
    model: &LittlesLaw,
    rows: &[InflightRow],
) -> String {
    let held: Vec<(&str, u64)> = variants
        .iter()
        .map(|v| {
            (
                v.label,
                bytes_in_flight_per_sm(v.threads * blocks_per_sm, v.bytes_per_thread()),
            )
        })
        .collect();
    let max = held.iter().map(|(_, b)| *b).max().unwrap_or(0);
    let min = held.iter().map(|(_, b)| *b).min().unwrap_or(0);
    let need = model.bytes_needed_per_sm(0.95);
    let list: Vec<String> = held.iter().map(|(l, b)| format!("{l} {b} B")).collect();
    // What the sweep itself needed: the fewest bytes in flight per SM of a verified point at 95%.
    let measured = least_bytes_reaching(rows, 0.95);
    let measured = match measured {
        Some(r) => format!(
            " Measured, 95% of the copy first came with {} B in flight per SM ({} at {} \
             blocks/SM, {} occupancy), {:.1}x the most the blog's variants hold and {:.1}x \
             the model's figure.",
            r.bytes_in_flight_per_sm,
            r.entry,
            r.blocks_per_sm,
            percent(r.occupancy),
            r.bytes_in_flight_per_sm as f64 / max.max(1) as f64,
            r.bytes_in_flight_per_sm as f64 / need.max(1.0)
        ),
        None => " No verified point of the sweep reached 95% of the copy.".to_owned(),
    };
    format!(
        "Why (experiment {}): the blog's variants keep {min}-{max} B of loads in flight per SM \
         ({}); Little's law with this GPU's measured latency says {need:.0} B per SM are needed \
         for 95% of the device-to-device copy, {:.1}x the most any of them holds.{measured} {}",
        Spec::NUMBER,
        list.join(", "),
        need / max.max(1) as f64,
        per_sm_scale(model)
    )
}

/// Bands of the share of the copy the effective-latency note groups rows by: [lo, hi).
pub const LATENCY_BANDS: [(f64, f64); 4] =
    [(0.0, 0.1), (0.1, 0.5), (0.5, 0.9), (0.9, f64::INFINITY)];

/// The effective latency (Little's law solved with each usable row's own bytes in flight and
/// GB/s) by share of the copy: for each band of [`LATENCY_BANDS`], the median and the number of
/// rows. Computed from the rows and the model, so runs recorded before the column have it too.
pub fn effective_latency_bands(
    rows: &[InflightRow],
    model: &LittlesLaw,
) -> Vec<(f64, f64, Option<f64>, usize)> {
    LATENCY_BANDS
        .iter()
        .map(|&(lo, hi)| {
            let ns: Vec<f64> = usable(rows)
                .filter(|r| r.fraction_of_copy >= lo && r.fraction_of_copy < hi)
                .filter_map(|r| model.effective_latency_ns(r.bytes_in_flight_per_sm as f64, r.gbps))
                .collect();
            let n = ns.len();
            (lo, hi, median(ns), n)
        })
        .collect()
}

/// The note on [`effective_latency_bands`]: latency rising with load, measured from the rows.
pub fn effective_latency_note(rows: &[InflightRow], model: &LittlesLaw) -> String {
    let bands: Vec<String> = effective_latency_bands(rows, model)
        .iter()
        .map(|&(lo, hi, m, n)| {
            let band = if hi.is_finite() {
                format!("{} to {}", percent_with(lo, 0), percent_with(hi, 0))
            } else {
                format!("{} and more", percent_with(lo, 0))
            };
            match m {
                Some(ns) => format!("{band} of the copy: {ns:.0} ns ({n} rows)"),
                None => format!("{band}: no row"),
            }
        })
        .collect();
    format!(
        "Effective latency by share of the copy (median of 2 x {} SMs x bytes in flight per SM / \
         GB/s over the usable rows; the unloaded chase says {:.0} ns): {}",
        model.sms,
        model.latency_ns,
        bands.join("; ")
    )
}

/// The likely reasons for a loaded prediction off the measured need, by its direction. They are
/// hypotheses the run did not measure, and the note says so.
pub fn miss_reason(ratio: f64) -> &'static str {
    if ratio < 1.0 {
        "low: possible reasons, not measured here: the chase's single load per hop does not wait \
         behind its own SM's queue of loads as each of a copy's loads does, so the copy's loads \
         see a longer latency than the chase beside it; and the sweep's points are coarse (a \
         factor of 2 in bytes apart), so the least that reached the fraction may overshoot it"
    } else {
        "high: possible reasons, not measured here: the copy's loads hit sectors already on their \
         way (adjacent requests merged in L2), so they wait less than a random hop"
    }
}

/// The loaded-latency curve and what Little's law makes of it, one note each.
pub fn loaded_notes(result: &Inflight) -> Vec<String> {
    let curve = &result.loaded;
    if curve.points.is_empty() {
        return vec![
            "Loaded latency: not measured (--loaded-steps 0, or a run before it was)".into(),
        ];
    }
    let points: Vec<String> = curve
        .points
        .iter()
        .map(|p| {
            let mark = match (p.check.passed, p.covered) {
                (true, true) => "",
                (false, _) => " CHECK FAILED, left out",
                (true, false) => " (the chase outlasted the copies, left out)",
            };
            format!(
                "{:.0} ns at {:.0} GB/s ({}){mark}",
                p.ns_per_hop, p.background_gbps, p.background
            )
        })
        .collect();
    let mut notes = vec![format!(
        "Loaded latency (measured): the chase's ns per hop on one SM while a memcpy grid point \
         copies on every SM, against the copy's GB/s over the same window: {}",
        points.join("; ")
    )];
    for p in &result.loaded_predictions {
        let loaded = p.loaded_bytes.map_or("n/a".into(), |b| format!("{b:.0} B"));
        let judged = match (p.measured_bytes, p.ratio()) {
            (Some(m), Some(r)) => format!(
                "the sweep's least was {m} B: the loaded model's figure is {:.2}x it ({}), \
                 the unloaded one's {:.2}x",
                r,
                if p.within() == Some(true) {
                    format!("within {}", percent_with(PREDICTION_WITHIN, 0))
                } else {
                    format!(
                        "misses by {}; {}",
                        percent_with((r - 1.0).abs(), 0),
                        miss_reason(r)
                    )
                },
                p.unloaded_bytes / m.max(1) as f64
            ),
            _ => "no verified point of the sweep reached it".into(),
        };
        notes.push(format!(
            "Little's law with loaded latency (inferred from the curve{}): {} of the copy needs \
             {loaded} in flight per SM (unloaded latency: {:.0} B); {judged}",
            if p.extrapolated {
                ", extrapolated past its fastest background"
            } else {
                ""
            },
            percent_with(p.fraction, 0),
            p.unloaded_bytes
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests::has;
    use crate::experiments::inflight::grid::SmemRing;
    use crate::experiments::inflight::model::tests::GPU;
    use crate::experiments::inflight::row::tests::row;

    /// `r` measured at `gbps`.
    fn at(mut r: InflightRow, gbps: f64) -> InflightRow {
        r.gbps = gbps;
        r
    }

    #[test]
    fn the_fit_splits_at_the_knee() {
        let model = LittlesLaw {
            sms: 1,
            latency_ns: 1.0,
            peak_gbps: 2000.0,
        };
        // Knee at 1000 B: row 1 predicted 2 x 512 = 1024 GB/s, measured 1000; row 2 at the peak.
        let rows = [
            at(row(128, 1, 4, 0.25), 1000.0),
            at(row(1024, 2, 4, 0.5), 1000.0),
        ];
        let fit = model_fit(&rows, &model);
        assert_eq!((fit.rows, fit.within_15_percent), (2, 1));
        assert!((fit.median_ratio_below_knee.unwrap() - 1000.0 / 1024.0).abs() < 1e-12);
        assert!((fit.median_ratio_above_knee.unwrap() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn the_effective_latency_rises_band_by_band() {
        // 256 threads x 4 B = 1 KiB per SM at 5% (200 GB/s): 2 x 100 x 1024 / 200 = 1024 ns.
        // 1024 threads x 2 x 32 B = 64 KiB at 95% (3800 GB/s): 3449 ns.
        let rows = [row(256, 1, 4, 0.05), row(1024, 2, 32, 0.95)];
        let bands = effective_latency_bands(&rows, &GPU);
        assert_eq!(bands.len(), 4);
        assert!((bands[0].2.unwrap() - 1024.0).abs() < 1e-9);
        assert_eq!((bands[1].2, bands[1].3), (None, 0));
        assert!((bands[3].2.unwrap() - 2.0 * 100.0 * 65536.0 / 3800.0).abs() < 1e-9);
        let note = effective_latency_note(&rows, &GPU);
        has(&note, "0% to 10% of the copy: 1024 ns (1 rows)");
        has(&note, "90% and more of the copy: 3449 ns");
        // A miss says which way, and that its reasons are not measured.
        assert!(miss_reason(0.5).starts_with("low: possible reasons, not measured here"));
        assert!(miss_reason(1.5).starts_with("high: possible reasons, not measured here"));
    }

    #[test]
    fn width_pairs_share_residency_and_bytes() {
        let narrow = row(256, 1, 64, 0.5);
        let mut wide = at(row(256, 1, 64, 0.6), narrow.gbps * 1.2);
        wide.point.shape.width = 4;
        // A ring in shared memory at the same residency and bytes is no wide access.
        let mut ring = at(wide.clone(), narrow.gbps * 3.0);
        ring.point.shape.ring = Some(SmemRing {
            stage_bytes: 2048,
            stages: 1,
            bulk: false,
        });
        let (m, n) = width_effect(&[narrow, wide, ring], 4, 1).unwrap();
        assert_eq!(n, 1);
        assert!((m - 1.2).abs() < 1e-12);
    }

    #[test]
    fn experiment_2_is_told_what_its_variants_hold() {
        let s = variants_in_flight_pointer(kernels_gpu::variants::MEMCPY, 2, &GPU, &[]);
        let says = |part: &str| assert!(s.contains(part), "{part}: {s}");
        says("No verified point of the sweep reached 95% of the copy.");
        // 4000 GB/s over 100 SMs is 40 GB/s per SM, 3.9x the blog's 224 / 22 = 10.2.
        says("moves 40.0 GB/s");
        says("3.9x the seed blog's RTX 2000 Ada");
        // T1: 2 x 1024 threads x 4 B; T14f4: 2 x 32 threads x 224 B.
        says("T1 8192 B");
        says("T14f4 14336 B");
        // 95% of the knee's 10000 B.
        says("9500 B per SM");
        // Every labelled variant and nothing else (no grid point without a label).
        let listed = s.split('(').nth(2).unwrap().split(')').next().unwrap();
        let count = kernels_gpu::variants::MEMCPY.len();
        assert_eq!(listed.split(", ").count(), count, "{s}");
        assert!(!s.contains("memcpy_t"), "{s}");
    }
}
