//! A second stream beside the GPU's own, for work that must overlap it: the loaded-latency
//! chase runs on one while copies run on the GPU's stream. Made through the driver directly
//! (not cudarc's `new_stream`), so the context stays in cudarc's single-stream mode: that mode
//! records no per-buffer events, and every other timing of the lab keeps its cost as it was.
//! The stream is non-blocking (it does not wait for the legacy default stream the GPU's work
//! goes to) and of the highest priority the device offers, so its one small block is placed on
//! an SM as soon as room frees rather than after the copy's pending blocks.

use cudarc::driver::{result, sys};

use super::device::Gpu;
use super::error::{CudaError, DriverContext};

/// A non-blocking, highest-priority stream on the GPU's context, destroyed on drop.
pub struct SideStream {
    raw: sys::CUstream,
}

impl SideStream {
    /// Creates the stream on `gpu`'s context.
    pub fn new(gpu: &Gpu) -> Result<Self, CudaError> {
        gpu.bind()?;
        let (_, greatest) =
            result::stream::get_priority_range().doing(|| "reading stream priorities".into())?;
        let raw =
            result::stream::create_with_priority(result::stream::StreamKind::NonBlocking, greatest)
                .doing(|| "creating a side stream".into())?;
        Ok(Self { raw })
    }

    pub(crate) fn raw(&self) -> sys::CUstream {
        self.raw
    }

    /// Waits for the work on this stream (the GPU's own `synchronize` does not).
    pub fn synchronize(&self) -> Result<(), CudaError> {
        // SAFETY: a stream this value created and has not destroyed.
        unsafe { result::stream::synchronize(self.raw) }
            .doing(|| "waiting for the side stream (a kernel may have faulted)".into())
    }
}

impl Drop for SideStream {
    fn drop(&mut self) {
        // Work still queued finishes first: the driver destroys a busy stream once it is idle.
        // SAFETY: created by `new`, destroyed only here.
        let _ = unsafe { result::stream::destroy(self.raw) };
    }
}
