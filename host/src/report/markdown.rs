//! `report.md` for one run: how it was made, the verdicts, the three tables and the plots.
//!
//! The experiment tables are the ones `--format markdown` prints (`crate::tables`), so the
//! report and the CLI show the same columns.

use std::fmt::Write as _;

use super::verdicts::Verdict;
use crate::results::RunResults;

/// Column alignment in a Markdown table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A Markdown pipe table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    pub headers: Vec<(String, Align)>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[(&str, Align)]) -> Self {
        Self {
            headers: headers.iter().map(|(h, a)| (h.to_string(), *a)).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Renders the table; cells have `|` escaped and newlines flattened.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let cells = |v: &mut dyn Iterator<Item = String>| {
            let parts: Vec<String> = v.map(|c| escape(&c)).collect();
            format!("| {} |\n", parts.join(" | "))
        };
        out.push_str(&cells(&mut self.headers.iter().map(|(h, _)| h.clone())));
        out.push_str(&cells(&mut self.headers.iter().map(|(_, a)| match a {
            Align::Left => "---".to_string(),
            Align::Right => "---:".to_string(),
        })));
        for r in &self.rows {
            let mut padded = r.clone();
            padded.resize(self.headers.len(), String::new());
            out.push_str(&cells(&mut padded.into_iter()));
        }
        out
    }
}

fn escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn pct(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

use Align::{Left as L, Right as R};

/// The run's header: device, date, command, modules, timing.
pub fn run_header(r: &RunResults) -> String {
    let d = &r.device;
    let m = &r.meta;
    let mut t = Table::new(&[("", L), ("", L)]);
    t.push(vec![
        "Device".into(),
        format!(
            "{} (compute capability {}.{}, {} SMs, {} MHz, driver {})",
            d.name,
            d.compute_capability.0,
            d.compute_capability.1,
            d.sm_count,
            d.sm_clock_khz / 1000,
            d.driver_version
        ),
    ]);
    t.push(vec![
        "Peaks".into(),
        format!(
            "FP32 {:.0} GFLOP/s; DRAM {:.1} GB/s",
            d.peak_fp32_gflops, d.peak_dram_gbps
        ),
    ]);
    t.push(vec!["Date".into(), m.date.clone()]);
    t.push(vec!["Command".into(), format!("`{}`", m.command)]);
    let module = match &m.compare_module {
        Some(c) => format!("{} (compared with {c})", m.module),
        None => m.module.clone(),
    };
    t.push(vec!["Kernels".into(), module]);
    t.push(vec!["Toolchain".into(), m.toolchain.clone()]);
    t.push(vec!["Tool".into(), m.tool_version.clone()]);
    t.push(vec![
        "Timing".into(),
        format!(
            "{} samples of {} launches; GEMM M = N = K = {}; copy buffer {} MiB",
            m.samples,
            m.iters,
            m.gemm_size,
            m.copy_bytes / (1024 * 1024)
        ),
    ]);
    t.render()
}

/// The verdict summary table and one paragraph per verdict.
pub fn verdict_section(verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    let mut t = Table::new(&[("#", R), ("Experiment", R), ("Claim", L), ("Verdict", L)]);
    for (i, v) in verdicts.iter().enumerate() {
        t.push(vec![
            (i + 1).to_string(),
            v.experiment.to_string(),
            v.claim.clone(),
            format!("**{}**", v.outcome()),
        ]);
    }
    out.push_str(&t.render());
    for (i, v) in verdicts.iter().enumerate() {
        let _ = write!(
            out,
            "\n### {}. {}\n\n**{}**\n\n- Rule: {}\n- Evidence: {}\n",
            i + 1,
            v.claim,
            v.outcome(),
            v.rule,
            v.evidence
        );
    }
    out
}

/// The whole `report.md` for one run. `plots` are the SVG file names written beside it; `curves`
/// are (file name, title) of the occupancy-curve plots. With `tables_file` (e.g. `tables.md`
/// written beside it from the same results) each experiment's table is linked there instead of
/// repeated here.
pub fn report(
    r: &RunResults,
    verdicts: &[Verdict],
    plots: &[&str],
    curves: &[(String, String)],
    tables_file: Option<&str>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Occupancy lab report: {}\n", r.device.name);
    out.push_str(&run_header(r));
    out.push_str(
        "\nEach claim below is judged from this run's figures by the rule stated with it; rows \
whose correctness check failed are left out of the judgement.\n\n## Verdicts\n\n",
    );
    out.push_str(&verdict_section(verdicts));
    let tables = crate::tables::tables(r);
    let table = |key: &str| {
        tables
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, t)| crate::tables::to_markdown(t))
    };
    let sections: [(&str, &str, Option<String>); 3] = [
        (
            "Experiment 1: occupancy vs throughput (GEMM tiles)",
            super::figures::OCCUPANCY_SVG,
            table("occupancy"),
        ),
        (
            "Experiment 2: bandwidth vs occupancy (strided copy)",
            super::figures::BANDWIDTH_SVG,
            table("bandwidth"),
        ),
        (
            "Experiment 3: register cap vs throughput",
            super::figures::REGS_SVG,
            table("regs"),
        ),
    ];
    for (title, svg, table) in sections {
        let _ = writeln!(out, "\n## {title}\n");
        match table {
            Some(t) => {
                if plots.contains(&svg) {
                    let _ = writeln!(out, "![{title}]({svg})\n");
                }
                match tables_file {
                    Some(f) => {
                        let _ = writeln!(out, "The table, with every row's notes: [{f}]({f}).");
                    }
                    None => out.push_str(&t),
                }
            }
            None => out.push_str("Not run.\n"),
        }
    }
    if !curves.is_empty() {
        out.push_str("\n## Occupancy calculator curves for this GPU\n\n");
        for (file, title) in curves {
            let _ = writeln!(out, "![{title}]({file})\n");
        }
    }
    out
}
