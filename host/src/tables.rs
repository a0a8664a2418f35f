//! The blog's tables (its columns first, then ours), rendered as a terminal table, Markdown, CSV
//! or JSON from [`RunResults`]. Pure: nothing here touches the GPU.

use tabled::builder::Builder;
use tabled::settings::Style;

use crate::results::{
    Bandwidth, Check, Comparison, CopyRow, DeviceInfo, GemmRow, RegsRow, RunResults, Timing,
};

/// Output format (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table for the terminal.
    Table,
    /// GitHub-flavoured Markdown.
    Markdown,
    /// Comma-separated values, one header line per table.
    Csv,
    /// The full results as JSON (the `results.json` schema).
    Json,
}

/// One table: a title, a header, rows of cells and notes printed under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableData {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub notes: Vec<String>,
}

fn cells<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// A throughput figure, marked `(!)` when it is flagged (see the notes).
fn figure(x: f64, decimals: usize, flags: &[String]) -> String {
    let base = format!("{x:.decimals$}");
    if flags.is_empty() {
        base
    } else {
        format!("{base} (!)")
    }
}

fn ms(t: &Timing) -> String {
    format!("{:.3} [{:.3}-{:.3}]", t.median_ms, t.min_ms, t.max_ms)
}

fn verified(c: &Check) -> String {
    let status = if c.passed { "ok" } else { "FAILED" };
    if c.bound == 0.0 {
        if c.error == 0.0 {
            format!("{status}, exact")
        } else {
            format!("{status}, {} differ", c.error)
        }
    } else {
        format!("{status}, err {:.1e}", c.error)
    }
}

fn other_verified(c: Option<&Comparison>) -> String {
    c.map_or_else(String::new, |c| verified(&c.check))
}

fn notes_for(label: &str, flags: &[String], notes: &mut Vec<String>) {
    for f in flags {
        notes.push(format!("(!) {label}: {f}"));
    }
}

/// One row of an experiment's table, split for [`experiment_table`].
struct ExperimentRow<'r> {
    /// Names the row in the notes made of its flags.
    label: String,
    /// The row's own cells.
    cells: Vec<String>,
    flags: &'r [String],
    compare: Option<&'r Comparison>,
}

/// An experiment's table: its own columns, then the compared module's (`other`) when any row has
/// that module's figures; each row's flags become notes under the table.
fn experiment_table<'r, R>(
    title: &str,
    rows: &'r [R],
    mut header: Vec<String>,
    other_header: Vec<String>,
    row: impl Fn(&'r R) -> ExperimentRow<'r>,
    other: impl Fn(Option<&Comparison>) -> Vec<String>,
) -> TableData {
    let split: Vec<ExperimentRow<'r>> = rows.iter().map(row).collect();
    let compare = split.iter().any(|r| r.compare.is_some());
    if compare {
        header.extend(other_header);
    }
    let mut notes = Vec::new();
    let body = split
        .into_iter()
        .map(|r| {
            notes_for(&r.label, r.flags, &mut notes);
            let mut cells = r.cells;
            if compare {
                cells.extend(other(r.compare));
            }
            cells
        })
        .collect();
    TableData {
        title: title.to_owned(),
        header,
        rows: body,
        notes,
    }
}

/// Experiment 1: Variant, Threads/block, Sub-tile TMxTN, Regs/thread, Theo. occ, GFLOP/s; then
/// blocks/SM, limiter, ms/call, verified, and the compared module's figures when present.
pub fn occupancy_table(rows: &[GemmRow]) -> TableData {
    experiment_table(
        "Occupancy vs throughput",
        rows,
        cells([
            "Variant",
            "Threads/block",
            "Sub-tile TMxTN",
            "Regs/thread",
            "Theo. occ",
            "GFLOP/s",
            "Blocks/SM",
            "Limiter",
            "ms/call [min-max]",
            "Verified",
        ]),
        compare_header("Other GFLOP/s"),
        |r| ExperimentRow {
            label: r.variant.clone(),
            cells: vec![
                r.variant.clone(),
                r.threads.to_string(),
                format!("{}x{}", r.tm, r.tn),
                r.regs.to_string(),
                percent(r.occupancy),
                figure(r.gflops, 0, &r.flags),
                r.blocks_per_sm.to_string(),
                r.limiter.clone(),
                ms(&r.timing),
                verified(&r.check),
            ],
            flags: &r.flags,
            compare: r.compare.as_ref(),
        },
        |c| compare_cells(c, 0),
    )
}

