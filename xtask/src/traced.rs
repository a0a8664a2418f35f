//! The traced twins' bar: a GEMM line's `_traced` entry (kernels-gpu `sections/block_trace.rs`)
//! is only a measurement of its timed entry if ptxas builds it with the same resources, so in
//! every module that holds a GEMM line's entry, its traced twin must be there too with the same
//! registers, stack frame, spill stores and loads, static shared memory and barriers.

use kernels_gpu::entries;
use kernels_gpu::variants::{BF16_GEMM, GEMM, WGEMM};

use crate::ptxas::EntryReport;

/// Every GEMM line's (timed entry, traced entry), in every module's table order: the FP32 lines,
/// the BF16 ones, then the sm_90a module's.
pub fn traced_pairs() -> impl Iterator<Item = (&'static str, &'static str)> {
    GEMM.iter()
        .map(|v| (v.entry, v.traced_entry()))
        .chain(BF16_GEMM.iter().map(|v| (v.entry, v.traced_entry())))
        .chain(WGEMM.iter().map(|v| (v.entry, v.traced_entry())))
}

/// The timed entry that `name` is the traced twin of, if it is one.
pub fn timed_of(name: &str) -> Option<&'static str> {
    entries::entry(name)
        .and_then(|e| e.traces)
        .or_else(|| traced_pairs().find(|(_, t)| *t == name).map(|(e, _)| e))
}

/// What one module's report says of its traced twins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TracedCheck {
    /// Traced entries compared with their timed entry.
    pub compared: usize,
    /// One line per departure (a resource that differs, a twin or entry missing).
    pub bad: Vec<String>,
}

/// The resources the bar compares, as (what, value).
fn resources(e: &EntryReport) -> [(&'static str, u32); 6] {
    [
        ("registers", e.registers),
        ("stack frame bytes", e.stack_frame),
        ("spill store bytes", e.spill_stores),
        ("spill load bytes", e.spill_loads),
        ("static shared bytes", e.shared),
        ("barriers", e.barriers),
    ]
}

/// Checks `module`'s ptxas report (`entries`): each traced entry against its timed entry, and
/// every GEMM line's entry that the module holds against a missing twin.
pub fn check(module: &str, entries: &[EntryReport]) -> TracedCheck {
    let mut out = TracedCheck::default();
    let find = |name: &str| entries.iter().find(|e| e.name == name);
    for (timed, traced) in traced_pairs() {
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
                for ((what, want), (_, got)) in resources(t).into_iter().zip(resources(r)) {
                    if want != got {
                        out.bad.push(format!(
                            "{module}: {traced} has {got} {what}, its timed entry {timed} {want}"
                        ));
                    }
                }
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
                bad: vec![]
            }
        );
        let worse = check("m", &[report(e, 128, 0), report(t, 130, 8)]);
        assert_eq!(worse.compared, 1);
        assert_eq!(worse.bad.len(), 3, "{:?}", worse.bad);
        assert!(worse.bad[0].contains("130 registers") && worse.bad[0].contains("128"));
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
