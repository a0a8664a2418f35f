//! Experiment 4's tables: the sweep, the headline figures and the claims, as [`TableData`] for
//! the terminal, Markdown and CSV renderers of [`crate::tables`].
//!
//! Each column is declared once, with a header, a kind and an accessor; the kind decides the
//! formatting. (A stand-in for the project-wide column declarations: when those land, these
//! lists move over unchanged in spirit.)

use super::claims::{
    bytes_not_occupancy, experiment2_pointer, few_threads_match_many, model_fit, width_effect,
};
use super::model::LittlesLaw;
use super::row::{Inflight, InflightRow};
use crate::report::Verdict;
use crate::results::Check;
use crate::tables::TableData;

/// How a column's values are formatted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Count,
    /// A fraction shown as a percentage.
    Percent,
    /// A throughput (GB/s, GFLOP/s), one decimal.
    Rate,
    /// A relative noise shown as a percentage with two decimals.
    Noise,
    /// A ratio, three decimals.
    Ratio,
    Bytes,
    Text,
}

/// A cell's value before formatting.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(u64),
    Real(f64),
    Missing,
    Text(String),
}

/// A column: header, kind and accessor.
pub struct Column<R> {
    pub header: &'static str,
    pub kind: Kind,
    pub get: fn(&R) -> Value,
}

/// Formats `value` by `kind`.
pub fn format(kind: Kind, value: &Value) -> String {
    match (kind, value) {
        (_, Value::Missing) => "-".to_owned(),
        (_, Value::Text(s)) => s.clone(),
        (Kind::Percent, Value::Real(x)) => format!("{:.1}%", x * 100.0),
        (Kind::Noise, Value::Real(x)) => format!("{:.2}%", x * 100.0),
        (Kind::Rate, Value::Real(x)) => format!("{x:.1}"),
        (Kind::Ratio, Value::Real(x)) => format!("{x:.3}"),
        (_, Value::Real(x)) => format!("{x:.0}"),
        (_, Value::Int(n)) => n.to_string(),
    }
}

/// The rows of `rows` under `columns`.
pub fn build<R>(title: &str, columns: &[Column<R>], rows: &[R]) -> TableData {
    TableData {
        title: title.to_owned(),
        header: columns.iter().map(|c| c.header.to_owned()).collect(),
        rows: rows
            .iter()
            .map(|r| {
                columns
                    .iter()
                    .map(|c| format(c.kind, &(c.get)(r)))
                    .collect()
            })
            .collect(),
        notes: Vec::new(),
    }
}

/// "ok" or "FAILED", with the count of wrong values.
pub fn verified(c: &Check) -> Value {
    Value::Text(if c.passed {
        "ok, exact".to_owned()
    } else {
        format!("FAILED ({} wrong)", c.error)
    })
}

fn opt(x: Option<f64>) -> Value {
    x.map_or(Value::Missing, Value::Real)
}

/// The sweep's columns; the compared module's three come last.
pub fn columns() -> Vec<Column<InflightRow>> {
    vec![
        Column {
            header: "Entry",
            kind: Kind::Text,
            get: |r| Value::Text(r.entry.clone()),
        },
        Column {
            header: "Bytes/thread",
            kind: Kind::Bytes,
            get: |r| Value::Int(r.bytes_per_thread.into()),
        },
        Column {
            header: "Blocks/SM",
            kind: Kind::Count,
            get: |r| Value::Int(r.blocks_per_sm.into()),
        },
        Column {
            header: "Warps/SM",
            kind: Kind::Count,
            get: |r| Value::Int(r.warps_per_sm.into()),
        },
        Column {
            header: "Theo. occ",
            kind: Kind::Percent,
            get: |r| Value::Real(r.occupancy),
        },
        Column {
            header: "Regs",
            kind: Kind::Count,
            get: |r| Value::Int(r.regs.into()),
        },
        Column {
            header: "In flight/SM (B)",
            kind: Kind::Bytes,
            get: |r| Value::Int(r.bytes_in_flight_per_sm),
        },
        Column {
            header: "Requests/SM",
            kind: Kind::Count,
            get: |r| Value::Int(r.requests_in_flight_per_sm),
        },
        Column {
            header: "GB/s",
            kind: Kind::Rate,
            get: |r| Value::Real(r.gbps),
        },
        Column {
            header: "% of D2D copy",
            kind: Kind::Percent,
            get: |r| Value::Real(r.fraction_of_copy),
        },
        Column {
            header: "Model GB/s",
            kind: Kind::Rate,
            get: |r| Value::Real(r.predicted_gbps),
        },
        Column {
            header: "Noise",
            kind: Kind::Noise,
            get: |r| opt(r.noise),
        },
        Column {
            header: "Verified",
            kind: Kind::Text,
            get: |r| verified(&r.check),
        },
        Column {
            header: "Flags",
            kind: Kind::Count,
            get: |r| Value::Int(r.flags.len() as u64),
        },
        Column {
            header: "Other GB/s",
            kind: Kind::Rate,
            get: |r| opt(r.compare.as_ref().map(|c| c.gbps)),
        },
        Column {
            header: "Ours/other",
            kind: Kind::Ratio,
            get: |r| opt(r.compare.as_ref().map(|c| c.ratio)),
        },
        Column {
            header: "Other noise",
            kind: Kind::Noise,
            get: |r| opt(r.compare.as_ref().and_then(|c| c.noise)),
        },
    ]
}

/// The verdicts of experiment 4.
pub fn verdicts(result: &Inflight) -> Vec<Verdict> {
    vec![
        bytes_not_occupancy(&result.rows),
        few_threads_match_many(&result.rows),
    ]
}