/// The compared module's columns: its throughput (`throughput`), then regs, ratio and check.
fn compare_header(throughput: &str) -> Vec<String> {
    cells([throughput, "Other regs", "Ours/other", "Other verified"])
}

fn compare_cells(c: Option<&Comparison>, decimals: usize) -> Vec<String> {
    match c {
        Some(c) => vec![
            format!("{:.decimals$}", c.throughput),
            c.regs.to_string(),
            format!("{:.2}", c.ratio),
            other_verified(Some(c)),
        ],
        None => vec![String::new(); 4],
    }
}

/// Experiment 2: Variant, Threads/block, Loads x width, Bytes/thread, Regs/thread, Theo. occ,
/// GB/s; then % of the device-to-device copy, blocks/SM, dynamic smem, ms/call, verified, and the
/// compared module's figures. The last row is the device-to-device copy itself.
pub fn bandwidth_table(b: &Bandwidth) -> TableData {
    let mut t = experiment_table(
        "Bandwidth vs occupancy",
        &b.rows,
        cells([
            "Variant",
            "Threads/block",
            "Loads x width",
            "Bytes/thread",
            "Regs/thread",
            "Theo. occ",
            "GB/s",
            "% of D2D copy",
            "Blocks/SM",
            "Dyn smem (B)",
            "Limiter",
            "ms/call [min-max]",
            "Verified",
        ]),
        compare_header("Other GB/s"),
        |r: &CopyRow| ExperimentRow {
            label: r.variant.clone(),
            cells: vec![
                r.variant.clone(),
                r.threads.to_string(),
                format!("{}x{}", r.loads, r.width),
                r.bytes_per_thread.to_string(),
                r.regs.to_string(),
                percent(r.occupancy),
                figure(r.gbps, 1, &r.flags),
                percent(r.fraction_of_reference),
                r.blocks_per_sm.to_string(),
                r.dyn_smem_bytes.to_string(),
                r.limiter.clone(),
                ms(&r.timing),
                verified(&r.check),
            ],
            flags: &r.flags,
            compare: r.compare.as_ref(),
        },
        |c| compare_cells(c, 1),
    );
    let width = t.header.len();
    let mut reference = vec![String::new(); width];
    reference[0] = "D2D copy".to_owned();
    reference[6] = format!("{:.1}", b.reference_gbps);
    reference[7] = percent(1.0);
    reference[11] = ms(&b.reference_timing);
    t.rows.push(reference);
    t.notes.push(
        "GB/s count bytes read + bytes written (1e9 B); D2D copy = cuMemcpyDtoD of the same \
         buffer, timed the same way; every variant held at 2 blocks/SM by dynamic shared memory"
            .to_owned(),
    );
    t
}

