//! The sm_90a module (`kernels_sm90a.ptx`): the wgmma entries of the variant table's
//! The sm_90a module (`kernels_sm90a.ptx`): the wgmma entries of the variant table's
//! `wgmma_bf16` section (each with `.maxntid 128`, one warpgroup per block), its `gemm_wgmma`
//! section (each with its line's threads and `.minnctapersm 1`, and each line's traced twin
//! bounded as its entry) and the bulk-copy lines of its
//! `smem_copy` section (`tma_copy`, each bounded to its block), built by
//! [`PtxBuild::hopper`](crate::ptx::PtxBuild::hopper), and the bars its ptxas report must
//! clear: no serialized wgmma (ptxas warnings C7510-C7515), no spill and no stack frame on any
//! of its entries.

use std::path::{Path, PathBuf};

use kernels_gpu::variants::{
    RingMma, SmemPath, WgemmVariant, SMEM_COPY, WARPGROUP_THREADS, WGEMM, WGMMA_BF16,
};

use crate::modules::ModulesError;
use crate::ptx::{self, PtxError, HOPPER_ARCH};
use crate::ptxas::{self, EntryReport};
use ptxas_report::ptx_entries::{keep_entries, patch_entries};

/// The module's file name.
pub const HOPPER_FILE: &str = "kernels_sm90a.ptx";

/// Every entry of the module: the microbenchmark's, the GEMM's, the bulk copies', then the GEMM
/// lines' traced twins.
pub fn hopper_entries() -> impl Iterator<Item = &'static str> {
    WGMMA_BF16
        .iter()
        .map(|v| v.entry)
        .chain(WGEMM.iter().map(|v| v.entry))
        .chain(bulk_copies().map(|(e, _)| e))
        .chain(WGEMM.iter().map(|v| v.traced_entry()))
}

/// The GEMM line whose entry, or traced twin, is `entry`.
pub fn wgemm_line(entry: &str) -> Option<&'static WgemmVariant> {
    WGEMM
        .iter()
        .find(|v| v.entry == entry || v.traced_entry() == entry)
}

/// Whether `entry` is one of the wgmma lines (microbenchmark or GEMM; not the GEMM section's
/// mma.sync lines).
pub fn is_wgmma_entry(entry: &str) -> bool {
    WGMMA_BF16.iter().any(|v| v.entry == entry)
        || wgemm_line(entry).is_some_and(|v| v.mma == RingMma::Wgmma)
}

/// The bulk-copy lines of the `smem_copy` section (`tma_copy`), which only this module holds:
/// each entry with its block size.
fn bulk_copies() -> impl Iterator<Item = (&'static str, u32)> {
    SMEM_COPY
        .iter()
        .filter(|l| l.path == SmemPath::Bulk)
        .map(|l| (l.entry, l.threads))
}

/// The launch bounds of one of the module's entries: one warpgroup for the microbenchmark; the
/// line's warpgroups and one block per SM for the GEMM (its blocks are persistent, and
/// `setmaxnreg` shares the register file of one block), and a cluster line's cluster; its
/// block for a bulk copy. nvcc's twin is held to the same (`twin::hopper_mismatches`). A GEMM
/// line's traced twin is bounded as its entry.
pub fn launch_bounds(entry: &str) -> String {
    if let Some(v) = wgemm_line(entry) {
        // A line whose blocks pair up declares its cluster, so that a plain launch runs it in
        // clusters (its grid a multiple of the cluster).
        let cluster = if v.cluster > 1 {
            format!("\n.reqnctapercluster {}, 1, 1", v.cluster)
        } else {
            String::new()
        };
        return format!(".maxntid {}, 1, 1\n.minnctapersm 1{cluster}", v.threads());
    }
    let threads = bulk_copies()
        .find(|(b, _)| *b == entry)
        .map_or(WARPGROUP_THREADS, |(_, t)| t);
    format!(".maxntid {threads}, 1, 1")
}

