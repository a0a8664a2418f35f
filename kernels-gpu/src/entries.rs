//! The entries the variant table generates: each with its family (and so its parameter list)
//! and its launch bound, in table order.

use crate::abi::Param;
use crate::variants::{
    Bf16GemmParams, ChaseParams, FmaParams, GemmCheckParams, GemmHashParams, GemmParams,
    GemmRefParams, MemcpyParams, MmaParams, ReadParams, SmemCopyParams, SmemPath, BF16_GEMM, CHASE,
    FMA, FMA_CONTROLS, GEMM, GEMM_CHECK, GEMM_HASH, GEMM_REF, MEMCPY_GRID, MMA_ILP, READ,
    SMEM_COPY,
};

/// A kernel family: one parameter list and one kernel function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    Gemm,
    Memcpy,
    FmaIlp,
    Chase,
    GemmRef,
    GemmCheck,
    GemmHash,
    Bf16Gemm,
    MmaIlp,
    Read,
    SmemCopy,
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
            Family::GemmHash => GemmHashParams::PARAMS,
            Family::Bf16Gemm => Bf16GemmParams::PARAMS,
            Family::MmaIlp => MmaParams::PARAMS,
            Family::Read => ReadParams::PARAMS,
            Family::SmemCopy => SmemCopyParams::PARAMS,
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
/// GEMM check's reference, comparison and hash, BF16 GEMM lines, mma microbenchmarks, read-only
/// kernels, the copies through shared memory.
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
    let fma = FMA.iter().chain(FMA_CONTROLS).map(|v| EntryDecl {
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
        EntryDecl {
            name: GEMM_HASH.entry,
            family: Family::GemmHash,
            max_threads: Some(GEMM_HASH.threads),
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
    let read = READ.iter().map(|p| EntryDecl {
        name: p.entry,
        family: Family::Read,
        max_threads: Some(p.threads),
    });
    // The bulk-copy lines live in the sm_90a module alone.
    let smem_copy = SMEM_COPY
        .iter()
        .filter(|l| l.path == SmemPath::CpAsync)
        .map(|l| EntryDecl {
            name: l.entry,
            family: Family::SmemCopy,
            max_threads: Some(l.threads),
        });
    gemm.chain(memcpy)
        .chain(fma)
        .chain(chase)
        .chain(check)
        .chain(bf16)
        .chain(mma)
        .chain(read)
        .chain(smem_copy)
}

/// The entries of the GEMM check, in table order.
pub fn check_entries() -> [&'static str; 3] {
    [GEMM_REF.entry, GEMM_CHECK.entry, GEMM_HASH.entry]
}

/// The entry called `name`, if the table generates one.
pub fn entry(name: &str) -> Option<EntryDecl> {
    entries().find(|e| e.name == name)
}
