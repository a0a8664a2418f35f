//! Golden files: the driver's answer for many kernel configurations, and replaying them through
//! the calculator.
//!
//! Format: CSV (read and written with the `csv` crate) with a header row; lines starting with `#`
//! are comments, and one comment line `# attributes: {json}` records the device's
//! [`DeviceAttributes`].

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::arch::{Arch, Limits};
use super::calc::{occupancy, KernelResources};
use super::device_limits::DeviceAttributes;

/// The column names, in order.
pub const HEADER: &str = "entry,reg_cap,threads,regs,static_smem,dyn_smem,driver_blocks";
const ATTRS_PREFIX: &str = "# attributes: ";

/// One configuration and the driver's resident blocks per SM for it (a CSV record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldenRow {
    /// Kernel entry point the row was measured on.
    pub entry: String,
    /// `CU_JIT_MAX_REGISTERS` the module was compiled with (0: none).
    pub reg_cap: u32,
    pub threads: u32,
    /// Registers per thread the JIT produced.
    pub regs: u32,
    pub static_smem: u32,
    pub dyn_smem: u32,
    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
    pub driver_blocks: u32,
}

impl GoldenRow {
    pub fn kernel(&self) -> KernelResources {
        KernelResources {
            threads: self.threads,
            regs_per_thread: self.regs,
            static_smem: self.static_smem,
            dyn_smem: self.dyn_smem,
        }
    }
}

/// A golden file in memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GoldenFile {
    pub attributes: DeviceAttributes,
    pub rows: Vec<GoldenRow>,
}

/// A golden file that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GoldenError {
    #[error("line {line}: {what}")]
    Line { line: usize, what: String },
    #[error("no `{ATTRS_PREFIX}` line with the device attributes")]
    NoAttributes,
    #[error("the device (compute capability {0}.{1}) is not in the architecture table")]
    UnknownDevice(u32, u32),
}

impl GoldenFile {
    /// Parses the text of a golden file.
    pub fn parse(text: &str) -> Result<GoldenFile, GoldenError> {
        let attributes = text
            .lines()
            .enumerate()
            .find_map(|(i, line)| {
                let json = line.trim().strip_prefix(ATTRS_PREFIX)?;
                Some(serde_json::from_str(json).map_err(|e| GoldenError::Line {
                    line: i + 1,
                    what: e.to_string(),
                }))
            })
            .ok_or(GoldenError::NoAttributes)??;
        let mut reader = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let header = reader.headers().map_err(|e| csv_error(&e))?.clone();
        if header.iter().collect::<Vec<_>>().join(",") != HEADER {
            return Err(GoldenError::Line {
                line: header.position().map_or(0, |p| p.line() as usize),
                what: format!("expected the header `{HEADER}`"),
            });
        }
        let rows = reader
            .deserialize()
            .collect::<Result<Vec<GoldenRow>, _>>()
            .map_err(|e| csv_error(&e))?;
        Ok(GoldenFile { attributes, rows })
    }

    /// The file's text.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let a = &self.attributes;
        let _ = writeln!(
            s,
            "# cuOccupancyMaxActiveBlocksPerMultiprocessor on {} (compute capability {}.{})",
            a.name, a.compute_capability.0, a.compute_capability.1
        );
        let _ = writeln!(s, "# recorded by `host calc --record-golden`");
        let _ = writeln!(
            s,
            "{ATTRS_PREFIX}{}",
            serde_json::to_string(a).unwrap_or_default()
        );
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        for r in &self.rows {
            // Writing records of plain fields to memory cannot fail.
            let _ = w.serialize(r);
        }
        if self.rows.is_empty() {
            let _ = writeln!(s, "{HEADER}");
        }
        s + &String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// The table entry for the recorded device.
    pub fn table_limits(&self) -> Result<Limits, GoldenError> {
        let (ma, mi) = self.attributes.compute_capability;
        Arch::from_compute_capability(ma, mi)
            .map(Arch::limits)
            .ok_or(GoldenError::UnknownDevice(ma, mi))
    }
}

fn csv_error(e: &csv::Error) -> GoldenError {
    GoldenError::Line {
        line: e.position().map_or(0, |p| p.line() as usize),
        what: e.to_string(),
    }
}

/// A row where the calculator and the driver disagree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    pub row: GoldenRow,
    /// The calculator's blocks per SM (0 when it says the kernel cannot launch).
    pub calculated: u32,
    pub error: Option<String>,
}

/// The outcome of replaying rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Replay {
    pub checked: usize,
    pub mismatches: Vec<Mismatch>,
}

/// Runs every row through the calculator with `limits`; a kernel the calculator says cannot
/// launch must have zero blocks from the driver.
pub fn replay(rows: &[GoldenRow], limits: &Limits) -> Replay {
    let mismatches = rows
        .iter()
        .filter_map(|row| {
            let (calculated, error) = match occupancy(limits, &row.kernel()) {
                Ok(o) => (o.blocks_per_sm, None),
                Err(e) => (0, Some(e.to_string())),
            };
            (calculated != row.driver_blocks).then(|| Mismatch {
                row: row.clone(),
                calculated,
                error,
            })
        })
        .collect();
    Replay {
        checked: rows.len(),
        mismatches,
    }
}

/// Differences between the table's limits and what the device reports: (field, table, device).
pub fn table_vs_device(table: &Limits, device: &Limits) -> Vec<(&'static str, u32, u32)> {
    table
        .reported_fields()
        .into_iter()
        .zip(device.reported_fields())
        .filter(|((_, t), (_, d))| t != d)
        .map(|((name, t), (_, d))| (name, t, d))
        .collect()
}

impl Replay {
    /// A short report: the count and the first `show` mismatches.
    pub fn summary(&self, show: usize) -> String {
        let mut s = format!(
            "{} configurations checked, {} mismatches\n",
            self.checked,
            self.mismatches.len()
        );
        for m in self.mismatches.iter().take(show) {
            let r = &m.row;
            let _ = writeln!(
                s,
                "  {} (cap {}): {} threads, {} regs, {} B static, {} B dynamic: driver {}, calculator {}{}",
                r.entry,
                r.reg_cap,
                r.threads,
                r.regs,
                r.static_smem,
                r.dyn_smem,
                r.driver_blocks,
                m.calculated,
                m.error.as_deref().map(|e| format!(" ({e})")).unwrap_or_default()
            );
        }
        if self.mismatches.len() > show {
            let _ = writeln!(s, "  ... and {} more", self.mismatches.len() - show);
        }
        s
    }
}
