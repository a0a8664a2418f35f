//! The scratch of a wgmma launch whose tiles' K is cut into units (split-K,
//! `kernels_gpu::kernels::sm90a::split_k`): the units' partial accumulators and a zeroed arrival
//! word per tile and consumer warp, allocated once per line and size and kept by its
//! [`TensorMaps`](super::tensor_map::TensorMaps). Each launch's last arrivals zero the words
//! again, so launches in a row on the stream need nothing between them. Where the line's rule
//! (`WgemmVariant::k_split`) leaves K whole, there is none.

use cudarc::driver::{CudaSlice, DevicePtr};
use kernels_gpu::sections::wgemm_walk::KSplit;
use kernels_gpu::variants::WgemmVariant;

use super::device::Gpu;
use super::error::CudaError;
use crate::results::GemmDims;

/// A launch's cut of K and, where it cuts, the buffers its units meet in.
pub struct SplitScratch {
    split: KSplit,
    buffers: Option<(CudaSlice<f32>, CudaSlice<u32>)>,
}

impl SplitScratch {
    /// The cut `line` makes at `d` on `gpu`'s SMs, and its buffers (the arrivals zeroed).
    pub fn new(gpu: &Gpu, line: &WgemmVariant, d: GemmDims) -> Result<Self, CudaError> {
        let split = line.k_split(d.m, d.n, d.k, gpu.info().sm_count);
        let (floats, words) = line.split_scratch(d.m, d.n, split);
        let buffers = if split.splits > 1 {
            let partials = gpu.zeros::<f32>(floats as usize)?;
            let arrivals = gpu.zeros::<u32>(words as usize)?;
            Some((partials, arrivals))
        } else {
            None
        };
        Ok(Self { split, buffers })
    }

    pub fn split(&self) -> KSplit {
        self.split
    }

    /// The kernel's `k_slices`: 64-deep slices per unit, 0 where K is whole.
    pub fn k_slices(&self) -> i32 {
        if self.split.splits > 1 {
            self.split.unit_steps as i32
        } else {
            0
        }
    }

    /// The device addresses of the partials and the arrival words (null where K is whole: the
    /// kernel never reads them then).
    pub fn addresses(&self, gpu: &Gpu) -> (u64, u64) {
        match &self.buffers {
            Some((partials, arrivals)) => {
                let (p, _guard) = partials.device_ptr(gpu.stream());
                let (a, _guard) = arrivals.device_ptr(gpu.stream());
                (p, a)
            }
            None => (0, 0),
        }
    }
}
