//! The records every experiment's results are made of, as written to `results.json`: how the run
//! was made, the device, timings, checks and a compared module's figures. Each experiment's own
//! rows live in its folder; the whole run is `experiments::RunResults`.

use serde::{Deserialize, Serialize};

use crate::cell::percent;
use crate::kernel_source::name::RunModules;

/// The `schema_version` a run's `results.json` is written with. Files without one are version 1
/// (the runs recorded before it was stated); version 2 states it and is otherwise read the same
/// way (module names a struct, GEMM families an enum, both stored as before). A run keeps the
/// version it was recorded with: one of version 1 regenerated is written without the field, as
/// it was.
pub const SCHEMA_VERSION: u32 = 2;

/// The schema version of a `results.json` that does not state one.
pub const fn schema_version_1() -> u32 {
    1
}

/// Whether a run is of version 1, stored without the field.
pub fn is_schema_version_1(version: &u32) -> bool {
    *version == 1
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
    /// Where each experiment's kernels came from (stored as "rust (built-in)", a module path, or
    /// "first; experiment: other" where experiments differ).
    pub module: RunModules,
    /// The modules compared against, if any (`--compare`, `--compare-caps`).
    pub compare_module: Option<RunModules>,
    /// Its name in tables, plots and legends (`--compare-label`, default the file's stem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare_label: Option<String>,
    /// Launches per timed sample.
    pub iters: u32,
    /// Timed samples per figure (0 with a noise target: the count varies by figure).
    pub samples: u32,
    /// The noise target every figure was sampled to (relative standard deviation); None for a
    /// fixed plan (`--iters/--samples`), as in runs recorded before noise-driven timing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_target: Option<f64>,
    /// GEMM M = N = K; M where the GEMM was not square (see `gemm_dims`).
    pub gemm_size: u32,
    /// The GEMM's M, N and K where they differ (`--size MxNxK`); absent when square.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gemm_dims: Option<GemmDims>,
    /// The GEMM line the `regs` experiment capped where it was not the variant table's
    /// `REGS.variant` (`host regs --variant`); absent for the table's line, as in runs before the
    /// flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regs_variant: Option<String>,
    /// Bytes of the copy buffer (each of source and destination).
    pub copy_bytes: u64,
}

/// The GEMM's sizes: C is M x N, the product's depth K.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GemmDims {
    pub m: u32,
    pub n: u32,
    pub k: u32,
}

impl GemmDims {
    pub const fn square(size: u32) -> Self {
        Self {
            m: size,
            n: size,
            k: size,
        }
    }

    /// M = N = K.
    pub const fn is_square(&self) -> bool {
        self.m == self.n && self.n == self.k
    }

    /// Whether M, N and K are all multiples of `multiple`.
    pub const fn tiles_by(&self, multiple: u32) -> bool {
        self.m.is_multiple_of(multiple)
            && self.n.is_multiple_of(multiple)
            && self.k.is_multiple_of(multiple)
    }

    /// Floating-point operations of one product (a multiply and an add per term).
    pub fn flops(&self) -> f64 {
        2.0 * f64::from(self.m) * f64::from(self.n) * f64::from(self.k)
    }
}

/// `4096` when square, else `2048x8192x1024` (the form `--size` takes).
impl std::fmt::Display for GemmDims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_square() {
            write!(f, "{}", self.m)
        } else {
            write!(f, "{}x{}x{}", self.m, self.n, self.k)
        }
    }
}

/// The device as the driver reported it and the peak figures behind the percentage columns: the
/// stored view of the device's limits ([`crate::occupancy::Limits::from_device_info`] rebuilds
/// them from it, with or without a GPU).
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
    /// FP32 peak: SMs * FP32 lanes per SM (128, or 64 on sm_60, 7.x and sm_80) * 2 flops * max SM
    /// clock (GFLOP/s).
    pub peak_fp32_gflops: f64,
    /// DRAM peak from memory clock and bus width (GB/s, 1e9 bytes).
    pub peak_dram_gbps: f64,
    /// Largest block, threads. Recorded from this version on; older results take it from the
    /// architecture table (see `Limits::from_device_info`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_threads_per_block: Option<u32>,
    /// Shared memory the driver reserves per resident block, bytes (recorded as above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_smem_per_block: Option<u32>,
}

/// The SM clock over a figure: the readings taken before, between and after its samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSpan {
    /// Readings the driver answered.
    pub readings: u32,
    pub min_mhz: u32,
    /// The median reading (the lower middle one for an even count).
    pub median_mhz: u32,
    pub max_mhz: u32,
}

/// The most samples the lab takes of one figure: `--max-samples`' ceiling (a fixed plan's
/// `--samples` stays far below it). A results.json is read back within it
/// ([`crate::sample_scan`], [`crate::report::validate`]).
pub const MOST_SAMPLES: u32 = 100_000;

/// The most lines one figure pools samples over: cuBLAS's figure in `occupancy` and `gemm_bf16`
/// pools its samples taken beside every GEMM line of the experiment.
pub const MOST_POOLED_LINES: usize = {
    use kernels_gpu::variants::{BF16_GEMM, GEMM, WGEMM};
    let bf16 = BF16_GEMM.len() + WGEMM.len();
    if GEMM.len() > bf16 {
        GEMM.len()
    } else {
        bf16
    }
};

