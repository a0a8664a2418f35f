//! A row-major bf16 matrix copied, row by row, into a buffer whose rows lie further apart
//! (`cuMemcpy2DAsync`): how the wgmma GEMM hands TMA, whose row strides are multiples of 16
//! bytes, an operand whose rows are not (K or N not a multiple of 8). The copy is enqueued before
//! every launch, inside what the lab times: the padding is part of the GEMM's cost.

use std::cell::RefCell;

use cudarc::driver::sys;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use super::device::Gpu;
use super::error::{CudaError, DriverContext};

/// Bytes of one bf16.
const BF16_BYTES: u64 = 2;

/// Elements a TMA row stride is a multiple of: 16 bytes of bf16.
pub const TMA_ROW_ELEMENTS: u64 = 8;

/// A row-major bf16 matrix's rows and columns, and the columns its TMA copy holds per row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pitch {
    pub rows: u64,
    pub cols: u64,
    pub padded_cols: u64,
}

impl Pitch {
    /// `rows` x `cols`, each row padded to the next multiple of [`TMA_ROW_ELEMENTS`].
    pub fn for_tma(rows: u64, cols: u64) -> Self {
        Self {
            rows,
            cols,
            padded_cols: cols.next_multiple_of(TMA_ROW_ELEMENTS),
        }
    }

    /// Whether TMA cannot read the matrix where it lies: its rows need the copy.
    pub fn needs_copy(&self) -> bool {
        self.padded_cols != self.cols
    }

    /// The byte stride between rows TMA reads: the copy's where one is needed, else the matrix's.
    pub fn row_bytes(&self) -> u64 {
        BF16_BYTES * self.padded_cols
    }

    /// Elements of the padded copy.
    pub fn padded_len(&self) -> usize {
        (self.rows * self.padded_cols) as usize
    }
}

/// The device buffer one matrix of [`Pitch`] is copied into, its padding columns zero (TMA never
/// reads them: its map's dimensions are the matrix's own).
pub struct PitchedCopy {
    pitch: Pitch,
    // The copy is written by each launch that reads it (`enqueue`) while the launch's tensor
    // map, which holds its address, is shared: the buffer is borrowed mutably for the enqueue.
    staged: RefCell<CudaSlice<u16>>,
}

impl PitchedCopy {
    /// A zeroed buffer for `pitch`'s padded rows.
    pub fn new(gpu: &Gpu, pitch: Pitch) -> Result<Self, CudaError> {
        Ok(Self {
            pitch,
            staged: RefCell::new(gpu.zeros::<u16>(pitch.padded_len())?),
        })
    }

    /// The copy's device address, for a tensor map.
    pub fn address(&self, gpu: &Gpu) -> u64 {
        let staged = self.staged.borrow();
        let (address, _guard) = staged.device_ptr(gpu.stream());
        address
    }

    /// Enqueues the copy of `src` (the matrix, `rows * cols` elements) into the padded rows.
    ///
    /// # Panics
    /// If `src` does not hold the matrix.
    pub fn enqueue(&self, gpu: &Gpu, src: &CudaSlice<u16>) -> Result<(), CudaError> {
        let Pitch {
            rows,
            cols,
            padded_cols,
        } = self.pitch;
        assert_eq!(src.len() as u64, rows * cols, "the source holds the matrix");
        let mut staged = self.staged.borrow_mut();
        let (from, _read) = src.device_ptr(gpu.stream());
        let (to, _write) = staged.device_ptr_mut(gpu.stream());
        let copy = sys::CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            srcHost: std::ptr::null(),
            srcDevice: from,
            srcArray: std::ptr::null_mut(),
            srcPitch: (BF16_BYTES * cols) as usize,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            dstHost: std::ptr::null_mut(),
            dstDevice: to,
            dstArray: std::ptr::null_mut(),
            dstPitch: (BF16_BYTES * padded_cols) as usize,
            WidthInBytes: (BF16_BYTES * cols) as usize,
            Height: rows as usize,
        };
        // SAFETY: `copy` describes `rows` rows of `cols` bf16 read from `src` (which holds
        // rows * cols, asserted above) at its own row stride and written at the padded stride
        // into `staged` (rows * padded_cols elements, `Pitch::padded_len`); both are device
        // allocations alive until the guards drop after the copy is enqueued on their stream.
        unsafe { sys::cuMemcpy2DAsync_v2(&copy, gpu.stream().cu_stream()) }
            .result()
            .doing(|| format!("copying a {rows} x {cols} bf16 matrix into rows of {padded_cols}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_padded_to_16_bytes_and_copied_only_when_they_are_not() {
        let even = Pitch::for_tma(4096, 1024);
        assert!(!even.needs_copy());
        assert_eq!((even.row_bytes(), even.padded_len()), (2048, 4096 * 1024));
        let odd = Pitch::for_tma(4095, 1023);
        assert!(odd.needs_copy());
        assert_eq!((odd.padded_cols, odd.row_bytes()), (1024, 2048));
        assert_eq!(odd.padded_len(), 4095 * 1024);
        let tiny = Pitch::for_tma(7, 1);
        assert_eq!((tiny.padded_cols, tiny.row_bytes()), (8, 16));
        assert_eq!(Pitch::for_tma(13, 9000).padded_cols, 9000);
        assert_eq!(Pitch::for_tma(1, 4097).padded_cols, 4104);
    }
}