/// Experiment 2's pointer here: the bytes in flight its seven labelled variants
/// (`variants::MEMCPY`, not the grid, held at experiment 2's blocks per SM) keep, against what
/// this GPU's model needs.
pub fn experiment2_note(model: &LittlesLaw) -> String {
    experiment2_pointer(
        kernels_gpu::variants::MEMCPY,
        crate::experiments::residency::BLOCKS_PER_SM,
        model,
    )
}

/// The sweep table with the latency, the model, the headline figures, the fit and the verdicts
/// as notes.
pub fn table(result: &Inflight) -> TableData {
    let mut cols = columns();
    if result.rows.iter().all(|r| r.compare.is_none()) {
        cols.truncate(cols.len() - 3);
    }
    let mut t = build("4. Bytes in flight vs occupancy", &cols, &result.rows);
    let l = &result.latency;
    t.notes.push(format!(
        "D2D copy (cuMemcpyDtoD): {:.1} GB/s over {} MiB, noise {}; GB/s count bytes read + \
         written",
        result.copy.gbps,
        result.copy.bytes >> 20,
        format(Kind::Noise, &opt(result.copy.sampled.noise))
    ));
    t.notes.extend(
        result
            .copy
            .sampled
            .flags
            .iter()
            .map(|f| format!("D2D copy: {f}")),
    );
    t.notes.push(format!(
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
    t.notes.push(format!(
        "Model (Little's law): GB/s = min({:.0}, 2 x {} SMs x bytes in flight per SM / {:.1} ns); \
         the 2 counts the bytes written as well as those read",
        m.peak_gbps, m.sms, m.latency_ns
    ));
    for need in &result.headline.bytes_needed {
        t.notes.push(format!(
            "The model needs {:.0} B in flight per SM for {:.0}% of the copy",
            need.bytes_per_sm,
            need.fraction * 100.0
        ));
    }
    for least in &result.headline.least_occupancy {
        t.notes.push(match &least.found {
            Some(h) => format!(
                "Least occupancy reaching {:.0}% of the copy: {:.2}% ({} at {} blocks/SM, {} \
                 warps/SM, {} B in flight per SM: {:.1}%)",
                least.fraction * 100.0,
                h.occupancy * 100.0,
                h.entry,
                h.blocks_per_sm,
                h.warps_per_sm,
                h.bytes_in_flight_per_sm,
                h.fraction_of_copy * 100.0
            ),
            None => format!(
                "No verified point reaches {:.0}% of the copy",
                least.fraction * 100.0
            ),
        });
    }
    let fit = model_fit(&result.rows, m);
    t.notes.push(format!(
        "Model fit: {} of {} verified points within 15% of the prediction; median measured / \
         predicted {} below the knee, {} above",
        fit.within_15_percent,
        fit.rows,
        format(Kind::Ratio, &opt(fit.median_ratio_below_knee)),
        format(Kind::Ratio, &opt(fit.median_ratio_above_knee))
    ));
    t.notes.push(experiment2_note(m));
    if let Some((ratio, pairs)) = width_effect(&result.rows, 4, 1) {
        t.notes.push(format!(
            "16-byte against 4-byte accesses at the same bytes in flight: median {ratio:.3}x over \
             {pairs} pairs"
        ));
    }
    for v in verdicts(result) {
        t.notes.push(format!(
            "Claim: {} — {} ({}; rule: {})",
            v.claim,
            v.outcome(),
            v.evidence,
            v.rule
        ));
    }
    if !result.skipped.is_empty() {
        t.notes.push(format!(
            "{} points not run: {}",
            result.skipped.len(),
            result.skipped.join("; ")
        ));
    }
    let flagged: Vec<String> = result
        .rows
        .iter()
        .filter(|r| !r.flags.is_empty())
        .map(|r| {
            format!(
                "{} at {} blocks/SM: {}",
                r.entry,
                r.blocks_per_sm,
                r.flags.join("; ")
            )
        })
        .collect();
    t.notes.extend(flagged);
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::inflight::row::tests::row;

    #[test]
    fn experiment_2_is_pointed_here_with_its_own_variants() {
        let model = LittlesLaw {
            sms: 132,
            latency_ns: 600.0,
            peak_gbps: 4200.0,
        };
        let note = experiment2_note(&model);
        // T1: 1024 threads x 4 B x 2 blocks.
        assert!(note.contains("T1 8192 B"), "{note}");
        assert!(note.contains("B per SM are needed for 95%"), "{note}");
    }

    #[test]
    fn kinds_format_their_values() {
        assert_eq!(format(Kind::Percent, &Value::Real(0.125)), "12.5%");
        assert_eq!(format(Kind::Noise, &Value::Real(0.0042)), "0.42%");
        assert_eq!(format(Kind::Rate, &Value::Real(4242.04)), "4242.0");
        assert_eq!(format(Kind::Ratio, &Value::Real(1.0)), "1.000");
        assert_eq!(format(Kind::Bytes, &Value::Int(14336)), "14336");
        assert_eq!(format(Kind::Rate, &Value::Missing), "-");
    }

    #[test]
    fn a_row_fills_every_column_and_the_compare_columns_are_optional() {
        let r = row(256, 1, 64, 0.96);
        let t = build("t", &columns(), std::slice::from_ref(&r));
        assert_eq!(t.rows[0].len(), t.header.len());
        let cell = |h: &str| &t.rows[0][t.header.iter().position(|x| x == h).unwrap()];
        assert_eq!(cell("Entry"), "memcpy_t256_l16_w1");
        assert_eq!(cell("% of D2D copy"), "96.0%");
        assert_eq!(cell("In flight/SM (B)"), "16384");
        assert_eq!(cell("Theo. occ"), "12.5%");
        assert_eq!(cell("Other GB/s"), "-");
        assert_eq!(cell("Verified"), "ok, exact");
    }
}
