//! The entries the variant table generates: each with its family (and so its parameter list)
//! and its launch bound, in table order; and the traced twins of the GEMM lines' entries
//! (`sections/block_trace.rs`), which [`entry`] knows beside them.

use crate::abi::Param;
use crate::variants::{
    Bf16GemmParams, ChaseParams, FmaParams, GemmCheckParams, GemmHashParams, GemmParams,
    GemmRefParams, MemcpyParams, MmaParams, PersistentCopyParams, ReadParams, SmemCopyParams,
    SmemPath, BF16_GEMM, CHASE, FMA, FMA_CONTROLS, GEMM, GEMM_CHECK, GEMM_HASH, GEMM_REF,
    MEMCPY_GRID, MMA_ILP, PERSISTENT_COPY, READ, SMEM_COPY,
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
    PersistentCopy,
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
            Family::PersistentCopy => PersistentCopyParams::PARAMS,
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
    /// For a traced entry, the timed entry whose kernel it runs between the block trace's stamps
    /// (and whose launch bounds, register cap and resources it has); None for a timed entry.
    pub traces: Option<&'static str>,
}

impl EntryDecl {
    const fn new(name: &'static str, family: Family, max_threads: Option<u32>) -> Self {
        EntryDecl {
            name,
            family,
            max_threads,
            traces: None,
        }
    }

    /// The traced twin of this (timed) entry, called `traced`.
    const fn traced(self, traced: &'static str) -> Self {
        EntryDecl {
            name: traced,
            traces: Some(self.name),
            ..self
        }
    }

    pub const fn params(&self) -> &'static [Param] {
        self.family.params()
    }
}

/// Every entry of the module, in table order: GEMM lines, memcpy grid points, FMA, chase, the
/// GEMM check's reference, comparison and hash, BF16 GEMM lines, mma microbenchmarks, read-only
/// kernels, the copies through shared memory, the persistent copies, their sampled builds.
pub fn entries() -> impl Iterator<Item = EntryDecl> + Clone {
    use Family::*;
    let gemm = GEMM
        .iter()
        .map(|v| EntryDecl::new(v.entry, Gemm, Some(v.threads())));
    let memcpy = MEMCPY_GRID
        .iter()
        .map(|p| EntryDecl::new(p.entry, Memcpy, Some(p.threads)));
    let fma = FMA
        .iter()
        .chain(FMA_CONTROLS)
        .map(|v| EntryDecl::new(v.entry, FmaIlp, None));
    let chase = core::iter::once(EntryDecl::new(CHASE.entry, Chase, None));
    let check = [
        EntryDecl::new(GEMM_REF.entry, GemmRef, Some(GEMM_REF.threads())),
        EntryDecl::new(GEMM_CHECK.entry, GemmCheck, Some(GEMM_CHECK.threads)),
        EntryDecl::new(GEMM_HASH.entry, GemmHash, Some(GEMM_HASH.threads)),
    ];
    let bf16 = BF16_GEMM
        .iter()
        .map(|v| EntryDecl::new(v.entry, Bf16Gemm, Some(v.threads())));
    let mma = MMA_ILP
        .iter()
        .map(|v| EntryDecl::new(v.entry, MmaIlp, None));
    let read = READ
        .iter()
        .map(|p| EntryDecl::new(p.entry, Read, Some(p.threads)));
    // The bulk-copy lines live in the sm_90a module alone.
    let smem_copy = SMEM_COPY
        .iter()
        .filter(|l| l.path == SmemPath::CpAsync)
        .map(|l| EntryDecl::new(l.entry, SmemCopy, Some(l.threads)));
    let persistent = PERSISTENT_COPY
        .iter()
        .map(|l| EntryDecl::new(l.entry, PersistentCopy, Some(l.threads)));
    // Their sampled builds: the same parameters and launch bound (sections/copy_samples.rs).
    let sampled = PERSISTENT_COPY
        .iter()
        .map(|l| EntryDecl::new(l.sampled, PersistentCopy, Some(l.threads)));
    gemm.chain(memcpy)
        .chain(fma)
        .chain(chase)
        .chain(check)
        .chain(bf16)
        .chain(mma)
        .chain(read)
        .chain(smem_copy)
        .chain(persistent)
        .chain(sampled)
}

