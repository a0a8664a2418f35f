//! The wgmma lines (`gemm_wgmma`, sm_90a) as rows of the `gemm_bf16` experiment: each launched
//! through its own tensor maps, encoded once per line over the problem's A and B, and otherwise
//! timed, checked and placed as every other row (cuBLAS interleaved, the every-element check at
//! the timed and the epilogue setting, registers and occupancy by the calculator; the compared
//! build's entry of the line, where its sm_90a module has one, interleaved and checked as the
//! other rows' compared kernels are). A device other than compute capability 9.0, an empty
//! dimension, or an odd N on the `mma.sync` ring lines leaves the lines out with the reason
//! instead of failing the run; a K or N off TMA's 16-byte strides is read through padded copies.

use kernels_gpu::variants::WgemmVariant;

use super::row::{Bf16Row, NotRun};
use crate::cuda::hopper::hopper_module;
use crate::cuda::Gpu;
use crate::experiments::bf16_gemm::Bf16GemmBuffers;
use crate::experiments::contract::RunContext;
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::gemm_cublas::CublasSide;
use crate::experiments::module_source::Loaded;
pub use crate::experiments::wgemm_launch::{measure_wgemm_line, not_run_reason};

/// What the wgmma lines of a run gave: a row per line that ran, the reason for each that did
/// not.
#[derive(Default)]
pub struct WgemmRows {
    pub rows: Vec<Bf16Row>,
    pub not_run: Vec<NotRun>,
}

/// Runs `lines` over `buffers`' problem, cuBLAS interleaved where `cublas` has it, and the
/// compared build's sm_90a module's entry of each line where `theirs` has one; `each` is told
/// of each line as it is taken up (the progress bar).
pub fn run_wgemm_lines(
    gpu: &Gpu,
    ctx: &RunContext,
    (lines, theirs): (&[&'static WgemmVariant], Option<&Loaded>),
    (buffers, cublas): (&mut Bf16GemmBuffers, &mut CublasSide),
    each: impl Fn(&str),
) -> Result<WgemmRows, ExperimentError> {
    let mut out = WgemmRows::default();
    if lines.is_empty() {
        return Ok(out);
    }
    let dims = buffers.dims();
    let cc = gpu.info().compute_capability;
    // Loaded only when some line can run: off sm_90a there is nothing to load.
    let runnable = lines.iter().any(|v| not_run_reason(cc, v, dims).is_none());
    let module = if runnable {
        Some(hopper_module(gpu)?)
    } else {
        None
    };
    for &v in lines {
        each(v.label);
        let why = not_run_reason(cc, v, dims);
        let (Some(module), None) = (&module, &why) else {
            out.not_run.push(NotRun {
                variant: v.label.to_owned(),
                // Without the module no line could run, so each has its reason.
                why: why.expect("a line left out has a reason"),
            });
            continue;
        };
        let kernel = module.kernel(v.entry).in_variant(v.label)?;
        let other = match theirs {
            Some(t) => t.kernel_if_present(v.entry).in_variant(v.label)?,
            None => None,
        };
        let timed = (v, (&kernel, other.as_ref()));
        let (m, schedule) = measure_wgemm_line(gpu, timed, (buffers, cublas), &ctx.timing)?;
        let (ours, theirs, vs_cublas) = m;
        out.rows
            .push(Bf16Row::ring(v, &ours, theirs, vs_cublas).scheduled(schedule));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::GemmDims;
    use kernels_gpu::variants::{RingMma, WGEMM};

    #[test]
    fn off_sm90a_every_line_says_it_needs_sm90a() {
        for cc in [(8, 0), (8, 9), (10, 0)] {
            for v in WGEMM {
                let why = not_run_reason(cc, v, GemmDims::square(4096)).unwrap();
                assert!(why.starts_with("needs sm_90a"), "{cc:?} {}: {why}", v.label);
            }
        }
    }

    #[test]
    fn on_sm90a_every_size_runs_but_odd_n_on_mma_sync_lines_and_an_empty_one() {
        let (m, n, k) = (333, 264, 80);
        let uneven_m = GemmDims { m, n, k };
        let (m, n, k) = (64, 64, 20);
        let odd_k = GemmDims { m, n, k };
        let odd_n = GemmDims::square(1001);
        for v in WGEMM {
            for runs in [GemmDims::square(4096), uneven_m, odd_k] {
                // K or N not a multiple of 8: read through padded copies (`pitched_copy`).
                assert_eq!(not_run_reason((9, 0), v, runs), None, "{runs:?}");
            }
            // An odd N: the wgmma lines write C a float at a time there; the mma.sync ones
            // write pairs only.
            let why = not_run_reason((9, 0), v, odd_n);
            match v.mma {
                RingMma::Wgmma => assert_eq!(why, None, "{}", v.label),
                RingMma::Sync => assert!(why.unwrap().contains("need N even"), "{}", v.label),
            }
            let empty = GemmDims { m: 8, n: 8, k: 0 };
            let why = not_run_reason((9, 0), v, empty).unwrap();
            assert!(why.contains("M, N and K >= 1"), "{why}");
        }
    }
}
