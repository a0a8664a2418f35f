//! TMA tensor maps for the wgmma GEMM (`gemm_wgmma` lines, sm_90a): A's and B's
//! `CUtensorMap`, encoded by the driver (`cuTensorMapEncodeTiled`) and copied into one device
//! buffer whose two addresses the kernel takes (`kernels_gpu::sections::gemm_wgmma` says why global
//! memory rather than kernel parameters).
//!
//! A (M x K, row-major bf16) is described as a K x M tensor (the contiguous dimension first)
//! read in 64 x BM boxes; B (K x N, row-major) as an N x K tensor read in 64 x 64 boxes. Both use
//! the 128-byte swizzle the wgmma descriptors assume and zero fill outside the tensor, which is
//! how the kernel handles edge tiles. TMA's row strides are multiples of 16 bytes: an operand
//! whose rows are not (K or N not a multiple of 8) is described in a padded copy of itself
//! (`pitched_copy`), refreshed before every launch ([`TensorMaps::stage`]); the map's dimensions
//! stay the operand's, so TMA never reads the padding.

use cudarc::driver::sys;
use cudarc::driver::{CudaSlice, DevicePtr};
use kernels_gpu::shapes::tma_slot::{B_BOX_COLS, WGEMM_BK};
use kernels_gpu::variants::WgemmVariant;

use super::device::Gpu;
use super::error::CudaError;
use super::pitched_copy::{Pitch, PitchedCopy};
use super::split_scratch::{SplitScratch, TailDeal};
use crate::results::GemmDims;

/// u64 words of one `CUtensorMap` (128 bytes).
const MAP_WORDS: usize = 16;

/// Why a problem cannot be described to TMA.
#[derive(Debug, thiserror::Error)]
pub enum TensorMapError {
    #[error("the wgmma GEMM needs M, N and K >= 1; got {m}x{n}x{k}")]
    Empty { m: u32, n: u32, k: u32 },
    #[error(transparent)]
    Cuda(#[from] CudaError),
}

/// One 2-D tiled tensor map's shape: dimensions and box, the contiguous dimension first, and
/// the rows it reads (their byte stride, and whether they are a padded copy's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapShape {
    pub dims: [u64; 2],
    pub pitch: Pitch,
    pub boxed: [u32; 2],
}

impl MapShape {
    /// The byte stride of the rows the map reads.
    pub fn row_bytes(&self) -> u64 {
        self.pitch.row_bytes()
    }
}

/// A's and B's map shapes for `line` over `d`, or why TMA cannot describe the problem (an empty
/// one). A is M rows of K, B is K rows of N.
pub fn map_shapes(line: &WgemmVariant, d: GemmDims) -> Result<[MapShape; 2], TensorMapError> {
    let (m, n, k) = (d.m, d.n, d.k);
    if m == 0 || n == 0 || k == 0 {
        return Err(TensorMapError::Empty { m, n, k });
    }
    let a = MapShape {
        dims: [u64::from(k), u64::from(m)],
        pitch: Pitch::for_tma(u64::from(m), u64::from(k)),
        boxed: [WGEMM_BK, line.bm],
    };
    let b = MapShape {
        dims: [u64::from(n), u64::from(k)],
        pitch: Pitch::for_tma(u64::from(k), u64::from(n)),
        boxed: [B_BOX_COLS, WGEMM_BK],
    };
    Ok([a, b])
}

/// A's and B's tensor maps on the device, one buffer: A's map first, B's [`Self::B_OFFSET`]
/// bytes after it; the padded copies of the operands whose rows TMA cannot read in place; and
/// the scratch where the line cuts K or streams its last partial wave at this size: what a line's
/// launches at one size
/// hold on the device.
pub struct TensorMaps {
    words: CudaSlice<u64>,
    copies: [Option<PitchedCopy>; 2],
    /// The launch's cut of K or streamed tail and its scratch (none where neither is).
    scratch: SplitScratch,
}

impl TensorMaps {
    /// Encodes the maps of `line` over A and B (`d`'s sizes), each over the operand itself or,
    /// where its rows need it, over a padded copy allocated here, and copies them to the device.
    pub fn encode(
        gpu: &Gpu,
        line: &WgemmVariant,
        d: GemmDims,
        a: &CudaSlice<u16>,
        b: &CudaSlice<u16>,
    ) -> Result<Self, TensorMapError> {
        let shapes = map_shapes(line, d)?;
        let mut words = vec![0u64; 2 * MAP_WORDS];
        let mut copies = [None, None];
        for (((shape, buffer), out), copy) in shapes
            .iter()
            .zip([a, b])
            .zip(words.chunks_exact_mut(MAP_WORDS))
            .zip(copies.iter_mut())
        {
            let address = if shape.pitch.needs_copy() {
                let padded = PitchedCopy::new(gpu, shape.pitch)?;
                let address = padded.address(gpu);
                *copy = Some(padded);
                address
            } else {
                let (address, _guard) = buffer.device_ptr(gpu.stream());
                address
            };
            let map = encode_one(shape, address)?;
            out.copy_from_slice(&map.opaque);
        }
        Ok(Self {
            words: gpu.upload(&words)?,
            copies,
            scratch: SplitScratch::new(gpu, line, d)?,
        })
    }

