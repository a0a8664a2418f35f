//! THE variant table: one line per variant (or one grid line per family of variants), and the
//! only list of variants in the project.
//!
//! Add a line and it becomes a PTX entry point with its launch bounds, a host launch, a row in
//! every table and plot; a grid line becomes one entry per point of its cartesian product. A
//! line that cannot work is rejected at compile time with its label (or, for the grid, the list
//! and value at fault). Each family's parameter list is stated once, in the `abi:` section.

pub use crate::sections::gemm::{
    find_gemm, tuned_shape_fits, GemmFamily, GemmVariant, RegsExperiment, TunedMisfit, BK, BM, BN,
};
pub use crate::sections::limits::{
    MAX_ILP, MAX_LOADS, MAX_REGS_PER_THREAD, MAX_SHARED_OPT_IN, MAX_THREADS, MIN_REG_CAP,
    SHARED_WITHOUT_OPT_IN,
};
pub use crate::sections::memcpy::{MemcpyPoint, MemcpyVariant};
pub use crate::sections::probes::{
    ChaseKernel, ChaseResult, FmaOp, FmaVariant, FFMA_IMM, FMA_UNROLL,
};
pub use crate::sections::read::{ReadPoint, READ_WARP};
use crate::sections::table_rules::{controls_unique, entries_unique, grid_has};
use crate::sections::text_rules::{str_eq, strictly_ascending};

