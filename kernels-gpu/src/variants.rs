//! THE variant table: one line per variant (or one grid line per family of variants), and the
//! only list of variants in the project.
//!
//! Add a line and it becomes a PTX entry point with its launch bounds, a host launch, a row in
//! every table and plot; a grid line becomes one entry per point of its cartesian product. A
//! line that cannot work is rejected at compile time with its label (or, for the grid, the list
//! and value at fault). Each family's parameter list is stated once, in the `abi:` section.

use crate::abi::Param;

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
        // The tensor-core families: BF16 GEMM takes GEMM's parameters with bf16 A and B; the
        // mma microbenchmark keeps the peer's (fragments as 32-bit words, two bf16 each).
        gemm_bf16: (Bf16GemmParams, Bf16GemmArgs)
            (a: *const u16, b: *const u16, c: *mut f32, m: i32, n: i32, k: i32, alpha: f32, beta: f32),
        mma_bf16_ilp: (MmaParams, MmaArgs)(a: *const u32, b: *const u32, out: *mut f32, iters: i32),
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
    // DRAM latency: one thread follows a pointer ring whose consecutive hops lie at least
    // SLOT_BYTES apart (entry name, slot bytes).
    chase: ("chase_u32", 128),
    // The GEMM check (gemm_ref.rs, gemm_check.rs, the rule in gemm_tolerance.rs): not variants,
    // never timed. The f64 reference, one thread per element of C in TILE x TILE blocks (entry,
    // TILE); the comparison of an f32 C with it, every element (entry, threads per block).
    gemm_ref: ("gemm_ref_f64", 16),
    gemm_check: ("gemm_check_f32", 256),
    // Register-pressure experiment: one GEMM variant rebuilt under each register cap.
    regs: ("C", [32, 48, 64, 96, 128, 160, 192, 255]),
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
    ],
    // Tensor-core ILP (the peer's contract): ILP independent m16n8k16 BF16 accumulators per warp.
    // Entry: mma_bf16_ilp{ILP}.
    mma_bf16_ilp: [1, 2, 4, 8],
}

pub use crate::check_kernels::{GemmCheckKernel, GemmRefKernel};
pub use crate::tensor_variants::{
    bf16_lines_unique, mma_shape_fits, Bf16GemmVariant, MmaIlpVariant, MmaMisfit,
    MAX_MMA_ACCUMULATORS, MAX_MMA_ILP, MMA_FLOPS,
};

pub use crate::mma_shape::MmaShape;
pub use crate::tuned_shape::TunedShape;

/// Rows of the seed family's output tile per block.
pub const BM: u32 = 64;
/// Columns of the seed family's output tile per block.
pub const BN: u32 = 64;
/// Depth of the seed family's K slice staged in shared memory per iteration.
pub const BK: u32 = 8;
/// Largest block CUDA allows.
pub const MAX_THREADS: u32 = 1024;
/// Largest register count a thread may use.
pub const MAX_REGS_PER_THREAD: u32 = 255;
/// Most loads per thread a memcpy grid line may ask for (each staged in registers).
pub const MAX_LOADS: u32 = 64;
/// Most independent chains an FMA line may ask for.
pub const MAX_ILP: u32 = 32;
/// Smallest register cap ptxas accepts for `.maxnreg` / `-maxrregcount`.
pub const MIN_REG_CAP: u32 = 16;
/// Shared memory one block may opt into on sm_80 and sm_90 (227 KB), bytes.
pub const MAX_SHARED_OPT_IN: u32 = 227 * 1024;
/// Shared memory a block gets without opting in (48 KB), bytes.
pub const SHARED_WITHOUT_OPT_IN: u32 = 48 * 1024;

/// Which kernel a GEMM line instantiates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GemmFamily {
    /// The seed blog's kernel (gemm.rs): 64x64x8 block tile, sizes multiples of 64.
    Seed,
    /// The tuned kernel (gemm_tuned.rs): table-given tiles, cp.async pipeline, any size.
    Tuned,
}

/// One GEMM variant: C = alpha*A*B + beta*C, row-major f32, one BMxBN tile per block. Every
/// entry takes `(a, b, c, m, n, k, alpha, beta)`: three pointers, three i32, two f32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmVariant {
    pub label: &'static str,
    pub family: GemmFamily,
    /// Block tile: rows and columns of C, depth of a K slice.
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    /// Warp tile (rows, columns), where the family has one.
    pub warp: Option<(u32, u32)>,
    /// Rows of the per-thread accumulator tile.
    pub tm: u32,
    /// Columns of the per-thread accumulator tile.
    pub tn: u32,
    /// K slices in shared memory at once (1: the seed's single buffer).
    pub stages: u32,
    /// Exported PTX entry name.
    pub entry: &'static str,
}

