//! The probes of the variant table: the FMA kernels (instruction-level parallelism against the
//! FP32 pipes) and the pointer chase (DRAM latency), with what the host derives from them.

use crate::sections::limits::MAX_THREADS;

/// Inner-loop unroll of the FMA kernels: `iters` is consumed in rounds of this many fmas per
/// chain (the peer's contract: iters a multiple of 16).
pub const FMA_UNROLL: u32 = 16;

/// What each round of an FP32 chain kernel does to a chain `x`, given the launch's `a` and `b`.
/// The three-register fused multiply-add is the ILP sweep's kernel (`fma_ilp{ILP}`); the others
/// are its controls (`{op}_ilp{ILP}`), which change only the instruction's operands, so that
/// a ceiling they share is the issue of dependent instructions and one they escape is the
/// operands' (the SASS each is built to is named on its variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FmaOp {
    /// `x = fma(x, a, b)`, `a` and `b` in registers: `FFMA R, R, R, R`.
    Ffma,
    /// `x = x + a`, `a` in a register: `FADD R, R, R` (two register sources).
    Fadd,
    /// `x = x * a`, `a` in a register: `FMUL R, R, R` (two register sources).
    Fmul,
    /// `x = fma(x, FFMA_IMM, x)`: `FFMA R, R, imm, R` with the same register twice (one
    /// register read; `a` and `b` unused).
    FfmaImm,
    /// `x = fma(x, a, x)`, `a` straight from its parameter: the same vector register twice and
    /// the constant, which sm_90 ptxas reads through a uniform register loaded from the
    /// constant bank (`FFMA R5, R5, UR5, R5`) rather than as `c[..]` (one vector register read;
    /// `b` unused).
    FfmaConst,
}

/// The immediate of [`FmaOp::FfmaImm`]: `fma(x, -2^-20, x)` is `x * (1 - 2^-20)` rounded once,
/// so a chain creeps towards zero and never stops moving within the rounds a launch runs.
pub const FFMA_IMM: f32 = -1.0 / (1u32 << 20) as f32;

impl FmaOp {
    /// Every op, the sweep's FFMA first.
    pub const ALL: [FmaOp; 5] = [
        FmaOp::Ffma,
        FmaOp::Fadd,
        FmaOp::Fmul,
        FmaOp::FfmaImm,
        FmaOp::FfmaConst,
    ];

    /// The op's name in the variant table and in its entries (`{name}_ilp{ILP}`; the FFMA's
    /// entries keep the peer's `fma_ilp{ILP}`).
    pub const fn name(self) -> &'static str {
        match self {
            FmaOp::Ffma => "ffma",
            FmaOp::Fadd => "fadd",
            FmaOp::Fmul => "fmul",
            FmaOp::FfmaImm => "ffma_imm",
            FmaOp::FfmaConst => "ffma_const",
        }
    }

    /// The op a table line names, if any.
    pub const fn named(name: &str) -> Option<FmaOp> {
        let mut i = 0;
        while i < Self::ALL.len() {
            if crate::sections::text_rules::str_eq(Self::ALL[i].name(), name) {
                return Some(Self::ALL[i]);
            }
            i += 1;
        }
        None
    }

    /// The SASS instruction the op is built to, as `nvdisasm` prints its operands.
    pub const fn sass(self) -> &'static str {
        match self {
            FmaOp::Ffma => "FFMA R, R, R, R",
            FmaOp::Fadd => "FADD R, R, R",
            FmaOp::Fmul => "FMUL R, R, R",
            FmaOp::FfmaImm => "FFMA Rx, Rx, imm, Rx",
            FmaOp::FfmaConst => "FFMA Rx, Rx, UR (constant), Rx",
        }
    }

    /// Distinct vector registers the instruction reads.
    pub const fn register_sources(self) -> u32 {
        match self {
            FmaOp::Ffma => 3,
            FmaOp::Fadd | FmaOp::Fmul => 2,
            FmaOp::FfmaImm | FmaOp::FfmaConst => 1,
        }
    }

    /// FLOPs of one instruction on one lane: 2 for a fused multiply-add, 1 otherwise. The FP32
    /// peak counts 2 per lane and cycle, so a 1-FLOP op at full rate is half of it in FLOP/s.
    pub const fn flops(self) -> u64 {
        match self {
            FmaOp::Ffma | FmaOp::FfmaImm | FmaOp::FfmaConst => 2,
            FmaOp::Fadd | FmaOp::Fmul => 1,
        }
    }

    /// The `a` and `b` to launch the op's kernels with for the FFMA sweep's `a` and `b`: the
    /// constant-bank op multiplies by `a - 1` (exact for `a` in [0.5, 2]), so that its chain
    /// `fma(x, a - 1, x)` is `x * a` rounded once; the others take them as they are.
    pub const fn launch_args(self, a: f32, b: f32) -> (f32, f32) {
        match self {
            FmaOp::FfmaConst => (a - 1.0, b),
            _ => (a, b),
        }
    }
}

/// One FP32 chain kernel: `ILP` independent chains per thread, each round applying [`FmaOp`]
/// `op` to every chain (the FFMA: `x_i = fma(x_i, a, b)`), chain i starting at
/// `((g & 4095) + i) as f32` (g the global thread index); `out[g]` is the chains' sum in chain
/// order. Launched with any block size (no launch bound) and one output float per thread:
/// `out` must hold grid x block floats. See [`crate::models::probe_results`] for the CPU result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FmaVariant {
    pub op: FmaOp,
    pub ilp: u32,
    /// Exported PTX entry name: `fma_ilp{ILP}` for the FFMA, `{op}_ilp{ILP}` for a control.
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
    /// FLOPs of a launch of `threads` threads in all ([`FmaOp::flops`] per instruction).
    pub const fn flops(&self, threads: u64, iters: i32) -> u64 {
        self.op.flops() * self.ilp as u64 * Self::rounds(iters) * threads
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
/// [`crate::models::probe_results::build_chase_ring`] with hops of at least `slot_bytes`.
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
    /// The index reached after `steps` hops (compare with
    /// [`crate::models::probe_results::chase_end`]).
    pub end: u32,
    /// SM clock cycles from before the first load to after the last one.
    pub cycles: u64,
    /// The same span in ns of the global timer.
    pub nanos: u64,
}