variant_table! {
    // The kernel ABI: each family's parameter list, in entry order, written once. It generates
    // the entry signature of every line of the family, the host's params struct (pointers as
    // device addresses; `args()` yields the launch arguments in this order) and the kernel's
    // argument struct, built by name and handed to the kernel function. GEMM keeps the peer's
    // 8 parameters.
    abi: {
        // family: (host params, kernel args) (parameters)
        gemm: (GemmParams, GemmArgs)
            (a: *const f32, b: *const f32, c: *mut f32, m: i32, n: i32, k: i32, alpha: f32, beta: f32),
        memcpy: (MemcpyParams, MemcpyArgs)(src: *const f32, dst: *mut f32, n: u64),
        fma_ilp: (FmaParams, FmaArgs)(out: *mut f32, a: f32, b: f32, iters: i32),
        chase: (ChaseParams, ChaseArgs)(next: *const u32, start: u32, steps: u32, out: *mut u64),
        gemm_ref: (GemmRefParams, GemmRefArgs)
            (a: *const f32, b: *const f32, m: i32, n: i32, k: i32, dot: *mut f64, spread: *mut f64),
        gemm_check: (GemmCheckParams, GemmCheckArgs)
            (c: *const f32, c0: *const f32, dot: *const f64, spread: *const f64, len: u64,
             alpha: f32, beta: f32, out: *mut u64),
        gemm_hash: (GemmHashParams, GemmHashArgs)(c: *const f32, len: u64, out: *mut u64),
        // The tensor-core families: BF16 GEMM takes GEMM's parameters with bf16 A and B; the
        // mma microbenchmark keeps the peer's (fragments as 32-bit words, two bf16 each).
        gemm_bf16: (Bf16GemmParams, Bf16GemmArgs)
            (a: *const u16, b: *const u16, c: *mut f32, m: i32, n: i32, k: i32, alpha: f32, beta: f32),
        mma_bf16_ilp: (MmaParams, MmaArgs)(a: *const u32, b: *const u32, out: *mut f32, iters: i32),
        // The copy's read-only twin: its source and length, and one sum per warp.
        read: (ReadParams, ReadArgs)(src: *const f32, n: u64, out: *mut u64),
    },
    // GEMM: C = alpha*A*B + beta*C. Each line names its family and its tiles:
    // - seed: the seed blog's kernel. One 64x64x8 block tile, shared memory staged by plain
    //   loads; each thread owns a TM x TN accumulator tile, so the block has 4096 / (TM * TN)
    //   threads. Sizes must be multiples of 64. Entry: gemm_tm{TM}_tn{TN}.
    // - tuned: gemm_tuned.rs. A BM x BN block tile over K slices of depth BK, pipelined through
    //   `stages` slices of dynamic shared memory filled by cp.async; warps own WM x WN tiles,
    //   threads TM x TN in 4x4 blocks. Any size. Entry:
    //   sgemm_bm{BM}_bn{BN}_bk{BK}_wm{WM}_wn{WN}_tm{TM}_tn{TN}_s{stages}.
    gemm: [
        // label  family  tiles
        ("S",     seed { block: (64, 64, 8), thread: (2, 2) }),
        ("A1",    seed { block: (64, 64, 8), thread: (2, 4) }),
        ("A",     seed { block: (64, 64, 8), thread: (4, 4) }),
        ("B",     seed { block: (64, 64, 8), thread: (8, 4) }),
        ("C",     seed { block: (64, 64, 8), thread: (8, 8) }),
        ("D",     seed { block: (64, 64, 8), thread: (16, 8) }),
        ("D+",    seed { block: (64, 64, 8), thread: (16, 16) }),
        ("R1",    tuned { block: (128, 128, 8), warp: (64, 32), thread: (8, 8), stages: 3 }),
        ("R2",    tuned { block: (128, 128, 16), warp: (64, 32), thread: (8, 8), stages: 3 }),
        ("R3",    tuned { block: (128, 256, 8), warp: (64, 64), thread: (8, 16), stages: 3 }),
        ("R4",    tuned { block: (256, 128, 16), warp: (64, 64), thread: (16, 8), stages: 3 }),
        ("R5",    tuned { block: (128, 64, 16), warp: (64, 32), thread: (8, 8), stages: 4 }),
    ],
    // Strided copy: each thread moves LOADS accesses of WIDTH floats, all loads issued before any
    // store. Entry: memcpy_t{THREADS}_l{LOADS}_w{WIDTH}, one per point of the grid line
    // (THREADS x LOADS x WIDTH; the peer builds the same grid). Labelled points are experiment
    // 2's variants; each must be a point of the grid.
    memcpy: {
        grid: (
            threads [32, 64, 128, 256, 512, 1024],
            loads [1, 2, 3, 4, 6, 8, 12, 14, 16, 24, 32],
            widths [1, 2, 4],
        ),
        labels: [
            // label    THREADS  LOADS  WIDTH
            ("T1",      1024,     1,     1),
            ("T2",      1024,     2,     1),
            ("T4",       512,     4,     1),
            ("T8",       256,     8,     1),
            ("T8f2",     128,     8,     2),
            ("T8f4",      64,     8,     4),
            ("T14f4",     32,    14,     4),
        ],
    },
    // Arithmetic ILP: ILP independent fma chains per thread. Entry: fma_ilp{ILP}.
    fma_ilp: [1, 2, 3, 4, 5, 6, 8, 12, 16],
    // Its controls: the same chains, each round one FP32 instruction with other operands
    // (sections/probes.rs `FmaOp`: fadd, fmul, ffma_imm, ffma_const), to tell apart what caps
    // ILP 1. Entry: {op}_ilp{ILP}.
    fma_controls: [
        (fadd, 1), (fadd, 2), (fmul, 1), (fmul, 2),
        (ffma_imm, 1), (ffma_imm, 2), (ffma_const, 1), (ffma_const, 2),
    ],
    // DRAM latency: one thread follows a pointer ring whose consecutive hops lie at least
    // SLOT_BYTES apart (entry name, slot bytes).
    chase: ("chase_u32", 128),
    // The GEMM check (gemm_ref.rs, kernels/gemm_judge.rs, gemm_hash.rs, the rule in
    // gemm_tolerance.rs): not variants, never timed. The f64 reference, one thread per element of C
    // in TILE x TILE blocks (entry, TILE); the comparison of an f32 C with it, every element
    // (entry, threads per block).
    gemm_ref: ("gemm_ref_f64", 16),
    gemm_check: ("gemm_check_f32", 256),
    // The hash of an f32 C (gemm_hash.rs, the rule in output_hash.rs), taken after every timed
    // sample and every launch of the race check, outside the timed interval (entry, threads per
    // block).
    gemm_hash: ("gemm_hash_f32", 256),
    // Register-pressure experiment: one GEMM variant rebuilt under each register cap. Cap 144
    // gives seed 002's register cliff: C at 64 threads holds 8 blocks/SM at 128 registers and 6
    // from 129 (`host calc --threads 64 --regs 129`), and ptxas builds C with 128 registers at
    // caps 129 to 140 and 139 at cap 144 (sm_90), the nearest build past the boundary.
    regs: ("C", [32, 48, 64, 96, 128, 144, 160, 192, 255]),
    // BF16 tensor-core GEMM (gemm_mma.rs): C = alpha*A*B + beta*C, A and B row-major bf16, C
    // f32. A BM x BN block tile over K slices of depth BK, pipelined through `stages` slices of
    // dynamic shared memory filled by 16-byte cp.async into a swizzled layout; warps own WM x WN
    // tiles of m16n8k16 mma fed by ldmatrix. Any size (K or N not a multiple of 8 is staged
    // element by element). Entry: bf16_gemm_bm{BM}_bn{BN}_bk{BK}_wm{WM}_wn{WN}_m16n8k16_s{stages}.
    gemm_bf16: [
        // label  family  tiles                                                       threads accumulators
        ("M1",    mma { block: (128, 128, 32), warp: (64, 64), mma: (16, 8, 16), stages: 4 }), // 128  128
        ("M2",    mma { block: (128, 256, 32), warp: (64, 64), mma: (16, 8, 16), stages: 3 }), // 256  128
        ("M3",    mma { block: (256, 128, 32), warp: (64, 64), mma: (16, 8, 16), stages: 3 }), // 256  128
        ("M4",    mma { block: (64, 128, 32), warp: (32, 32), mma: (16, 8, 16), stages: 4 }),  // 256   32
        ("M5",    mma { block: (64, 128, 32), warp: (32, 64), mma: (16, 8, 16), stages: 4 }),  // 128   64
        ("M6",    mma { block: (64, 64, 32), warp: (32, 32), mma: (16, 8, 16), stages: 4 }),   // 128   32
        ("M7",    mma { block: (128, 256, 64), warp: (64, 64), mma: (16, 8, 16), stages: 3 }), // 256  128
        ("M8",    mma { block: (256, 128, 64), warp: (64, 64), mma: (16, 8, 16), stages: 3 }), // 256  128
        ("M9",    mma { block: (128, 256, 64), warp: (64, 64), mma: (16, 8, 16), stages: 4 }), // 256  128
        ("M10",   mma { block: (256, 128, 64), warp: (64, 64), mma: (16, 8, 16), stages: 4 }), // 256  128
    ],
    // Tensor-core ILP (the peer's contract): ILP independent m16n8k16 BF16 accumulators per warp.
    // Entry: mma_bf16_ilp{ILP}.
    mma_bf16_ilp: [1, 2, 4, 8],
    // Read-only twins of memcpy grid points (read.rs): the copy's loads, summed exactly, one word
    // written per warp. The `inflight` experiment runs each beside its copy at the copy's
    // residencies; the points span the bytes in flight per SM over which the copy climbs to its
    // plateau (1024 threads stop at 8 loads: past that the copy spills under its launch bound).
    // Entry: read_t{THREADS}_l{LOADS}_w{WIDTH}.
    read: [
        (256, 1, 4), (256, 2, 4), (256, 4, 4), (256, 8, 4), (256, 16, 4), (256, 32, 4),
        (1024, 1, 4), (1024, 2, 4), (1024, 4, 4), (1024, 8, 4),
    ],
}