impl GemmVariant {
    /// The seed family's static shared memory: As[BM][BK+1] and Bs[BK][BN+1] floats.
    pub const SEED_STATIC_SHARED_BYTES: u32 = 4 * (BM * (BK + 1) + BK * (BN + 1));

    /// The tuned family's shape; None for the seed family.
    pub const fn tuned_shape(&self) -> Option<TunedShape> {
        match (self.family, self.warp) {
            (GemmFamily::Tuned, Some((wm, wn))) => Some(TunedShape {
                bm: self.bm,
                bn: self.bn,
                bk: self.bk,
                wm,
                wn,
                tm: self.tm,
                tn: self.tn,
                stages: self.stages,
            }),
            _ => None,
        }
    }
    /// Threads per block (also the entry's launch bound, `.maxntid`).
    pub const fn threads(&self) -> u32 {
        match self.tuned_shape() {
            Some(s) => s.threads(),
            None => self.bm * self.bn / (self.tm * self.tn),
        }
    }
    /// Live accumulators per thread.
    pub const fn accumulators(&self) -> u32 {
        self.tm * self.tn
    }
    /// Grid (x over N, y over M) for an M x N output. Seed: (N/BN, M/BM), the caller checks
    /// that the sizes tile ([`Self::size_multiple`]); tuned: rounded up, edge blocks are partial.
    pub const fn grid(&self, m: u32, n: u32) -> (u32, u32) {
        match self.family {
            GemmFamily::Seed => (n / self.bn, m / self.bm),
            GemmFamily::Tuned => (n.div_ceil(self.bn), m.div_ceil(self.bm)),
        }
    }
    /// The multiple M, N and K must be, where the family needs one (seed: 64).
    pub const fn size_multiple(&self) -> Option<u32> {
        match self.family {
            GemmFamily::Seed => Some(BM),
            GemmFamily::Tuned => None,
        }
    }
    /// Static shared memory of the kernel, bytes.
    pub const fn static_shared_bytes(&self) -> u32 {
        match self.family {
            GemmFamily::Seed => Self::SEED_STATIC_SHARED_BYTES,
            GemmFamily::Tuned => 0,
        }
    }
    /// Dynamic shared memory to launch with, bytes. Above [`SHARED_WITHOUT_OPT_IN`] the host must
    /// first raise the function's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to it.
    pub const fn dynamic_shared_bytes(&self) -> u32 {
        match self.tuned_shape() {
            Some(s) => s.shared_bytes(),
            None => 0,
        }
    }
    /// `.minnctapersm` of the entry, where the table asks for one (no line does yet).
    pub const fn min_blocks_per_sm(&self) -> Option<u32> {
        None
    }
}

/// Why a tuned line cannot work (see [`tuned_shape_fits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TunedMisfit {
    ThreadTile,
    WarpTile,
    BlockTile,
    Threads,
    Staging,
    Stages,
    SharedMemory,
}

/// The tuned kernel's requirements on its shape, in the order they are checked.
pub const fn tuned_shape_fits(s: &TunedShape) -> Result<(), TunedMisfit> {
    use crate::tuned_shape::VEC;
    if s.tm == 0 || s.tn == 0 || !s.tm.is_multiple_of(VEC) || !s.tn.is_multiple_of(VEC) {
        return Err(TunedMisfit::ThreadTile);
    }
    if s.wm == 0
        || s.wn == 0
        || !s.wm.is_multiple_of(s.tm)
        || !s.wn.is_multiple_of(s.tn)
        || (s.wm / s.tm) * (s.wn / s.tn) != 32
    {
        return Err(TunedMisfit::WarpTile);
    }
    if !s.bm.is_multiple_of(s.wm) || !s.bn.is_multiple_of(s.wn) {
        return Err(TunedMisfit::BlockTile);
    }
    let threads = s.threads();
    if threads > MAX_THREADS {
        return Err(TunedMisfit::Threads);
    }
    let groups = s.bn / VEC;
    if s.bk == 0
        || !threads.is_multiple_of(s.bk)
        || !(s.bm * s.bk).is_multiple_of(threads)
        || !threads.is_multiple_of(groups)
        || !(s.bk * groups).is_multiple_of(threads)
    {
        return Err(TunedMisfit::Staging);
    }
    if s.stages < 2 || s.stages > 8 {
        return Err(TunedMisfit::Stages);
    }
    if s.shared_bytes() > MAX_SHARED_OPT_IN {
        return Err(TunedMisfit::SharedMemory);
    }
    Ok(())
}

