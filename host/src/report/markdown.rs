//! `report.md` for one run: how it was made, the verdicts, the three tables and the plots.
//!
//! The tables are written here compactly (a Markdown pipe table per experiment); the blog-column
//! console tables live elsewhere.

use std::fmt::Write as _;

use super::verdicts::Verdict;
use crate::results::{Check, Comparison, RunResults, Timing};

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

fn check_cell(c: &Check) -> String {
    if c.passed {
        "ok".into()
    } else {
        format!("FAILED ({:.3e} > {:.1e})", c.error, c.bound)
    }
}

fn ms_cell(t: &Timing) -> String {
    format!("{:.3} ({:.3}-{:.3})", t.median_ms, t.min_ms, t.max_ms)
}

fn spill_cell(bytes: u32, unknown: bool) -> String {
    if unknown {
        "n/a".into()
    } else {
        bytes.to_string()
    }
}

fn notes(flags: &[String]) -> String {
    flags.join("; ")
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

/// An experiment's table: its own columns, the compared module's columns when any row has the
/// other module's figures, then the row's notes. `row` splits a row into its own cells, its
/// comparison and its flags; `other` gives the compared module's cells (`None`: the row has none).
fn experiment_table<'r, R>(
    rows: &'r [R],
    headers: &[(&'static str, Align)],
    other_headers: &[(&'static str, Align)],
    row: impl Fn(&'r R) -> (Vec<String>, Option<&'r Comparison>, &'r [String]),
    other: impl Fn(Option<&Comparison>) -> Vec<String>,
) -> String {
    let split: Vec<_> = rows.iter().map(row).collect();
    let compare = split.iter().any(|(_, c, _)| c.is_some());
    let mut h = headers.to_vec();
    if compare {
        h.extend_from_slice(other_headers);
    }
    h.push(("Notes", L));
    let mut t = Table::new(&h);
    for (mut cells, c, flags) in split {
        if compare {
            cells.extend(other(c));
        }
        cells.push(notes(flags));
        t.push(cells);
    }
    t.render()
}

/// Experiment 1's table.
pub fn occupancy_table(r: &RunResults) -> Option<String> {
    let rows = r.occupancy.as_ref()?;
    let peak = r.device.peak_fp32_gflops;
    Some(experiment_table(
        rows,
        &[
            ("Variant", L),
            ("Threads", R),
            ("TM×TN", R),
            ("Regs", R),
            ("Blocks/SM", R),
            ("Occupancy", R),
            ("Limiter", L),
            ("ms (min-max)", R),
            ("GFLOP/s", R),
            ("% of FP32 peak", R),
            ("Check", L),
        ],
        &compare_headers("Other GFLOP/s"),
        |x| {
            let cells = vec![
                x.variant.clone(),
                x.threads.to_string(),
                format!("{}×{}", x.tm, x.tn),
                x.regs.to_string(),
                x.blocks_per_sm.to_string(),
                pct(x.occupancy),
                x.limiter.clone(),
                ms_cell(&x.timing),
                format!("{:.0}", x.gflops),
                if peak > 0.0 {
                    pct(x.gflops / peak)
                } else {
                    "-".into()
                },
                check_cell(&x.check),
            ];
            (cells, x.compare.as_ref(), &x.flags)
        },
        |c| compare_cells(c, 0),
    ))
}

/// The compared module's columns in experiments 1 and 2 (`throughput`: its figure's header).
fn compare_headers(throughput: &'static str) -> [(&'static str, Align); 4] {
    [
        ("Other regs", R),
        (throughput, R),
        ("Ratio", R),
        ("Other check", L),
    ]
}

fn compare_cells(c: Option<&Comparison>, decimals: usize) -> Vec<String> {
    match c {
        Some(c) => vec![
            c.regs.to_string(),
            format!("{:.decimals$}", c.throughput),
            format!("{:.2}x", c.ratio),
            check_cell(&c.check),
        ],
        None => vec!["-".into(), "-".into(), "-".into(), "-".into()],
    }
}

/// Experiment 2's table, with the copy reference above it.
pub fn bandwidth_table(r: &RunResults) -> Option<String> {
    let bw = r.bandwidth.as_ref()?;
    let t = experiment_table(
        &bw.rows,
        &[
            ("Variant", L),
            ("Threads", R),
            ("Loads×width", R),
            ("B/thread", R),
            ("Regs", R),
            ("Dyn. smem", R),
            ("Blocks/SM", R),
            ("Occupancy", R),
            ("Limiter", L),
            ("ms (min-max)", R),
            ("GB/s", R),
            ("% of copy ref.", R),
            ("Check", L),
        ],
        &compare_headers("Other GB/s"),
        |x| {
            let cells = vec![
                x.variant.clone(),
                x.threads.to_string(),
                format!("{}×{}", x.loads, x.width),
                x.bytes_per_thread.to_string(),
                x.regs.to_string(),
                x.dyn_smem_bytes.to_string(),
                x.blocks_per_sm.to_string(),
                pct(x.occupancy),
                x.limiter.clone(),
                ms_cell(&x.timing),
                format!("{:.1}", x.gbps),
                pct(x.fraction_of_reference),
                check_cell(&x.check),
            ];
            (cells, x.compare.as_ref(), &x.flags)
        },
        |c| compare_cells(c, 1),
    );
    Some(format!(
        "Device-to-device copy reference (same run): {:.1} GB/s, {} ms (min-max); DRAM peak {:.1} GB/s.\n\n{}",
        bw.reference_gbps,
        ms_cell(&bw.reference_timing),
        r.device.peak_dram_gbps,
        t
    ))
}

/// The compared module's cells in experiment 3's table: its spills as "stores / loads".
fn regs_compare_cells(c: Option<&Comparison>) -> Vec<String> {
    match c {
        Some(c) => vec![
            c.regs.to_string(),
            match (c.spill_stores, c.spill_loads) {
                (Some(s), Some(l)) => format!("{s} / {l}"),
                _ => "?".into(),
            },
            format!("{:.0}", c.throughput),
            format!("{:.2}x", c.ratio),
            check_cell(&c.check),
        ],
        None => vec!["-".to_string(); 5],
    }
}

/// Experiment 3's table.
pub fn regs_table(r: &RunResults) -> Option<String> {
    let rows = r.regs.as_ref()?;
    Some(experiment_table(
        rows,
        &[
            ("Cap", R),
            ("Regs", R),
            ("Blocks/SM", R),
            ("Occupancy", R),
            ("Limiter", L),
            ("ms (min-max)", R),
            ("GFLOP/s", R),
            ("Spill stores (B)", R),
            ("Spill loads (B)", R),
            ("Stack frame (B)", R),
            ("Check", L),
        ],
        &[
            ("Other regs", R),
            ("Other spills (B)", R),
            ("Other GFLOP/s", R),
            ("Ratio", R),
            ("Other check", L),
        ],
        |x| {
            let cells = vec![
                x.cap.to_string(),
                x.regs.to_string(),
                x.blocks_per_sm.to_string(),
                pct(x.occupancy),
                x.limiter.clone(),
                ms_cell(&x.timing),
                format!("{:.0}", x.gflops),
                spill_cell(x.spill_stores, x.spills_unknown),
                spill_cell(x.spill_loads, x.spills_unknown),
                x.stack_frame.to_string(),
                check_cell(&x.check),
            ];
            (cells, x.compare.as_ref(), &x.flags)
        },
        regs_compare_cells,
    ))
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
    let sections: [(&str, &str, Option<String>); 3] = [
        (
            "Experiment 1: occupancy vs throughput (GEMM tiles)",
            super::figures::OCCUPANCY_SVG,
            occupancy_table(r),
        ),
        (
            "Experiment 2: bandwidth vs occupancy (strided copy)",
            super::figures::BANDWIDTH_SVG,
            bandwidth_table(r),
        ),
        (
            "Experiment 3: register cap vs throughput",
            super::figures::REGS_SVG,
            regs_table(r),
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
