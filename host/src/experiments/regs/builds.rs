//! The checked builds the `regs` claims compare, and how a claim writes one: the passing caps in
//! cap order (none judged while a passing cap's spill bytes are unknown), their spill bytes, and
//! a build in words.

use super::row::RegsRow;
use crate::claim::{with_exclusions, NOT_RUN};
use crate::experiments::contract::Row;
use crate::experiments::row_views::two_passing;

pub fn spill_bytes(r: &RegsRow) -> u64 {
    r.spill_stores as u64 + r.spill_loads as u64
}

/// The passing caps in cap order and the failed ones' labels, or why the claims cannot be judged.
pub fn regs_rows(rows: Option<&[RegsRow]>) -> Result<(Vec<&RegsRow>, Vec<String>), String> {
    let rows = rows.ok_or(NOT_RUN)?;
    // The claims compare spill bytes: a passing cap without them leaves nothing to judge.
    let mut unknown: Vec<&RegsRow> = rows
        .iter()
        .filter(|r| r.measured.check.passed && r.spills_unknown)
        .collect();
    if !unknown.is_empty() {
        unknown.sort_by_key(|r| r.cap);
        let unknown: Vec<String> = unknown.iter().map(|r| r.label()).collect();
        let failed: Vec<String> = rows
            .iter()
            .filter(|r| !r.measured.check.passed)
            .map(Row::label)
            .collect();
        let why = format!(
            "spill bytes unknown (no compiler report) for {}",
            unknown.join(", ")
        );
        return Err(with_exclusions(why, &failed));
    }
    let (mut ok, failed) = two_passing(rows, "register caps")?;
    ok.sort_by_key(|r| r.cap);
    Ok((ok, failed))
}

/// "cap 128 (128 regs, 0 spill B) 15000 GFLOP/s": a build with its default size's GFLOP/s.
pub fn rg(r: &RegsRow) -> String {
    format!(
        "cap {} ({} regs, {} spill B) {:.0} GFLOP/s",
        r.cap,
        r.figures.regs,
        spill_bytes(r),
        r.figures.gflops
    )
}

/// "cap 128 (128 regs, 0 spill B)": a build without its default size's GFLOP/s (a verdict judged
/// at whole waves gives both sizes' figures after it).
pub fn build(r: &RegsRow) -> String {
    format!(
        "cap {} ({} regs, {} spill B)",
        r.cap,
        r.figures.regs,
        spill_bytes(r)
    )
}