/// Experiment 3: Cap, Actual regs, Theo. occ, ms/call, GFLOP/s, Spill stores, Spill loads, Stack
/// frame; then blocks/SM, limiter, verified, and the compared module's figures.
pub fn regs_table(rows: &[RegsRow]) -> TableData {
    let unknown = |x: u32, is_unknown: bool| {
        if is_unknown {
            "n/a".to_owned()
        } else {
            x.to_string()
        }
    };
    let mut other_header = compare_header("Other GFLOP/s");
    other_header.push("Other spill st/ld".to_owned());
    let mut t = experiment_table(
        "Register pressure",
        rows,
        cells([
            "Cap",
            "Actual regs",
            "Theo. occ",
            "ms/call [min-max]",
            "GFLOP/s",
            "Spill stores",
            "Spill loads",
            "Stack frame",
            "Blocks/SM",
            "Limiter",
            "Verified",
        ]),
        other_header,
        |r| ExperimentRow {
            label: format!("cap {}", r.cap),
            cells: vec![
                r.cap.to_string(),
                r.regs.to_string(),
                percent(r.occupancy),
                ms(&r.timing),
                figure(r.gflops, 0, &r.flags),
                unknown(r.spill_stores, r.spills_unknown),
                unknown(r.spill_loads, r.spills_unknown),
                r.stack_frame.to_string(),
                r.blocks_per_sm.to_string(),
                r.limiter.clone(),
                verified(&r.check),
            ],
            flags: &r.flags,
            compare: r.compare.as_ref(),
        },
        |c| {
            let mut other = compare_cells(c, 0);
            other.push(match c {
                Some(c) => match (c.spill_stores, c.spill_loads) {
                    (Some(s), Some(l)) => format!("{s}/{l}"),
                    _ => "n/a".to_owned(),
                },
                None => String::new(),
            });
            other
        },
    );
    if rows.iter().any(|r| r.spills_unknown) {
        t.notes.push(
            "n/a: the module is a cubin with no ptxas report beside it; stack frame is the \
             function's local memory"
                .to_owned(),
        );
    }
    t
}

/// `host info`: the device and the spec peaks behind the percentage columns.
pub fn device_table(d: &DeviceInfo) -> TableData {
    let kib = |b: u64| format!("{} KiB", b / 1024);
    let rows = [
        ("Device", format!("{} (ordinal {})", d.name, d.ordinal)),
        (
            "Compute capability",
            format!("{}.{}", d.compute_capability.0, d.compute_capability.1),
        ),
        ("SMs", d.sm_count.to_string()),
        ("SM clock (max)", format!("{} MHz", d.sm_clock_khz / 1000)),
        (
            "Memory clock (peak)",
            format!("{} MHz", d.mem_clock_khz / 1000),
        ),
        ("Memory bus", format!("{} bits", d.mem_bus_width_bits)),
        (
            "L2 cache",
            format!("{} MiB", d.l2_bytes as f64 / (1 << 20) as f64),
        ),
        ("Registers per SM", d.regs_per_sm.to_string()),
        (
            "Registers per block (max)",
            d.max_regs_per_block.to_string(),
        ),
        ("Shared memory per SM", kib(d.smem_per_sm)),
        ("Shared memory per block", kib(d.smem_per_block)),
        (
            "Shared memory per block (opt-in)",
            kib(d.smem_per_block_optin),
        ),
        ("Threads per SM (max)", d.max_threads_per_sm.to_string()),
        ("Blocks per SM (max)", d.max_blocks_per_sm.to_string()),
        ("Warp size", d.warp_size.to_string()),
        (
            "Memory",
            format!("{:.1} GiB", d.total_mem_bytes as f64 / (1u64 << 30) as f64),
        ),
        ("Driver", d.driver_version.clone()),
        (
            "FP32 peak (spec)",
            format!("{:.0} GFLOP/s", d.peak_fp32_gflops),
        ),
        ("DRAM peak (spec)", format!("{:.1} GB/s", d.peak_dram_gbps)),
    ];
    TableData {
        title: "Device".to_owned(),
        header: cells(["Property", "Value"]),
        rows: rows
            .into_iter()
            .map(|(k, v)| vec![k.to_owned(), v])
            .collect(),
        notes: vec![
            "spec peaks: FP32 = SMs x FP32 lanes x 2 x max SM clock; DRAM = 2 x memory clock x \
             bus width; figures above them are flagged, not reported as fact"
                .to_owned(),
        ],
    }
}

