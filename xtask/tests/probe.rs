//! The probe of what caps `mma.sync` in the BF16 GEMM's main loop (`nvcc/probe_mma_loop.cu`):
//! built by nvcc for sm_90, each mode's main loop must issue what its name says (read from the
//! SASS), with no spills, so that a difference in its time is the difference in its
//! instructions. Without nvcc the test is listed as ignored, with the reason.

use std::path::{Path, PathBuf};

// The SASS readers (the build tests use the rest).
#[allow(dead_code)]
mod listing;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The mnemonics of `function`'s loops in nvdisasm's listing ([`listing::sass_loops`]), guards
/// dropped and padding under `@!PT` (never issued) left out.
fn sass_loops<'a>(sass: &'a str, function: &str) -> Vec<Vec<&'a str>> {
    listing::sass_loops(sass, function)
        .into_iter()
        .map(|code| {
            code.into_iter()
                .filter(|c| !c.starts_with("@!PT "))
                .filter_map(listing::sass_mnemonic)
                .collect()
        })
        .collect()
}

/// How many of `code` are `mnemonic` exactly.
fn count(code: &[&str], mnemonic: &str) -> usize {
    code.iter().filter(|m| **m == mnemonic).count()
}

#[test]
#[cfg_attr(
    not(lab_nvcc),
    ignore = "needs nvcc: set NVCC or install the CUDA toolkit (xtask/src/nvcc/mod.rs, NOT_FOUND)"
)]
fn each_probe_mode_issues_what_its_name_says() {
    let dir = workspace().join("target/test-probe");
    std::fs::create_dir_all(&dir).unwrap();
    let cubin = dir.join("probe_mma_loop.cubin");
    let nvcc = xtask::nvcc::find().expect("the build script found nvcc");
    let out = std::process::Command::new(&nvcc)
        .args(["-arch=sm_90", "-O3", "-cubin", "-Xptxas", "-v", "-o"])
        .arg(&cubin)
        .arg(workspace().join("nvcc/probe_mma_loop.cu"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{report}");
    let spill_lines: Vec<&str> = report.lines().filter(|l| l.contains("spill")).collect();
    assert!(
        !spill_lines.is_empty()
            && spill_lines
                .iter()
                .all(|l| l.contains("0 bytes spill stores")),
        "{report}"
    );
    let sass = listing::nvdisasm(&cubin);
    // Mode: (name, ldmatrix, barriers, cp.async, 16-byte stores, 4-byte stores) a slice of four
    // k16 steps, each step 32 MMAs; modes 0 and 1 run one step a loop trip, four unrolled.
    let modes = [
        ("same", 0, 0, 0, 0, 0),
        ("tile", 0, 0, 0, 0, 0),
        ("ldsm", 32, 0, 0, 0, 0),
        ("ldsm_bar", 32, 1, 0, 0, 0),
        ("copy", 32, 1, 12, 0, 0),
        ("stores", 32, 1, 0, 12, 0),
        ("third", 32, 1, 8, 4, 0),
        ("narrow", 32, 1, 0, 0, 12),
        ("spread", 32, 1, 0, 12, 0),
        ("copy_spr", 32, 1, 12, 0, 0),
    ];
    for (mode, (name, ldsm, bars, copies, wide, narrow)) in modes.into_iter().enumerate() {
        let function = format!("_Z5probeILi{mode}EEvPKtPfiPK5uint4j");
        let loops = sass_loops(&sass, &function);
        let main = loops
            .iter()
            .max_by_key(|l| count(l, "HMMA.16816.F32.BF16"))
            .unwrap_or_else(|| panic!("{name}: no loop"));
        let got = (
            count(main, "HMMA.16816.F32.BF16"),
            count(main, "LDSM.16.M88.4") + count(main, "LDSM.16.MT88.4"),
            count(main, "BAR.SYNC.DEFER_BLOCKING"),
            count(main, "LDGSTS.E.BYPASS.LTC128B.128"),
            count(main, "STS.128"),
            count(main, "STS"),
        );
        assert_eq!(
            got,
            (128, ldsm, bars, copies, wide, narrow),
            "{name} ({function}): (HMMA, LDSM, BAR, LDGSTS, STS.128, STS) in its main loop"
        );
        // Nothing else moves memory in the loop: the copies, stores and fragment loads above are
        // all of it.
        let others: Vec<&&str> = main
            .iter()
            .filter(|m| {
                (m.starts_with("LD") || m.starts_with("ST"))
                    && !m.starts_with("LDSM")
                    && !m.starts_with("LDGSTS")
                    && !m.starts_with("LDGDEPBAR")
                    && **m != "STS.128"
                    && **m != "STS"
            })
            .collect();
        assert!(others.is_empty(), "{name}: {others:?}");
    }
}
