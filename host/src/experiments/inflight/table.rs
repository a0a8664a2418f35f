//! The `inflight` experiment's columns and table notes: the latency, the model, the headline
//! figures, the model's fit and the pointer from the `bandwidth` experiment. Each column is
//! declared once with its kind; the one renderer ([`crate::table`]) formats it everywhere.

use super::model::LittlesLaw;
use super::notes::{
    effective_latency_note, loaded_notes, model_fit, variants_in_flight_pointer, width_effect,
};
use super::output::Inflight;
use super::row::{InflightRow, SPILLS_NOTE};
use super::sustained;
use crate::experiments::cells;
use crate::experiments::contract::GBPS;
use crate::sampling::noise_percent;
use crate::table::{percent, percent_with, Column, Kind, Value};

fn ratio(x: Option<f64>) -> String {
    x.map_or("n/a".to_owned(), |x| format!("{x:.3}"))
}

/// Nanoseconds, whole: the effective latency column.
const EFFECTIVE_LATENCY: Kind = Kind::Rate {
    unit: "ns",
    decimals: 0,
};

/// The sweep's columns (the compared module's are added by the experiment).
pub fn columns() -> Vec<Column<InflightRow>> {
    vec![
        Column::new("Entry", Kind::Text, |r| Value::Text(r.entry.clone())),
        Column::new("Threads/block", Kind::Count, |r| {
            Value::Int(r.point.shape.threads.into())
        }),
        Column::new("Loads x width", cells::LOADS_X_WIDTH, |r| {
            Value::pair(r.point.shape.loads.into(), r.point.shape.width.into())
        }),
        Column::new("Bytes/thread", Kind::Bytes, |r| {
            Value::Int(r.bytes_per_thread.into())
        }),
        Column::new("Blocks/SM", Kind::Count, |r| {
            Value::Int(r.blocks_per_sm.into())
        }),
        Column::new("Warps/SM", Kind::Count, |r| {
            Value::Int(r.warps_per_sm.into())
        }),
        Column::new("Theo. occ", Kind::Percent, |r| Value::Float(r.occupancy)),
        Column::new("Regs/thread", Kind::Count, |r| Value::Int(r.regs.into())),
        Column::new("In flight/SM (B)", Kind::Bytes, |r| {
            if r.spilled() {
                Value::Withheld(SPILLS_NOTE)
            } else {
                Value::Int(r.bytes_in_flight_per_sm)
            }
        }),
        Column::new("Requests/SM", Kind::Count, |r| {
            Value::Int(r.requests_in_flight_per_sm)
        }),
        Column::new("GB/s", GBPS.kind(), |r| {
            cells::rate(r.gbps, &r.measured.flags)
        }),
        Column::new("% of D2D copy", Kind::Percent, |r| {
            Value::Float(r.fraction_of_copy)
        }),
        Column::new("Model GB/s", GBPS.kind(), |r| {
            Value::Float(r.predicted_gbps)
        }),
        Column::new("Eff. latency (ns)", EFFECTIVE_LATENCY, |r| {
            match (r.spilled(), r.effective_latency_ns) {
                (true, _) => Value::Withheld(SPILLS_NOTE),
                (false, Some(ns)) => Value::Float(ns),
                (false, None) => Value::NotAvailable,
            }
        }),
        Column::new("Noise", Kind::Noise, |r| cells::noise(&r.timing)),
        Column::new("Spill stores (B)", Kind::Bytes, |r| {
            spill(r.spills.and_then(|s| s.stores))
        }),
        Column::new("Spill loads (B)", Kind::Bytes, |r| {
            spill(r.spills.and_then(|s| s.loads))
        }),
        Column::new("Stack frame (B)", Kind::Bytes, |r| {
            spill(r.spills.map(|s| s.stack_frame))
        }),
        Column::new(cells::SM_CLOCK_HEADER, cells::SM_CLOCK, |r| {
            cells::sm_clock(&r.timing)
        }),
        Column::new("Verified", Kind::Check, |r| cells::check(&r.measured.check)),
    ]
}

/// The compared module's spill and stack columns (added after its other columns).
pub fn compared_spill_columns() -> Vec<Column<InflightRow>> {
    vec![
        Column::compared("spill st/ld", cells::SPILLS_STORES_LOADS, |r| {
            match r.compare_spills.map(|s| (s.stores, s.loads)) {
                _ if r.measured.compare.is_none() => Value::Empty,
                Some((Some(st), Some(ld))) => Value::pair(st.into(), ld.into()),
                _ => Value::NotAvailable,
            }
        }),
        Column::compared("stack frame (B)", Kind::Bytes, |r| {
            match r.measured.compare {
                None => Value::Empty,
                Some(_) => spill(r.compare_spills.map(|s| s.stack_frame)),
            }
        }),
    ]
}

fn spill(bytes: Option<u32>) -> Value {
    bytes.map_or(Value::NotAvailable, |b| Value::Int(b.into()))
}

