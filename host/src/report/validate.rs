//! A loaded results.json checked before anything is drawn from it: a figure that is negative,
//! zero or not a number would render as "-11630 GFLOP/s", "0 SMs" or "NaNx", and one far outside
//! what any GPU measures (a 1e-300 occupancy, a 4-billion-float thread tile) would stall a plot's
//! axis or overflow the calculator's 32-bit arithmetic; such a file is refused with the field
//! named instead.
//!
//! What no GPU can have is refused too: threads per block, registers per thread, resident blocks
//! or warps per SM and shared memory beyond what the run's architecture allows (the occupancy
//! calculator's table, [`Arch`]), a compute capability the table does not know, and a figure with
//! more samples than the lab takes ([`MOST_SAMPLES`]; cuBLAS's figure pools that many per GEMM
//! line).
//!
//! The rule is by field name over the typed records as they are stored: every experiment names
//! its measured figures the same way (`gflops`, `gbps`, `median_ms`, `occupancy`, ...), so one
//! list covers all of them, and a new experiment's rows are checked by the names they share.

use serde_json::Value;

use crate::experiments::gemm_cublas::CublasOutcome;
use crate::experiments::RunResults;
use crate::occupancy::{Arch, Limits};
use crate::results::SCHEMA_VERSION;
use crate::sampling::MOST_SAMPLES;

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
    // Times (a figure's samples are [`Rule::Samples`]).
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

/// The figure at `field`, `value`, breaks `rule`.
fn bad(field: impl Into<String>, value: impl ToString, rule: impl Into<String>) -> BadFigure {
    let (field, value, rule) = (field.into(), value.to_string(), rule.into());
    BadFigure { field, value, rule }
}

/// Checks the schema version, the compute capability, then every figure of `results`
/// ([`POSITIVE`], [`COUNTS`], the architecture's limits) and every figure's samples; the first
/// bad one is named.
pub fn validate(results: &RunResults) -> Result<(), BadFigure> {
    if !(1..=SCHEMA_VERSION).contains(&results.schema_version) {
        let rule =
            format!("this host reads versions 1 to {SCHEMA_VERSION} (a newer host may read it)");
        return Err(bad("schema_version", results.schema_version, rule));
    }
    let (major, minor) = results.device.compute_capability;
    let arch = Arch::from_compute_capability(major, minor).ok_or_else(|| {
        let known: Vec<String> = (Arch::ALL.iter().map(|a| a.compute_capability()))
            .map(|(x, y)| format!("{x}.{y}"))
            .collect();
        let rule = format!(
            "it must be one the occupancy calculator knows: {}",
            known.join(", ")
        );
        bad(
            "device.compute_capability",
            format!("{major}.{minor}"),
            rule,
        )
    })?;
    let bounds = Bounds::new(arch.limits(), results.device.max_threads_per_block);
    pooled_samples(results)?;
    let value =
        serde_json::to_value(results).map_err(|e| bad("results", "not storable", e.to_string()))?;
    walk(&value, "", Rule::Any, &bounds)?;
    if let Some(rows) = &results.regs {
        for (i, r) in rows.iter().enumerate() {
            if rows[..i].iter().any(|o| o.cap == r.cap) {
                let rule = "each register cap is measured once";
                return Err(bad(format!("regs[{i}].cap"), r.cap, rule));
            }
        }
    }
    Ok(())
}

/// cuBLAS's figure pools the samples taken beside each GEMM line: at most [`MOST_SAMPLES`] per
/// row of its experiment (every other figure is held to [`MOST_SAMPLES`] by [`walk`]).
fn pooled_samples(results: &RunResults) -> Result<(), BadFigure> {
    let occupancy = (results.occupancy.as_ref()).map(|r| (r.rows.len(), &r.cublas));
    let gemm_bf16 = (results.gemm_bf16.as_ref()).map(|r| (r.rows.len(), &r.cublas));
    for (name, run) in [("occupancy", occupancy), ("gemm_bf16", gemm_bf16)] {
        let Some((rows, Some(CublasOutcome::Measured(c)))) = run else {
            continue;
        };
        let (have, most) = (c.timing.samples_ms.len(), rows * MOST_SAMPLES as usize);
        if have > most {
            let rule = format!(
                "cuBLAS's figure pools at most {MOST_SAMPLES} samples (--max-samples' ceiling) \
                 for each of the experiment's {rows} rows"
            );
            let field = format!("{name}.cublas.timing.samples_ms");
            return Err(bad(field, format!("{have} samples"), rule));
        }
    }
    Ok(())
}

/// What the run's architecture allows ([`Arch::limits`]), the bounds of the fields named by
/// [`Bounds::of`].
struct Bounds {
    limits: Limits,
    /// Threads per block: the architecture's, or the device's where it recorded fewer.
    threads: u32,
}

impl Bounds {
    fn new(limits: Limits, device_threads: Option<u32>) -> Self {
        let threads = device_threads.map_or(limits.max_threads_per_block, |t| {
            t.min(limits.max_threads_per_block)
        });
        Self { limits, threads }
    }

