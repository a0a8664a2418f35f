//! The line choice on the GPU: each family's fixed candidates with the registers their loaded
//! kernels report, the heuristic's short list ([`super::short_list`]), and its short timing (the
//! short-listed lines together, [`SHORT_SAMPLES`] samples each, interleaved, then one launch of
//! each checked: `together.rs`); [`super::decide`] picks. The caller times the chosen line again
//! beside cuBLAS.

use kernels_gpu::variants::{
    Bf16GemmVariant, GemmFamily, GemmVariant, RingMma, WgemmVariant, BF16_GEMM, GEMM, WGEMM,
};

use super::together::{time_together, Contender};
use super::{decide, short_list, Candidate, Choice, LineKind, SHORT_SAMPLES};
use crate::cuda::hopper::hopper_module;
use crate::cuda::{Gpu, Kernel, Module};
use crate::experiments::bf16_gemm::{Bf16, Bf16GemmBuffers};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::gemm::{Fp32, GemmBuffers};
use crate::experiments::gemm_sides::GemmKind;
use crate::experiments::wgemm_launch::{not_run_reason, RingLaunch};
use crate::occupancy::calc::KernelResources;
use crate::results::GemmDims;
use crate::sampling::{NoiseTarget, SamplingConfig, SamplingPlan};

/// `base` with exactly `samples` samples a figure (each batched to the noise target's shortest
/// sample), its clock watch kept.
pub fn samples_of(base: &SamplingConfig, samples: u32) -> SamplingConfig {
    let target = NoiseTarget {
        min_samples: samples,
        max_samples: samples,
        ..NoiseTarget::default()
    };
    SamplingConfig {
        plan: SamplingPlan::Noise(target),
        ..*base
    }
}

/// A kernel's launch resources at `threads` and `dyn_smem`, its registers as loaded.
fn resources(
    k: &Kernel<'_>,
    threads: u32,
    dyn_smem: u32,
) -> Result<KernelResources, ExperimentError> {
    Ok(KernelResources {
        threads,
        regs_per_thread: k.num_regs()?,
        static_smem: k.static_smem_bytes()?,
        dyn_smem,
    })
}

/// FP32's candidates: every tuned line (the seed lines are the occupancy lesson's kernels, not
/// contenders), registers from `module`.
pub fn fp32_candidates(
    module: &Module,
    dims: GemmDims,
) -> Result<Vec<(Candidate, &'static GemmVariant)>, ExperimentError> {
    let mut out = Vec::new();
    for v in GEMM.iter().filter(|v| v.family == GemmFamily::Tuned) {
        let k = module.kernel(v.entry).in_variant(v.label)?;
        let refusal = v
            .size_multiple()
            .filter(|&m| {
                [dims.m, dims.n, dims.k]
                    .iter()
                    .any(|d| !d.is_multiple_of(m))
            })
            .map(|m| format!("needs M, N and K multiples of {m}"));
        let c = Candidate {
            label: v.label,
            kind: LineKind::Tuned,
            tile: (v.bm, v.bn),
            persistent: false,
            k_splits: 1,
            streamed: None,
            resources: resources(&k, v.threads(), v.dynamic_shared_bytes())?,
            refusal,
        };
        out.push((c, v));
    }
    Ok(out)
}

/// Chooses FP32's line for `buffers`' shape with our kernels from `module`: the short list timed
/// together (no cuBLAS), then [`decide`]. Gives the choice and the chosen line.
pub fn choose_fp32(
    gpu: &Gpu,
    module: &Module,
    buffers: &mut GemmBuffers,
    base: &SamplingConfig,
) -> Result<(Choice, Option<&'static GemmVariant>), ExperimentError> {
    let dims = buffers.dims();
    let candidates = fp32_candidates(module, dims)?;
    let only: Vec<Candidate> = candidates.iter().map(|(c, _)| c.clone()).collect();
    let list = short_list(dims, &only, gpu.limits(), gpu.info().sm_count);
    let short = samples_of(base, SHORT_SAMPLES);
    let mut kept = Vec::new();
    for a in &list.kept {
        let (_, v) = (candidates.iter())
            .find(|(c, _)| c.label == a.label)
            .expect("a kept line is a candidate");
        kept.push((*v, module.kernel(v.entry).in_variant(v.label)?));
    }
    let contenders: Vec<Contender<'_, '_, f32>> = (kept.iter())
        .map(|(v, kernel)| Contender {
            label: v.label,
            kernel,
            shape: Fp32::launch_shape(v, dims),
            launcher: &Fp32::launch,
        })
        .collect();
    let trials = time_together(gpu, buffers, &contenders, &short)?;
    let choice = decide(&list, &trials);
    let line = line_of(&choice, &candidates);
    Ok((choice, line))
}

/// A BF16 line: an `mma.sync` line of the tensor-core module or a TMA-ring line of the sm_90a one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bf16Line {
    Mma(&'static Bf16GemmVariant),
    Ring(&'static WgemmVariant),
}

impl Bf16Line {
    pub fn label(self) -> &'static str {
        match self {
            Bf16Line::Mma(v) => v.label,
            Bf16Line::Ring(v) => v.label,
        }
    }
}

