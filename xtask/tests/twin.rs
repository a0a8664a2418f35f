//! nvcc's twin of the kernels (`nvcc/`): its generated header against the variant table (no
//! nvcc needed), and, where nvcc is found, its build for sm_90 and sm_80 through `nvcc/build.sh`
//! held to the table (entries, parameter lists, launch bounds) and to the Rust build's bars
//! (no spills or stack where the Rust module has none, register caps that bind). Without nvcc
//! those tests are listed as ignored, with the reason.

use std::path::{Path, PathBuf};

use kernels_gpu::variants::{
    self, GemmFamily, MmaIlpVariant, BF16_GEMM, GEMM, MMA_ILP, REGS, WGEMM, WGMMA_BF16,
};
use xtask::modules::ModuleKind;
use xtask::traced;
use xtask::twin_header::{self, HEADER, HOPPER_HEADER, HOPPER_SOURCE, SOURCE};

// The SASS readers (the build tests use the rest).
#[allow(dead_code)]
mod listing;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

#[test]
fn the_committed_header_is_the_tables() {
    let committed = std::fs::read_to_string(workspace().join(HEADER)).unwrap();
    assert!(
        committed == twin_header::render().unwrap(),
        "{HEADER} is not the variant table's: run `cargo xtask build --nvcc` to regenerate it \
         (it does so before it looks for nvcc), and commit it"
    );
    let committed = std::fs::read_to_string(workspace().join(HOPPER_HEADER)).unwrap();
    assert!(
        committed == twin_header::render_hopper(),
        "{HOPPER_HEADER} is not the variant table's: run `cargo xtask build --nvcc` to regenerate \
         it, and commit it"
    );
}

/// The twin source at `source` (under the workspace) defines every `LAB_` macro that `header`
/// invokes, `macros` of them, and includes the header by its name `include`.
fn defines_every_invoked_macro(header: &str, source: &str, macros: usize, include: &str) {
    let text = std::fs::read_to_string(workspace().join(source)).unwrap();
    let invoked: std::collections::BTreeSet<&str> = header
        .lines()
        .filter(|l| l.starts_with("LAB_"))
        .filter_map(|l| l.split('(').next())
        .collect();
    assert_eq!(invoked.len(), macros, "{invoked:?}");
    for m in invoked {
        assert!(
            text.contains(&format!("#define {m}(")),
            "{source} defines no {m}"
        );
    }
    assert!(text.contains(&format!("#include \"{include}\"")));
}

#[test]
fn the_sm90a_twin_defines_every_macro_its_header_invokes() {
    let header = twin_header::render_hopper();
    defines_every_invoked_macro(&header, HOPPER_SOURCE, 4, "variants_sm90a.h");
}

#[test]
fn the_twin_defines_every_macro_the_header_invokes() {
    let header = twin_header::render().unwrap();
    defines_every_invoked_macro(&header, SOURCE, 12, "variants.h");
}

#[test]
fn the_twins_copy_samples_have_the_contracts_layout() {
    use kernels_gpu::sections::copy_samples as c;
    let header = std::fs::read_to_string(workspace().join("nvcc/twin_copy_samples.cuh")).unwrap();
    let constants = [
        ("SAMPLE_BLOCKS", c::SAMPLE_BLOCKS),
        ("ROUND_SLOTS", c::ROUND_SLOTS),
        ("HEADER_WORDS", c::HEADER_WORDS),
        ("WORDS_PER_ROUND", c::WORDS_PER_ROUND),
    ];
    for (name, value) in constants {
        let line = format!("constexpr unsigned {name} = {value};");
        assert!(
            header.contains(&line),
            "twin_copy_samples.cuh lacks `{line}`"
        );
    }
    let header_words = format!(
        "START_NS = {}, END_NS = {}, START_CYCLES = {}, END_CYCLES = {}, SM = {}, ROUNDS = {}",
        c::START_NS,
        c::END_NS,
        c::START_CYCLES,
        c::END_CYCLES,
        c::SM,
        c::ROUNDS
    );
    let round_words = format!(
        "ISSUE = {}, RETURNED = {}, END = {}",
        c::ISSUE,
        c::RETURNED,
        c::END
    );
    for words in [header_words, round_words] {
        assert!(
            header.contains(&words),
            "twin_copy_samples.cuh lacks `{words}`"
        );
    }
    assert!(header.contains(c::SAMPLES_SYMBOL));
}