    /// The range of a field the architecture bounds, and what it counts, or None.
    fn of(&self, name: &str) -> Option<(u64, u64, &'static str)> {
        let l = &self.limits;
        let (least, most, what) = match name {
            "threads" => (1, self.threads, "threads per block"),
            // The device's own limits, which the rows' are held to.
            "max_threads_per_block" => (1, l.max_threads_per_block, "threads per block"),
            "max_blocks_per_sm" => (1, l.max_blocks_per_sm, "resident blocks per SM"),
            "regs" | "registers_per_thread" => (1, l.max_regs_per_thread, "registers per thread"),
            "blocks_per_sm" => (1, l.max_blocks_per_sm, "resident blocks per SM"),
            "warps_per_sm" => (1, l.max_warps_per_sm, "resident warps per SM"),
            "dyn_smem" | "dyn_smem_bytes" | "dynamic_shared_bytes" | "static_shared_bytes" => (
                0,
                l.smem_per_block_optin.max(l.smem_per_block),
                "bytes of shared memory per block",
            ),
            "shared_memory_executed" => (0, l.smem_per_sm, "bytes of shared memory per SM"),
            _ => return None,
        };
        Some((least, u64::from(most), what))
    }
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
    /// A count the architecture bounds: least, most, what it counts.
    Arch(u64, u64, &'static str),
    /// A figure's samples: at most [`MOST_SAMPLES`] of them, each a [`Rule::Figure`].
    Samples,
}

impl Rule {
    fn of(name: &str, bounds: &Bounds) -> Rule {
        if name == "samples_ms" {
            return Rule::Samples;
        }
        // Before [`POSITIVE`]: a bound of the architecture is positive too.
        if let Some((least, most, what)) = bounds.of(name) {
            return Rule::Arch(least, most, what);
        }
        if POSITIVE.contains(&name) {
            return Rule::Figure;
        }
        COUNTS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(Rule::Any, |&(_, max)| Rule::AtMost(max))
    }

    /// Why `x` breaks the rule, if it does.
    fn broken_by(self, x: f64, arch: &str) -> Option<String> {
        let figure = || {
            format!(
                "it must be a number above zero, within {:e}..={:e}",
                FIGURES.start(),
                FIGURES.end()
            )
        };
        match self {
            _ if !x.is_finite() => Some("it must be a finite number".to_owned()),
            Rule::Figure | Rule::Samples if !FIGURES.contains(&x) => Some(figure()),
            Rule::AtMost(max) if x > max as f64 => Some(format!("no GPU has more than {max}")),
            Rule::Arch(least, most, what) if x < least as f64 || x > most as f64 => Some(format!(
                "it must be {least} to {most} (the most {what} {arch} allows)"
            )),
            _ => None,
        }
    }
}

fn walk(v: &Value, path: &str, rule: Rule, bounds: &Bounds) -> Result<(), BadFigure> {
    match v {
        Value::Object(fields) => {
            for (name, field) in fields {
                let at = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}.{name}")
                };
                walk(field, &at, Rule::of(name, bounds), bounds)?;
            }
        }
        Value::Array(items) => {
            // cuBLAS's pooled figure is bounded per row ([`pooled_samples`]).
            let pooled = path.contains(".cublas.");
            if rule == Rule::Samples && !pooled && items.len() > MOST_SAMPLES as usize {
                let rule = format!("the lab takes at most {MOST_SAMPLES} (--max-samples' ceiling)");
                return Err(bad(path, format!("{} samples", items.len()), rule));
            }
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{path}[{i}]"), rule, bounds)?;
            }
        }
        Value::Number(n) => {
            if let Some(why) = rule.broken_by(n.as_f64().unwrap_or(f64::NAN), &bounds.limits.name) {
                return Err(bad(path, n, why));
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
        let h200 = Bounds::new(Arch::Sm90.limits(), Some(1024));
        let walk = |v: &Value| walk(v, "", Rule::Any, &h200);
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
        // What the architecture cannot have: here sm_90's limits.
        let arch = |v: Value| walk(&v).map_err(|e| e.to_string());
        assert_eq!(
            arch(json!({"rows": [{"threads": 1024, "regs": 255, "blocks_per_sm": 32}]})),
            Ok(())
        );
        // Each: where the field stands (`rows` holds a list), its name, its value, and how the
        // message goes on after "FIELD is VALUE".
        for (within, field, value, rest) in [
            ("rows", "threads", 0, "; it must be 1 to 1024"),
            ("device", "max_threads_per_block", 0, ""),
            ("device", "max_blocks_per_sm", 64, ""),
            ("rows", "threads", 1025, ""),
            ("rows", "regs", 0, "; it must be 1 to 255"),
            ("k", "registers_per_thread", 256, ""),
            ("rows", "blocks_per_sm", 33, ""),
            ("rows", "warps_per_sm", 65, ""),
            ("t", "dyn_smem", 232449, ""),
            ("k", "shared_memory_executed", 233473, ""),
        ] {
            let (bad, at) = match within {
                "rows" => (json!({"rows": [{field: value}]}), "rows[0]"),
                _ => (json!({within: {field: value}}), within),
            };
            let e = arch(bad).unwrap_err();
            assert!(
                e.starts_with(&format!("{at}.{field} is {value}{rest}")),
                "{e}"
            );
        }
        // A figure's samples: at most the lab's ceiling, each a figure.
        let most = MOST_SAMPLES as usize;
        assert_eq!(arch(json!({"t": {"samples_ms": vec![1.0; most]}})), Ok(()));
        assert!(arch(json!({"t": {"samples_ms": vec![1.0; most + 1]}}))
            .unwrap_err()
            .starts_with("t.samples_ms is 100001 samples"));
    }
}
