//! THE variant table: one line per variant, and the only list of variants in the project.
//!
//! Add a line and it becomes a PTX entry point with its launch bounds, a host launch, a row in
//! every table and plot. A line that cannot work is rejected at compile time with its label.

variant_table! {
    // GEMM: one 64x64 output tile per block (BK = 8); each thread owns a TM x TN accumulator tile,
    // so the block has 4096 / (TM * TN) threads. Entry: gemm_tm{TM}_tn{TN}.
    gemm: [
        // label  TM  TN
        ("S",      2,  2),
        ("A1",     2,  4),
        ("A",      4,  4),
        ("B",      8,  4),
        ("C",      8,  8),
        ("D",     16,  8),
        ("D+",    16, 16),
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

/// Rows of the output tile computed by one block.
pub const BM: u32 = 64;
/// Columns of the output tile computed by one block.
pub const BN: u32 = 64;
/// Depth of the K slice staged in shared memory per iteration.
pub const BK: u32 = 8;
/// Largest block CUDA allows.
pub const MAX_THREADS: u32 = 1024;
/// Largest register count a thread may use.
pub const MAX_REGS_PER_THREAD: u32 = 255;
/// Smallest register cap ptxas accepts for `.maxnreg` / `-maxrregcount`.
pub const MIN_REG_CAP: u32 = 16;

/// One GEMM variant: C = alpha*A*B + beta*C, row-major f32, one BMxBN tile per block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmVariant {
    pub label: &'static str,
    /// Rows of the per-thread accumulator tile.
    pub tm: u32,
    /// Columns of the per-thread accumulator tile.
    pub tn: u32,
    /// Exported PTX entry name, `gemm_tm{TM}_tn{TN}`.
    pub entry: &'static str,
}

impl GemmVariant {
    /// Threads per block (also the entry's launch bound).
    pub const fn threads(&self) -> u32 {
        BM * BN / (self.tm * self.tn)
    }
    /// Live accumulators per thread.
    pub const fn accumulators(&self) -> u32 {
        self.tm * self.tn
    }
    /// Grid for an M x N output: (N/BN, M/BM). The caller checks that the sizes tile.
    pub const fn grid(&self, m: u32, n: u32) -> (u32, u32) {
        (n / BN, m / BM)
    }
    /// Static shared memory of the kernel: As[BM][BK+1] and Bs[BK][BN+1] floats.
    pub const fn static_shared_bytes() -> u32 {
        4 * (BM * (BK + 1) + BK * (BN + 1))
    }
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
            .all(|v| v.threads() * v.accumulators() == BM * BN));
        assert_eq!(GemmVariant::static_shared_bytes(), 4 * (64 * 9 + 8 * 65));
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
}