/// The `bandwidth` experiment's pointer here: the bytes in flight its seven labelled variants
/// (`variants::MEMCPY`, not the grid, held at the `bandwidth` experiment's blocks per SM) keep,
/// against what this GPU's model needs and what the sweep's `rows` needed.
pub fn bandwidth_pointer(model: &LittlesLaw, rows: &[InflightRow]) -> String {
    variants_in_flight_pointer(
        kernels_gpu::variants::MEMCPY,
        crate::experiments::residency::BLOCKS_PER_SM,
        model,
        rows,
    )
}

/// The sweep table's notes: the spills, the latency, the model, the headline figures and the fit.
pub fn notes(result: &Inflight) -> Vec<String> {
    let mut notes = spill_notes(&result.rows);
    let (l, copy) = (&result.latency, &result.copy);
    notes.push(format!(
        "D2D copy (cuMemcpyDtoD): {:.1} GB/s over {} MiB, noise {}; GB/s count bytes read + \
         written",
        copy.gbps,
        copy.bytes >> 20,
        noise_percent(copy.timing.noise)
    ));
    notes.extend(copy.timing.flags.iter().map(|f| format!("D2D copy: {f}")));
    notes.push(format!(
        "DRAM latency (pointer chase, {} dependent loads over {} MiB, one thread): {:.1} ns, {:.0} \
         cycles per load (implied SM clock {:.0} MHz); {}; the hops are random over the whole \
         buffer, so the figure includes TLB misses that a streaming copy mostly does not pay",
        l.steps,
        l.buffer_bytes >> 20,
        l.ns_per_step,
        l.cycles_per_step,
        l.implied_clock_mhz,
        if l.check.passed { "chase verified" } else { "CHASE CHECK FAILED" }
    ));
    let m = &result.model;
    notes.push(format!(
        "Model (Little's law): GB/s = min({:.0}, 2 x {} SMs x bytes in flight per SM / {:.1} ns); \
         the 2 counts the bytes written as well as those read",
        m.peak_gbps, m.sms, m.latency_ns
    ));
    notes.push(format!(
        "Eff. latency: Little's law solved for the latency with each row's own figures, 2 x {} \
         SMs x bytes in flight per SM / GB/s; below the knee it is the time a load took under \
         the row's own traffic (latency rises with load), above it an upper bound (more bytes \
         in flight than the rate needs)",
        m.sms
    ));
    for need in &result.headline.bytes_needed {
        notes.push(format!(
            "The model needs {:.0} B in flight per SM for {} of the copy",
            need.bytes_per_sm,
            percent_with(need.fraction, 0)
        ));
    }
    for least in &result.headline.least_occupancy {
        notes.push(match &least.found {
            Some(h) => format!(
                "Least occupancy reaching {} of the copy: {} ({} at {} blocks/SM, {} \
                 warps/SM, {} B in flight per SM: {})",
                percent_with(least.fraction, 0),
                percent_with(h.occupancy, 2),
                h.entry,
                h.blocks_per_sm,
                h.warps_per_sm,
                h.bytes_in_flight_per_sm,
                percent(h.fraction_of_copy)
            ),
            None => format!(
                "No verified point reaches {} of the copy",
                percent_with(least.fraction, 0)
            ),
        });
    }
    let fit = model_fit(&result.rows, m);
    notes.push(format!(
        "Model fit: {} of {} verified points within 15% of the prediction; median measured / \
         predicted {} below the knee, {} above",
        fit.within_15_percent,
        fit.rows,
        ratio(fit.median_ratio_below_knee),
        ratio(fit.median_ratio_above_knee)
    ));
    notes.push(effective_latency_note(&result.rows, m));
    notes.extend(loaded_notes(result));
    notes.extend(result.sizes.iter().flat_map(|s| s.notes()));
    notes.extend(result.reads.iter().flat_map(|r| r.notes()));
    if let Some(s) = &result.sustained {
        notes.extend(sustained::notes(s, copy));
    }
    notes.push(bandwidth_pointer(m, &result.rows));
    if let Some((ratio, pairs)) = width_effect(&result.rows, 4, 1) {
        notes.push(format!(
            "16-byte against 4-byte accesses at the same bytes in flight: median {ratio:.3}x over \
             {pairs} pairs"
        ));
    }
    if !result.skipped.is_empty() {
        notes.push(format!(
            "{} points not run: {}",
            result.skipped.len(),
            result.skipped.join("; ")
        ));
    }
    notes
}

