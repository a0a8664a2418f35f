//! A loaded results.json checked before anything is drawn from it: a figure that is negative,
//! zero or not a number would render as "-11630 GFLOP/s", "0 SMs" or "NaNx", and one far outside
//! what any GPU measures (a 1e-300 occupancy, a 4-billion-float thread tile) would stall a plot's
//! axis or overflow the calculator's 32-bit arithmetic; such a file is refused with the field
//! named instead.
//!
//! The rule is by field name over the typed records as they are stored: every experiment names
//! its measured figures the same way (`gflops`, `gbps`, `median_ms`, `occupancy`, ...), so one
//! list covers all of them, and a new experiment's rows are checked by the names they share.

use serde_json::Value;

use crate::experiments::RunResults;
use crate::results::SCHEMA_VERSION;

/// Fields that hold a measured or derived figure, or a device property something is divided
/// by: each must be a finite number above zero wherever it appears (in a list, each element).
const POSITIVE: &[&str] = &[
    // Throughputs and their ratios.
    "gflops",
    "gbps",
    "throughput",
    "ratio",
    "vs_cublas",
    "reference_gbps",
    "peak_gflops",
    "fraction_of_reference",
    "fraction_of_copy",
    "fraction_of_peak",
    "occupancy",
    // Times.
    "samples_ms",
    "median_ms",
    "min_ms",
    "max_ms",
    "ns_per_step",
    "cycles_per_step",
    "latency_ns",
    // The device.
    "sm_count",
    "sm_clock_khz",
    "warp_size",
    "regs_per_sm",
    "max_regs_per_block",
    "smem_per_sm",
    "max_threads_per_sm",
    "max_blocks_per_sm",
    "peak_fp32_gflops",
    "peak_dram_gbps",
    "peak_gbps",
    "sms",
];

/// Where every [`POSITIVE`] figure lies: many decades around what GPUs measure (GFLOP/s in the
/// tens of thousands, times in microseconds to seconds, fractions of one), and within what a plot's
/// axis can span.
const FIGURES: std::ops::RangeInclusive<f64> = 1e-9..=1e15;

/// Counts the report multiplies or adds in 32 bits, each with a bound far above any GPU's (so that
/// no sum or product of them overflows).
const COUNTS: &[(&str, u64)] = &[
    ("tm", 1 << 10),
    ("tn", 1 << 10),
    ("spill_stores", 1 << 30),
    ("spill_loads", 1 << 30),
    ("stack_frame", 1 << 30),
    ("sm_count", 1 << 16),
    ("warp_size", 1 << 10),
    ("max_threads_per_sm", 1 << 16),
    ("max_threads_per_block", 1 << 16),
    ("max_blocks_per_sm", 1 << 12),
    ("regs_per_sm", 1 << 24),
    ("max_regs_per_block", 1 << 24),
    ("smem_per_sm", 1 << 24),
    ("smem_per_block", 1 << 24),
    ("smem_per_block_optin", 1 << 24),
    ("reserved_smem_per_block", 1 << 20),
];

/// A figure a results file may not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} is {value}; {rule}")]
pub struct BadFigure {
    /// Where it is, e.g. `occupancy.rows[2].gflops`.
    pub field: String,
    pub value: String,
    /// What it must be.
    pub rule: String,
}

/// Checks the schema version, then every figure of `results` ([`POSITIVE`]); the first bad one
/// is named.
pub fn validate(results: &RunResults) -> Result<(), BadFigure> {
    if !(1..=SCHEMA_VERSION).contains(&results.schema_version) {
        return Err(BadFigure {
            field: "schema_version".to_owned(),
            value: results.schema_version.to_string(),
            rule: format!(
                "this host reads versions 1 to {SCHEMA_VERSION} (a newer host may read it)"
            ),
        });
    }
    let value = serde_json::to_value(results).map_err(|e| BadFigure {
        field: "results".to_owned(),
        value: "not storable".to_owned(),
        rule: e.to_string(),
    })?;
    walk(&value, "", Rule::Any)?;
    if let Some(rows) = &results.regs {
        for (i, r) in rows.iter().enumerate() {
            if rows[..i].iter().any(|o| o.cap == r.cap) {
                return Err(BadFigure {
                    field: format!("regs[{i}].cap"),
                    value: r.cap.to_string(),
                    rule: "each register cap is measured once".to_owned(),
                });
            }
        }
    }
    Ok(())
}

