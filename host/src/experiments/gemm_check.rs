//! The GEMM check on the GPU: the f64 reference of a problem, computed once by `gemm_ref` and
//! kept on the device, and the comparison of any f32 C with it by `gemm_check`, every element,
//! of which only the tally (24 bytes) comes back; and the hash of a C by `gemm_hash` (one word),
//! which accounts for the launches not compared (`gemm_hashes.rs`). The kernels come from the
//! built-in check module (`builtin::CHECKS`), whatever module is being timed. The rule is
//! `kernels_gpu::models::gemm_tolerance`; `verify.rs` holds its CPU twin.

use std::sync::Arc;

use cudarc::driver::CudaSlice;
use kernels_gpu::models::gemm_tolerance::{Tally, LAMBDA, RATIO_BOUND};
use kernels_gpu::variants::{
    GemmCheckKernel, GemmCheckParams, GemmHashParams, GemmRefParams, GEMM_CHECK, GEMM_HASH,
    GEMM_REF,
};

use crate::cuda::{CudaError, Gpu, Launch, LaunchShape, Module};
use crate::kernel_source::builtin;
use crate::results::{Check, GemmDims};

/// Check blocks per SM at most: enough to fill the SMs, few enough that the atomics at the end
/// (one per warp) cost nothing.
const CHECK_BLOCKS_PER_SM: u32 = 8;

/// The launch of a check-side kernel (the check, the hash) over `len` elements of C: its table
/// line's threads, a grid of at most [`CHECK_BLOCKS_PER_SM`] blocks per SM striding over them.
fn over_elements(gpu: &Gpu, line: &GemmCheckKernel, len: usize) -> LaunchShape {
    LaunchShape {
        grid: (
            line.grid(len as u64, gpu.info().sm_count * CHECK_BLOCKS_PER_SM),
            1,
        ),
        threads: line.threads,
        dyn_smem: 0,
    }
}

/// The rule, in words, for check records and table notes.
pub fn rule() -> String {
    format!(
        "every element of C against an f64 reference computed on the GPU (k in natural order); \
         an element passes when |c - ref| <= {LAMBDA}u|alpha|*spread + 2u(|alpha*dot| + \
         |beta*c0|), u = 2^-24 (FP32's unit roundoff), spread = the root sum of squares of the \
         dot product's partial sums in k order or in reverse, whichever is larger (the \
         probabilistic model of FP32 accumulation, ~14 standard deviations, plus the \
         epilogue's roundings); NaN and infinities fail; error = the worst |c - ref| / \
         tolerance (fails above {RATIO_BOUND})"
    )
}

/// The f64 reference of one problem, on the device: per element of C, the dot product and the
/// spread of its partial sums (`kernels_gpu::models::gemm_tolerance::Reference`, as two arrays).
pub struct GemmReference {
    dims: GemmDims,
    dot: CudaSlice<f64>,
    spread: CudaSlice<f64>,
}

impl GemmReference {
    pub fn dims(&self) -> GemmDims {
        self.dims
    }

    /// The reference's dot products and spreads, downloaded (for the GPU tests).
    pub fn download(&self, gpu: &Gpu) -> Result<(Vec<f64>, Vec<f64>), CudaError> {
        Ok((gpu.download(&self.dot)?, gpu.download(&self.spread)?))
    }

    /// Multiplies every spread by `factor`, so that the check's accumulation term becomes
    /// `factor` times FP32's (the tensor-core rule, `bf16_tolerance.rs`). Once per problem,
    /// through the host: the check module has no kernel for it.
    pub fn scale_spread(&mut self, gpu: &Gpu, factor: f64) -> Result<(), CudaError> {
        let mut spread = gpu.download(&self.spread)?;
        for s in &mut spread {
            *s *= factor;
        }
        self.spread = gpu.upload(&spread)?;
        Ok(())
    }
}

/// The check kernels, loaded.
pub struct GemmChecker {
    module: Arc<Module>,
}

impl GemmChecker {
    /// Loads the built-in check module (compiled once per run, shared).
    pub fn new(gpu: &Gpu) -> Result<Self, CudaError> {
        Ok(Self {
            module: gpu.builtin_module("built-in GEMM check", builtin::CHECKS)?,
        })
    }

