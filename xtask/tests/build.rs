//! The PTX build and ptxas on every module, for sm_80 and sm_90, against the bars the lab
//! promises. ptxas is required (CI installs it); these tests fail, not skip, without it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kernels_gpu::entries;
use kernels_gpu::sections::block_trace::{TRACE_BLOCKS, TRACE_SYMBOL, WORDS_PER_BLOCK};
use kernels_gpu::variants::{
    self, FmaOp, MmaIlpVariant, RingMma, SmemPath, WgemmVariant, BF16_GEMM, CHASE, FMA,
    FMA_CONTROLS, FMA_UNROLL, GEMM, MEMCPY_GRID, MMA_ILP, PERSISTENT_COPY, READ, REGS, SMEM_COPY,
    WGEMM,
};
use xtask::modules::{self, Manifest, Module, ModuleKind};
use xtask::ptx::{self, PtxBuild, HOPPER_ARCH};
use xtask::{hopper, ptxas, traced};

// The readers of PTX and SASS (the SASS loops and mnemonics are the twin's and the probe's).
#[allow(dead_code)]
mod listing;
use listing::{
    body_of, chain_lengths, fma_operands, fp32_instructions, is_op_form, loops, mma_operands,
    nvdisasm, MMA,
};

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
    // The GEMM check's module: its two entries, each with the table's bound.
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
    e.registers = lowest + 8;
    e.spill_stores = 0;
    let bad = modules::check_bars(&manifest);
    assert!(
        bad.iter().any(|l| l.contains(&format!("cap {lowest}"))),
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

/// Each FMA kernel has a loop of 16 rounds (16 x ILP fmas, in ILP chains of 16), the peer's
/// inner loop, and at most one more that runs several such trips per iteration (fma.rs,
/// `trips_per_iteration`: within 128 fmas, as nvcc unrolls the peer's loop); in every loop the
/// ILP chains stay separate and none is vectorized.
#[test]
fn fma_loops_hold_ilp_separate_chains_of_16() {
    let ptx = plain_ptx();
    for v in FMA {
        let body = body_of(ptx, v.entry);
        let all_loops = loops(body);
        assert!(
            (1..=2).contains(&all_loops.len()),
            "{}: the 16-round loop and at most one unrolled loop",
            v.entry
        );
        let mut trips = Vec::new();
        for lp in &all_loops {
            assert!(
                !lp.iter()
                    .any(|l| l.contains("f32x2") || l.contains(".v2") || l.contains(".v4")),
                "{}: nothing vectorized",
                v.entry
            );
            let fmas: Vec<[&str; 4]> = lp.iter().filter_map(|l| fma_operands(l)).collect();
            assert_eq!(
                lp.iter().filter(|l| l.contains("fma")).count(),
                fmas.len(),
                "{}: every fma is fma.rn.f32",
                v.entry
            );
            // Every fma takes the same multiplier and addend (the a and b parameters).
            assert!(fmas.iter().all(|f| f[2..] == fmas[0][2..]), "{}", v.entry);
            let per_trip = FMA_UNROLL * v.ilp;
            assert_eq!(
                fmas.len() as u32 % per_trip,
                0,
                "{}: whole trips of 16 x ILP fmas",
                v.entry
            );
            let n = fmas.len() as u32 / per_trip;
            assert_eq!(
                chain_lengths(&fmas),
                vec![FMA_UNROLL * n; v.ilp as usize],
                "{}: ILP chains of dependent fmas, none merged",
                v.entry
            );
            trips.push(n);
        }
        trips.sort_unstable();
        assert_eq!(trips[0], 1, "{}: a loop of exactly 16 x ILP fmas", v.entry);
        if let Some(&n) = trips.get(1) {
            assert!(
                n > 1 && n * FMA_UNROLL * v.ilp <= 128,
                "{}: the unrolled loop runs {n} trips",
                v.entry
            );
        }
    }
}

#[test]
fn the_chase_loads_bypass_l1_one_after_another() {
    let body = body_of(plain_ptx(), CHASE.entry);
    let all_loops = loops(body);
    assert!(!all_loops.is_empty(), "the chase has a loop");
    for lp in &all_loops {
        let loads: Vec<&&str> = lp.iter().filter(|l| l.starts_with("ld.")).collect();
        assert!(!loads.is_empty());
        assert!(
            loads.iter().all(|l| l.starts_with("ld.global.cg.u32")),
            "{loads:?}"
        );
    }
    assert_eq!(
        body.matches("%clock64").count(),
        2,
        "clock read before and after"
    );
    assert_eq!(body.matches("%globaltimer").count(), 2);
}

/// Each mma microbenchmark has a loop of exactly one round (ILP mma) and at most one more that
/// runs `rounds_per_iteration` rounds; in every loop the ILP accumulators are separate register
/// groups, each updated in place round after round, all from the same A and B fragments.
#[test]
fn mma_loops_hold_ilp_independent_accumulators() {
    let ptx = plain_ptx();
    for v in MMA_ILP {
        let body = body_of(ptx, v.entry);
        let mma_loops: Vec<Vec<&str>> = loops(body)
            .into_iter()
            .filter(|lp| lp.iter().any(|l| l.starts_with("mma.")))
            .collect();
        assert!(
            (1..=2).contains(&mma_loops.len()),
            "{}: the one-round loop and at most one unrolled loop",
            v.entry
        );
        let mut counts = Vec::new();
        for lp in &mma_loops {
            let mmas: Vec<[&str; 4]> = lp.iter().filter_map(|l| mma_operands(l)).collect();
            assert_eq!(
                lp.iter().filter(|l| l.starts_with("mma.")).count(),
                mmas.len(),
                "{}: every mma is {MMA}",
                v.entry
            );
            assert!(
                mmas.iter()
                    .all(|[d, a, b, c]| d == c && [a, b] == [&mmas[0][1], &mmas[0][2]]),
                "{}: accumulators updated in place, the same fragments throughout",
                v.entry
            );
            let mut groups: Vec<&str> = mmas.iter().map(|m| m[0]).collect();
            groups.sort_unstable();
            groups.dedup();
            assert_eq!(groups.len() as u32, v.ilp, "{}: ILP accumulators", v.entry);
            let registers: Vec<&str> = groups.iter().flat_map(|g| g.split(", ")).collect();
            let mut distinct = registers.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(
                distinct.len(),
                registers.len(),
                "{}: no shared register",
                v.entry
            );
            for g in &groups {
                assert_eq!(
                    mmas.iter().filter(|m| m[0] == *g).count() * v.ilp as usize,
                    mmas.len(),
                    "{}: every accumulator runs the same rounds",
                    v.entry
                );
            }
            counts.push(mmas.len() as u32);
        }
        counts.sort_unstable();
        assert_eq!(counts[0], v.ilp, "{}: a loop of exactly one round", v.entry);
        if let Some(&n) = counts.get(1) {
            assert_eq!(
                n,
                MmaIlpVariant::rounds_per_iteration(v.ilp) * v.ilp,
                "{}: the unrolled loop",
                v.entry
            );
        }
    }
}

/// Each BF16 GEMM entry is built on m16n8k16 BF16 mma fed by ldmatrix (plain for A, .trans for
/// B) from shared memory filled by 16-byte cp.async that zero-fill by their source size.
#[test]
fn bf16_gemms_use_the_tensor_core_path() {
    let ptx = plain_ptx();
    for v in BF16_GEMM {
        let body = body_of(ptx, v.entry);
        let lines: Vec<&str> = body.lines().map(str::trim).collect();
        let mma = lines.iter().filter(|l| l.starts_with("mma.")).count();
        assert!(
            mma > 0 && lines.iter().filter(|l| l.starts_with(MMA)).count() == mma,
            "{}: every mma is {MMA}",
            v.label
        );
        // The K loop of each of the two bodies (16-byte and element-wise staging) issues one
        // mma per accumulator tile and k-step; the count is a multiple of that.
        let per_slice = (v.shape.m_tiles() * v.shape.n_tiles() * v.shape.k_steps()) as usize;
        assert_eq!(mma % per_slice, 0, "{}: {mma} mma", v.label);
        assert!(
            body.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16")
                && body.contains("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"),
            "{}",
            v.label
        );
        assert!(
            body.contains("cp.async.cg.shared.global [") && body.contains("], 16, n;"),
            "{}: zero-filling 16-byte copies",
            v.label
        );
        assert!(
            !body.contains("ld.shared.f32") && !body.contains(".local"),
            "{}",
            v.label
        );
    }
}

/// Every control, and the FFMA it controls, is built by ptxas (sm_90) to the instruction its op
/// names: the FADD and FMUL read two vector registers, the immediate and constant FFMAs one
/// (the constant as `c[..]` or a uniform register), the sweep's FFMA three (nvdisasm as
/// [`listing::nvdisasm`] finds it).
#[test]
fn fma_controls_assemble_to_their_instruction() {
    let (_, manifest) = built("sm_90");
    let main = manifest
        .modules
        .iter()
        .find(|m| m.module.kind == ModuleKind::Main)
        .expect("the main module");
    let dir = workspace()
        .join("target")
        .join("test-kernels")
        .join("sm_90");
    let sass = nvdisasm(&dir.join(&main.cubin));
    for v in FMA.iter().filter(|v| v.ilp <= 2).chain(FMA_CONTROLS) {
        let ins = fp32_instructions(&sass, v.entry);
        let of_op = ins.iter().filter(|i| is_op_form(v.op, i)).count();
        // A loop of 16 rounds at least, and no other form of the op's instruction (the final
        // sum of ILP chains is its own FADD of two registers).
        assert!(
            of_op >= (FMA_UNROLL * v.ilp) as usize,
            "{}: {of_op} instructions of the form {}; FP32 instructions: {ins:?}",
            v.entry,
            v.op.sass()
        );
        let sum = |i: &&(String, Vec<String>)| is_op_form(FmaOp::Fadd, i);
        let strays: Vec<_> = ins
            .iter()
            .filter(|i| !is_op_form(v.op, i) && !sum(i))
            .collect();
        assert!(
            strays.is_empty(),
            "{}: not {}: {strays:?}",
            v.entry,
            v.op.sass()
        );
    }
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

/// A line in clusters of two hands a slot back to the other block's producer with a plain remote
/// arrival: a release at cluster scope compiled to `MEMBAR.ALL.GPU` and `ERRBAR` before each
/// arrival, which held W5 at 0.59 of cuBLAS (results/2026-12-04-h200-s22b); with the default
/// semantics it ran at W1's speed (S22c). Lines of one block arrive on their own barrier only.
#[test]
fn cluster_lines_arrive_on_the_other_block_without_a_cluster_fence() {
    let remote = "mbarrier.arrive.shared::cluster.b64";
    let mut pairs = 0;
    for v in WGEMM.iter().filter(|v| v.mma == RingMma::Wgmma) {
        let body = body_of(hopper_ptx(), v.entry);
        assert!(
            !body.contains("mbarrier.arrive.release.cluster"),
            "{}: a cluster-scope release before an arrival",
            v.label
        );
        if v.cluster > 1 {
            assert!(
                body.contains("mapa.shared::cluster") && body.contains(remote),
                "{}",
                v.label
            );
            pairs += 1;
        } else {
            assert!(
                !body.contains(remote),
                "{}: a remote arrival alone in its cluster",
                v.label
            );
        }
    }
    assert!(pairs > 0, "no line of the table runs clusters of two");
}

/// The K loops of a wgmma line's entry in `sass`: its innermost loops of HGMMAs that store nothing
/// to global memory (a loop of whole tiles, epilogue included, may hold the HGMMAs of a unit of
/// one K step).
fn wgmma_k_loops<'a>(sass: &'a str, v: &WgemmVariant) -> Vec<Vec<&'a str>> {
    let k_loops: Vec<_> = listing::sass_inner_loops(sass, v.entry, "HGMMA")
        .into_iter()
        .filter(|lp| count_ops(lp, "STG") == 0)
        .collect();
    assert!(!k_loops.is_empty(), "{}: no K loop", v.label);
    k_loops
}