/// One point of the memcpy grid: a strided-copy entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemcpyPoint {
    /// Threads per block (also the entry's launch bound).
    pub threads: u32,
    /// Independent loads each thread issues before its first store.
    pub loads: u32,
    /// Floats per access: 1, 2 (one 8-byte access) or 4 (one 16-byte access).
    pub width: u32,
    /// Exported PTX entry name, `memcpy_t{THREADS}_l{LOADS}_w{WIDTH}`.
    pub entry: &'static str,
}

impl MemcpyPoint {
    /// Bytes each thread has in flight (loaded before storing).
    pub const fn bytes_per_thread(&self) -> u32 {
        4 * self.loads * self.width
    }
    /// Floats one block copies.
    pub const fn floats_per_block(&self) -> u64 {
        self.threads as u64 * self.loads as u64 * self.width as u64
    }
    /// Blocks needed for n floats: ceil(n / (THREADS*LOADS*WIDTH)); launched as (grid, 1) blocks
    /// of [`threads`](Self::threads) threads.
    pub const fn grid(&self, n: u64) -> u64 {
        n.div_ceil(self.floats_per_block())
    }
    /// Memory requests each thread has in flight (one per load, whatever its width).
    pub const fn requests_per_thread(&self) -> u32 {
        self.loads
    }
    /// The label of this point in [`MEMCPY`], if experiment 2 names it.
    pub fn label(&self) -> Option<&'static str> {
        MEMCPY
            .iter()
            .find(|v| v.point.entry == self.entry)
            .map(|v| v.label)
    }
}

/// A labelled memcpy variant: a point of the grid with experiment 2's name for it. Derefs to its
/// [`MemcpyPoint`] (threads, loads, width, entry, grid, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemcpyVariant {
    pub label: &'static str,
    pub point: MemcpyPoint,
}

impl core::ops::Deref for MemcpyVariant {
    type Target = MemcpyPoint;
    fn deref(&self) -> &MemcpyPoint {
        &self.point
    }
}

/// Inner-loop unroll of the FMA kernels: `iters` is consumed in rounds of this many fmas per
/// chain (the peer's contract: iters a multiple of 16).
pub const FMA_UNROLL: u32 = 16;

/// One FMA kernel: `ILP` independent chains `x_i = fma(x_i, a, b)` per thread, chain i starting
/// at `((g & 4095) + i) as f32` (g the global thread index); `out[g]` is the chains' sum in chain
/// order. Launched with any block size (no launch bound) and one output float per thread:
/// `out` must hold grid x block floats. See [`crate::reference`] for the CPU result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FmaVariant {
    pub ilp: u32,
    /// Exported PTX entry name, `fma_ilp{ILP}`.
    pub entry: &'static str,
}

impl FmaVariant {
    /// Rounds of one fma per chain the kernel runs for `iters`: `iters` rounded up to a multiple
    /// of [`FMA_UNROLL`] (0 when `iters <= 0`).
    pub const fn rounds(iters: i32) -> u64 {
        if iters <= 0 {
            0
        } else {
            (iters as u64).div_ceil(FMA_UNROLL as u64) * FMA_UNROLL as u64
        }
    }
    /// FLOPs of a launch of `threads` threads in all (2 per fma).
    pub const fn flops(&self, threads: u64, iters: i32) -> u64 {
        2 * self.ilp as u64 * Self::rounds(iters) * threads
    }
    /// Grid for `threads` threads in all in blocks of `block`: the kernel has no bounds check, so
    /// `threads` must be a multiple of `block` (None otherwise, or when block is 0 or > 1024).
    pub const fn grid(threads: u64, block: u32) -> Option<u64> {
        if block == 0 || block > MAX_THREADS || !threads.is_multiple_of(block as u64) {
            None
        } else {
            Some(threads / block as u64)
        }
    }
}

/// The DRAM latency pointer chase: one thread follows `i = next[i]` for `steps` dependent loads
/// that bypass L1 (`ld.global.cg`), then writes `out[0]` = the final index, `out[1]` = elapsed
/// SM cycles (`%clock64`) and `out[2]` = elapsed ns (`%globaltimer`). `next` is a ring built by
/// [`crate::reference::build_chase_ring`] with hops of at least `slot_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChaseKernel {
    /// Exported PTX entry name.
    pub entry: &'static str,
    /// Least distance in bytes between the elements of two consecutive hops.
    pub slot_bytes: u32,
}

