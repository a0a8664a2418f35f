//! Occupancy as one input varies: the three graphs of Nsight Compute's occupancy section, as data.

use serde::Serialize;

use super::arch::Limits;
use super::calc::{occupancy, KernelResources, Limiter};

/// The input a curve varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Axis {
    /// Registers per thread, 1..=max.
    Registers,
    /// Threads per block, one warp to the maximum in warp steps.
    BlockSize,
    /// Dynamic shared memory per block, bytes, in allocation-unit steps up to the opt-in maximum.
    DynamicSharedMemory,
}

impl Axis {
    pub fn label(self) -> &'static str {
        match self {
            Axis::Registers => "registers/thread",
            Axis::BlockSize => "threads/block",
            Axis::DynamicSharedMemory => "dynamic smem (B)",
        }
    }
}

/// One point of a curve. A configuration that cannot launch has zero blocks and an `error`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePoint {
    pub x: u32,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    pub occupancy: f64,
    pub binding: Vec<Limiter>,
    pub error: Option<String>,
}

/// A curve: the kernel's other inputs held fixed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    pub arch: String,
    pub axis: Axis,
    pub kernel: KernelResources,
    pub points: Vec<CurvePoint>,
}

fn point(limits: &Limits, x: u32, kernel: &KernelResources) -> CurvePoint {
    match occupancy(limits, kernel) {
        Ok(o) => CurvePoint {
            x,
            blocks_per_sm: o.blocks_per_sm,
            warps_per_sm: o.warps_per_sm,
            occupancy: o.occupancy,
            binding: o.binding,
            error: None,
        },
        Err(e) => CurvePoint {
            x,
            blocks_per_sm: 0,
            warps_per_sm: 0,
            occupancy: 0.0,
            binding: Vec::new(),
            error: Some(e.to_string()),
        },
    }
}

/// Occupancy against `axis`, the other inputs taken from `kernel`.
pub fn curve(limits: &Limits, kernel: &KernelResources, axis: Axis) -> Curve {
    type Set = fn(&mut KernelResources, u32);
    let (xs, set): (Vec<u32>, Set) = match axis {
        Axis::Registers => ((1..=limits.max_regs_per_thread).collect(), |k, x| {
            k.regs_per_thread = x
        }),
        Axis::BlockSize => (
            (1..=limits.max_threads_per_block / limits.warp_size)
                .map(|w| w * limits.warp_size)
                .collect(),
            |k, x| k.threads = x,
        ),
        Axis::DynamicSharedMemory => {
            let max = limits
                .smem_per_block_optin
                .saturating_sub(kernel.static_smem);
            let xs = (0..=max).step_by(limits.smem_alloc_unit as usize);
            (xs.collect(), |k, x| k.dyn_smem = x)
        }
    };
    let points = xs
        .into_iter()
        .map(|x| {
            let mut k = *kernel;
            set(&mut k, x);
            point(limits, x, &k)
        })
        .collect();
    Curve {
        arch: limits.name.clone(),
        axis,
        kernel: *kernel,
        points,
    }
}

/// All three curves for a kernel.
pub fn all_curves(limits: &Limits, kernel: &KernelResources) -> [Curve; 3] {
    [
        curve(limits, kernel, Axis::Registers),
        curve(limits, kernel, Axis::BlockSize),
        curve(limits, kernel, Axis::DynamicSharedMemory),
    ]
}
