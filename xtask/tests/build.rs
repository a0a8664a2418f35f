//! The PTX build and ptxas on every module, for sm_80 and sm_90, against the bars the lab
//! promises. ptxas is required (CI installs it); these tests fail, not skip, without it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kernels_gpu::entries;
use kernels_gpu::sections::block_trace::{TRACE_BLOCKS, TRACE_SYMBOL, WORDS_PER_BLOCK};
use kernels_gpu::variants::{
    self, SmemPath, BF16_GEMM, CHASE, FMA, FMA_CONTROLS, GEMM, MEMCPY_GRID, MMA_ILP,
    PERSISTENT_COPY, READ, REGS, SMEM_COPY, WGEMM,
};
use xtask::modules::{self, Manifest, Module, ModuleKind};
use xtask::ptx::{self, PtxBuild, HOPPER_ARCH};
use xtask::{hopper, ptxas, traced};

// The readers of PTX and SASS (the SASS loops and mnemonics are the twin's and the probe's).
#[allow(dead_code)]
mod listing;
use listing::{body_of, nvdisasm};

// The loops' instruction shapes, in PTX and SASS.
mod build_shape;

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

/// The plain sm_90a PTX (the wgmma entries), built once per test binary.
fn hopper_ptx() -> &'static str {
    static PTX: OnceLock<String> = OnceLock::new();
    PTX.get_or_init(|| {
        PtxBuild::hopper(&workspace())
            .compile()
            .expect("the sm_90a kernel build")
    })
}

/// Writes and assembles the modules for `arch`, once per test binary. Serialized: tests run in
/// parallel and two of them would assemble the same folder.
fn built(arch: &str) -> (Vec<Module>, Manifest) {
    type Built = (Vec<Module>, Manifest);
    static BUILT: std::sync::Mutex<Vec<(String, Built)>> = std::sync::Mutex::new(Vec::new());
    let mut done = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, b)) = done.iter().find(|(a, _)| a == arch) {
        return b.clone();
    }
    let dir = workspace().join("target").join("test-kernels").join(arch);
    let written = modules::write_all(plain_ptx(), &dir).expect("writing modules");
    let manifest =
        modules::assemble_all(&ptxas_path(), &written, &dir, arch).expect("ptxas on every module");
    done.push((arch.to_string(), (written.clone(), manifest.clone())));
    (written, manifest)
}

/// The sm_90a module written and assembled once per test binary: ptxas's log and the cubin.
fn hopper_built() -> &'static (String, PathBuf) {
    static BUILT: OnceLock<(String, PathBuf)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = workspace()
            .join("target")
            .join("test-kernels")
            .join(HOPPER_ARCH);
        std::fs::create_dir_all(&dir).unwrap();
        hopper::write(hopper_ptx(), &dir).expect("writing the sm_90a module");
        let log = hopper::assemble(&ptxas_path(), &dir).expect("ptxas on the sm_90a module");
        (log, hopper::cubin(&dir))
    })
}

fn ptxas_path() -> PathBuf {
    ptxas::find().expect(
        "ptxas is required for these tests: install the CUDA toolkit or nvidia-cuda-nvcc==13.0.88 and set PTXAS",
    )
}

#[test]
fn ptx_has_exactly_the_table_entries() {
    let found = ptx::entries(plain_ptx());
    let mut want: Vec<&str> = entries::all_entries().map(|e| e.name).collect();
    assert_eq!(
        want.len(),
        GEMM.len() + 198 + FMA.len() + FMA_CONTROLS.len() + 1 + 3 + BF16_GEMM.len() + MMA_ILP.len()
            + READ.len()
            + SMEM_COPY.iter().filter(|l| l.path == SmemPath::CpAsync).count()
            + 2 * PERSISTENT_COPY.len()
            + GEMM.len()
            + BF16_GEMM.len(),
        "GEMM, the 6 x 11 x 3 memcpy grid (the peer's 198), FMA and its controls, chase, the GEMM check's three, BF16 GEMM, mma, read, the cp.async copies, the persistent copies and their sampled builds, the GEMM lines' traced twins"
    );
    let mut got: Vec<&str> = found.iter().map(String::as_str).collect();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want);
    assert!(
        !plain_ptx().contains(".local"),
        "no local memory in the compiler's PTX"
    );
}

