//! The results of a run, as written to `results.json` and read back by `host report`.
//!
//! This is the contract between the experiments (which fill it), the table renderer, the plots
//! and the verdicts (which only read it). Every figure carries what is needed to judge it.

use serde::{Deserialize, Serialize};

/// One run of the lab on one GPU with one kernel module (plus, optionally, a second module to
/// compare against).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunResults {
    pub meta: RunMeta,
    pub device: DeviceInfo,
    /// Experiment 1: occupancy vs throughput (GEMM variants).
    pub occupancy: Option<Vec<GemmRow>>,
    /// Experiment 2: bandwidth vs occupancy (memcpy variants).
    pub bandwidth: Option<Bandwidth>,
    /// Experiment 3: register pressure (one GEMM variant under each register cap).
    pub regs: Option<Vec<RegsRow>>,
}

/// How the run was made.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunMeta {
    /// UTC time the run started, RFC 3339.
    pub date: String,
    /// The exact command line.
    pub command: String,
    /// Version of this tool.
    pub tool_version: String,
    /// rustc that built the kernels (`rustc -V`), and the ptxas/JIT used.
    pub toolchain: String,
    /// Where the kernels came from: "rust (built-in)" or a module path.
    pub module: String,
    /// The module compared against, if any (`--compare`).
    pub compare_module: Option<String>,
    /// Launches per timed sample.
    pub iters: u32,
    /// Timed samples per figure.
    pub samples: u32,
    /// GEMM M = N = K.
    pub gemm_size: u32,
    /// Bytes of the copy buffer (each of source and destination).
    pub copy_bytes: u64,
}

/// The device and the peak figures behind the percentage columns.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DeviceInfo {
    pub ordinal: u32,
    pub name: String,
    /// Compute capability, e.g. (9, 0).
    pub compute_capability: (u32, u32),
    pub sm_count: u32,
    /// Maximum SM clock (kHz), as reported by the driver.
    pub sm_clock_khz: u32,
    /// Peak memory clock (kHz).
    pub mem_clock_khz: u32,
    pub mem_bus_width_bits: u32,
    pub l2_bytes: u64,
    pub regs_per_sm: u32,
    pub max_regs_per_block: u32,
    pub smem_per_sm: u64,
    pub smem_per_block: u64,
    pub smem_per_block_optin: u64,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub warp_size: u32,
    pub total_mem_bytes: u64,
    pub driver_version: String,
    /// FP32 peak: SMs * 128 FMA lanes * 2 flops * max SM clock (GFLOP/s).
    pub peak_fp32_gflops: f64,
    /// DRAM peak from memory clock and bus width (GB/s, 1e9 bytes).
    pub peak_dram_gbps: f64,
}

/// Repeated timing of one figure.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Timing {
    /// Milliseconds per launch, one entry per sample (each sample = `iters` launches).
    pub samples_ms: Vec<f64>,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// SM clock read before and after the samples (MHz), where the driver reports it.
    pub sm_clock_mhz_before: Option<u32>,
    pub sm_clock_mhz_after: Option<u32>,
}

/// A correctness check of one run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Check {
    pub passed: bool,
    /// Largest error found (relative for GEMM, count of differing floats for memcpy).
    pub error: f64,
    /// The bound the error was held to.
    pub bound: f64,
    /// What was checked, in words.
    pub what: String,
}

/// The figures of the other module for the same row (`--compare`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Comparison {
    pub regs: u32,
    /// GFLOP/s or GB/s, the same unit as the row.
    pub throughput: f64,
    /// This module's throughput / the other's.
    pub ratio: f64,
    pub spill_stores: Option<u32>,
    pub spill_loads: Option<u32>,
    pub timing: Timing,
    pub check: Check,
}

/// Which resource caps the resident blocks per SM.
pub type Limiter = String;

/// Experiment 1, one GEMM variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GemmRow {
    pub variant: String,
    pub threads: u32,
    pub tm: u32,
    pub tn: u32,
    pub regs: u32,
    pub blocks_per_sm: u32,
    /// Theoretical occupancy, 0..=1.
    pub occupancy: f64,
    pub limiter: Limiter,
    pub timing: Timing,
    pub gflops: f64,
    pub check: Check,
    /// Warnings about the figure (e.g. above the physical peak).
    pub flags: Vec<String>,
    pub compare: Option<Comparison>,
}

/// Experiment 2.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Bandwidth {
    /// Device-to-device copy (cuMemcpyDtoD) bandwidth measured in the same run, GB/s counting
    /// read + written bytes.
    pub reference_gbps: f64,
    pub reference_timing: Timing,
    pub rows: Vec<CopyRow>,
}

/// Experiment 2, one memcpy variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CopyRow {
    pub variant: String,
    pub threads: u32,
    pub loads: u32,
    pub width: u32,
    pub bytes_per_thread: u32,
    pub regs: u32,
    /// Dynamic shared memory per block that holds residency at 2 blocks/SM.
    pub dyn_smem_bytes: u32,
    pub blocks_per_sm: u32,
    pub occupancy: f64,
    pub limiter: Limiter,
    pub timing: Timing,
    /// GB/s counting read + written bytes.
    pub gbps: f64,
    /// gbps / reference_gbps.
    pub fraction_of_reference: f64,
    pub check: Check,
    pub flags: Vec<String>,
    pub compare: Option<Comparison>,
}

/// Experiment 3, one register cap.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RegsRow {
    pub cap: u32,
    pub regs: u32,
    pub blocks_per_sm: u32,
    pub occupancy: f64,
    pub limiter: Limiter,
    pub timing: Timing,
    pub gflops: f64,
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// True when no compiler report was found for the module (a cubin without a `.ptxas.txt`
    /// beside it): `spill_stores` and `spill_loads` are then 0 placeholders, shown as "n/a", and
    /// `stack_frame` is the function's local memory from the driver.
    #[serde(default)]
    pub spills_unknown: bool,
    pub stack_frame: u32,
    pub check: Check,
    pub flags: Vec<String>,
    pub compare: Option<Comparison>,
}