/// What the spill and stack columns mean, which points they put out of the conclusions, and
/// why they are n/a where they are.
pub fn spill_notes(rows: &[InflightRow]) -> Vec<String> {
    let mut notes = Vec::new();
    let spilled: Vec<String> = rows
        .iter()
        .filter(|r| r.spilled())
        .map(|r| format!("{} at {} blocks/SM", r.entry, r.blocks_per_sm))
        .collect();
    if !spilled.is_empty() {
        notes.push(format!(
            "{SPILLS_NOTE}: {} point(s) whose build keeps values in local memory (spill stores or \
             loads, or a stack frame, in the compiler's report for the module run): their loads \
             cannot all be held in the registers their block size allows, so their bytes in \
             flight are not what the point claims; they are left out of the bytes-in-flight \
             plots, the model fit, the headline and the verdicts: {}",
            spilled.len(),
            spilled.join(", ")
        ));
    }
    let theirs = rows.iter().filter(|r| r.compare_spilled()).count();
    if theirs > 0 {
        notes.push(format!(
            "The compared module's build spills at {theirs} point(s) (Other spill st/ld, Other \
             stack frame): its figures there do not hold all its loads in flight either"
        ));
    }
    if rows.iter().any(|r| r.spills.is_none()) {
        notes.push(
            "Spill and stack n/a: the run recorded no compiler report for the point (runs before \
             the figures were kept, or a module without a report); spilling points cannot be \
             told apart there and are not left out"
                .to_owned(),
        );
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests::has;
    use crate::experiments::inflight::model::tests::H200_LIKE;
    use crate::experiments::inflight::row::tests::{row, spilling};
    use crate::table::{columns_table, TableData};

    /// Asserts each (row, header, text) cell of `t`.
    fn shows(t: &TableData, cells: &[(usize, &str, &str)]) {
        for &(i, header, want) in cells {
            assert_eq!(t.cell(i, header).unwrap(), want, "{i} {header}");
        }
    }

    #[test]
    fn experiment_2_is_pointed_here_with_its_own_variants() {
        // The sweep needed 65536 B per SM for 95% (a 256-thread block of 256 B each); a faster
        // point with more bytes and a point below 95% do not count.
        let rows = [
            row(256, 1, 256, 0.96),
            row(512, 1, 256, 0.97),
            row(128, 1, 256, 0.90),
        ];
        let note = bandwidth_pointer(&H200_LIKE, &rows);
        // T1: 1024 threads x 4 B x 2 blocks.
        has(&note, "T1 8192 B");
        has(&note, "B per SM are needed for 95%");
        has(&note, "95% of the copy first came with 65536 B in flight per SM (memcpy_t256_l64_w1 at 1 blocks/SM, 12.5% occupancy)");
    }

    #[test]
    fn a_row_fills_every_column() {
        let mut r = row(256, 1, 64, 0.96);
        r.effective_latency_ns = Some(1234.4);
        r.timing.sm_clock_mhz_during = Some(crate::sampling::ClockSpan {
            readings: 5,
            min_mhz: 1755,
            median_mhz: 1980,
            max_mhz: 1980,
        });
        let t = columns_table("t", &columns(), std::slice::from_ref(&r));
        assert_eq!(t.rows[0].cells.len(), t.columns.len());
        shows(
            &t,
            &[
                (0, "Entry", "memcpy_t256_l16_w1"),
                (0, "% of D2D copy", "96.0%"),
                (0, "In flight/SM (B)", "16384"),
                (0, "Theo. occ", "12.5%"),
                (0, "Noise", "0.10%"),
                (0, "Eff. latency (ns)", "1234"),
                (0, "SM MHz during", "1755-1980"),
                (0, "Verified", "ok, exact"),
                (0, "Spill stores (B)", "0"),
                (0, "Stack frame (B)", "0"),
            ],
        );
    }

    #[test]
    fn a_spilling_point_is_named_not_given_bytes_in_flight() {
        // memcpy_t1024_l32_w4: 524288 B "in flight" per SM at 64 registers per thread.
        let r = spilling(row(1024, 1, 512, 0.4), 792, 800);
        let mut old = row(256, 1, 64, 0.96);
        old.spills = None;
        let rows = [r, old];
        let t = columns_table("t", &columns(), &rows);
        shows(
            &t,
            &[
                (0, "In flight/SM (B)", SPILLS_NOTE),
                (0, "Spill stores (B)", "792"),
                (0, "Spill loads (B)", "792"),
                (0, "Stack frame (B)", "800"),
                (1, "In flight/SM (B)", "16384"),
                (1, "Stack frame (B)", "n/a"),
                (0, "Eff. latency (ns)", SPILLS_NOTE),
                (1, "Eff. latency (ns)", "n/a"),
                (1, "SM MHz during", "n/a"),
            ],
        );
        // A CSV leaves the withheld figure empty: its column holds numbers only.
        let csv = crate::table::to_csv(&t);
        let mut lines = csv.lines().map(|l| l.split(',').collect::<Vec<_>>());
        let header = lines.next().unwrap();
        let in_flight = header
            .iter()
            .position(|h| *h == "In flight/SM (B)")
            .unwrap();
        assert_eq!(lines.next().unwrap()[in_flight], "");
        let notes = spill_notes(&rows);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].contains("memcpy_t1024_l128_w1 at 1 blocks/SM"),
            "{notes:?}"
        );
        assert!(notes[1].starts_with("Spill and stack n/a"), "{notes:?}");
    }
}