fn grid(t: &TableData) -> tabled::Table {
    let mut b = Builder::default();
    b.push_record(t.header.clone());
    for r in &t.rows {
        b.push_record(r.clone());
    }
    b.build()
}

/// One CSV field, quoted when needed (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// The table as CSV: a header line, then one line per row.
pub fn to_csv(t: &TableData) -> String {
    let line = |r: &[String]| r.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(",");
    let mut out = line(&t.header);
    out.push('\n');
    for r in &t.rows {
        out.push_str(&line(r));
        out.push('\n');
    }
    out
}

/// The table as Markdown, with its title as a heading and the notes under it.
pub fn to_markdown(t: &TableData) -> String {
    let mut table = grid(t);
    table.with(Style::markdown());
    let mut out = format!("### {}\n\n{table}\n", t.title);
    if !t.notes.is_empty() {
        out.push('\n');
        for n in &t.notes {
            out.push_str(&format!("- {n}\n"));
        }
    }
    out
}

/// The table for a terminal, with its title and notes.
pub fn to_terminal(t: &TableData) -> String {
    let mut table = grid(t);
    table.with(Style::rounded());
    let mut out = format!("{}\n{table}\n", t.title);
    for n in &t.notes {
        out.push_str(&format!("  {n}\n"));
    }
    out
}

/// One table in a text format (JSON is rendered from the results, see [`render_results`]).
pub fn render(t: &TableData, format: Format) -> String {
    match format {
        Format::Table => to_terminal(t),
        Format::Markdown => to_markdown(t),
        Format::Csv | Format::Json => to_csv(t),
    }
}

/// The experiments' tables present in `results`, in order.
pub fn tables(results: &RunResults) -> Vec<(&'static str, TableData)> {
    let m = &results.meta;
    let mut out = Vec::new();
    if let Some(rows) = &results.occupancy {
        let mut t = occupancy_table(rows);
        t.title = format!(
            "1. {} (SGEMM M=N=K={}, {} launches x {} samples)",
            t.title, m.gemm_size, m.iters, m.samples
        );
        out.push(("occupancy", t));
    }
    if let Some(b) = &results.bandwidth {
        let mut t = bandwidth_table(b);
        t.title = format!(
            "2. {} ({} MiB copy, {} launches x {} samples)",
            t.title,
            m.copy_bytes >> 20,
            m.iters,
            m.samples
        );
        out.push(("bandwidth", t));
    }
    if let Some(rows) = &results.regs {
        let mut t = regs_table(rows);
        t.title = format!(
            "3. {} (SGEMM M=N=K={}, one variant under -maxrregcount caps)",
            t.title, m.gemm_size
        );
        out.push(("regs", t));
    }
    out
}

/// Everything in `results` in one format: the tables one after another (CSV tables separated
/// by a blank line, each after a `# title` line), or the results as pretty JSON.
pub fn render_results(results: &RunResults, format: Format) -> String {
    if format == Format::Json {
        return serde_json::to_string_pretty(results).unwrap_or_default() + "\n";
    }
    let head = format!(
        "{} (sm_{}{}, {} SMs) - kernels: {}{}",
        results.device.name,
        results.device.compute_capability.0,
        results.device.compute_capability.1,
        results.device.sm_count,
        results.meta.module,
        results
            .meta
            .compare_module
            .as_ref()
            .map(|c| format!(", compared with {c}"))
            .unwrap_or_default()
    );
    let mut parts = vec![match format {
        Format::Markdown => format!("{head}\n"),
        Format::Csv => format!("# {head}\n"),
        _ => format!("{head}\n"),
    }];
    for (_, t) in tables(results) {
        parts.push(match format {
            Format::Csv => format!("# {}\n{}", t.title, to_csv(&t)),
            other => render(&t, other),
        });
    }
    parts.join("\n")
}