    /// Enqueues the padded copies of A and B the maps read (none where both are read in place):
    /// before every launch, so that the launch reads this A and B.
    pub fn stage(
        &self,
        gpu: &Gpu,
        a: &CudaSlice<u16>,
        b: &CudaSlice<u16>,
    ) -> Result<(), CudaError> {
        for (copy, src) in self.copies.iter().zip([a, b]) {
            if let Some(copy) = copy {
                copy.enqueue(gpu, src)?;
            }
        }
        Ok(())
    }

    /// The launch's cut of K and its scratch.
    pub fn scratch(&self) -> &SplitScratch {
        &self.scratch
    }

    /// These maps with the last partial wave dealt as `deal` says (`SplitScratch::dealt`): the
    /// controls a streamed tail and the rule's bounds are timed against.
    pub fn deal_tail(
        &mut self,
        gpu: &Gpu,
        line: &WgemmVariant,
        d: GemmDims,
        deal: TailDeal,
    ) -> Result<(), CudaError> {
        self.scratch = SplitScratch::dealt(gpu, line, d, deal)?;
        Ok(())
    }

    /// The buffer holding both maps (for a launch's `input`).
    pub fn buffer(&self) -> &CudaSlice<u64> {
        &self.words
    }

    /// B's map's offset from the buffer's start, bytes.
    pub const B_OFFSET: u64 = (MAP_WORDS * 8) as u64;
}

/// One map by the driver: bf16, 2-D, 128-byte swizzle, zero fill, L2 promotion of 256 bytes.
fn encode_one(shape: &MapShape, address: u64) -> Result<sys::CUtensorMap, CudaError> {
    let mut map = sys::CUtensorMap {
        opaque: [0; MAP_WORDS],
    };
    let strides = [shape.row_bytes()];
    let element_strides = [1u32, 1];
    // SAFETY: `map` is a writable CUtensorMap; the arrays have the rank (2) entries the driver
    // reads (strides: rank - 1); `address` is a live device allocation of dims[1] rows of the
    // stride's bytes, each holding dims[0] bf16 (the caller's operand, or its padded copy).
    let result = unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut map,
            sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            2,
            address as *mut core::ffi::c_void,
            shape.dims.as_ptr(),
            strides.as_ptr(),
            shape.boxed.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    result.result().map_err(|source| CudaError::Driver {
        what: format!(
            "cuTensorMapEncodeTiled (dims {:?}, row {} bytes, box {:?})",
            shape.dims,
            shape.row_bytes(),
            shape.boxed
        ),
        source,
    })?;
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_gpu::variants::WGEMM;

    #[test]
    fn maps_put_the_contiguous_dimension_first_and_refuse_what_tma_cannot_describe() {
        let w = WGEMM[0];
        let d = GemmDims {
            m: 1000,
            n: 2048,
            k: 1024,
        };
        let [a, b] = map_shapes(&w, d).unwrap();
        assert_eq!(
            (a.dims, a.row_bytes(), a.boxed),
            ([1024, 1000], 2048, [64, w.bm])
        );
        assert_eq!(
            (b.dims, b.row_bytes(), b.boxed),
            ([2048, 1024], 4096, [64, 64])
        );
        assert!(!a.pitch.needs_copy() && !b.pitch.needs_copy());
        // One slot's TMA bytes are the boxes' bytes: what the full barrier expects.
        let box_bytes = |s: &MapShape| 2 * s.boxed[0] * s.boxed[1];
        assert_eq!(
            box_bytes(&a) + (w.bn / B_BOX_COLS) * box_bytes(&b),
            w.slot_bytes()
        );
        // Rows TMA cannot read in place are read from padded copies; the maps' dimensions stay
        // the operands' own, so the padding is never read.
        let [a, b] = map_shapes(
            &w,
            GemmDims {
                m: 7,
                n: 9000,
                k: 13,
            },
        )
        .unwrap();
        assert_eq!(
            (a.dims, a.row_bytes(), a.pitch.needs_copy()),
            ([13, 7], 32, true)
        );
        assert_eq!(
            (b.dims, b.row_bytes(), b.pitch.needs_copy()),
            ([9000, 13], 18000, false)
        );
        let [a, b] = map_shapes(
            &w,
            GemmDims {
                m: 4095,
                n: 4097,
                k: 1023,
            },
        )
        .unwrap();
        assert_eq!((a.row_bytes(), b.row_bytes()), (2048, 8208));
        assert!(a.pitch.needs_copy() && b.pitch.needs_copy());
        // An empty problem is refused.
        for (m, n, k) in [(0, 8, 8), (64, 0, 64), (64, 64, 0)] {
            let e = map_shapes(&w, GemmDims { m, n, k }).unwrap_err();
            assert!(
                matches!(e, TensorMapError::Empty { m: em, n: en, k: ek } if (em, en, ek) == (m, n, k))
            );
        }
        assert!(map_shapes(&w, GemmDims { m: 1, n: 1, k: 1 }).is_ok());
    }
}
