//! The instruction shape of the kernels' loops, read from the PTX and from ptxas's SASS: the
//! microbenchmarks' chains and accumulators, the BF16 GEMMs' tensor-core path, the controls'
//! instructions, the cluster lines' arrivals and the wgmma K loops' descriptors. A part of the
//! `build` test binary, so that it reads the modules that binary builds once.

use kernels_gpu::variants::{
    FmaOp, MmaIlpVariant, RingMma, WgemmVariant, BF16_GEMM, CHASE, FMA, FMA_CONTROLS, FMA_UNROLL,
    MMA_ILP, WGEMM,
};
use xtask::modules::ModuleKind;

use crate::listing::{
    self, body_of, chain_lengths, fma_operands, fp32_instructions, is_op_form, loops, mma_operands,
    nvdisasm, MMA,
};
use crate::{built, hopper_built, hopper_ptx, plain_ptx, workspace};

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
    code.iter().filter(|c| listing::is_sass_op(c, op)).count()
}

/// The consumers' K loops build their slot addresses and wgmma descriptors on the uniform
/// datapath: the consumer warpgroup's index comes through lane 0 (`gpu::from_lane0`), so ptxas
/// knows it warp-uniform. Computed from the thread index instead, W9's K loop built each
/// descriptor in vector registers and moved it across with an R2UR per word (124 SASS
/// instructions a slot against 94). Lines that stage C keep a few R2URs (ptxas keeps their slot
/// index in a vector register; the staged epilogue as a whole brings them, no one part of it:
/// docs/design.md): printed, not failed.
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
/// against 67). The test bounds the shifts at two a loop (each line has two today, printed); the
/// adds are not counted, and fewer shifts (say, strength-reduced into adds) would pass.
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
                        (listing::is_sass_op(c, "SHF.R") || listing::is_sass_op(c, "USHF.R"))
                            && c.contains(", 0x4, ")
                    })
                    .count()
            })
            .collect();
        eprintln!("{}: descriptor shifts {shifts:?}", v.label);
        assert!(
            shifts.iter().all(|&n| n <= 2),
            "{}: {shifts:?} right shifts by 4 in its K loops: descriptors built at each MMA",
            v.label
        );
    }
}