/// What a field's numbers must be.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rule {
    /// Finite.
    Any,
    /// A figure within [`FIGURES`].
    Figure,
    /// A count of at most this.
    AtMost(u64),
}

impl Rule {
    fn of(name: &str) -> Rule {
        if POSITIVE.contains(&name) {
            return Rule::Figure;
        }
        COUNTS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(Rule::Any, |&(_, max)| Rule::AtMost(max))
    }

    /// Why `x` breaks the rule, if it does.
    fn broken_by(self, x: f64) -> Option<String> {
        let figure = || {
            format!(
                "it must be a number above zero, within {:e}..={:e}",
                FIGURES.start(),
                FIGURES.end()
            )
        };
        match self {
            _ if !x.is_finite() => Some("it must be a finite number".to_owned()),
            Rule::Figure if !FIGURES.contains(&x) => Some(figure()),
            Rule::AtMost(max) if x > max as f64 => Some(format!("no GPU has more than {max}")),
            _ => None,
        }
    }
}

fn walk(v: &Value, path: &str, rule: Rule) -> Result<(), BadFigure> {
    match v {
        Value::Object(fields) => {
            for (name, field) in fields {
                let at = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}.{name}")
                };
                walk(field, &at, Rule::of(name))?;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{path}[{i}]"), rule)?;
            }
        }
        Value::Number(n) => {
            if let Some(why) = rule.broken_by(n.as_f64().unwrap_or(f64::NAN)) {
                return Err(BadFigure {
                    field: path.to_owned(),
                    value: n.to_string(),
                    rule: why,
                });
            }
        }
        // A null is an optional figure that is absent (Volkov's "not reached", say): a figure the
        // records require cannot be null, since the typed load refuses it and names the field
        // (serde_json writes NaN and infinities as null, so a NaN written there is caught so).
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_positive_figure_is_checked_where_it_appears() {
        let walk = |v: &Value| walk(v, "", Rule::Any);
        let ok = json!({"device": {"sm_count": 132}, "regs": [{"gflops": 1.5, "cap": 0}]});
        assert_eq!(walk(&ok), Ok(()));
        let neg = json!({"occupancy": {"rows": [{"gflops": 1.0}, {"gflops": -11630.0}]}});
        assert_eq!(
            walk(&neg).unwrap_err().to_string(),
            "occupancy.rows[1].gflops is -11630.0; it must be a number above zero, within \
             1e-9..=1e15"
        );
        let zero = json!({"device": {"sm_count": 0}});
        assert_eq!(walk(&zero).unwrap_err().field, "device.sm_count");
        let sample = json!({"t": {"samples_ms": [0.5, 0.0]}});
        assert_eq!(walk(&sample).unwrap_err().field, "t.samples_ms[1]");
        // An absent optional figure (Volkov's line of an ILP that never reaches the bar).
        let none = json!({"ilp": {"volkov": [{"fraction_of_peak": null, "occupancy": null}]}});
        assert_eq!(walk(&none), Ok(()));
        // A figure no measurement gives (a plot's axis cannot span it).
        let tiny = json!({"bandwidth": {"rows": [{"occupancy": 5e-324}]}});
        assert_eq!(
            walk(&tiny).unwrap_err().field,
            "bandwidth.rows[0].occupancy"
        );
        // Fields off the list may be zero (a cap of 0 is "uncapped", spills are counts).
        let counts = json!({"regs": [{"spill_stores": 0, "cap": 0}]});
        assert_eq!(walk(&counts), Ok(()));
        // Counts the report adds or multiplies are bounded.
        let huge = json!({"occupancy": [{"tm": 4294967295u32}]});
        let e = walk(&huge).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.rule.as_str()),
            ("occupancy[0].tm", "no GPU has more than 1024")
        );
    }
}