// Hopper's warpgroup MMA (sm_90a only: these lines live in the sm_90a module, which the host
// loads only on a compute capability 9.0 device). One warpgroup per block; each line is
// (N of m64nNk16, commit groups in flight before `wait_group 0`). Entry: wgmma_bf16_n{N}_g{GROUPS}.
wgmma_table! {
    abi: (WgmmaParams, WgmmaArgs)(out: *mut f32, iters: i32),
    wgmma_bf16: [
        // N    groups
        (64,    1), (64,  2), (64,  4), (64,  8),
        (128,   1), (128, 2), (128, 4), (128, 8),
        (256,   1), (256, 2), (256, 4), (256, 8), (256, 16),
    ],
}

// Hopper's warp-specialized GEMM (sm_90a only, gemm_wgmma.rs): C = alpha*A*B + beta*C, A and B
// row-major bf16, C f32, as `gemm_bf16`. One producer warpgroup loads 64-deep slices of A and B by
// TMA (128-byte swizzle) into a ring of `stages` slots guarded by mbarriers; `consumers` warpgroups
// (64 rows each) run wgmma m64nBNk16 on them, or, on `wgmma_turns` lines, two consumers take whole
// tiles of 64 or 128 rows in turn (ping-pong); blocks are persistent over the output tiles. The
// tensor maps are passed by their addresses in global memory (sections/gemm_wgmma.rs says why). Any
// M, N, K >= 1 (the host pads A's or B's rows for TMA where K or N is not a multiple of 8).
// `k_slices`: the wgmma lines of single blocks (not of turns) cut each tile's K into work units of
// that many 64-deep slices (split-K, `KSplit`; 0 leaves K whole), which meet in `partials` and
// `arrivals` (kernels/sm90a/split_k.rs: tiles x splits x BM x BN floats, tiles x a tile's warps
// zeroed words). `stream_tail` (not 0): the tiles of the walk's whole waves (`StreamTail::from`);
// they share the last partial wave's tiles out over the grid by K slices (sections/wgemm_tail.rs),
// whose pieces meet there too (the tail's slots x BM x BN floats, tail tiles x a tile's warps
// words). Lines of turns never cut K (in clusters of one they stream tails); lines in clusters of
// two neither cut K nor stream tails; the mma_sync lines take K whole and ignore the four.
// `mma_sync` lines run ldmatrix + mma.sync m16n8k16 in their consumers instead (gemm_tma_mma.rs).
// Entry: wgemm_bm{BM}_bn{BN}_bk64_s{STAGES}_c{CONSUMERS}_x{CLUSTER}, tma_mma_... for mma_sync.
wgemm_table! {
    abi: (WgemmParams, WgemmArgs)
        (a_map: *const u64, b_map: *const u64, c: *mut f32, m: i32, n: i32, k: i32, alpha: f32,
         beta: f32, k_slices: i32, stream_tail: i32, partials: *mut f32, arrivals: *mut u32),
    gemm_wgmma: [
        // label  family  tiles                                                      threads
        ("W1",    wgmma { block: (128, 256, 64), stages: 4, consumers: 2, cluster: 1 }), // 384
        ("W2",    wgmma { block: (128, 128, 64), stages: 6, consumers: 2, cluster: 1 }), // 384
        ("W3",    wgmma { block: (64, 256, 64), stages: 5, consumers: 1, cluster: 1 }),  // 256
        ("W4",    wgmma { block: (128, 64, 64), stages: 8, consumers: 2, cluster: 1 }),  // 384
        ("W5",    wgmma { block: (128, 256, 64), stages: 4, consumers: 2, cluster: 2 }), // 384
        // Two consumers on one warpgroup's rows a tile take the tiles in turn (ping-pong).
        ("W6",    wgmma_turns { block: (64, 256, 64), stages: 5, consumers: 2, cluster: 1 }),  // 384
        // Small tiles with a deep ring, for products of few rows (decode): a block per 64x64 tile
        // keeps K whole where wider tiles would leave SMs idle or cut K.
        ("W7",    wgmma { block: (64, 64, 64), stages: 13, consumers: 1, cluster: 1 }),  // 256
        // W1 with a slot fewer, which costs its K loop nothing and leaves room to stage C in
        // shared memory (`stages_c`): the producer warpgroup's idle warps store half of each
        // tile's C while the consumers run the next tile's MMAs.
        ("W8",    wgmma { block: (128, 256, 64), stages: 3, consumers: 2, cluster: 1 }), // 384
        // Turns on 128-row tiles: each consumer holds a whole 128x128 tile, so one's epilogue
        // hides behind the other's MMAs as on W6, with W1's rows per wgmma. It brings a third
        // more bytes per FLOP than W1. In clusters of two (B multicast, W1's bytes per FLOP) it
        // ran slower per clock than this line on the H200, so that form is not here.
        ("W9",    wgmma_turns { block: (128, 128, 64), stages: 7, consumers: 2, cluster: 1 }), // 384
        // The same ring feeding mma.sync (ldmatrix from the swizzled slots): the gemm_bf16
        // family's MMA with Hopper's data movement; no producer warp: thread 0 fills the ring and
        // each slot's last reader refills it.
        ("MT1",   mma_sync { block: (128, 256, 64), stages: 4, consumers: 2, cluster: 1 }), // 256
        ("MT2",   mma_sync { block: (128, 128, 64), stages: 6, consumers: 2, cluster: 1 }), // 256
    ],
}

