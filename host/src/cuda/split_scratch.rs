//! The scratch of a wgmma launch whose tiles' K is cut into units (split-K,
//! `kernels_gpu::kernels::sm90a::split_k`) or whose last partial wave is streamed over the grid
//! (`kernels_gpu::sections::wgemm_tail`): the units' partial accumulators and a zeroed arrival
//! word per cut tile and warp of the tile, allocated once per line and size and kept by its
//! [`TensorMaps`](super::tensor_map::TensorMaps). Each launch's last arrivals zero the words
//! again, so launches in a row on the stream need nothing between them. Where the line's rules
//! (`WgemmVariant::k_split`, `WgemmVariant::stream_tail`) leave every tile whole, there is none.

use cudarc::driver::{CudaSlice, DevicePtr};
use kernels_gpu::sections::wgemm_tail::StreamTail;
use kernels_gpu::sections::wgemm_walk::KSplit;
use kernels_gpu::variants::WgemmVariant;

use super::device::Gpu;
use super::error::CudaError;
use crate::results::GemmDims;

/// A launch's cut of K, its streamed tail, and, where either cuts a tile, the buffers its units
/// meet in.
pub struct SplitScratch {
    split: KSplit,
    tail: Option<StreamTail>,
    buffers: Option<(CudaSlice<f32>, CudaSlice<u32>)>,
}

/// How a launch deals its last partial wave: as the line's rule says (`WgemmVariant::stream_tail`),
/// or, as controls that time the rule, a tile per block whatever it says, or streamed wherever
/// the line's walk can stream it (`WgemmVariant::tail_at`), even where the rule declines for
/// too small a gain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailDeal {
    Rule,
    Whole,
    Streamed,
}

impl SplitScratch {
    /// The cut `line` makes at `d` on `gpu`'s SMs (split-K, or a streamed tail: never both),
    /// and its buffers (the arrivals zeroed).
    pub fn new(gpu: &Gpu, line: &WgemmVariant, d: GemmDims) -> Result<Self, CudaError> {
        Self::dealt(gpu, line, d, TailDeal::Rule)
    }

    /// As [`SplitScratch::new`], the last partial wave dealt as `deal` says.
    pub fn dealt(
        gpu: &Gpu,
        line: &WgemmVariant,
        d: GemmDims,
        deal: TailDeal,
    ) -> Result<Self, CudaError> {
        let sms = gpu.info().sm_count;
        let tail = match deal {
            TailDeal::Rule => line.stream_tail(d.m, d.n, d.k, sms),
            TailDeal::Whole => None,
            TailDeal::Streamed => line.tail_at(d.m, d.n, d.k, sms),
        };
        Self::with_tail(gpu, line, d, tail)
    }

    fn with_tail(
        gpu: &Gpu,
        line: &WgemmVariant,
        d: GemmDims,
        tail: Option<StreamTail>,
    ) -> Result<Self, CudaError> {
        let split = line.k_split(d.m, d.n, d.k, gpu.info().sm_count);
        let (floats, words) = match tail {
            Some(t) => line.tail_scratch(t),
            None => line.split_scratch(d.m, d.n, split),
        };
        let buffers = if floats > 0 {
            let partials = gpu.zeros::<f32>(floats as usize)?;
            let arrivals = gpu.zeros::<u32>(words as usize)?;
            Some((partials, arrivals))
        } else {
            None
        };
        Ok(Self {
            split,
            tail,
            buffers,
        })
    }

    pub fn split(&self) -> KSplit {
        self.split
    }

    pub fn tail(&self) -> Option<StreamTail> {
        self.tail
    }

    /// The kernel's `stream_tail`: the tiles of the whole waves before a streamed last wave
    /// (`StreamTail::from`, never 0: a tail is streamed after one whole wave at least), 0
    /// where the last wave is not streamed.
    pub fn stream_tail(&self) -> i32 {
        self.tail.map_or(0, |t| t.from as i32)
    }

    /// The kernel's `k_slices`: 64-deep slices per unit, 0 where K is whole.
    pub fn k_slices(&self) -> i32 {
        if self.split.splits > 1 {
            self.split.unit_steps as i32
        } else {
            0
        }
    }

    /// The device addresses of the partials and the arrival words (null where every tile is
    /// whole: the kernel never reads them then).
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