impl ChaseKernel {
    /// Grid and block of the launch: one thread (other threads would return at once).
    pub const GRID: (u32, u32) = (1, 1);
    pub const THREADS: u32 = 1;
    /// u64 words the kernel writes to `out`.
    pub const OUT_WORDS: usize = 3;
    /// u32 elements per slot of the ring.
    pub const fn slot_elems(&self) -> usize {
        self.slot_bytes as usize / 4
    }
    /// Reads the kernel's output words.
    pub const fn result(out: [u64; Self::OUT_WORDS]) -> ChaseResult {
        ChaseResult {
            end: out[0] as u32,
            cycles: out[1],
            nanos: out[2],
        }
    }
}

/// What one chase measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChaseResult {
    /// The index reached after `steps` hops (compare with [`crate::reference::chase_end`]).
    pub end: u32,
    /// SM clock cycles from before the first load to after the last one.
    pub cycles: u64,
    /// The same span in ns of the global timer.
    pub nanos: u64,
}

/// A kernel family: one parameter list and one kernel function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    Gemm,
    Memcpy,
    FmaIlp,
    Chase,
    GemmRef,
    GemmCheck,
    Bf16Gemm,
    MmaIlp,
}

impl Family {
    /// The family's declared parameter list (the table's `abi:` line).
    pub const fn params(self) -> &'static [Param] {
        match self {
            Family::Gemm => GemmParams::PARAMS,
            Family::Memcpy => MemcpyParams::PARAMS,
            Family::FmaIlp => FmaParams::PARAMS,
            Family::Chase => ChaseParams::PARAMS,
            Family::GemmRef => GemmRefParams::PARAMS,
            Family::GemmCheck => GemmCheckParams::PARAMS,
            Family::Bf16Gemm => Bf16GemmParams::PARAMS,
            Family::MmaIlp => MmaParams::PARAMS,
        }
    }
}

/// One PTX entry the table generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryDecl {
    pub name: &'static str,
    pub family: Family,
    /// Threads per block every launch uses, when fixed: the main module's `.maxntid`. None for
    /// entries launched with several block sizes (fma) or not worth bounding (chase).
    pub max_threads: Option<u32>,
}

impl EntryDecl {
    pub const fn params(&self) -> &'static [Param] {
        self.family.params()
    }
}

/// Every entry of the module, in table order: GEMM lines, memcpy grid points, FMA, chase, the
/// GEMM check's reference and comparison, BF16 GEMM lines, mma microbenchmarks.
pub fn entries() -> impl Iterator<Item = EntryDecl> + Clone {
    let gemm = GEMM.iter().map(|v| EntryDecl {
        name: v.entry,
        family: Family::Gemm,
        max_threads: Some(v.threads()),
    });
    let memcpy = MEMCPY_GRID.iter().map(|p| EntryDecl {
        name: p.entry,
        family: Family::Memcpy,
        max_threads: Some(p.threads),
    });
    let fma = FMA.iter().map(|v| EntryDecl {
        name: v.entry,
        family: Family::FmaIlp,
        max_threads: None,
    });
    let chase = core::iter::once(EntryDecl {
        name: CHASE.entry,
        family: Family::Chase,
        max_threads: None,
    });
    let check = [
        EntryDecl {
            name: GEMM_REF.entry,
            family: Family::GemmRef,
            max_threads: Some(GEMM_REF.threads()),
        },
        EntryDecl {
            name: GEMM_CHECK.entry,
            family: Family::GemmCheck,
            max_threads: Some(GEMM_CHECK.threads),
        },
    ];
    let bf16 = BF16_GEMM.iter().map(|v| EntryDecl {
        name: v.entry,
        family: Family::Bf16Gemm,
        max_threads: Some(v.threads()),
    });
    let mma = MMA_ILP.iter().map(|v| EntryDecl {
        name: v.entry,
        family: Family::MmaIlp,
        max_threads: None,
    });
    gemm.chain(memcpy)
        .chain(fma)
        .chain(chase)
        .chain(check)
        .chain(bf16)
        .chain(mma)
}

/// The entries of the GEMM check, in table order.
pub fn check_entries() -> [&'static str; 2] {
    [GEMM_REF.entry, GEMM_CHECK.entry]
}

/// The entry called `name`, if the table generates one.
pub fn entry(name: &str) -> Option<EntryDecl> {
    entries().find(|e| e.name == name)
}

/// The register-cap experiment: one GEMM variant rebuilt under each cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegsExperiment {
    /// Label of the GEMM variant that is capped.
    pub variant: &'static str,
    /// Register caps, ascending.
    pub caps: &'static [u32],
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