pub use crate::sections::gemm_wgmma::{
    consumer_regs, tile_of, wgemm_line_fits, wgemm_lines_unique, RingMma, WgemmMisfit, WgemmVariant,
};

// Copies whose bytes in flight live in shared memory (smem_copy.rs, any sm_80+): each warp of a
// block owns a ring of STAGES slots of STAGE_BYTES filled by 16-byte cp.async and drained by
// stores, in a persistent grid (sections/smem_copy.rs). A line is (threads per block, stage bytes
// of a warp, stages): a warp keeps STAGE_BYTES x STAGES in flight and a block THREADS/32 rings.
// Entry: cp_async_copy_t{THREADS}_b{STAGE_BYTES}_s{STAGES}.
smem_copy_table! {
    abi: (SmemCopyParams, SmemCopyArgs)(src: *const f32, dst: *mut f32, n: u64),
    smem_copy: [
        // threads  stage bytes  stages      bytes in flight a warp
        (32,        2048,        4),         //   8 KiB
        (32,        4096,        8),         //  32 KiB
        (32,        4096,        16),        //  64 KiB
        (32,        8192,        16),        // 128 KiB
        (32,        8192,        24),        // 192 KiB
        (128,       2048,        4),         //   8 KiB (32 KiB a block)
        (128,       4096,        8),         //  32 KiB (128 KiB a block)
        (256,       2048,        4),         //   8 KiB (64 KiB a block)
    ],
    // Hopper's bulk copies (tma_copy.rs, sm_90a module only): the same rings, each stage one
    // cp.async.bulk in (mbarrier-completed) and one bulk store out, issued by lane 0 of each warp
    // (at most 8 stages of at most 64 KiB). Entry: tma_copy_t{THREADS}_b{STAGE_BYTES}_s{STAGES}.
    tma_copy: [
        // threads  stage bytes  stages      bytes in flight a warp
        (32,        2048,        4),         //   8 KiB
        (32,        4096,        8),         //  32 KiB
        (32,        8192,        8),         //  64 KiB
        (32,        16384,       8),         // 128 KiB
        (32,        24576,       8),         // 192 KiB
        (128,       4096,        4),         //  16 KiB (64 KiB a block)
    ],
}

