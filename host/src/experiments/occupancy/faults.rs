//! A line in which a kernel faulted: which kernel it was. The fault names the kernels in flight
//! when it surfaced; where that is more than one (a side's launch and the check kernels after
//! it, say), each side of the line is run again alone, in a fresh context of its own, and those
//! that fault again are named.

use kernels_gpu::variants::GemmVariant;

use super::{Plan, RowFault};
use crate::cuda::fault::{Launched, Side};
use crate::cuda::{prepare, Cublas, CudaError, Gpu, GemmInput};
use crate::experiments::error::ExperimentError;
use crate::experiments::gemm::{launch_shape, Fp32, EPILOGUE, TIMED};
use crate::experiments::gemm_sides::{GemmKind, Operands};
use crate::experiments::module_source::load;

/// The record of `variant`'s fault `e`, the sides run alone where `e` does not name one kernel.
pub fn blame(
    gpu: &Gpu,
    p: &Plan,
    variant: &GemmVariant,
    e: &ExperimentError,
) -> Result<RowFault, ExperimentError> {
    let suspects = e.suspects();
    let alone = match suspects.and_then(|s| s.culprit()) {
        Some(_) => None,
        None => {
            let mut sides: Vec<Side> = suspects.map(|s| s.sides()).unwrap_or_default();
            if sides.is_empty() {
                sides = vec![Side::Ours, Side::Compared, Side::Cublas];
            }
            let mut found = Vec::new();
            for side in sides {
                if let Some(who) = run_alone(gpu, p, variant, side)? {
                    found.push(who);
                }
            }
            Some(found)
        }
    };
    Ok(RowFault {
        variant: variant.label.to_owned(),
        error: e.innermost().to_string(),
        alone,
    })
}

/// Runs `side`'s kernel of `variant` alone in a fresh context, once as timed and once with the
/// epilogue's alpha and beta; gives the kernel, in words, when it faulted (`None` when it did not,
/// or the side has no kernel in this line).
fn run_alone(
    gpu: &Gpu,
    p: &Plan,
    variant: &GemmVariant,
    side: Side,
) -> Result<Option<String>, ExperimentError> {
    // Declared first, dropped last: everything below belongs to it.
    let fresh = gpu.open_fresh()?;
    let dims = p.size;
    let (m, n, k) = (dims.m as usize, dims.n as usize, dims.k as usize);
    let a = fresh.zeros::<f32>(m * k)?;
    let b = fresh.zeros::<f32>(k * n)?;
    let mut c = fresh.zeros::<f32>(m * n)?;
    let (who, ran) = match side {
        Side::Ours | Side::Compared => {
            let kernels = match side {
                Side::Ours => &p.sources.ours,
                _ => match &p.sources.theirs {
                    Some(t) => t,
                    None => return Ok(None),
                },
            };
            let loaded = load(&fresh, kernels)?;
            let kernel = match loaded.module.kernel(variant.entry) {
                Ok(k) => k,
                Err(CudaError::MissingEntry { .. }) => return Ok(None),
                Err(e) => return Err(e.into()),
            };
            let shape = launch_shape(variant, dims);
            prepare(&kernel, shape)?;
            let who = Launched {
                side,
                entry: variant.entry.to_owned(),
                module: loaded.module.name().to_owned(),
            };
            let mut ran = Ok(());
            for setting in [TIMED, EPILOGUE] {
                let ops = Operands {
                    dims,
                    a: &a,
                    b: &b,
                    c: &mut c,
                    setting,
                };
                ran = ran.and_then(|()| Fp32::launch(&fresh, &kernel, shape, ops));
            }
            (who, ran.and_then(|()| fresh.synchronize()))
        }
        Side::Cublas => {
            if !p.cublas {
                return Ok(None);
            }
            let Ok(cublas) = Cublas::open(&fresh) else {
                return Ok(None);
            };
            let call = <f32 as GemmInput>::ROUTINE.call();
            let who = Launched {
                side,
                entry: call.to_owned(),
                module: call.to_owned(),
            };
            let mut ran = Ok(());
            for (alpha, beta) in [TIMED, EPILOGUE] {
                ran = ran.and_then(|()| {
                    cublas.gemm_row_major(&fresh, (dims.m, dims.n, dims.k), alpha, &a, &b, beta, &mut c)
                });
            }
            (who, ran.and_then(|()| fresh.synchronize()))
        }
    };
    match ran {
        Ok(()) => Ok(None),
        Err(e) if e.is_fault() => Ok(Some(who.to_string())),
        Err(e) => Err(e.into()),
    }
}