    /// Enqueues the reference of A (M x K) times B (K x N), row-major, on the device.
    pub fn reference(
        &self,
        gpu: &Gpu,
        dims: GemmDims,
        a: &CudaSlice<f32>,
        b: &CudaSlice<f32>,
    ) -> Result<GemmReference, CudaError> {
        let GemmDims { m, n, k } = dims;
        let len = elements(dims);
        assert!(
            a.len() >= m as usize * k as usize && b.len() >= k as usize * n as usize,
            "inputs smaller than the product"
        );
        let mut dot = gpu.zeros::<f64>(len)?;
        let mut spread = gpu.zeros::<f64>(len)?;
        let kernel = self.module.kernel(GEMM_REF.entry)?;
        let shape = LaunchShape {
            grid: GEMM_REF.grid(m, n),
            threads: GEMM_REF.threads(),
            dyn_smem: 0,
        };
        let mut l = Launch::new(gpu);
        let params = GemmRefParams {
            a: l.input(a),
            b: l.input(b),
            m: m as i32,
            n: n as i32,
            k: k as i32,
            dot: l.output(&mut dot),
            spread: l.output(&mut spread),
        };
        // SAFETY: A and B hold at least M*K and K*N floats (asserted), dot and spread M*N
        // doubles; every dimension is at most 32768, so M*K, K*N and M*N fit 32 bits; the
        // shape is the table's for this entry (TILE*TILE threads, the grid over C's tiles).
        unsafe { l.launch(&kernel, shape, &params)? };
        Ok(GemmReference { dims, dot, spread })
    }

    /// Judges every element of `c`, the output of C = alpha*A*B + beta*C0 for the problem of
    /// `reference` (with `c0` the C it started from), and returns the tally.
    pub fn tally(
        &self,
        gpu: &Gpu,
        reference: &GemmReference,
        c0: &CudaSlice<f32>,
        c: &CudaSlice<f32>,
        (alpha, beta): (f32, f32),
    ) -> Result<Tally, CudaError> {
        let len = elements(reference.dims);
        assert!(
            c.len() == len && c0.len() == len,
            "C and C0 must have the reference's M*N elements"
        );
        let mut out = gpu.zeros::<u64>(Tally::WORDS)?;
        let kernel = self.module.kernel(GEMM_CHECK.entry)?;
        let shape = over_elements(gpu, &GEMM_CHECK, len);
        let mut l = Launch::new(gpu);
        let params = GemmCheckParams {
            c: l.input(c),
            c0: l.input(c0),
            dot: l.input(&reference.dot),
            spread: l.input(&reference.spread),
            len: len as u64,
            alpha,
            beta,
            out: l.output(&mut out),
        };
        // SAFETY: C and C0 hold `len` floats (asserted), the reference `len` doubles each, `out`
        // the tally's words, zeroed; `len` = M*N < 2^32; the shape is whole warps (the table
        // checks the thread count), any grid.
        unsafe { l.launch(&kernel, shape, &params)? };
        let words = gpu.download(&out)?;
        Ok(Tally::from_words(
            words.try_into().expect("the tally's words came back"),
        ))
    }

    /// Enqueues the hash of `c` (`kernels_gpu::models::output_hash`) into word `slot` of `out`,
    /// which must hold zero there.
    pub fn hash_into(
        &self,
        gpu: &Gpu,
        c: &CudaSlice<f32>,
        out: &mut CudaSlice<u64>,
        slot: usize,
    ) -> Result<(), CudaError> {
        let len = c.len();
        assert!(
            u32::try_from(len).is_ok(),
            "element indices must fit 32 bits"
        );
        assert!(slot < out.len(), "word {slot} of {}", out.len());
        let kernel = self.module.kernel(GEMM_HASH.entry)?;
        let shape = over_elements(gpu, &GEMM_HASH, len);
        let mut l = Launch::new(gpu);
        let params = GemmHashParams {
            c: l.input(c),
            len: len as u64,
            out: l.output(out) + 8 * slot as u64,
        };
        // SAFETY: C holds `len` < 2^32 floats (asserted), `out` a word at `slot` (asserted, u64
        // words are 8 bytes); the shape is whole warps (the table checks the thread count), any
        // grid.
        unsafe { l.launch(&kernel, shape, &params)? };
        Ok(())
    }
}

/// Elements of C.
fn elements(dims: GemmDims) -> usize {
    let len = dims.m as usize * dims.n as usize;
    assert!(
        u32::try_from(len).is_ok(),
        "element indices must fit 32 bits"
    );
    len
}

/// One checked output: which launch it came from, at which alpha and beta, and its tally.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The launch, in words (e.g. "the timed launch").
    pub launch: String,
    pub alpha: f32,
    pub beta: f32,
    pub tally: Tally,
}

impl Checked {
    /// No element over its tolerance.
    pub fn passed(&self) -> bool {
        self.tally.over == 0
    }

