//! A loaded results.json checked before anything is drawn from it: a figure that is negative,
//! zero or not a number would render as "-11630 GFLOP/s", "0 SMs" or "NaNx", so such a file is
//! refused with the field named instead.
//!
//! The rule is by field name over the typed records as they are stored: every experiment names
//! its measured figures the same way (`gflops`, `gbps`, `median_ms`, `occupancy`, ...), so one
//! list covers all of them, and a new experiment's rows are checked by the names they share.

use serde_json::Value;

use crate::experiments::RunResults;

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

/// A figure a results file may not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} is {value}; it must be a number above zero")]
pub struct BadFigure {
    /// Where it is, e.g. `occupancy.rows[2].gflops`.
    pub field: String,
    pub value: String,
}

/// Checks every figure of `results` ([`POSITIVE`]); the first bad one is named.
pub fn validate(results: &RunResults) -> Result<(), BadFigure> {
    let value = serde_json::to_value(results).map_err(|e| BadFigure {
        field: "results".to_owned(),
        value: format!("not storable ({e})"),
    })?;
    walk(&value, "", false)
}

fn walk(v: &Value, path: &str, positive: bool) -> Result<(), BadFigure> {
    match v {
        Value::Object(fields) => {
            for (name, field) in fields {
                let at = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}.{name}")
                };
                walk(field, &at, POSITIVE.contains(&name.as_str()))?;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{path}[{i}]"), positive)?;
            }
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if !x.is_finite() || (positive && x <= 0.0) {
                return Err(BadFigure {
                    field: path.to_owned(),
                    value: n.to_string(),
                });
            }
        }
        // A figure stored as null is one that was not a number when written (serde_json writes
        // NaN and infinities as null); a field that may be absent is left out, not null.
        Value::Null if positive => {
            return Err(BadFigure {
                field: path.to_owned(),
                value: "null (not a number)".to_owned(),
            })
        }
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
        let ok = json!({"device": {"sm_count": 132}, "regs": [{"gflops": 1.5, "cap": 0}]});
        assert_eq!(walk(&ok, "", false), Ok(()));
        let neg = json!({"occupancy": {"rows": [{"gflops": 1.0}, {"gflops": -11630.0}]}});
        assert_eq!(
            walk(&neg, "", false).unwrap_err().to_string(),
            "occupancy.rows[1].gflops is -11630.0; it must be a number above zero"
        );
        let zero = json!({"device": {"sm_count": 0}});
        assert_eq!(walk(&zero, "", false).unwrap_err().field, "device.sm_count");
        let sample = json!({"t": {"samples_ms": [0.5, 0.0]}});
        assert_eq!(
            walk(&sample, "", false).unwrap_err().field,
            "t.samples_ms[1]"
        );
        let null = json!({"bandwidth": {"reference_gbps": null}});
        assert!(walk(&null, "", false).is_err());
        // Fields off the list may be zero (a cap of 0 is "uncapped", spills are counts).
        let counts = json!({"regs": [{"spill_stores": 0, "cap": 0}]});
        assert_eq!(walk(&counts, "", false), Ok(()));
    }
}
