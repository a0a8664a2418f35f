//! The PTX build and ptxas on every module, for sm_80 and sm_90, against the bars the lab
//! promises. ptxas is required (CI installs it); these tests fail, not skip, without it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kernels_gpu::variants::{GEMM, MEMCPY, REGS};
use xtask::modules::{self, Manifest, Module, ModuleKind};
use xtask::ptx::{self, PtxBuild};
use xtask::ptxas;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The plain PTX, built once per test binary.
fn plain_ptx() -> &'static str {
    static PTX: OnceLock<String> = OnceLock::new();
    PTX.get_or_init(|| {
        PtxBuild::new(&workspace(), "sm_80")
            .compile()
            .expect("the kernel build")
    })
}

/// Writes and assembles the modules for `arch`. Serialized: tests run in parallel and two of them
/// assemble the same folder.
fn built(arch: &str) -> (Vec<Module>, Manifest) {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = workspace().join("target").join("test-kernels").join(arch);
    let written = modules::write_all(plain_ptx(), &dir).expect("writing modules");
    let ptxas = ptxas::find().expect(
        "ptxas is required for these tests: install the CUDA toolkit or nvidia-cuda-nvcc==13.0.88 and set PTXAS",
    );
    let manifest =
        modules::assemble_all(&ptxas, &written, &dir, arch).expect("ptxas on every module");
    (written, manifest)
}

#[test]
fn ptx_has_exactly_the_table_entries() {
    let found = ptx::entries(plain_ptx());
    let mut want: Vec<&str> = GEMM
        .iter()
        .map(|v| v.entry)
        .chain(MEMCPY.iter().map(|v| v.entry))
        .collect();
    let mut got: Vec<&str> = found.iter().map(String::as_str).collect();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want);
    assert!(
        !plain_ptx().contains(".local"),
        "no local memory in the compiler's PTX"
    );
}

#[test]
fn launch_bounds_come_from_the_table() {
    let main = ptx::with_launch_bounds(plain_ptx()).unwrap();
    for v in GEMM {
        assert!(
            directive_of(&main, v.entry).contains(&format!(".maxntid {}, 1, 1", v.threads())),
            "{}",
            v.label
        );
    }
    for v in MEMCPY {
        assert!(
            directive_of(&main, v.entry).contains(&format!(".maxntid {}, 1, 1", v.threads)),
            "{}",
            v.label
        );
    }
    let capped = ptx::with_register_cap(plain_ptx(), 64).unwrap();
    assert!(
        !capped.contains(".maxntid"),
        "a capped module carries no launch bounds"
    );
    assert_eq!(
        capped.matches(".maxnreg 64").count(),
        GEMM.len() + MEMCPY.len()
    );
}

/// The text between an entry's name and its body.
fn directive_of<'a>(ptx: &'a str, entry: &str) -> &'a str {
    let start = ptx.find(&format!(".entry {entry}(")).unwrap();
    let body = start + ptx[start..].find("\n{").unwrap();
    &ptx[start..body]
}

#[test]
fn dynamic_shared_memory_is_declared_once_at_module_scope() {
    let declaration = format!(
        ".extern .shared .align 16 .b8 {}[];",
        ptx::DYNAMIC_SHARED_SYMBOL
    );
    let ptx = plain_ptx();
    assert_eq!(ptx.matches(&declaration).count(), 1, "declared once");
    let at = ptx.find(&declaration).unwrap();
    let first_entry = ptx.find(".entry").unwrap();
    assert!(at < first_entry, "at module scope, before every function");
    assert_eq!(
        ptx::declare_dynamic_shared(ptx),
        ptx,
        "declaring twice changes nothing"
    );
    // Only the tuned family uses it: a module without it gets no declaration.
    let none = ".version 7.8\n.target sm_90\n.address_size 64\n";
    assert_eq!(ptx::declare_dynamic_shared(none), none);
}

#[test]
fn a_module_missing_an_entry_is_rejected() {
    let renamed = plain_ptx().replace("memcpy_t32_l14_w4", "memcpy_t32_l14_w3");
    let err = ptx::with_launch_bounds(&renamed).unwrap_err().to_string();
    assert!(err.contains("memcpy_t32_l14_w3"), "{err}");
}

fn check_arch(arch: &str) {
    let (written, manifest) = built(arch);
    assert_eq!(manifest.modules.len(), written.len());
    for m in &manifest.modules {
        assert_eq!(
            m.entries.len(),
            GEMM.len() + MEMCPY.len(),
            "{}: every entry reported",
            m.module.file
        );
        assert!(m.entries.iter().all(|e| e.arch.as_deref() == Some(arch)));
    }
    let bad = modules::check_bars(&manifest);
    assert!(bad.is_empty(), "bars not met:\n{}", bad.join("\n"));
    // The bars, spelled out for the record.
    let c = REGS.gemm().entry;
    let regs: Vec<u32> = REGS
        .caps
        .iter()
        .map(|&cap| {
            manifest
                .entry(ModuleKind::Capped { cap }, c)
                .unwrap()
                .registers
        })
        .collect();
    eprintln!("{arch}: {c} registers at caps {:?}: {regs:?}", REGS.caps);
    for v in GEMM {
        let e = manifest.entry(ModuleKind::Main, v.entry).unwrap();
        eprintln!(
            "{arch}: {:<3} {:<16} {:>3} regs, {} B stack",
            v.label, v.entry, e.registers, e.stack_frame
        );
    }
}

#[test]
fn ptxas_sm90_every_module_meets_the_bars() {
    check_arch("sm_90");
}

#[test]
fn ptxas_sm80_every_module_meets_the_bars() {
    check_arch("sm_80");
}

#[test]
fn the_bars_catch_a_cap_that_does_not_bind() {
    let (_, mut manifest) = built("sm_90");
    let c = REGS.gemm().entry;
    let lowest = REGS.caps[0];
    let m = manifest
        .modules
        .iter_mut()
        .find(|m| m.module.kind == ModuleKind::Capped { cap: lowest })
        .unwrap();
    let e = m.entries.iter_mut().find(|e| e.name == c).unwrap();
    e.registers = lowest + 8;
    e.spill_stores = 0;
    let bad = modules::check_bars(&manifest);
    assert!(
        bad.iter().any(|l| l.contains(&format!("cap {lowest}"))),
        "{bad:?}"
    );
}
