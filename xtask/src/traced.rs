//! The traced twins' bar: a GEMM line's `_traced` entry (kernels-gpu `sections/block_trace.rs`)
//! is only a measurement of its timed entry if ptxas builds it with the same resources, so in
//! every module that holds a GEMM line's entry, its traced twin must be there too with the same
//! blocks per SM: registers that hold as many blocks, the same static shared memory and
//! barriers ([`TracedCheck::bad`]). Where the exact register count or the spill bytes differ
//! all the same, [`TracedCheck::inexact`] says so (the Rust build's sm_90 modules have none).

use kernels_gpu::entries;
use kernels_gpu::variants::{BF16_GEMM, GEMM, WGEMM};

use crate::ptxas::EntryReport;

/// Every GEMM line's (timed entry, traced entry), in every module's table order: the FP32 lines,
/// the BF16 ones, then the sm_90a module's.
pub fn traced_pairs() -> impl Iterator<Item = (&'static str, &'static str)> {
    traced_lines().map(|(e, t, _)| (e, t))
}

/// [`traced_pairs`] with each line's threads per block.
fn traced_lines() -> impl Iterator<Item = (&'static str, &'static str, u32)> {
    GEMM.iter()
        .map(|v| (v.entry, v.traced_entry(), v.threads()))
        .chain(
            BF16_GEMM
                .iter()
                .map(|v| (v.entry, v.traced_entry(), v.threads())),
        )
        .chain(
            WGEMM
                .iter()
                .map(|v| (v.entry, v.traced_entry(), v.threads())),
        )
}

/// Blocks of `threads` an SM's 64K registers hold at `registers` a thread (allocated per warp in
/// units of [`REGISTER_UNIT`] a thread).
fn register_blocks(registers: u32, threads: u32) -> u32 {
    let per_warp = registers.div_ceil(REGISTER_UNIT) * REGISTER_UNIT * 32;
    65_536 / (per_warp * threads.div_ceil(32)).max(1)
}

/// The timed entry that `name` is the traced twin of, if it is one.
pub fn timed_of(name: &str) -> Option<&'static str> {
    entries::entry(name)
        .and_then(|e| e.traces)
        .or_else(|| traced_pairs().find(|(_, t)| *t == name).map(|(e, _)| e))
}

/// Registers are allocated to a thread in units of this many (a warp's in units of 256), so two
/// counts in the same unit give the same blocks per SM.
pub const REGISTER_UNIT: u32 = 8;

/// What one module's report says of its traced twins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TracedCheck {
    /// Traced entries compared with their timed entry.
    pub compared: usize,
    /// Departures that change what the trace measures: registers that let an SM hold another
    /// number of blocks, other static shared memory or barriers, a twin or entry missing.
    pub bad: Vec<String>,
    /// Departures that leave the blocks per SM alone: other register counts holding as many
    /// blocks, spill bytes (the build keeps the body; ptxas allocates the stamps' few registers).
    pub inexact: Vec<String>,
}

/// The resources that decide blocks per SM, as (what, value), for a block of `threads`.
fn occupancy(e: &EntryReport, threads: u32) -> [(&'static str, u32); 3] {
    [
        (
            "blocks per SM by registers",
            register_blocks(e.registers, threads),
        ),
        ("static shared bytes", e.shared),
        ("barriers", e.barriers),
    ]
}

/// The exact counts beside them, as (what, value).
fn exact(e: &EntryReport) -> [(&'static str, u32); 3] {
    [
        ("registers", e.registers),
        ("spill store bytes", e.spill_stores),
        ("spill load bytes", e.spill_loads),
    ]
}

/// One line per resource of `a` (the traced entry's) that differs from `b` (the timed one's).
fn differences<const N: usize>(
    module: &str,
    (timed, traced): (&str, &str),
    a: [(&'static str, u32); N],
    b: [(&'static str, u32); N],
) -> Vec<String> {
    a.into_iter()
        .zip(b)
        .filter(|((_, got), (_, want))| got != want)
        .map(|((what, got), (_, want))| {
            format!("{module}: {traced} has {got} {what}, its timed entry {timed} {want}")
        })
        .collect()
}

/// Checks `module`'s ptxas report (`entries`): each traced entry against its timed entry, and
/// every GEMM line's entry that the module holds against a missing twin.
pub fn check(module: &str, entries: &[EntryReport]) -> TracedCheck {
    let mut out = TracedCheck::default();
    let find = |name: &str| entries.iter().find(|e| e.name == name);
    for (timed, traced, threads) in traced_lines() {
        match (find(timed), find(traced)) {
            (None, None) => {}
            (Some(_), None) => out.bad.push(format!(
                "{module}: {timed} has no traced twin ({traced} missing)"
            )),
            (None, Some(_)) => out.bad.push(format!(
                "{module}: {traced} without the entry it traces ({timed})"
            )),
            (Some(t), Some(r)) => {
                out.compared += 1;
                let pair = (timed, traced);
                out.bad.extend(differences(
                    module,
                    pair,
                    occupancy(r, threads),
                    occupancy(t, threads),
                ));
                out.inexact
                    .extend(differences(module, pair, exact(r), exact(t)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(name: &str, registers: u32, spill: u32) -> EntryReport {
        EntryReport {
            name: name.to_string(),
            arch: Some("sm_90".into()),
            registers,
            stack_frame: 0,
            spill_stores: spill,
            spill_loads: spill,
            shared: 4680,
            barriers: 1,
        }
    }

    #[test]
    fn traced_twins_are_held_to_their_entries_resources() {
        let c = GEMM.iter().find(|v| v.label == "C").unwrap();
        let (e, t) = (c.entry, c.traced_entry());
        assert_eq!(timed_of(t), Some(e));
        assert_eq!(timed_of(WGEMM[0].traced_entry()), Some(WGEMM[0].entry));
        assert_eq!(timed_of(e), None);
        let same = check("m", &[report(e, 128, 0), report(t, 128, 0)]);
        assert_eq!(
            same,
            TracedCheck {
                compared: 1,
                ..TracedCheck::default()
            }
        );
        // One register fewer (C's 64 threads: 8 blocks either way), and spills: inexact.
        let close = check("m", &[report(e, 128, 8), report(t, 127, 0)]);
        assert_eq!((close.compared, close.bad.len()), (1, 0));
        assert_eq!(close.inexact.len(), 3, "{:?}", close.inexact);
        assert!(close.inexact[0].contains("127 registers") && close.inexact[0].contains("128"));
        // 136 registers allocated: 7 blocks per SM, not 8.
        let worse = check("m", &[report(e, 128, 0), report(t, 130, 0)]);
        assert_eq!(worse.bad.len(), 1, "{:?}", worse.bad);
        assert!(
            worse.bad[0].contains("7 blocks per SM by registers"),
            "{:?}",
            worse.bad
        );
        assert_eq!(register_blocks(209, 256), register_blocks(208, 256));
        let lonely = check("m", &[report(e, 128, 0)]);
        assert_eq!((lonely.compared, lonely.bad.len()), (0, 1));
        assert!(lonely.bad[0].contains("no traced twin"));
        let orphan = check("m", &[report(t, 128, 0)]);
        assert!(orphan.bad[0].contains("without the entry"));
        assert_eq!(
            check("m", &[report("fma_ilp1", 20, 0)]),
            TracedCheck::default()
        );
    }
}