/// The instructions of `code` whose mnemonic starts with `op`.
fn count_ops(code: &[&str], op: &str) -> usize {
    code.iter()
        .filter(|c| listing::sass_mnemonic(c).is_some_and(|m| m.starts_with(op)))
        .count()
}

/// The consumers' K loops build their slot addresses and wgmma descriptors on the uniform
/// datapath: the consumer warpgroup's index comes through lane 0 (`gpu::from_lane0`), so ptxas
/// knows it warp-uniform. Computed from the thread index instead, W9's K loop built each
/// descriptor in vector registers and moved it across with an R2UR per word (124 SASS
/// instructions a slot against 94). Lines that stage C keep a few R2URs (ptxas keeps their slot
/// index in a vector register, for a reason not found: W1's K loop, with the same C prefetch,
/// does not): printed, not failed.
#[test]
fn wgmma_k_loops_build_descriptors_on_the_uniform_datapath() {
    let (_, cubin) = hopper_built();
    let sass = listing::nvdisasm(cubin);
    let mut guarded = 0;
    for v in WGEMM.iter().filter(|v| v.mma == RingMma::Wgmma) {
        let k_loops = wgmma_k_loops(&sass, v);
        let r2ur: Vec<usize> = k_loops.iter().map(|lp| count_ops(lp, "R2UR")).collect();
        let sizes: Vec<usize> = k_loops.iter().map(Vec::len).collect();
        eprintln!(
            "{}: K loops of {sizes:?} instructions, R2UR {r2ur:?}",
            v.label
        );
        if v.stages_c() {
            continue;
        }
        assert!(
            r2ur.iter().all(|&n| n == 0),
            "{}: R2UR in a K loop {r2ur:?}: its descriptors are built in vector registers",
            v.label
        );
        guarded += 1;
    }
    assert!(guarded > 0, "no wgmma line guarded");
}

/// Each K loop builds a slot's two descriptors once, an address brought to 16-byte units by a
/// right shift of 4 each, and every MMA of the slot (four k16 steps, two halves on a 128-row
/// tile of turns) advances them by an add (`descriptor_advanced`). Built at each MMA's address,
/// they cost a shift and two masks an MMA (W9: 12 shifts a slot; its K loop 95 instructions
/// against 67).
#[test]
fn wgmma_k_loops_build_each_slots_descriptors_once() {
    let (_, cubin) = hopper_built();
    let sass = listing::nvdisasm(cubin);
    for v in WGEMM.iter().filter(|v| v.mma == RingMma::Wgmma) {
        let shifts: Vec<usize> = wgmma_k_loops(&sass, v)
            .iter()
            .map(|lp| {
                lp.iter()
                    .filter(|c| {
                        listing::sass_mnemonic(c)
                            .is_some_and(|m| m.starts_with("SHF.R") || m.starts_with("USHF.R"))
                            && c.contains(", 0x4, ")
                    })
                    .count()
            })
            .collect();
        assert!(
            shifts.iter().all(|&n| n <= 2),
            "{}: {shifts:?} right shifts by 4 in its K loops: descriptors built at each MMA",
            v.label
        );
    }
}
