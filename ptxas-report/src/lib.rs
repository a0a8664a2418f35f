//! What the PTX toolchain says about a module's kernels, read by both the PTX build (`xtask`, at
//! build time) and the running host, so it lives in its own small crate: the resource report of
//! ptxas (`ptxas -v`, `nvcc -Xptxas -v`) and of the driver JIT's info log, one record per entry
//! function (below), the entries' parameter lists of a PTX module ([`entry_params`]), and its
//! entries kept, dropped or capped as text ([`ptx_entries`]); where the toolkit's tools and
//! libraries are ([`toolkit`]), and one run of ptxas ([`run`]).
//!
//! The report's format:
//! ```text
//! ptxas info    : Compiling entry function 'gemm_tm8_tn8' for 'sm_90'
//! ptxas info    : Function properties for gemm_tm8_tn8
//!     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//! ptxas info    : Used 168 registers, used 1 barriers, 4384 bytes smem, 400 bytes cmem[0]
//! ```

pub mod entry_params;
pub mod ptx_entries;
pub mod run;
pub mod toolkit;

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// One entry's resources as ptxas reports them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryReport {
    pub name: String,
    /// `sm_XX` it was compiled for, when the report says.
    pub arch: Option<String>,
    pub registers: u32,
    pub stack_frame: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// Static shared memory, bytes.
    pub shared: u32,
    pub barriers: u32,
}

/// A report that names an entry but lacks one of its two lines.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportError {
    #[error("ptxas report: entry `{0}` has a `Used ... registers` line but no `Function properties` block")]
    MissingProperties(String),
    #[error("ptxas report: no `Used ... registers` line for entry `{0}`")]
    MissingUsage(String),
}

static COMPILING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Compiling entry function '([^']+)' for '([^']+)'").unwrap());
static PROPERTIES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Function properties for (\S+)").unwrap());
static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
        .unwrap()
});
static USED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"Used (\d+) registers(.*)").unwrap());
static BARRIERS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"used (\d+) barriers").unwrap());
static SMEM: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(\d+) bytes smem").unwrap());

/// Parses a ptxas `-v` report (or a driver JIT info log) into one record per entry function.
/// Device functions (properties without a `Compiling entry function` line) are skipped.
pub fn parse_report(text: &str) -> Result<Vec<EntryReport>, ReportError> {
    #[derive(Default)]
    struct Partial {
        name: String,
        arch: Option<String>,
        frame: Option<(u32, u32, u32)>,
        properties_seen: bool,
    }
    let num = |s: &str| s.parse::<u32>().unwrap_or(u32::MAX);
    let mut out = Vec::new();
    let mut current: Option<Partial> = None;
    let mut in_properties_of: Option<String> = None;
    for line in text.lines() {
        if let Some(c) = COMPILING.captures(line) {
            current = Some(Partial {
                name: c[1].to_string(),
                arch: Some(c[2].to_string()),
                ..Default::default()
            });
            in_properties_of = None;
        } else if let Some(c) = PROPERTIES.captures(line) {
            in_properties_of = Some(c[1].to_string());
            if let Some(p) = current.as_mut().filter(|p| p.name == c[1]) {
                p.properties_seen = true;
            }
        } else if let Some(c) = FRAME.captures(line) {
            if let (Some(p), Some(of)) = (current.as_mut(), in_properties_of.as_deref()) {
                if p.name == of {
                    p.frame = Some((num(&c[1]), num(&c[2]), num(&c[3])));
                }
            }
        } else if let Some(c) = USED.captures(line) {
            let Some(p) = current.take() else { continue };
            let (stack_frame, spill_stores, spill_loads) = p
                .frame
                .ok_or_else(|| ReportError::MissingProperties(p.name.clone()))?;
            let rest = &c[2];
            out.push(EntryReport {
                name: p.name,
                arch: p.arch,
                registers: num(&c[1]),
                stack_frame,
                spill_stores,
                spill_loads,
                shared: SMEM.captures(rest).map_or(0, |s| num(&s[1])),
                barriers: BARRIERS.captures(rest).map_or(0, |s| num(&s[1])),
            });
            in_properties_of = None;
        }
    }
    if let Some(p) = current {
        return Err(ReportError::MissingUsage(p.name));
    }
    Ok(out)
}
