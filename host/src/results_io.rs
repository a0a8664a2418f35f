//! A run as text and as files: every experiment's table in one format, and `results.json` (the
//! [`RunResults`] schema), `tables.md` and one CSV per experiment in a results folder (the report
//! beside them is [`crate::report`]'s). Every file is written to a temporary name and renamed, so
//! a folder never holds half a file; the run writes it after each experiment, so an interrupted
//! run keeps what finished.

use std::path::{Path, PathBuf};

use crate::atomic_file::write_atomic;
use crate::experiments::RunResults;
use crate::markdown_text::with_escaped_names;
use crate::out_dir::MAX_RESULTS_BYTES;
use crate::regular_file::read_regular;
use crate::results::DeviceInfo;
use crate::sample_scan::check_sample_counts;
use crate::table::{render, to_csv, Format, TableData};

#[derive(Debug, thiserror::Error)]
pub enum ResultsIoError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a results file: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// A results.json that cannot be read: missing, not a regular file, too large.
    #[error("{path} {reason}")]
    Read { path: PathBuf, reason: String },
    /// A results.json that does not load: `reason` names the field where it stopped.
    #[error("{path}: not a results file: {reason}")]
    Parse { path: PathBuf, reason: String },
}

fn write(path: PathBuf, text: &str) -> Result<PathBuf, ResultsIoError> {
    write_atomic(&path, text).map_err(|source| ResultsIoError::Io { path, source })
}

/// The experiments' tables present in `results`, in order, each with its experiment's name.
pub fn tables(results: &RunResults) -> Vec<(&'static str, TableData)> {
    results
        .sections()
        .into_iter()
        .flat_map(|s| s.table.map(|t| (s.name, t)).into_iter().chain(s.second))
        .collect()
}