pub use crate::sections::smem_copy::{
    smem_copy_lines_unique, smem_copy_misfit, SmemCopyLine, SmemPath, MAX_BULK_STAGES,
    MAX_BULK_STAGE_BYTES, MAX_SMEM_STAGES,
};

// Persistent strided copies (persistent_copy.rs): the memcpy grid's copy run as one wave of
// SMs x blocks/SM, each thread looping over the buffer in rounds of LOADS loads then LOADS stores,
// so that its bytes in flight are held through the whole copy (sections/persistent_copy.rs). The
// `inflight` experiment judges Little's law on them: at 1 block/SM each line holds
// THREADS x LOADS x WIDTH x 4 bytes per SM, 8 to 64 KiB (by 4 KiB up to 32 KiB). A line is
// (threads per block, loads per round, width). Entry: stream_copy_t{THREADS}_l{LOADS}_w{WIDTH}
// (a name that sorts after every other entry: the PTX lists entries by name and numbers their
// labels in that order, so the existing entries' PTX stays byte-identical).
persistent_copy_table! {
    abi: (PersistentCopyParams, PersistentCopyArgs)(src: *const f32, dst: *mut f32, n: u64),
    persistent_copy: [
        // threads  loads  width      bytes in flight per block
        (256,       2,     4),     //  8 KiB
        (256,       3,     4),     // 12 KiB
        (256,       4,     4),     // 16 KiB
        (256,       5,     4),     // 20 KiB
        (256,       6,     4),     // 24 KiB
        (256,       7,     4),     // 28 KiB
        (256,       8,     4),     // 32 KiB
        (256,       10,    4),     // 40 KiB
        (256,       12,    4),     // 48 KiB
        (256,       16,    4),     // 64 KiB
        // The same bytes from four times the warps, 4-byte accesses.
        (1024,      4,     1),     // 16 KiB
        (1024,      6,     1),     // 24 KiB
        (1024,      8,     1),     // 32 KiB
    ],
}