    /// The output's tally in words: over, not finite, the worst element and where it is.
    pub fn describe(&self, dims: GemmDims) -> String {
        let t = &self.tally;
        let at = t.worst_index();
        let (row, col) = (at / dims.n.max(1), at % dims.n.max(1));
        format!(
            "{} (alpha={}, beta={}): {} of {} over, {} not finite, worst {:.3} at ({row}, {col})",
            self.launch,
            self.alpha,
            self.beta,
            t.over,
            dims.m as u64 * dims.n as u64,
            t.non_finite,
            t.worst_ratio()
        )
    }
}

/// The record of one or more checked outputs of the same problem: passed when every one passed,
/// the error the worst ratio of them all (bound [`RATIO_BOUND`]), each described.
pub fn record(dims: GemmDims, parts: &[Checked]) -> Check {
    record_under(dims, parts, "random inputs in [-1,1]", &rule())
}

/// [`record`] for a family with its own `inputs` (in words) and `rule`: the BF16 check's record
/// is this one with the tensor-core rule.
pub fn record_under(dims: GemmDims, parts: &[Checked], inputs: &str, rule: &str) -> Check {
    let GemmDims { m, n, k } = dims;
    let worst = parts
        .iter()
        .map(|p| f64::from(p.tally.worst_ratio()))
        .fold(0.0, f64::max);
    let each: Vec<String> = parts.iter().map(|p| p.describe(dims)).collect();
    Check {
        passed: !parts.is_empty() && parts.iter().all(Checked::passed),
        error: worst,
        bound: RATIO_BOUND,
        what: format!(
            "M x N x K = {m}x{n}x{k}, {inputs}: {rule}. {}",
            each.join("; ")
        ),
        hashes: None,
    }
}

/// Whether `check` was made by [`record`] (older runs recorded a sampled relative error
/// against a bound of 1e-4).
pub fn is_every_element(check: &Check) -> bool {
    check.bound == RATIO_BOUND
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::gemm_check_notes::note;

    /// An output of `launch` at alpha=1, beta=0: `over` elements over, the worst `worst` at
    /// element `index`.
    pub fn checked(launch: &str, over: u64, worst: f32, index: u32) -> Checked {
        Checked {
            launch: launch.into(),
            alpha: 1.0,
            beta: 0.0,
            tally: Tally {
                over,
                non_finite: 0,
                worst: (u64::from(worst.to_bits()) << 32) | u64::from(index),
            },
        }
    }

    #[test]
    fn the_record_passes_only_when_every_output_passed() {
        let dims = GemmDims { m: 3, n: 5, k: 7 };
        let ok = record(
            dims,
            &[
                checked("the timed launch", 0, 0.25, 7),
                checked("one more", 0, 0.5, 0),
            ],
        );
        assert!(ok.passed && is_every_element(&ok));
        assert_eq!((ok.error, ok.bound), (0.5, 1.0));
        assert!(ok
            .what
            .contains("the timed launch (alpha=1, beta=0): 0 of 15 over"));
        assert!(ok.what.contains("worst 0.250 at (1, 2)"), "{}", ok.what);
        assert!(ok.what.contains("every element of C"));
        let bad = record(
            dims,
            &[
                checked("the timed launch", 0, 0.25, 7),
                checked("one more", 2, 9.0, 14),
            ],
        );
        assert!(!bad.passed && bad.error == 9.0);
        assert!(bad.what.contains("2 of 15 over"));
        assert!(!record(dims, &[]).passed, "nothing checked is no pass");
    }

    #[test]
    fn the_note_comes_with_the_every_element_checks_only() {
        let dims = GemmDims::square(4);
        let new = record(dims, &[checked("the timed launch", 0, 0.25, 7)]);
        let old = Check {
            passed: true,
            error: 2.2e-7,
            bound: 1e-4,
            what: "sampled".into(),
            hashes: None,
        };
        assert_eq!(note([&old]), None);
        let text = note([&old, &new]).expect("a new check is noted");
        assert!(text.contains("alpha=1.5, beta=0.5") && text.contains("8u|alpha|*spread"));
        assert!(!text.contains("Hashed"), "no check of this run has hashes");
        let mut hashed = new.clone();
        hashed.hashes = Some(crate::results::LaunchHashes {
            samples: 5,
            samples_differing: vec![],
            race_launches: 100,
            race_differing: vec![],
            race_failed: vec![],
            bits_required: true,
        });
        let text = note([&new, &hashed]).expect("noted");
        assert!(
            text.contains("Hashed: each side's C after every timed sample"),
            "{text}"
        );
    }
}