/// Everything in `results` in one format: the tables one after another (CSV tables separated
/// by a blank line, each after a `# title` line), or the results as pretty JSON. What is missing
/// from an incomplete run is said under the heading.
pub fn render_results(results: &RunResults, format: Format) -> String {
    if format == Format::Json {
        return serde_json::to_string_pretty(results).unwrap_or_default() + "\n";
    }
    // Markdown takes the run's names escaped (a newline or a pipe in a name would break it).
    let named = match format {
        Format::Markdown => with_escaped_names(results),
        _ => std::borrow::Cow::Borrowed(results),
    };
    let results = named.as_ref();
    let (d, m) = (&results.device, &results.meta);
    let (major, minor) = d.compute_capability;
    let compared = m.compare_name().map(|c| format!(", compared with {c}"));
    let mut head = format!(
        "{} (sm_{major}{minor}, {} SMs) - kernels: {}{}",
        d.name,
        d.sm_count,
        m.module,
        compared.unwrap_or_default()
    );
    let missing = results.missing.iter();
    head.extend(missing.map(|m| format!("\nMISSING {}: {}", m.experiment, m.reason)));
    let mut parts = vec![match format {
        Format::Csv => format!("# {}\n", head.replace('\n', "\n# ")),
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

/// `host info`: the device and the spec peaks behind the percentage columns.
pub fn device_table(d: &DeviceInfo) -> TableData {
    let kib = |b: u64| format!("{} KiB", b / 1024);
    let mhz = |khz: u32| format!("{} MHz", khz / 1000);
    let (major, minor) = d.compute_capability;
    let l2 = format!("{} MiB", d.l2_bytes as f64 / (1 << 20) as f64);
    let memory = format!("{:.1} GiB", d.total_mem_bytes as f64 / (1u64 << 30) as f64);
    let regs_per_block = d.max_regs_per_block.to_string();
    let optin = kib(d.smem_per_block_optin);
    let fp32 = format!("{:.0} GFLOP/s", d.peak_fp32_gflops);
    let rows = [
        ("Device", format!("{} (ordinal {})", d.name, d.ordinal)),
        ("Compute capability", format!("{major}.{minor}")),
        ("SMs", d.sm_count.to_string()),
        ("SM clock (max)", mhz(d.sm_clock_khz)),
        ("Memory clock (peak)", mhz(d.mem_clock_khz)),
        ("Memory bus", format!("{} bits", d.mem_bus_width_bits)),
        ("L2 cache", l2),
        ("Registers per SM", d.regs_per_sm.to_string()),
        ("Registers per block (max)", regs_per_block),
        ("Shared memory per SM", kib(d.smem_per_sm)),
        ("Shared memory per block", kib(d.smem_per_block)),
        ("Shared memory per block (opt-in)", optin),
        ("Threads per SM (max)", d.max_threads_per_sm.to_string()),
        ("Blocks per SM (max)", d.max_blocks_per_sm.to_string()),
        ("Warp size", d.warp_size.to_string()),
        ("Memory", memory),
        ("Driver", d.driver_version.clone()),
        ("FP32 peak (spec)", fp32),
        ("DRAM peak (spec)", format!("{:.1} GB/s", d.peak_dram_gbps)),
    ];
    let mut t = TableData::new(
        "Device",
        &["Property", "Value"],
        rows.into_iter()
            .map(|(k, v)| vec![k.to_owned(), v])
            .collect(),
    );
    t.notes.push(
        "spec peaks: FP32 = SMs x FP32 lanes x 2 x max SM clock; DRAM = 2 x memory clock x bus \
         width; figures above them are flagged, not reported as fact"
            .to_owned(),
    );
    t
}

/// Writes `results.json`, `tables.md` and `NAME.csv` for each experiment present into `dir`,
/// creating it. Returns the files written.
pub fn write_results(dir: &Path, results: &RunResults) -> Result<Vec<PathBuf>, ResultsIoError> {
    std::fs::create_dir_all(dir).map_err(|source| ResultsIoError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let json = serde_json::to_string_pretty(results).map_err(|source| ResultsIoError::Json {
        path: dir.join("results.json"),
        source,
    })?;
    let mut written = vec![write(dir.join("results.json"), &(json + "\n"))?];
    let m = &results.meta;
    let md = format!(
        "{}\n- command: `{}`\n- date: {}\n- toolchain: {}\n- tool: host {}\n- driver: {}\n",
        render_results(results, Format::Markdown),
        m.command,
        m.date,
        m.toolchain,
        m.tool_version,
        results.device.driver_version
    );
    written.push(write(dir.join("tables.md"), &md)?);
    for (name, table) in tables(results) {
        written.push(write(dir.join(format!("{name}.csv")), &to_csv(&table))?);
    }
    Ok(written)
}

/// A results.json's text as a run. Every figure's samples are counted in the text first
/// ([`check_sample_counts`]: a figure holds at most what the lab takes), so a file of millions of
/// samples is refused before it is loaded; then it is loaded. The error names the field where it
/// stopped (e.g. `occupancy.rows[0].timing.samples_ms: ...`).
pub fn parse_results(bytes: &[u8]) -> Result<RunResults, String> {
    check_sample_counts(bytes)?;
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let results: RunResults =
        serde_path_to_error::deserialize(&mut json).map_err(|e| e.to_string())?;
    json.end().map_err(|e| e.to_string())?;
    Ok(results)
}

/// Reads the run in folder `dir`: its `results.json`, or a committed run's `results.json.gz`
/// (`run_json`), through [`parse_results`].
pub fn read_run(dir: &Path) -> Result<RunResults, ResultsIoError> {
    let (path, read) = crate::run_json::read_run_json(dir, MAX_RESULTS_BYTES);
    let bytes = read.map_err(|e| ResultsIoError::Read {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    parse_results(&bytes).map_err(|reason| ResultsIoError::Parse { path, reason })
}

/// Reads a `results.json` (a regular file of at most [`MAX_RESULTS_BYTES`]) through
/// [`parse_results`].
pub fn read_results(path: &Path) -> Result<RunResults, ResultsIoError> {
    let bytes = read_regular(path, MAX_RESULTS_BYTES).map_err(|e| ResultsIoError::Read {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    parse_results(&bytes).map_err(|reason| ResultsIoError::Parse {
        path: path.to_owned(),
        reason,
    })
}
