//! The sm_90a module (`kernels_sm90a.ptx`): the wgmma entries of the variant table's
//! `wgmma_bf16` section, built by [`PtxBuild::hopper`](crate::ptx::PtxBuild::hopper), each with
//! `.maxntid 128` (one warpgroup per block), and the bars its ptxas report must clear: no
//! serialized wgmma (ptxas warnings C7510-C7515), no spill and no stack frame on a wgmma entry.

use std::path::{Path, PathBuf};

use kernels_gpu::variants::{WARPGROUP_THREADS, WGMMA_BF16};

use crate::modules::ModulesError;
use crate::ptx::{self, PtxError, HOPPER_ARCH};
use crate::ptxas::{self, EntryReport};

/// The module's file name.
pub const HOPPER_FILE: &str = "kernels_sm90a.ptx";

/// Whether `entry` is one of the wgmma lines.
pub fn is_wgmma_entry(entry: &str) -> bool {
    WGMMA_BF16.iter().any(|v| v.entry == entry)
}

/// The module from the sm_90a build's plain PTX: every wgmma line's entry and nothing else,
/// each bounded to one warpgroup.
pub fn render(plain: &str) -> Result<String, PtxError> {
    let found = ptx::entries(plain);
    if let Some(missing) = WGMMA_BF16
        .iter()
        .find(|v| !found.iter().any(|e| e == v.entry))
    {
        return Err(PtxError::MissingEntry(missing.entry.to_string()));
    }
    let kept = ptx::keep_entries(plain, is_wgmma_entry)?;
    ptx::patch_entries(&kept, |_| {
        Ok(Some(format!(".maxntid {WARPGROUP_THREADS}, 1, 1")))
    })
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

/// The bars of the sm_90a module, one line per violation (empty when all hold): every wgmma
/// line assembled, without stack frame or spills, and no serialization warning in the log.
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
    for v in WGMMA_BF16 {
        match entries.iter().find(|e| e.name == v.entry) {
            None => bad.push(format!(
                "{HOPPER_ARCH}: {} missing from {HOPPER_FILE}'s report",
                v.entry
            )),
            Some(e) if e.stack_frame != 0 || e.spill_stores != 0 || e.spill_loads != 0 => {
                bad.push(format!(
                    "{HOPPER_ARCH}: {} has a {} byte stack frame, {} bytes spill stores, {} bytes \
                     spill loads (want 0)",
                    v.entry, e.stack_frame, e.spill_stores, e.spill_loads
                ))
            }
            Some(_) => {}
        }
    }
    bad
}

/// Assembles the module in `dir` for sm_90a (the cubin and the kept log beside it) and returns
/// ptxas's log.
pub fn assemble(ptxas_path: &Path, dir: &Path) -> Result<String, ModulesError> {
    let cubin = dir.join(HOPPER_FILE.replace(".ptx", &format!(".{HOPPER_ARCH}.cubin")));
    Ok(ptxas::assemble_log(
        ptxas_path,
        &dir.join(HOPPER_FILE),
        HOPPER_ARCH,
        &cubin,
    )?)
}
