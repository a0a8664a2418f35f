//! The GEMM lines of the variant table: a line's family and tiles, what the host derives from
//! them (threads, grid, shared memory), the tuned family's rules on its shape, and the register
//! experiment's line (one GEMM variant under each cap).

use crate::sections::limits::{MAX_SHARED_OPT_IN, MAX_THREADS};
use crate::sections::text_rules::str_eq;
use crate::shapes::tuned_shape::TunedShape;

/// Rows of the seed family's output tile per block.
pub const BM: u32 = 64;

/// Columns of the seed family's output tile per block.
pub const BN: u32 = 64;

/// Depth of the seed family's K slice staged in shared memory per iteration.
pub const BK: u32 = 8;

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
    /// The traced twin's entry name ([`GemmVariant::traced_entry`]).
    pub(crate) traced: &'static str,
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
    /// The entry of the line's traced twin: [`entry`](GemmVariant::entry) and
    /// [`TRACED_SUFFIX`](crate::sections::block_trace::TRACED_SUFFIX), the same kernel and
    /// launch bounds with the block trace's stamps around it (`sections/block_trace.rs`).
    pub const fn traced_entry(&self) -> &'static str {
        self.traced
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
    /// Dynamic shared memory to launch with, bytes. Above
    /// [`SHARED_WITHOUT_OPT_IN`](crate::sections::limits::SHARED_WITHOUT_OPT_IN) the host must
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
    use crate::shapes::tuned_shape::VEC;
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

/// The register-cap experiment: one GEMM variant rebuilt under each cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegsExperiment {
    /// Label of the GEMM variant that is capped.
    pub variant: &'static str,
    /// Register caps, ascending.
    pub caps: &'static [u32],
}
// `RegsExperiment::gemm` (which reads the table) is in variants.rs.

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