/// The sm_90a build compiles the sm_90a lines' entries and no other (`kernel_entry!(sm90a: ..)`),
/// and the plain build none of them.
#[test]
fn each_build_compiles_only_its_own_entries() {
    let mut got = ptx::entries(hopper_ptx());
    let mut want: Vec<String> = hopper::hopper_entries().map(String::from).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
    let plain = ptx::entries(plain_ptx());
    let stray: Vec<_> = want.iter().filter(|e| plain.contains(e)).collect();
    assert!(
        stray.is_empty(),
        "sm_90a entries in the plain build: {stray:?}"
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
    for p in MEMCPY_GRID {
        assert!(
            directive_of(&main, p.entry).contains(&format!(".maxntid {}, 1, 1", p.threads)),
            "{}",
            p.entry
        );
    }
    for v in BF16_GEMM {
        assert!(
            directive_of(&main, v.entry).contains(&format!(".maxntid {}, 1, 1", v.threads())),
            "{}",
            v.label
        );
    }
    // Launched with many block sizes (fma, mma) or one thread (chase): no bound.
    for entry in FMA
        .iter()
        .chain(FMA_CONTROLS)
        .map(|v| v.entry)
        .chain(MMA_ILP.iter().map(|v| v.entry))
        .chain([CHASE.entry])
    {
        assert!(!directive_of(&main, entry).contains(".maxntid"), "{entry}");
    }
    let capped = ptx::with_register_cap(plain_ptx(), 64).unwrap();
    assert!(
        !capped.contains(".maxntid"),
        "a capped module carries no launch bounds"
    );
    assert_eq!(ptx::entries(&capped), ptx::capped_entries());
    assert_eq!(
        capped.matches(".maxnreg 64").count(),
        ptx::capped_entries().len()
    );
    assert!(capped.contains(&format!(".entry {}(", REGS.gemm().entry)));
    // The GEMM check's module: its three entries, each with the table's bound.
    let checks = ptx::with_check_entries(plain_ptx()).unwrap();
    let mut found = ptx::entries(&checks);
    found.sort_unstable();
    let mut want = entries::check_entries();
    want.sort_unstable();
    assert_eq!(found, want);
    assert!(directive_of(&checks, variants::GEMM_REF.entry)
        .contains(&format!(".maxntid {}, 1, 1", variants::GEMM_REF.threads())));
    assert!(directive_of(&checks, variants::GEMM_CHECK.entry)
        .contains(&format!(".maxntid {}, 1, 1", variants::GEMM_CHECK.threads)));
    assert!(directive_of(&checks, variants::GEMM_HASH.entry)
        .contains(&format!(".maxntid {}, 1, 1", variants::GEMM_HASH.threads)));
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
    let all = entries::all_entries().count();
    // The BF16 lines' entries and their traced twins, and the mma entries.
    let tensor = 2 * BF16_GEMM.len() + MMA_ILP.len();
    for m in &manifest.modules {
        let want = match m.module.kind {
            ModuleKind::Capped { .. } => ptx::capped_entries().len(),
            ModuleKind::Checks => entries::check_entries().len(),
            ModuleKind::Tensor => tensor,
            ModuleKind::Main | ModuleKind::Unbounded => all - tensor,
        };
        assert_eq!(
            m.entries.len(),
            want,
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
    for v in BF16_GEMM {
        let e = manifest.entry(ModuleKind::Tensor, v.entry).unwrap();
        eprintln!(
            "{arch}: {:<3} {:<48} {:>3} regs, {} B stack, {} B dynamic shared",
            v.label,
            v.entry,
            e.registers,
            e.stack_frame,
            v.dynamic_shared_bytes()
        );
    }
    for (kind, entry) in FMA
        .iter()
        .chain(FMA_CONTROLS)
        .map(|v| (ModuleKind::Main, v.entry))
        .chain(MMA_ILP.iter().map(|v| (ModuleKind::Tensor, v.entry)))
        .chain([(ModuleKind::Main, CHASE.entry)])
    {
        let e = manifest.entry(kind, entry).unwrap();
        eprintln!("{arch}: {entry:<16} {:>3} regs", e.registers);
    }
    // Grid copies that stage more floats than their launch bound leaves registers for spill by
    // construction: recorded, not failed (check_bars holds the rest spill-free).
    let spills = modules::grid_spills(&manifest);
    eprintln!("{arch}: {} grid copies spill:", spills.len());
    for line in &spills {
        eprintln!("  {line}");
    }
    assert!(
        MEMCPY_GRID
            .iter()
            .filter(|p| modules::fits_registers(p))
            .count()
            > MEMCPY_GRID.len() / 2,
        "most of the grid is held spill-free"
    );
}

#[test]
fn ptxas_sm90_every_module_meets_the_bars() {
    check_arch("sm_90");
}

#[test]
fn ptxas_sm80_every_module_meets_the_bars() {
    check_arch("sm_80");
}

/// ptxas runs with `--split-compile=0` wherever it takes it (`ptxas_report::run`), on the ground
/// that it then writes the same SASS and the same report, sooner: the main module for sm_80, as
/// the build assembled it, against ptxas run on it again without the flag.
#[test]
fn a_split_compile_writes_the_same_sass_and_report() {
    let ptxas = ptxas_path();
    if !ptxas_report::run::takes_split_compile(&ptxas) {
        // An older toolkit's ptxas has no split compile, and nothing is split; the lab's (13.x,
        // as CI installs it) must take it, or this test would check nothing there.
        let version = std::process::Command::new(&ptxas)
            .arg("--version")
            .output()
            .unwrap();
        let version = String::from_utf8_lossy(&version.stdout);
        assert!(
            !version.contains("release 13."),
            "{} is 13.x but takes no --split-compile: {version}",
            ptxas.display()
        );
        eprintln!(
            "{} takes no --split-compile: nothing is split",
            ptxas.display()
        );
        return;
    }
    let (_, manifest) = built("sm_80");
    let dir = workspace()
        .join("target")
        .join("test-kernels")
        .join("sm_80");
    let main = manifest
        .modules
        .iter()
        .find(|r| r.module.kind == ModuleKind::Main)
        .expect("a main module");
    let whole = dir.join("main.unsplit.sm_80.cubin");
    let out = std::process::Command::new(&ptxas)
        .args(["-arch=sm_80", "-v"])
        .arg(dir.join(&main.module.file))
        .arg("-o")
        .arg(&whole)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert_eq!(ptxas::parse_report(&log).unwrap(), main.entries);
    assert!(
        nvdisasm(&dir.join(&main.cubin)) == nvdisasm(&whole),
        "the split and the unsplit build's SASS differ"
    );
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
    // Within its cap, but spilling nothing: the lowest cap must bind, and only that rule fires.
    e.registers = e.registers.min(lowest);
    e.spill_stores = 0;
    let bad = modules::check_bars(&manifest);
    assert!(
        bad.iter()
            .any(|l| l.contains(&format!("cap {lowest}")) && l.contains("does not bind")),
        "{bad:?}"
    );
}

#[test]
fn every_entry_takes_its_familys_declared_parameters() {
    let lists = ptx::entry_params(plain_ptx()).unwrap();
    // Every timed entry of the table, and beside them only traced twins (the sm_90a lines' twins
    // are not in this build), each taking its line's family's parameters below.
    let timed: Vec<&str> = entries::entries().map(|e| e.name).collect();
    for name in &timed {
        assert!(lists.iter().any(|(e, _)| e == name), "{name} missing");
    }
    let traced = (lists.iter())
        .filter(|(e, _)| entries::entry(e).is_some_and(|d| d.traces.is_some()))
        .count();
    assert!(traced > 0, "no traced twin in the build");
    assert_eq!(lists.len(), timed.len() + traced);
    for (entry, found) in &lists {
        let decl = entries::entry(entry).unwrap_or_else(|| panic!("{entry} not in the table"));
        assert_eq!(
            found,
            &ptx::declared_ptx_params(decl.params()),
            "{entry}: PTX parameters against the abi line"
        );
    }
    // GEMM keeps the peer's 8-parameter ABI: 3 pointers, 3 ints, 2 floats.
    let gemm = &lists.iter().find(|(e, _)| e == GEMM[0].entry).unwrap().1;
    let shown: Vec<String> = gemm.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            ".u64 .ptr",
            ".u64 .ptr",
            ".u64 .ptr",
            ".u32",
            ".u32",
            ".u32",
            ".f32",
            ".f32"
        ]
    );
}

#[test]
fn a_reordered_parameter_fails_the_build_check() {
    // Swap two parameters of one entry (an int and a float) as a signature change would.
    let entry = GEMM[0].entry;
    let (p3, p6) = (format!("{entry}_param_3"), format!("{entry}_param_6"));
    let ptx = plain_ptx()
        .replace(&format!(".param .u32 {p3}"), "@P3@")
        .replace(&format!(".param .f32 {p6}"), &format!(".param .u32 {p3}"))
        .replace("@P3@", &format!(".param .f32 {p6}"));
    assert_ne!(ptx, plain_ptx());
    let err = ptx::check_matches_table(&ptx).unwrap_err().to_string();
    assert!(err.contains(entry) && err.contains("abi line"), "{err}");
    assert!(ptx::with_launch_bounds(&ptx).is_err());
    // A pointer turned into a plain u64 is caught too.
    let ptx = plain_ptx().replacen(
        &format!(".param .u64 .ptr .align 1 {}_param_0", MEMCPY_GRID[0].entry),
        &format!(".param .u64 {}_param_0", MEMCPY_GRID[0].entry),
        1,
    );
    assert!(ptx::check_matches_table(&ptx).is_err());
}

/// Every GEMM line's traced twin (kernels-gpu `sections/block_trace.rs`), in every module that
/// holds the line's entry (the capped ones and the sm_90a one included): ptxas gives it its timed
/// entry's blocks per SM (registers that hold as many blocks, static shared memory,
/// barriers), so that what the trace measures is the timed build's occupancy; in the sm_90
/// modules also the exact registers and spill bytes. (In the sm_90a module ptxas 13.0 gives the
/// two mma_sync lines' twins one register fewer, as many blocks: printed, not failed.)
#[test]
fn traced_twins_keep_their_entries_resources_in_every_module() {
    let (_, manifest) = built("sm_90");
    for m in &manifest.modules {
        let c = traced::check(&m.module.file, &m.entries);
        assert!(c.bad.is_empty(), "{}", c.bad.join("\n"));
        assert!(c.inexact.is_empty(), "{}", c.inexact.join("\n"));
        let want = match m.module.kind {
            ModuleKind::Main | ModuleKind::Unbounded => GEMM.len(),
            ModuleKind::Capped { .. } => 1,
            ModuleKind::Tensor => BF16_GEMM.len(),
            ModuleKind::Checks => 0,
        };
        assert_eq!(c.compared, want, "{}: traced twins compared", m.module.file);
    }
    let (log, _) = hopper_built();
    let reports = ptxas::parse_report(log).unwrap();
    let c = traced::check(hopper::HOPPER_FILE, &reports);
    assert!(c.bad.is_empty(), "{}", c.bad.join("\n"));
    for line in &c.inexact {
        eprintln!("inexact (same blocks per SM): {line}");
    }
    assert_eq!(c.compared, WGEMM.len(), "sm_90a: traced twins compared");
    for (timed, traced) in traced::traced_pairs() {
        let e = manifest
            .modules
            .iter()
            .flat_map(|m| &m.entries)
            .chain(&reports)
            .find(|e| e.name == traced)
            .unwrap();
        eprintln!("{traced}: {} regs as {timed}", e.registers);
    }
}

/// The block trace is one module global of the contract's name and size, which the traced entries
/// reach and the timed ones do not.
#[test]
fn the_block_trace_is_a_module_global_only_traced_entries_write() {
    let bytes = TRACE_BLOCKS * WORDS_PER_BLOCK * 8;
    let decl = format!(".visible .global .align 8 .b8 {TRACE_SYMBOL}[{bytes}];");
    assert_eq!(plain_ptx().matches(&decl).count(), 1, "{decl}");
    let main = ptx::with_launch_bounds_part_one(plain_ptx()).unwrap();
    let tensor = ptx::with_tensor_entries(plain_ptx()).unwrap();
    let capped = ptx::with_register_cap(plain_ptx(), REGS.caps[0]).unwrap();
    for module in [&main, &tensor, &capped] {
        assert!(module.contains(&decl));
    }
    for (timed, traced) in traced::traced_pairs().filter(|(e, _)| entries::entry(e).is_some()) {
        assert!(
            body_of(plain_ptx(), traced).contains(TRACE_SYMBOL),
            "{traced}"
        );
        assert!(
            !body_of(plain_ptx(), timed).contains(TRACE_SYMBOL),
            "{timed}"
        );
        // Bounded as the entry it traces.
        let module = if ptx::is_tensor_entry(timed) {
            &tensor
        } else {
            &main
        };
        let bounds = |e: &str| {
            directive_of(module, e)
                .rsplit_once(')')
                .unwrap()
                .1
                .to_owned()
        };
        assert!(bounds(timed).contains(".maxntid"), "{timed}");
        assert_eq!(bounds(traced), bounds(timed), "{traced}");
    }
    assert_eq!(
        ptx::entries(&capped),
        [REGS.gemm().entry, REGS.gemm().traced_entry()]
    );
}