/// BF16's candidates: every `mma.sync` line (registers from `module`) and every ring line
/// (registers from the sm_90a module, which loads on compute capability 9.0 only; elsewhere, or,
/// for the mma.sync ring lines, at an odd N, each says why it cannot run: `not_run_reason`).
pub fn bf16_candidates(
    gpu: &Gpu,
    module: &Module,
    dims: GemmDims,
) -> Result<Vec<(Candidate, Bf16Line)>, ExperimentError> {
    let mut out = Vec::new();
    for v in BF16_GEMM {
        let k = module.kernel(v.entry).in_variant(v.label)?;
        let c = Candidate {
            label: v.label,
            kind: LineKind::MmaSync,
            tile: (v.shape.bm, v.shape.bn),
            persistent: false,
            k_splits: 1,
            streamed: None,
            resources: resources(&k, v.threads(), v.dynamic_shared_bytes())?,
            refusal: None,
        };
        out.push((c, Bf16Line::Mma(v)));
    }
    let cc = gpu.info().compute_capability;
    let hopper = WGEMM
        .iter()
        .any(|v| not_run_reason(cc, v, dims).is_none())
        .then(|| hopper_module(gpu))
        .transpose()?;
    for v in WGEMM {
        let refusal = not_run_reason(cc, v, dims);
        let regs = match (&hopper, &refusal) {
            (Some(m), None) => m.kernel(v.entry).in_variant(v.label)?.num_regs()?,
            // Not placed: the refusal excludes it before the calculator is asked.
            _ => 0,
        };
        let c = ring_candidate(v, dims, gpu.info().sm_count, regs, refusal);
        out.push((c, Bf16Line::Ring(v)));
    }
    Ok(out)
}

/// Ring line `v` as a candidate at `dims` on `sms` SMs, with `regs` registers a thread (as its
/// loaded kernel reports) and `refusal` (why it cannot run the shape, if it cannot); its kind
/// from its MMA and whether its consumers take turns.
pub fn ring_candidate(
    v: &'static WgemmVariant,
    dims: GemmDims,
    sms: u32,
    regs: u32,
    refusal: Option<String>,
) -> Candidate {
    Candidate {
        label: v.label,
        kind: match v.mma {
            RingMma::Wgmma if v.ping_pong() => LineKind::RingTurns,
            RingMma::Wgmma => LineKind::Ring,
            RingMma::Sync => LineKind::RingSync,
        },
        tile: (v.bm, v.bn),
        persistent: true,
        k_splits: v.k_split(dims.m, dims.n, dims.k, sms).splits,
        streamed: v.stream_tail(dims.m, dims.n, dims.k, sms),
        resources: KernelResources {
            threads: v.threads(),
            regs_per_thread: regs,
            static_smem: v.static_shared_bytes(),
            dyn_smem: v.dynamic_shared_bytes(),
        },
        refusal,
    }
}

/// Chooses BF16's line for `buffers`' shape: `mma.sync` lines from `module`, ring lines from the
/// built-in sm_90a module; the short list timed together (no cuBLAS), then [`decide`].
pub fn choose_bf16(
    gpu: &Gpu,
    module: &Module,
    buffers: &mut Bf16GemmBuffers,
    base: &SamplingConfig,
) -> Result<(Choice, Option<Bf16Line>), ExperimentError> {
    let dims = buffers.dims();
    let candidates = bf16_candidates(gpu, module, dims)?;
    let only: Vec<Candidate> = candidates.iter().map(|(c, _)| c.clone()).collect();
    let list = short_list(dims, &only, gpu.limits(), gpu.info().sm_count);
    let short = samples_of(base, SHORT_SAMPLES);
    let kept: Vec<Bf16Line> = (list.kept.iter())
        .map(|a| {
            let (_, line) = (candidates.iter())
                .find(|(c, _)| c.label == a.label)
                .expect("a kept line is a candidate");
            *line
        })
        .collect();
    let hopper = (kept.iter())
        .any(|l| matches!(l, Bf16Line::Ring(_)))
        .then(|| hopper_module(gpu))
        .transpose()?;
    // Each line's kernel, and a ring line's maps over the problem (encoded once).
    let mut kernels = Vec::with_capacity(kept.len());
    let mut rings = Vec::new();
    for line in &kept {
        let kernel = match *line {
            Bf16Line::Mma(v) => module.kernel(v.entry).in_variant(v.label)?,
            Bf16Line::Ring(v) => {
                rings.push(RingLaunch::encode(gpu, v, buffers)?);
                let hopper = hopper.as_ref().expect("loaded for the ring lines");
                hopper.kernel(v.entry).in_variant(v.label)?
            }
        };
        kernels.push(kernel);
    }
    let ring_launchers: Vec<_> = rings.iter().map(RingLaunch::launcher).collect();
    let mut ring_at = rings.iter().zip(&ring_launchers);
    let mut contenders: Vec<Contender<'_, '_, u16>> = Vec::with_capacity(kept.len());
    for (line, kernel) in kept.iter().zip(&kernels) {
        let c = match *line {
            Bf16Line::Mma(v) => Contender {
                label: v.label,
                kernel,
                shape: Bf16::launch_shape(v, dims),
                launcher: &Bf16::launch,
            },
            Bf16Line::Ring(v) => {
                let (ring, launcher) = ring_at.next().expect("one maps per ring line");
                Contender {
                    label: v.label,
                    kernel,
                    shape: ring.shape,
                    launcher,
                }
            }
        };
        contenders.push(c);
    }
    let trials = time_together(gpu, buffers, &contenders, &short)?;
    let choice = decide(&list, &trials);
    let line = line_of(&choice, &candidates);
    Ok((choice, line))
}

/// The candidate `choice` named.
fn line_of<L: Copy>(choice: &Choice, candidates: &[(Candidate, L)]) -> Option<L> {
    let label = choice.label.as_deref()?;
    (candidates.iter())
        .find(|(c, _)| c.label == label)
        .map(|(_, l)| *l)
}