/// The module from the sm_90a build's plain PTX: every line's entry and nothing else, each with
/// its launch bounds.
pub fn render(plain: &str) -> Result<String, PtxError> {
    let found = ptx::entries(plain);
    if let Some(missing) = hopper_entries().find(|e| !found.iter().any(|f| f == e)) {
        return Err(PtxError::MissingEntry(missing.to_string()));
    }
    let kept = keep_entries(plain, |e| hopper_entries().any(|h| h == e))?;
    patch_entries(&kept, |name| Ok(Some(launch_bounds(name))))
}

/// Writes the module into `dir` and returns its path.
pub fn write(plain: &str, dir: &Path) -> Result<PathBuf, ModulesError> {
    let path = dir.join(HOPPER_FILE);
    let text = render(plain)?;
    std::fs::write(&path, text).map_err(|source| ModulesError::Io {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// ptxas's log lines that say it serialized a wgmma pipeline: the warnings C7510-C7515 (e.g.
/// accumulators touched while an MMA is in flight, a call inside the pipeline), or any line
/// naming wgmma as serialized, should a later ptxas number them otherwise.
pub fn serialization_warnings(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| {
            let coded = (7510..=7515).any(|c| l.contains(&format!("(C{c})")));
            let worded = l.contains("wgmma") && l.contains("serializ");
            coded || worded
        })
        .map(str::trim)
        .collect()
}

/// The bars of the sm_90a module, one line per violation (empty when all hold): every line
/// assembled, without stack frame or spills, its GEMM lines' traced twins built as their entries
/// ([`crate::traced`]), and no serialization warning in the log.
pub fn check_bars(log: &str) -> Vec<String> {
    let mut bad: Vec<String> = serialization_warnings(log)
        .into_iter()
        .map(|w| format!("{HOPPER_ARCH}: ptxas serialized a wgmma: {w}"))
        .collect();
    let entries: Vec<EntryReport> = match ptxas::parse_report(log) {
        Ok(e) => e,
        Err(e) => {
            bad.push(format!("{HOPPER_ARCH}: ptxas's report does not parse: {e}"));
            return bad;
        }
    };
    bad.extend(crate::traced::check(HOPPER_FILE, &entries).bad);
    for entry in hopper_entries() {
        match entries.iter().find(|e| e.name == entry) {
            None => bad.push(format!(
                "{HOPPER_ARCH}: {entry} missing from {HOPPER_FILE}'s report"
            )),
            Some(e) if e.stack_frame != 0 || e.spill_stores != 0 || e.spill_loads != 0 => {
                bad.push(format!(
                    "{HOPPER_ARCH}: {entry} has a {} byte stack frame, {} bytes spill stores, {} \
                     bytes spill loads (want 0)",
                    e.stack_frame, e.spill_stores, e.spill_loads
                ))
            }
            Some(_) => {}
        }
    }
    bad
}

/// The cubin [`assemble`] writes for the module in `dir`.
pub fn cubin(dir: &Path) -> PathBuf {
    dir.join(HOPPER_FILE.replace(".ptx", &format!(".{HOPPER_ARCH}.cubin")))
}

/// Assembles the module in `dir` for sm_90a (the cubin, [`cubin`], and the kept log beside it)
/// and returns ptxas's log.
pub fn assemble(ptxas_path: &Path, dir: &Path) -> Result<String, ModulesError> {
    Ok(ptxas::assemble_log(
        ptxas_path,
        &dir.join(HOPPER_FILE),
        HOPPER_ARCH,
        &cubin(dir),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ptxas -v's lines for one entry.
    fn entry_report(name: &str, spill_bytes: u32) -> String {
        format!(
            "ptxas info    : Compiling entry function '{name}' for 'sm_90a'\n\
             ptxas info    : Function properties for {name}\n\
             \x20   0 bytes stack frame, {spill_bytes} bytes spill stores, {spill_bytes} bytes spill loads\n\
             ptxas info    : Used 154 registers, used 1 barriers\n"
        )
    }

    fn clean_log() -> String {
        hopper_entries().map(|e| entry_report(e, 0)).collect()
    }

    #[test]
    fn a_clean_report_clears_the_bars() {
        assert_eq!(check_bars(&clean_log()), Vec::<String>::new());
    }

    #[test]
    fn a_serialized_wgmma_fails_the_build() {
        let entry = WGMMA_BF16[0].entry;
        for warning in [
            format!(
                "ptxas warning : (C7515) Potential Performance Loss: wgmma.mma_async instructions \
                 are serialized due to the presence of Extern calls in the function '{entry}'."
            ),
            format!(
                "ptxas warning : (C7510) Potential Performance Loss: wgmma.mma_async instructions \
                 are serialized due to a wgmma pipeline crossing function boundary at a function \
                 call in the function '{entry}'."
            ),
            // Worded, whatever a later ptxas numbers it.
            format!("ptxas warning : (C7599) wgmma pipeline serialized in '{entry}'"),
        ] {
            let log = format!("{}{warning}\n", clean_log());
            let bad = check_bars(&log);
            assert_eq!(bad.len(), 1, "{bad:?}");
            assert!(
                bad[0].contains("serialized a wgmma") && bad[0].contains(entry),
                "{bad:?}"
            );
        }
        // Other warnings pass.
        let log = format!("{}ptxas warning : (C7500) something else\n", clean_log());
        assert!(check_bars(&log).is_empty());
    }

    #[test]
    fn a_spill_or_a_missing_wgmma_entry_fails_the_build() {
        let (spilling, missing) = (WGEMM[0].entry, WGMMA_BF16[2].entry);
        // The line's traced twin spills as it does: both fail the spill bar.
        let spills = |e: &str| e == spilling || e == WGEMM[0].traced_entry();
        let log: String = hopper_entries()
            .filter(|e| *e != missing)
            .map(|e| entry_report(e, if spills(e) { 8 } else { 0 }))
            .collect();
        let bad = check_bars(&log);
        assert_eq!(bad.len(), 3, "{bad:?}");
        assert!(bad
            .iter()
            .any(|b| b.contains(spilling) && b.contains("8 bytes spill stores")));
        assert!(bad
            .iter()
            .any(|b| b.contains(missing) && b.contains("missing")));
    }

    fn entry_ptx(name: &str) -> String {
        format!(".visible .entry {name}(\n\t.param .u32 {name}_param_0\n)\n{{\n\tret;\n}}\n")
    }

    #[test]
    fn the_module_keeps_its_entries_with_their_launch_bounds() {
        let header = ".version 8.0\n.target sm_90a\n.address_size 64\n\n";
        let mut plain = format!("{header}{}", entry_ptx("fma_ilp1"));
        for e in hopper_entries() {
            plain.push_str(&entry_ptx(e));
        }
        let module = render(&plain).unwrap();
        assert!(!module.contains("fma_ilp1"), "{module}");
        let bounded_128 = bulk_copies().filter(|&(_, t)| t == 128).count();
        assert_eq!(
            module.matches(".maxntid 128, 1, 1").count(),
            WGMMA_BF16.len() + bounded_128
        );
        for e in hopper_entries() {
            assert!(module.contains(&format!(".entry {e}(")));
        }
        for v in WGEMM {
            let body = &module[module.find(&format!(".entry {}(", v.entry)).unwrap()..];
            let bounds = format!(".maxntid {}, 1, 1\n.minnctapersm 1", v.threads());
            assert!(body.contains(&bounds), "{}: {body}", v.entry);
        }
        // Each bulk-copy line bounded to its own block.
        for (e, t) in bulk_copies() {
            let at = module.find(&format!(".entry {e}(")).unwrap();
            let bound = format!(".maxntid {t}, 1, 1");
            assert!(module[at..].contains(&bound), "{e}: {bound}");
        }
        let without = plain.replace(&entry_ptx(bulk_copies().next().unwrap().0), "");
        assert!(matches!(render(&without), Err(PtxError::MissingEntry(_))));
        let without_last = plain.replace(&entry_ptx(WGMMA_BF16[0].entry), "");
        assert!(matches!(
            render(&without_last),
            Err(PtxError::MissingEntry(e)) if e == WGMMA_BF16[0].entry
        ));
    }
}
