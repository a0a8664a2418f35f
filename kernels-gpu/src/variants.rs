//! THE variant table: one line per variant, and the only list of variants in the project.
//!
//! Add a line and it becomes a PTX entry point with its launch bounds, a host launch, a row in
//! every table and plot. A line that cannot work is rejected at compile time with its label.

variant_table! {
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
    // store. Entry: memcpy_t{THREADS}_l{LOADS}_w{WIDTH}.
    memcpy: [
        // label    THREADS  LOADS  WIDTH
        ("T1",      1024,     1,     1),
        ("T2",      1024,     2,     1),
        ("T4",       512,     4,     1),
        ("T8",       256,     8,     1),
        ("T8f2",     128,     8,     2),
        ("T8f4",      64,     8,     4),
        ("T14f4",     32,    14,     4),
    ],
    // Register-pressure experiment: one GEMM variant rebuilt under each register cap.
    regs: ("C", [32, 48, 64, 96, 128, 160, 192, 255]),
}

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

/// One strided-copy variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemcpyVariant {
    pub label: &'static str,
    /// Threads per block (also the entry's launch bound).
    pub threads: u32,
    /// Independent loads each thread issues before its first store.
    pub loads: u32,
    /// Floats per access: 1, 2 (one 8-byte access) or 4 (one 16-byte access).
    pub width: u32,
    /// Exported PTX entry name, `memcpy_t{THREADS}_l{LOADS}_w{WIDTH}`.
    pub entry: &'static str,
}

impl MemcpyVariant {
    /// Bytes each thread has in flight (loaded before storing).
    pub const fn bytes_per_thread(&self) -> u32 {
        4 * self.loads * self.width
    }
    /// Floats one block copies.
    pub const fn floats_per_block(&self) -> u64 {
        self.threads as u64 * self.loads as u64 * self.width as u64
    }
    /// Blocks needed for n floats: ceil(n / (THREADS*LOADS*WIDTH)).
    pub const fn grid(&self, n: u64) -> u64 {
        n.div_ceil(self.floats_per_block())
    }
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

const fn str_eq(a: &str, b: &str) -> bool {
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

const fn caps_ascending(caps: &[u32]) -> bool {
    let mut i = 1;
    while i < caps.len() {
        if caps[i] <= caps[i - 1] {
            return false;
        }
        i += 1;
    }
    !caps.is_empty()
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
            if str_eq(memcpy[i].entry, memcpy[j].entry) || str_eq(memcpy[i].label, memcpy[j].label)
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