/// Looks a GEMM variant up by label.
pub const fn find_gemm(table: &'static [GemmVariant], label: &str) -> Option<&'static GemmVariant> {
    let mut i = 0;
    while i < table.len() {
        if str_eq(table[i].label, label) {
            return Some(&table[i]);
        }
        i += 1;
    }
    None
}

pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Non-empty and strictly ascending (so no value twice).
const fn strictly_ascending(xs: &[u32]) -> bool {
    let mut i = 1;
    while i < xs.len() {
        if xs[i] <= xs[i - 1] {
            return false;
        }
        i += 1;
    }
    !xs.is_empty()
}

const fn grid_has(grid: &[MemcpyPoint], threads: u32, loads: u32, width: u32) -> bool {
    let mut i = 0;
    while i < grid.len() {
        let p = &grid[i];
        if p.threads == threads && p.loads == loads && p.width == width {
            return true;
        }
        i += 1;
    }
    false
}

const fn entries_unique(gemm: &[GemmVariant], memcpy: &[MemcpyVariant]) -> bool {
    let mut i = 0;
    while i < gemm.len() {
        let mut j = i + 1;
        while j < gemm.len() {
            if str_eq(gemm[i].entry, gemm[j].entry) || str_eq(gemm[i].label, gemm[j].label) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    let mut i = 0;
    while i < memcpy.len() {
        let mut j = i + 1;
        while j < memcpy.len() {
            if str_eq(memcpy[i].point.entry, memcpy[j].point.entry)
                || str_eq(memcpy[i].label, memcpy[j].label)
            {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
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
    fn every_entry_is_listed_once_with_its_family() {
        let all: [EntryDecl; 11 + 198 + 9 + 1 + 2 + 6 + 4] = {
            let mut it = entries();
            core::array::from_fn(|_| it.next().unwrap())
        };
        assert!(entries().nth(all.len()).is_none());
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| b.name != a.name), "{}", a.name);
            assert_eq!(entry(a.name), Some(*a));
        }
        let fma4 = entry("fma_ilp4").unwrap();
        assert_eq!((fma4.family, fma4.max_threads), (Family::FmaIlp, None));
        assert_eq!(fma4.params(), FmaParams::PARAMS);
        let t1 = entry("memcpy_t1024_l1_w1").unwrap();
        assert_eq!((t1.family, t1.max_threads), (Family::Memcpy, Some(1024)));
        assert_eq!(entry(CHASE.entry).unwrap().params(), ChaseParams::PARAMS);
        assert_eq!(entry("gemm_tm8_tn8").unwrap().max_threads, Some(64));
        assert_eq!(entry("memcpy_t1024_l1_w3"), None);
        let r = entry(GEMM_REF.entry).unwrap();
        assert_eq!((r.family, r.max_threads), (Family::GemmRef, Some(256)));
        assert_eq!(r.params(), GemmRefParams::PARAMS);
        let c = entry(GEMM_CHECK.entry).unwrap();
        assert_eq!((c.family, c.max_threads), (Family::GemmCheck, Some(256)));
        assert_eq!(check_entries(), [GEMM_REF.entry, GEMM_CHECK.entry]);
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
        assert_eq!(REGS.gemm().label, REGS.variant);
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
        assert_eq!(
            tuned_shape_fits(&shape((128, 128, 8), (64, 32), (6, 8), 3)),
            Err(ThreadTile)
        );
        assert_eq!(
            tuned_shape_fits(&shape((128, 128, 8), (64, 64), (8, 8), 3)),
            Err(WarpTile)
        );
        assert_eq!(
            tuned_shape_fits(&shape((128, 96, 8), (64, 64), (8, 16), 3)),
            Err(BlockTile)
        );
        assert_eq!(
            tuned_shape_fits(&shape((512, 256, 8), (32, 32), (4, 8), 3)),
            Err(Threads)
        );
        // 512 threads: the 128x4 slice of A gives each one float, but the 4x128 slice of B holds
        // only 128 four-float groups.
        assert_eq!(
            tuned_shape_fits(&shape((128, 128, 4), (32, 32), (4, 8), 3)),
            Err(Staging)
        );
        assert_eq!(
            tuned_shape_fits(&shape((128, 128, 8), (64, 32), (8, 8), 1)),
            Err(Stages)
        );
        assert_eq!(
            tuned_shape_fits(&shape((256, 256, 32), (64, 64), (16, 8), 8)),
            Err(SharedMemory)
        );
    }
}