pub use crate::sections::persistent_copy::{
    persistent_copy_lines_unique, persistent_copy_misfit, PersistentCopyLine,
};

pub use crate::sections::wgmma::{
    wgmma_lines_unique, wgmma_n_supported, WgmmaVariant, MAX_WGMMA_GROUPS, WARPGROUP_THREADS,
};

pub use crate::sections::check_launches::{GemmCheckKernel, GemmRefKernel};
pub use crate::sections::tensor_core::{
    bf16_lines_unique, mma_shape_fits, Bf16GemmVariant, MmaIlpVariant, MmaMisfit,
    MAX_MMA_ACCUMULATORS, MAX_MMA_ILP, MMA_FLOPS,
};

pub use crate::shapes::mma_shape::MmaShape;
pub use crate::shapes::tuned_shape::TunedShape;

// The lines' methods that read the table itself live here, below the table, so that the lines'
// files (sections/memcpy.rs, sections/gemm.rs) import nothing from this one.
impl MemcpyPoint {
    /// The label of this point in [`MEMCPY`], if the `bandwidth` experiment names it.
    pub fn label(&self) -> Option<&'static str> {
        MEMCPY
            .iter()
            .find(|v| v.point.entry == self.entry)
            .map(|v| v.label)
    }
}

impl WgemmVariant {
    /// The entry of the line's traced twin in the sm_90a module: [`entry`](WgemmVariant::entry)
    /// and [`TRACED_SUFFIX`](crate::sections::block_trace::TRACED_SUFFIX)
    /// (`sections/block_trace.rs`). Looked up in [`WGEMM_TRACED`] rather than held by the line:
    /// the kernels build their line as a value, and a field more changed how LLVM compiled two of
    /// the timed mma_sync entries (two copies swapped).
    ///
    /// # Panics
    /// For a line that is not one of [`WGEMM`]'s (a kernel's `kernel_line`).
    pub const fn traced_entry(&self) -> &'static str {
        let mut i = 0;
        while i < WGEMM.len() {
            if str_eq(WGEMM[i].entry, self.entry) {
                return WGEMM_TRACED[i];
            }
            i += 1;
        }
        panic!("traced_entry: the line is not one of the gemm_wgmma table's")
    }
}

