//! `report.md` for one run: how it was made, the verdicts, each experiment's table and plot.
//!
//! The experiment tables are the ones `--format markdown` prints (each experiment's columns),
//! so the report and the CLI show the same columns; every table goes through `crate::table`.

use std::fmt::Write as _;

use super::files::PlotFile;
use crate::claim::Verdict;
use crate::experiments::RunResults;
use crate::table::{markdown_grid, percent, percent_with, to_markdown};

/// The run's header: device, date, command, modules, timing.
pub fn run_header(r: &RunResults) -> String {
    let d = &r.device;
    let m = &r.meta;
    let module = match &m.compare_module {
        Some(c) => format!("{} (compared with {c})", m.module),
        None => m.module.to_string(),
    };
    let sampling = match m.noise_target {
        Some(t) => format!(
            "each figure sampled until its relative noise is at most {} (or a cap; flagged)",
            percent(t)
        ),
        None => format!("{} samples of {} launches", m.samples, m.iters),
    };
    let (major, minor) = d.compute_capability;
    let device = format!(
        "{} (compute capability {major}.{minor}, {} SMs, {} MHz, driver {})",
        d.name,
        d.sm_count,
        d.sm_clock_khz / 1000,
        d.driver_version
    );
    let (fp32, dram) = (d.peak_fp32_gflops, d.peak_dram_gbps);
    let mib = m.copy_bytes / (1024 * 1024);
    let timing = format!("{sampling}; GEMM {}; copy buffer {mib} MiB", m.gemm_words());
    let t = [
        ("Device", device),
        (
            "Peaks",
            format!("FP32 {fp32:.0} GFLOP/s; DRAM {dram:.1} GB/s"),
        ),
        ("Date", m.date.clone()),
        ("Command", format!("`{}`", m.command)),
        ("Kernels", module),
        ("Toolchain", m.toolchain.clone()),
        ("Tool", m.tool_version.clone()),
        ("Timing", timing),
    ]
    .map(|(k, v)| vec![k.to_owned(), v]);
    markdown_grid(&["", ""], &t)
}

/// The verdict summary table and one paragraph per verdict. Each paragraph names the verdict's key:
/// its number depends on the experiments a run holds, so the docs cite a verdict by its key.
pub fn verdict_section(verdicts: &[Verdict]) -> String {
    let t: Vec<Vec<String>> = (verdicts.iter().enumerate())
        .map(|(i, v)| {
            let outcome = format!("**{}**", v.outcome());
            vec![
                (i + 1).to_string(),
                v.experiment.to_string(),
                v.claim.clone(),
                outcome,
            ]
        })
        .collect();
    let mut out = markdown_grid(&["#", "Experiment", "Claim", "Verdict"], &t);
    for (i, v) in verdicts.iter().enumerate() {
        let _ = write!(
            out,
            "\n### {}. {}\n\n**{}**\n\n- Key: `{}`\n- Rule: {}\n- Evidence: {}\n",
            i + 1,
            v.claim,
            v.outcome(),
            v.key,
            v.rule,
            v.evidence
        );
    }
    out
}

/// The whole `report.md` for one run. `plots` are the SVG file names written beside it; `curves`
/// are (file name, title) of the occupancy-curve plots. With `tables_file` (e.g. `tables.md`
/// written beside it from the same results) each experiment's table is linked there instead of
/// repeated here. `part_two` is part II's section (`across::part_two`), after the experiments'.
pub fn report(
    r: &RunResults,
    verdicts: &[Verdict],
    plots: &[PlotFile],
    curves: &[(String, String)],
    tables_file: Option<&str>,
    part_two: Option<&str>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Occupancy lab report: {}\n", r.device.name);
    out.push_str(&run_header(r));
    if !r.missing.is_empty() {
        out.push_str("\n**Incomplete run.** Not in these results:\n\n");
        for m in &r.missing {
            let _ = writeln!(out, "- {}: {}", m.experiment, m.reason);
        }
    }
    // The experiments this run is about: those it ran or was asked for (the missing list); a
    // run of one experiment, or one recorded before an experiment existed, says nothing of the
    // others. A run with none says "Not run." of every experiment.
    let sections = r.sections();
    let asked = |name: &str| r.missing.iter().any(|m| m.experiment == name);
    let any = sections.iter().any(|s| s.table.is_some() || asked(s.name));
    let sections: Vec<_> = sections
        .into_iter()
        .filter(|s| !any || s.table.is_some() || asked(s.name))
        .collect();
    let verdicts: Vec<Verdict> = verdicts
        .iter()
        .filter(|v| sections.iter().any(|s| s.number == v.experiment))
        .cloned()
        .collect();
    let _ = write!(
        out,
        "\nEach claim below is judged from this run's figures by the rule stated with it, every \
comparison on the {} bootstrap confidence interval of its ratio (a claim is NOT JUDGED when \
an interval it rests on straddles the threshold); rows whose correctness check failed are left \
out of the judgement.\n\n## Verdicts\n\n",
        percent_with(crate::confidence::LEVEL, 0)
    );
    out.push_str(&verdict_section(&verdicts));
    for section in sections {
        let title = section.heading;
        let _ = writeln!(out, "\n## {title}\n");
        match section.table {
            Some(t) => {
                for p in plots.iter().filter(|p| p.experiment == section.name) {
                    let _ = writeln!(out, "![{title}]({})\n", p.file);
                }
                match tables_file {
                    Some(f) => {
                        let _ = writeln!(out, "The table, with every row's notes: [{f}]({f}).");
                    }
                    None => {
                        out.push_str(&to_markdown(&t));
                        if let Some((_, second)) = &section.second {
                            out.push('\n');
                            out.push_str(&to_markdown(second));
                        }
                    }
                }
            }
            None => match r.missing.iter().find(|m| m.experiment == section.name) {
                Some(m) => {
                    let _ = writeln!(out, "Missing from this run: {}.", m.reason);
                }
                None => out.push_str("Not run.\n"),
            },
        }
    }
    out.push_str(part_two.unwrap_or_default());
    if !curves.is_empty() {
        out.push_str("\n## Occupancy calculator curves for this GPU\n\n");
        for (file, title) in curves {
            let _ = writeln!(out, "![{title}]({file})\n");
        }
    }
    out
}