/// The tests below need nvcc; xtask's build script sets `lab_nvcc` where it finds one.
mod with_nvcc {
    use super::*;
    use std::sync::OnceLock;
    use xtask::nvcc;
    use xtask::twin::{self, Twin};

    fn nvcc() -> PathBuf {
        nvcc::find().expect("the build script found nvcc")
    }

    /// The twin built for `arch` (sm_90 or sm_80) by `nvcc/build.sh` from the committed header;
    /// the sm_90a module, the same for either, with the sm_90 build only. The first call builds
    /// both side by side (nvcc's front end runs on one CPU).
    fn built(arch: &'static str) -> &'static Twin {
        static BOTH: OnceLock<[Twin; 2]> = OnceLock::new();
        let both = BOTH.get_or_init(|| {
            let ws = workspace();
            let source = ws.join(SOURCE);
            let build = |arch: &str, sm90a| {
                let dir = ws.join("target/test-twin").join(arch);
                nvcc::build(&ws, &nvcc(), &source, arch, &dir, sm90a).expect("nvcc/build.sh");
                let version = xtask::ptxas::version(&nvcc()).unwrap();
                twin::load(&source, &dir, &version).expect("the build's files")
            };
            std::thread::scope(|s| {
                let sm80 = s.spawn(|| build("sm_80", nvcc::Sm90a::Skip));
                let sm90 = build("sm_90", nvcc::Sm90a::Build);
                [sm90, sm80.join().expect("the sm_80 build")]
            })
        });
        match arch {
            "sm_90" => &both[0],
            "sm_80" => &both[1],
            _ => panic!("no twin built for {arch}"),
        }
    }

    /// The Rust build's `kind` module assembled for sm_90 by the same ptxas as the twin, built once
    /// per test binary in the folder where xtask/tests/build.rs assembles every module for sm_90
    /// (whose kept ptxas reports spare the work when that test binary ran first).
    fn rust_sm90(kind: ModuleKind) -> PathBuf {
        static CUBINS: OnceLock<Vec<(ModuleKind, PathBuf)>> = OnceLock::new();
        let cubins = CUBINS.get_or_init(|| {
            let ws = workspace();
            let ptx = xtask::ptx::PtxBuild::new(&ws, "sm_80")
                .compile()
                .expect("the kernel build");
            let dir = ws.join("target/test-kernels/sm_90");
            let written = xtask::modules::write_all(&ptx, &dir).expect("the modules");
            let ptxas = xtask::ptxas::find().expect("ptxas");
            written
                .iter()
                .filter(|m| matches!(m.kind, ModuleKind::Main | ModuleKind::Tensor))
                .map(|m| {
                    let cubin = dir.join(m.file.replace(".ptx", ".sm_90.cubin"));
                    xtask::ptxas::assemble(&ptxas, &dir.join(&m.file), "sm_90", &cubin)
                        .expect("ptxas");
                    (m.kind, cubin)
                })
                .collect()
        });
        let (_, cubin) = cubins
            .iter()
            .find(|(k, _)| *k == kind)
            .unwrap_or_else(|| panic!("no {kind:?} module"));
        cubin.clone()
    }

    fn check_arch(arch: &'static str) {
        let t = built(arch);
        assert_eq!(t.manifest.arch, arch);
        // The sm_90a module comes with the sm_90 build (and is left out of the sm_80 one, which
        // would build the same module again); `mismatches` and `bars` below check it with the rest.
        if arch == "sm_90" {
            let h = t.hopper.as_ref().expect("build.sh built the sm_90a twin");
            assert!(h.report.contains("for 'sm_90a'"), "{}", h.report);
        } else {
            assert!(
                t.hopper.is_none(),
                "{arch}: LAB_TWIN_SM90A=skip left it out"
            );
        }
        let wrong = twin::mismatches(t).unwrap();
        assert!(wrong.is_empty(), "{arch}:\n{}", wrong.join("\n"));
        let bad = twin::bars(t);
        assert!(bad.is_empty(), "{arch}: bars not met:\n{}", bad.join("\n"));
        let spills = twin::grid_spills(t);
        eprintln!("{arch}: {} grid copies spill in the twin:", spills.len());
        for line in &spills {
            eprintln!("  {line}");
        }
        // Accumulators in registers: every GEMM line whose tile fits the register file holds at
        // least one register per accumulator and no stack.
        for v in GEMM.iter().filter(|v| v.accumulators() <= 128) {
            let e = t.manifest.entry(ModuleKind::Main, v.entry).unwrap();
            assert!(
                e.registers >= v.accumulators() && e.stack_frame == 0,
                "{arch}: {} {}: {} registers, {} B stack",
                v.label,
                v.entry,
                e.registers,
                e.stack_frame
            );
        }
        // For the record (and the lead's comparison with the Rust build's manifest).
        for v in GEMM {
            let e = t.manifest.entry(ModuleKind::Main, v.entry).unwrap();
            eprintln!(
                "{arch}: twin {:<3} {:<45} {:>3} regs, spill {}/{} B",
                v.label, v.entry, e.registers, e.spill_stores, e.spill_loads
            );
        }
        tensor_lines_mirror_the_rust_kernels(t, arch);
        let c = REGS.gemm().entry;
        let regs: Vec<u32> = REGS
            .caps
            .iter()
            .map(|&cap| {
                t.manifest
                    .entry(ModuleKind::Capped { cap }, c)
                    .unwrap()
                    .registers
            })
            .collect();
        eprintln!(
            "{arch}: twin {c} registers at caps {:?}: {regs:?}",
            REGS.caps
        );
    }

    /// The PTX of `entry`'s body in a module.
    fn entry_body<'a>(ptx: &'a str, entry: &str) -> &'a str {
        let start = ptx
            .find(&format!(".entry {entry}("))
            .unwrap_or_else(|| panic!("no entry {entry}"));
        let len = ptx[start..]
            .find("\n}\n")
            .expect("the entry's closing brace");
        &ptx[start..start + len]
    }

    /// The tensor-core lines (which the bars above hold to no spills and no stack) have the Rust
    /// kernels' structure in the twin's PTX, so that a comparison measures the compilers: an mma
    /// line runs `rounds_per_iteration` rounds of ILP mma in its main loop and one round in its
    /// remainder loop, without an unroll directive that the Rust build does not give ptxas; a
    /// BF16 line issues, in each of its two staging bodies, one mma per tile and k-step and one
    /// ldmatrix per m-tile and n-pair at each k-step and once more before the slice loop.
    fn tensor_lines_mirror_the_rust_kernels(t: &Twin, arch: &str) {
        let count = |body: &str, op: &str| body.lines().filter(|l| l.contains(op)).count();
        for v in MMA_ILP {
            let body = entry_body(&t.ptx, v.entry);
            let rounds = MmaIlpVariant::rounds_per_iteration(v.ilp) as usize;
            let main_loop = if rounds > 1 { rounds } else { 0 };
            assert_eq!(
                count(body, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
                v.ilp as usize * (main_loop + 1),
                "{arch}: {}",
                v.entry
            );
            assert_eq!(count(body, "nounroll"), 0, "{arch}: {}", v.entry);
        }
        for v in BF16_GEMM {
            let body = entry_body(&t.ptx, v.entry);
            let s = v.shape;
            let (mi, ni, k_steps) = (s.m_tiles(), s.n_tiles(), s.k_steps());
            // Two staging bodies; fragments loaded at every k-step and once before the loop.
            let mma = 2 * k_steps * mi * ni;
            let loads = 2 * (k_steps + 1);
            assert_eq!(
                count(body, "mma.sync.aligned.m16n8k16"),
                mma as usize,
                "{arch}: {}",
                v.label
            );
            assert_eq!(
                count(body, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
                (loads * mi) as usize,
                "{arch}: {}",
                v.label
            );
            assert_eq!(
                count(body, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"),
                (loads * s.n_pairs()) as usize,
                "{arch}: {}",
                v.label
            );
            let e = t.manifest.entry(ModuleKind::Main, v.entry).unwrap();
            assert!(
                e.registers >= v.accumulators() && e.stack_frame == 0,
                "{arch}: {} {}: {} registers, {} B stack",
                v.label,
                v.entry,
                e.registers,
                e.stack_frame
            );
        }
        // For the record.
        for entry in BF16_GEMM
            .iter()
            .map(|v| v.entry)
            .chain(MMA_ILP.iter().map(|v| v.entry))
        {
            let e = t.manifest.entry(ModuleKind::Main, entry).unwrap();
            eprintln!(
                "{arch}: twin {entry:<50} {:>3} regs, spill {}/{} B",
                e.registers, e.spill_stores, e.spill_loads
            );
        }
    }

    /// The mnemonics of `entry`'s SASS in `cubin`, padding left out, from its first instruction
    /// to the read of the block index that starts the final sum and store.
    fn mnemonics_before_the_sum(cubin: &Path, entry: &str) -> Vec<String> {
        let sass = listing::nvdisasm(cubin);
        let code = listing::sass_instructions(&sass, entry);
        let sum = code
            .iter()
            .position(|c| c.contains("SR_CTAID"))
            .unwrap_or_else(|| {
                panic!("{entry}: no read of the block index in {}", cubin.display())
            });
        code[..sum]
            .iter()
            .filter_map(|c| listing::sass_mnemonic(c))
            .filter(|op| *op != "NOP")
            .map(str::to_owned)
            .collect()
    }

    /// The HMMA of `entry`'s SASS loops in `cubin`, each loop's count beside the instructions
    /// it runs besides them (NOPs left out): `(HMMA, others)` per loop.
    fn hmma_loops(cubin: &Path, entry: &str) -> Vec<(usize, Vec<String>)> {
        let sass = listing::nvdisasm(cubin);
        listing::sass_loops(&sass, entry)
            .iter()
            .map(|lp| {
                let ops: Vec<&str> = lp
                    .iter()
                    .filter_map(|c| listing::sass_mnemonic(c))
                    .filter(|op| *op != "NOP")
                    .collect();
                let hmma = ops.iter().filter(|op| op.starts_with("HMMA")).count();
                let others = ops
                    .iter()
                    .filter(|op| !op.starts_with("HMMA"))
                    .map(|op| (*op).to_owned())
                    .collect();
                (hmma, others)
            })
            .filter(|(hmma, _)| *hmma > 0)
            .collect()
    }

    /// The global loads and stores of `entry`'s SASS in `cubin`, in order (`LDG` or `STG`),
    /// leaving out the instructions whose guard starts with `drop` (`@P` or `@!P`: one polarity of
    /// the predicates, so that what is left is one path through if-converted code).
    fn global_accesses(cubin: &Path, entry: &str, drop: Option<&str>) -> Vec<&'static str> {
        let sass = listing::nvdisasm(cubin);
        listing::sass_instructions(&sass, entry)
            .iter()
            .filter(|c| drop.is_none_or(|d| !c.trim_start().starts_with(d)))
            .filter_map(|c| listing::sass_mnemonic(c))
            .filter_map(|op| match op.split('.').next() {
                Some("LDG") => Some("LDG"),
                Some("STG") => Some("STG"),
                _ => None,
            })
            .collect()
    }

    /// A persistent copy holds a round's bytes in flight in both builds: on some path through
    /// each line's SASS (the listing, or the listing without one polarity of predicated
    /// instructions: ptxas if-converts the tail checks of short rounds), its LOADS global loads
    /// come back to back, then its LOADS stores (the loads are coherent, so no compiler may sink
    /// one below a store that may alias it), as the memcpy grid's points do once. The Rust
    /// build's PTX is assembled by the same ptxas as the twin.
    #[test]
    #[cfg_attr(
        not(lab_nvcc),
        ignore = "needs nvcc: set NVCC or install the CUDA toolkit (xtask/src/nvcc/mod.rs, NOT_FOUND)"
    )]
    fn the_persistent_copies_issue_a_rounds_loads_before_its_stores() {
        let t = built("sm_90");
        let cubin = rust_sm90(ModuleKind::Main);
        for l in variants::PERSISTENT_COPY {
            let round: Vec<&str> =
                [vec!["LDG"; l.loads as usize], vec!["STG"; l.loads as usize]].concat();
            for (build, file) in [("Rust", &cubin), ("nvcc", &t.built.main.cubin)] {
                let paths = [None, Some("@P"), Some("@!P")]
                    .map(|drop| global_accesses(file, l.entry, drop));
                assert!(
                    paths
                        .iter()
                        .any(|p| p.windows(round.len()).any(|w| w == round.as_slice())),
                    "{build}'s {}: no {} loads then {} stores in {paths:?}",
                    l.entry,
                    l.loads,
                    l.loads
                );
            }
        }
    }

    /// The prologue decides which interleaving two warps on one scheduler settle into
    /// (docs/design.md, experiment 6), so the Rust build of `mma_bf16_ilp1` and `mma_bf16_ilp2`,
    /// its PTX assembled for sm_90 by the same ptxas as the twin, is the twin's SASS opcode for
    /// opcode (registers apart) from the first instruction to the final sum. In both builds of
    /// every ILP the main loop holds `MMA_PER_ITERATION` HMMA a trip beside the loop's own
    /// counter add, compare and branch, and no loop holds more: ptxas does not unroll the main
    /// loop further, so the trip is what `rounds_per_iteration` writes
    /// (sections/tensor_core.rs says why a trip holds that many).
    #[test]
    #[cfg_attr(
        not(lab_nvcc),
        ignore = "needs nvcc: set NVCC or install the CUDA toolkit (xtask/src/nvcc/mod.rs, NOT_FOUND)"
    )]
    fn the_mma_ilp_prologues_and_loops_are_nvccs() {
        let t = built("sm_90");
        let cubin = rust_sm90(ModuleKind::Tensor);
        for v in MMA_ILP.iter().filter(|v| v.ilp <= 2) {
            let ours = mnemonics_before_the_sum(&cubin, v.entry);
            let theirs = mnemonics_before_the_sum(&t.built.main.cubin, v.entry);
            assert!(ours.iter().filter(|op| op.starts_with("HMMA")).count() >= 4 * v.ilp as usize);
            assert_eq!(ours, theirs, "{}: Rust's SASS against nvcc's", v.entry);
        }
        for v in MMA_ILP {
            let trip = (MmaIlpVariant::rounds_per_iteration(v.ilp) * v.ilp) as usize;
            assert_eq!(trip as u32, MmaIlpVariant::MMA_PER_ITERATION, "{}", v.entry);
            for (build, cubin) in [("Rust", &cubin), ("nvcc", &t.built.main.cubin)] {
                let loops = hmma_loops(cubin, v.entry);
                let main = loops
                    .iter()
                    .max_by_key(|(hmma, _)| *hmma)
                    .unwrap_or_else(|| panic!("{build} {}: no HMMA loop", v.entry));
                assert_eq!(
                    main.0, trip,
                    "{build} {}: HMMA a trip of {loops:?}",
                    v.entry
                );
                let mut others = main.1.clone();
                others.sort_unstable();
                assert!(
                    others.len() == 3 && others.iter().any(|op| op == "BRA"),
                    "{build} {}: the main loop's own instructions {others:?}",
                    v.entry
                );
            }
        }
    }

    #[test]
    #[cfg_attr(
        not(lab_nvcc),
        ignore = "needs nvcc: set NVCC or install the CUDA toolkit (xtask/src/nvcc/mod.rs, NOT_FOUND)"
    )]
    fn the_sm90_twin_matches_the_table_and_meets_the_bars() {
        check_arch("sm_90");
    }

    #[test]
    #[cfg_attr(
        not(lab_nvcc),
        ignore = "needs nvcc: set NVCC or install the CUDA toolkit (xtask/src/nvcc/mod.rs, NOT_FOUND)"
    )]
    fn the_sm80_twin_matches_the_table_and_meets_the_bars() {
        check_arch("sm_80");
    }

    /// The twin's traced entries (`nvcc/twin_block_trace.cuh`), in its main, capped and sm_90a
    /// cubins: nvcc's ptxas gives each its timed entry's blocks per SM (registers that hold as
    /// many blocks, static shared memory, barriers), as the Rust build's
    /// (xtask/tests/build.rs). Exact register counts and spill bytes differ in places (the
    /// spilling D+ line and low caps, one tuned line by two registers): printed, not failed.
    #[test]
    #[cfg_attr(
        not(lab_nvcc),
        ignore = "needs nvcc: set NVCC or install the CUDA toolkit (xtask/src/nvcc/mod.rs, NOT_FOUND)"
    )]
    fn the_twins_traced_entries_keep_their_entries_resources() {
        let t = built("sm_90");
        for m in &t.manifest.modules {
            let c = traced::check(&m.module.file, &m.entries);
            assert!(c.bad.is_empty(), "{}", c.bad.join("\n"));
            for line in &c.inexact {
                eprintln!("inexact (same blocks per SM): {line}");
            }
            let want = match m.module.kind {
                ModuleKind::Capped { .. } => 1,
                _ => GEMM.len() + BF16_GEMM.len(),
            };
            assert_eq!(c.compared, want, "{}: traced twins compared", m.module.file);
        }
        let h = t.hopper.as_ref().expect("build.sh built the sm_90a twin");
        let reports = xtask::ptxas::parse_report(&h.report).unwrap();
        let c = traced::check(twin::HOPPER_STEM, &reports);
        assert!(c.bad.is_empty(), "{}", c.bad.join("\n"));
        assert_eq!(c.compared, WGEMM.len(), "sm_90a: traced twins compared");
    }

    /// `ptx` with the first `from` inside `entry`'s declaration (after `.entry {entry}(`) made `to`.
    fn in_entry(ptx: &str, entry: &str, from: &str, to: &str) -> String {
        let head = ptx.find(&format!(".entry {entry}(")).expect("the entry");
        let at = head + ptx[head..].find(from).expect("the directive in the entry");
        let mut out = ptx.to_string();
        out.replace_range(at..at + from.len(), to);
        out
    }

    /// `ptx` with `entry`'s parameter `index` declared f32 where the table says u32.
    fn retype_param(ptx: &str, entry: &str, index: usize) -> String {
        ptx.replace(
            &format!(".param .u32 {entry}_param_{index}"),
            &format!(".param .f32 {entry}_param_{index}"),
        )
    }

    /// Whether one of the mismatch `lines` names `entry` and says `what`.
    fn names(lines: &[String], entry: &str, what: &str) -> bool {
        lines.iter().any(|l| l.contains(entry) && l.contains(what))
    }

    /// The checks fail on a twin that departs from the table: a renamed entry, a parameter of
    /// another type, a launch bound dropped.
    #[test]
    #[cfg_attr(
        not(lab_nvcc),
        ignore = "needs nvcc: set NVCC or install the CUDA toolkit (xtask/src/nvcc/mod.rs, NOT_FOUND)"
    )]
    fn the_checks_catch_a_twin_that_departs_from_the_table() {
        let t = built("sm_90");
        let broken = |ptx: String| {
            let mut b = t.clone();
            b.ptx = ptx;
            twin::mismatches(&b).unwrap()
        };
        let renamed = broken(t.ptx.replace("memcpy_t32_l14_w4", "memcpy_t32_l14_w3"));
        assert!(
            renamed.iter().any(|l| l.contains("memcpy_t32_l14_w3"))
                && renamed.iter().any(|l| l.contains("lacks")),
            "{renamed:?}"
        );
        let fma = variants::FMA[0].entry;
        let retyped = broken(retype_param(&t.ptx, fma, 3));
        assert!(names(&retyped, fma, "abi"), "{retyped:?}");
        let r1 = GEMM.iter().find(|v| v.family == GemmFamily::Tuned).unwrap();
        let unbounded = broken(in_entry(&t.ptx, r1.entry, ".maxntid", ".reqntid"));
        assert!(names(&unbounded, r1.entry, "launch bound"), "{unbounded:?}");
        // The tensor-core lines are held alike: a BF16 line without its bound, an mma line's
        // fragments taken as another type.
        let m1 = BF16_GEMM[0].entry;
        let unbounded = broken(in_entry(&t.ptx, m1, ".maxntid", ".reqntid"));
        assert!(names(&unbounded, m1, "launch bound"), "{unbounded:?}");
        let mma = MMA_ILP[0].entry;
        let retyped = broken(retype_param(&t.ptx, mma, 3));
        assert!(names(&retyped, mma, "abi"), "{retyped:?}");
        // The sm_90a module alike: an entry renamed, a parameter retyped, a GEMM line without
        // its one block per SM.
        let h = t.hopper.as_ref().unwrap();
        let broken = |ptx: String| {
            let mut b = h.clone();
            b.ptx = ptx;
            twin::hopper_mismatches(&b).unwrap()
        };
        assert!(broken(h.ptx.clone()).is_empty());
        let w = WGMMA_BF16[0].entry;
        let renamed = broken(h.ptx.replace(w, &format!("{w}x")));
        assert!(names(&renamed, w, "lacks"), "{renamed:?}");
        let retyped = broken(retype_param(&h.ptx, w, 1));
        assert!(names(&retyped, w, "abi"), "{retyped:?}");
        let g = WGEMM[0].entry;
        let unbounded = broken(in_entry(&h.ptx, g, "\n.minnctapersm 1", ""));
        assert!(names(&unbounded, g, "launch bounds"), "{unbounded:?}");
    }

    /// The GPU comparison of the tensor-core entries (`nvcc/check_tensor_on_gpu.sh`) compiles
    /// against the generated header; it runs on a GPU only, and links the driver there.
    #[test]
    #[cfg_attr(
        not(lab_nvcc),
        ignore = "needs nvcc: set NVCC or install the CUDA toolkit (xtask/src/nvcc/mod.rs, NOT_FOUND)"
    )]
    fn the_tensor_comparison_program_compiles() {
        let dir = workspace().join("target/test-twin");
        std::fs::create_dir_all(&dir).unwrap();
        let out = std::process::Command::new(nvcc())
            .args([
                "-std=c++17",
                "-c",
                "-Xcompiler",
                "-Wall,-Wextra,-Werror",
                "-I",
            ])
            .arg(workspace().join("nvcc"))
            .arg(workspace().join("nvcc/tensor_compare.cpp"))
            .arg("-o")
            .arg(dir.join("tensor_compare.o"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A table line whose family the including file has no macro for stops the build, naming it.
    #[test]
    #[cfg_attr(
        not(lab_nvcc),
        ignore = "needs nvcc: set NVCC or install the CUDA toolkit (xtask/src/nvcc/mod.rs, NOT_FOUND)"
    )]
    fn a_family_without_a_kernel_stops_the_build() {
        let dir = workspace().join("target/test-twin");
        std::fs::create_dir_all(&dir).unwrap();
        let cu = dir.join("no_chase.cu");
        std::fs::write(
            &cu,
            "#define LAB_GEMM_SEED(...)\n#define LAB_GEMM_TUNED(...)\n#define LAB_MEMCPY(...)\n\
             #define LAB_FMA_ILP(...)\n#include \"variants.h\"\n",
        )
        .unwrap();
        let out = std::process::Command::new(nvcc())
            .args(["-E", "-I"])
            .arg(workspace().join("nvcc"))
            .arg(&cu)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "the build went on: {stderr}");
        assert!(stderr.contains("defines no LAB_CHASE"), "{stderr}");
    }
}