impl RegsExperiment {
    /// The capped GEMM variant.
    pub const fn gemm(&self) -> &'static GemmVariant {
        match find_gemm(GEMM, self.variant) {
            Some(v) => v,
            None => panic!("regs experiment names a GEMM variant that is not in the table"),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;
    use std::vec::Vec;

    use super::*;

    #[test]
    fn gemm_lines_derive_threads_entries_and_grid() {
        let c = find_gemm(GEMM, "C").expect("C is in the table");
        assert_eq!(
            (c.threads(), c.accumulators(), c.entry),
            (64, 64, "gemm_tm8_tn8")
        );
        assert_eq!(c.grid(4096, 2048), (32, 64), "grid is (N/BN, M/BM)");
        assert!(GEMM
            .iter()
            .all(|v| v.threads() * v.accumulators() == v.bm * v.bn));
        assert_eq!(c.static_shared_bytes(), 4 * (64 * 9 + 8 * 65));
        assert_eq!((c.dynamic_shared_bytes(), c.size_multiple()), (0, Some(64)));
    }

    #[test]
    fn memcpy_lines_derive_bytes_and_a_covering_grid() {
        let t14 = MEMCPY
            .iter()
            .find(|v| v.label == "T14f4")
            .expect("T14f4 is in the table");
        assert_eq!(
            (t14.bytes_per_thread(), t14.entry),
            (224, "memcpy_t32_l14_w4")
        );
        for v in MEMCPY {
            for n in [1u64, 1000, 1 << 28, (1 << 28) + 3] {
                let blocks = v.grid(n);
                assert!(
                    blocks * v.floats_per_block() >= n,
                    "{}: grid covers n={n}",
                    v.label
                );
                assert!(
                    (blocks - 1) * v.floats_per_block() < n,
                    "{}: no spare block for n={n}",
                    v.label
                );
            }
        }
    }

    #[test]
    fn the_grid_line_is_the_peers_cartesian_product_in_order() {
        let (threads, loads, widths) = (
            [32u32, 64, 128, 256, 512, 1024],
            [1u32, 2, 3, 4, 6, 8, 12, 14, 16, 24, 32],
            [1u32, 2, 4],
        );
        let mut want = Vec::new();
        for t in threads {
            for l in loads {
                for w in widths {
                    want.push((t, l, w));
                }
            }
        }
        let mut want = want.into_iter();
        assert_eq!(MEMCPY_GRID.len(), 198);
        for p in MEMCPY_GRID {
            let (t, l, w) = want.next().expect("no more points than the product");
            assert_eq!((p.threads, p.loads, p.width), (t, l, w));
            assert_eq!(p.entry, format!("memcpy_t{t}_l{l}_w{w}"));
        }
        assert!(want.next().is_none());
    }

    #[test]
    fn labelled_points_are_grid_points_and_know_their_label() {
        for v in MEMCPY {
            let p = MEMCPY_GRID
                .iter()
                .find(|p| p.entry == v.entry)
                .expect("on the grid");
            assert_eq!(*p, v.point);
            assert_eq!(p.label(), Some(v.label));
        }
        let unlabelled = MEMCPY_GRID
            .iter()
            .find(|p| p.entry == "memcpy_t256_l4_w4")
            .unwrap();
        assert_eq!(unlabelled.label(), None);
        assert_eq!(
            (
                unlabelled.bytes_per_thread(),
                unlabelled.requests_per_thread()
            ),
            (64, 4)
        );
    }

    #[test]
    fn fma_lines_derive_flops_rounds_and_grids() {
        assert_eq!(
            FMA.iter().map(|v| v.ilp).collect::<Vec<u32>>(),
            [1, 2, 3, 4, 5, 6, 8, 12, 16]
        );
        let v = FMA.iter().find(|v| v.ilp == 4).unwrap();
        assert_eq!(v.entry, "fma_ilp4");
        // 2 FLOPs x 4 chains x 32 rounds x 1000 threads; 20 iters run 32 rounds.
        assert_eq!(v.flops(1000, 20), 2 * 4 * 32 * 1000);
        assert_eq!(FmaVariant::grid(132 * 256, 256), Some(132));
        assert_eq!(FmaVariant::grid(1000, 256), None, "no partial blocks");
        assert_eq!(FmaVariant::grid(2048, 0), None);
        assert_eq!(FmaVariant::grid(4096, 2048), None);
    }

    #[test]
    fn the_chase_line_and_its_result() {
        assert_eq!((CHASE.entry, CHASE.slot_bytes), ("chase_u32", 128));
        assert_eq!(CHASE.slot_elems(), 32);
        let r = ChaseKernel::result([77, 1_000, 2_000]);
        assert_eq!((r.end, r.cycles, r.nanos), (77, 1_000, 2_000));
    }

    #[test]
    fn the_regs_experiment_names_a_table_line() {
        assert!(find_gemm(GEMM, REGS.variant).is_some(), "{}", REGS.variant);
        assert!(REGS.caps.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(find_gemm(GEMM, "no such variant"), None);
    }

    #[test]
    fn tuned_lines_derive_threads_grid_and_shared_memory() {
        let r3 = find_gemm(GEMM, "R3").expect("R3 is in the table");
        assert_eq!(r3.family, GemmFamily::Tuned);
        assert_eq!(r3.entry, "sgemm_bm128_bn256_bk8_wm64_wn64_tm8_tn16_s3");
        assert_eq!((r3.threads(), r3.accumulators()), (256, 128));
        assert_eq!(r3.grid(4096, 4096), (16, 32));
        assert_eq!(r3.grid(129, 257), (2, 2), "edge blocks round up");
        assert_eq!(r3.grid(1, 1), (1, 1));
        assert_eq!(r3.size_multiple(), None);
        assert_eq!(r3.static_shared_bytes(), 0);
        assert_eq!(r3.dynamic_shared_bytes(), 3 * 4 * (8 * (128 + 4) + 8 * 256));
        for v in GEMM.iter().filter(|v| v.family == GemmFamily::Tuned) {
            let s = v.tuned_shape().expect("a tuned line has a shape");
            assert_eq!(tuned_shape_fits(&s), Ok(()), "{}", v.label);
            assert!(v.dynamic_shared_bytes() <= MAX_SHARED_OPT_IN);
        }
    }

    fn shape(
        (bm, bn, bk): (u32, u32, u32),
        (wm, wn): (u32, u32),
        (tm, tn): (u32, u32),
        stages: u32,
    ) -> TunedShape {
        TunedShape {
            bm,
            bn,
            bk,
            wm,
            wn,
            tm,
            tn,
            stages,
        }
    }

    #[test]
    fn tuned_checks_reject_each_misfit() {
        use TunedMisfit::*;
        assert_eq!(
            tuned_shape_fits(&shape((128, 128, 8), (64, 32), (8, 8), 3)),
            Ok(())
        );
        let misfits = [
            (((128, 128, 8), (64, 32), (6, 8), 3), ThreadTile),
            (((128, 128, 8), (64, 64), (8, 8), 3), WarpTile),
            (((128, 96, 8), (64, 64), (8, 16), 3), BlockTile),
            (((512, 256, 8), (32, 32), (4, 8), 3), Threads),
            // 512 threads: the 128x4 slice of A gives each one float, but the 4x128 slice of B
            // holds only 128 four-float groups.
            (((128, 128, 4), (32, 32), (4, 8), 3), Staging),
            (((128, 128, 8), (64, 32), (8, 8), 1), Stages),
            (((256, 256, 32), (64, 64), (16, 8), 8), SharedMemory),
        ];
        for ((block, warp, thread, stages), misfit) in misfits {
            let s = shape(block, warp, thread, stages);
            assert_eq!(tuned_shape_fits(&s), Err(misfit), "{s:?}");
        }
    }
}