/// The most samples any figure of a results.json may hold when it is read: the lab's ceiling per
/// figure ([`MOST_SAMPLES`]) times the most lines a figure pools. A longer list is refused before
/// the file is loaded ([`crate::sample_scan`]), and every other figure is held to
/// [`MOST_SAMPLES`] there.
pub const MOST_SAMPLES_READ: usize = MOST_SAMPLES as usize * MOST_POOLED_LINES;

/// Repeated timing of one figure.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Timing {
    /// Milliseconds per launch, one entry per sample (each sample = `iters` launches).
    pub samples_ms: Vec<f64>,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// SM clock read before and after the samples (MHz), where the driver reports it.
    pub sm_clock_mhz_before: Option<u32>,
    pub sm_clock_mhz_after: Option<u32>,
    /// The SM clock over the figure: every reading before, between and after its samples
    /// (absent in runs recorded before it was kept, and where the driver answered none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock_mhz_during: Option<ClockSpan>,
    /// Relative standard deviation of the samples (sample sd over mean; see
    /// [`crate::sampling`]). Recorded from the noise-driven timing on; older runs have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<f64>,
    /// The noise target the figure was sampled to; None for a fixed plan (`--iters/--samples`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_target: Option<f64>,
    /// Launches per sample (the batch a sample's events enclose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launches_per_sample: Option<u32>,
    /// Samples taken while the SM clock was more than the tolerance below the reference.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub clock_dropped_samples: u32,
    /// Warnings about the figure: its noise target missed, samples taken under a dropped clock.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Timing {
    /// Whether the figure met its noise target (a fixed plan has none, and meets it).
    pub fn target_met(&self) -> bool {
        self.noise_target
            .is_none_or(|t| self.noise.is_some_and(|n| n <= t))
    }
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
    /// A GEMM side's launches beyond the element-checked ones, accounted for by hashes of C
    /// (absent from runs recorded before the hashes, and from every other experiment's checks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hashes: Option<LaunchHashes>,
}

/// How a GEMM side's launches beyond the element-checked ones were accounted for: its C hashed
/// on the GPU after every timed sample, and after each launch of an untimed race check, every
/// hash compared with the hash of the launch whose every element was checked (the verified
/// launch). Judged by `experiments::gemm_hashes`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct LaunchHashes {
    /// Timed samples after which C was hashed: every sample of the figure (for cuBLAS, of every
    /// line it was timed beside, pooled in its row's order).
    pub samples: u32,
    /// The samples (0-based, in the order of the timing's samples) whose hash differed from the
    /// verified launch's.
    pub samples_differing: Vec<u32>,
    /// Launches of the race check (untimed, each on a C filled first with a value no element
    /// comes near), each followed by a hash.
    pub race_launches: u32,
    /// The race launches (0-based) whose hash differed from the verified launch's.
    pub race_differing: Vec<u32>,
    /// Of those, the launches whose C failed the element check run on it.
    pub race_failed: Vec<u32>,
    /// Whether the side must give the verified launch's bits on every launch (ours: the lab's
    /// kernels use no atomics). Otherwise (the compared module, cuBLAS) the race check finds out:
    /// a side whose race launches all give the verified bits must give them on every sample too.
    pub bits_required: bool,
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

/// An experiment asked for but not in the results, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Missing {
    pub experiment: String,
    pub reason: String,
    /// A kernel faulted in it (a failed check: the run went on without it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub faulted: bool,
}

impl RunMeta {
    /// How each figure was timed, in words: "50 launches x 7 samples" for a fixed plan, or the
    /// noise target.
    pub fn sampling_words(&self) -> String {
        match self.noise_target {
            Some(t) => format!("sampled to {} noise", percent(t)),
            None => format!("{} launches x {} samples", self.iters, self.samples),
        }
    }

    /// The GEMM's sizes: `gemm_dims`, else M = N = K = `gemm_size`.
    pub fn gemm(&self) -> GemmDims {
        self.gemm_dims
            .unwrap_or_else(|| GemmDims::square(self.gemm_size))
    }

    /// Records the GEMM's sizes: `gemm_size` alone when square (as older runs record it).
    pub fn set_gemm(&mut self, dims: GemmDims) {
        self.gemm_size = dims.m;
        self.gemm_dims = (!dims.is_square()).then_some(dims);
    }

    /// "M=N=K=4096" or "M=2048 N=8192 K=1024", for table titles.
    pub fn gemm_title(&self) -> String {
        self.gemm_sizes("=", " ")
    }

    /// "M = N = K = 4096" or "M = 2048, N = 8192, K = 1024".
    pub fn gemm_words(&self) -> String {
        self.gemm_sizes(" = ", ", ")
    }

    /// The GEMM's sizes with `eq` between a name and its value, `sep` between sizes.
    fn gemm_sizes(&self, eq: &str, sep: &str) -> String {
        let d = self.gemm();
        if d.is_square() {
            format!("M{eq}N{eq}K{eq}{}", d.m)
        } else {
            format!("M{eq}{}{sep}N{eq}{}{sep}K{eq}{}", d.m, d.n, d.k)
        }
    }

    /// The compared module's name for tables, plots and legends: `--compare-label`, or for a run
    /// recorded without one, the stem of the first compared file or folder.
    pub fn compare_name(&self) -> Option<String> {
        let stem = || self.compare_module.as_ref().map(|m| m.first.stem());
        self.compare_label.clone().or_else(stem)
    }
}