/// The traced twins of the GEMM lines' entries (`sections/block_trace.rs`), in table order: the
/// FP32 GEMM lines', then the BF16 ones'. Each has its timed entry's family, launch bound and
/// module. (The sm_90a module's GEMM lines have traced twins too, listed with that module by
/// xtask, as their timed entries are.)
pub fn traced_entries() -> impl Iterator<Item = EntryDecl> + Clone {
    let gemm = GEMM
        .iter()
        .map(|v| EntryDecl::new(v.entry, Family::Gemm, Some(v.threads())).traced(v.traced_entry()));
    let bf16 = BF16_GEMM.iter().map(|v| {
        EntryDecl::new(v.entry, Family::Bf16Gemm, Some(v.threads())).traced(v.traced_entry())
    });
    gemm.chain(bf16)
}

/// Every entry of the module: [`entries`], then [`traced_entries`].
pub fn all_entries() -> impl Iterator<Item = EntryDecl> + Clone {
    entries().chain(traced_entries())
}

/// The entries of the GEMM check, in table order.
pub fn check_entries() -> [&'static str; 3] {
    [GEMM_REF.entry, GEMM_CHECK.entry, GEMM_HASH.entry]
}

/// The entry called `name`, if the table generates one (a traced twin included).
pub fn entry(name: &str) -> Option<EntryDecl> {
    all_entries().find(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants::*;

    #[test]
    fn traced_entries_are_their_lines_entries_with_the_suffix_and_known_by_name() {
        extern crate std;
        use crate::sections::block_trace::TRACED_SUFFIX;
        use std::format;
        use std::vec::Vec;
        let lines: Vec<(&str, &str)> = GEMM
            .iter()
            .map(|v| (v.entry, v.traced_entry()))
            .chain(BF16_GEMM.iter().map(|v| (v.entry, v.traced_entry())))
            .chain(WGEMM.iter().map(|v| (v.entry, v.traced_entry())))
            .collect();
        for (timed, traced) in &lines {
            assert_eq!(*traced, format!("{timed}{TRACED_SUFFIX}"));
        }
        assert_eq!(
            find_gemm(GEMM, "C").unwrap().traced_entry(),
            "gemm_tm8_tn8_traced"
        );
        // Each FP32 and BF16 line's traced entry: its line's family and bound, naming its entry.
        for (v, family, threads) in GEMM
            .iter()
            .map(|v| ((v.entry, v.traced_entry()), Family::Gemm, v.threads()))
            .chain(
                BF16_GEMM
                    .iter()
                    .map(|v| ((v.entry, v.traced_entry()), Family::Bf16Gemm, v.threads())),
            )
        {
            let (timed, traced) = v;
            let t = entry(traced).unwrap();
            assert_eq!(
                (t.name, t.family, t.max_threads, t.traces),
                (traced, family, Some(threads), Some(timed))
            );
            assert_eq!(t.params(), entry(timed).unwrap().params());
            assert_eq!(entry(timed).unwrap().traces, None);
        }
        assert_eq!(traced_entries().count(), GEMM.len() + BF16_GEMM.len());
        assert!(traced_entries().all(|e| e.traces.is_some()));
        // Every traced entry is known by name among the module's, after its timed one, and no
        // name is declared twice.
        let names: Vec<&str> = all_entries().map(|e| e.name).collect();
        let at = |n: &str| names.iter().position(|x| *x == n).unwrap();
        for t in traced_entries() {
            assert!(at(t.traces.unwrap()) < at(t.name), "{}", t.name);
        }
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "an entry declared twice");
        // The sm_90a module's lines are not this module's entries, traced or timed.
        assert!(WGEMM
            .iter()
            .all(|v| entry(v.entry).is_none() && entry(v.traced_entry()).is_none()));
        assert_eq!(entry("gemm_tm8_tn8_traced_traced"), None);
        assert_eq!(entry("memcpy_t1024_l1_w1_traced"), None, "GEMM lines only");
    }

    #[test]
    fn every_entry_is_listed_once_with_its_family() {
        let all: [EntryDecl; 12 + 198 + 9 + 8 + 1 + 3 + 10 + 4 + 10 + 8 + 13 + 13] = {
            let mut it = entries();
            core::array::from_fn(|_| it.next().unwrap())
        };
        assert!(entries().nth(all.len()).is_none());
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| b.name != a.name), "{}", a.name);
            assert_eq!(entry(a.name), Some(*a));
        }
        // A copy through shared memory: its own family, the copy's parameters, bounded at its
        // block; the bulk-copy lines are not entries of this module (the sm_90a one holds them).
        let ring = entry("cp_async_copy_t128_b2048_s4").unwrap();
        assert_eq!(
            (ring.family, ring.max_threads),
            (Family::SmemCopy, Some(128))
        );
        assert_eq!(ring.params(), MemcpyParams::PARAMS);
        assert!(SMEM_COPY.iter().any(|l| l.path == SmemPath::Bulk));
        assert!(SMEM_COPY
            .iter()
            .filter(|l| l.path == SmemPath::Bulk)
            .all(|l| entry(l.entry).is_none()));
        // A persistent copy: its own family, the copy's parameters, bounded at its block.
        let persistent = entry("stream_copy_t256_l4_w4").unwrap();
        assert_eq!(
            (persistent.family, persistent.max_threads),
            (Family::PersistentCopy, Some(256))
        );
        assert_eq!(persistent.params(), MemcpyParams::PARAMS);
        let sampled = entry("stream_copy_t256_l4_w4_sampled").unwrap();
        assert_eq!(
            (sampled.family, sampled.max_threads),
            (Family::PersistentCopy, Some(256))
        );
        // A read line: its own family and parameters, bounded at its copy's block size.
        let read = entry("read_t256_l8_w4").unwrap();
        assert_eq!((read.family, read.max_threads), (Family::Read, Some(256)));
        assert_eq!(read.params(), ReadParams::PARAMS);
        let fma4 = entry("fma_ilp4").unwrap();
        assert_eq!((fma4.family, fma4.max_threads), (Family::FmaIlp, None));
        assert_eq!(fma4.params(), FmaParams::PARAMS);
        // The FMA controls are FMA entries: the same parameters, no launch bound.
        let imm = entry("ffma_imm_ilp2").unwrap();
        assert_eq!((imm.family, imm.max_threads), (Family::FmaIlp, None));
        let c = FMA_CONTROLS
            .iter()
            .find(|v| v.entry == "ffma_imm_ilp2")
            .unwrap();
        assert_eq!((c.op, c.ilp), (FmaOp::FfmaImm, 2));
        assert_eq!(c.flops(10, 16), 2 * 2 * 16 * 10);
        let fadd = FMA_CONTROLS
            .iter()
            .find(|v| v.entry == "fadd_ilp1")
            .unwrap();
        assert_eq!(fadd.flops(10, 16), 16 * 10, "one FLOP per FADD");
        assert!(FMA.iter().all(|v| v.op == FmaOp::Ffma));
        assert_eq!(FmaOp::named("ffma_const"), Some(FmaOp::FfmaConst));
        assert_eq!(FmaOp::named("fsub"), None);
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
        let h = entry(GEMM_HASH.entry).unwrap();
        assert_eq!((h.family, h.max_threads), (Family::GemmHash, Some(256)));
        assert_eq!(h.params(), GemmHashParams::PARAMS);
        // The check's entries are the module's entries of the check's three families, in order.
        extern crate std;
        let of_check: std::vec::Vec<&str> = (entries())
            .filter(|e| {
                matches!(
                    e.family,
                    Family::GemmRef | Family::GemmCheck | Family::GemmHash
                )
            })
            .map(|e| e.name)
            .collect();
        assert_eq!(of_check, check_entries());
    }
}
