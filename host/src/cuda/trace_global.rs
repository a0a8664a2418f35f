//! The block trace's module global (`kernels_gpu::sections::block_trace`): found by name in a
//! loaded module, the words of a launch's blocks zeroed before a traced launch and read back
//! after it. The traced entries store into it; the timed entries never touch it.

use std::ffi::CString;

use cudarc::driver::sys;
use kernels_gpu::sections::block_trace::{TRACE_BLOCKS, TRACE_SYMBOL, WORDS_PER_BLOCK};

use super::device::Gpu;
use super::error::{CudaError, DriverContext};
use super::module::Module;

/// Why a module's trace global cannot be used (the row's trace fails; nothing else does).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceGlobalError {
    #[error("{module}: has no global `{TRACE_SYMBOL}`")]
    Missing { module: String },
    #[error("{module}: `{TRACE_SYMBOL}` holds {bytes} bytes, the trace needs {needed}")]
    TooSmall {
        module: String,
        bytes: usize,
        needed: usize,
    },
}

/// A module's [`TRACE_SYMBOL`]: its device address, `TRACE_BLOCKS * WORDS_PER_BLOCK` u64 words.
pub struct TraceGlobal {
    ptr: sys::CUdeviceptr,
}

/// Bytes of the trace words of `blocks` blocks.
const fn bytes_of(blocks: usize) -> usize {
    blocks * WORDS_PER_BLOCK * std::mem::size_of::<u64>()
}

impl TraceGlobal {
    /// The trace global of `module`: Ok(Err) where the module has none or one too small, Err
    /// where the driver fails.
    pub fn find(
        gpu: &Gpu,
        module: &Module,
    ) -> Result<Result<TraceGlobal, TraceGlobalError>, CudaError> {
        gpu.bind()?;
        let name = CString::new(TRACE_SYMBOL).expect("the symbol has no NUL");
        let (mut ptr, mut bytes): (sys::CUdeviceptr, usize) = (0, 0);
        // SAFETY: the module is loaded in the GPU's context, current on this thread; the name is
        // NUL-terminated; the call writes one address and one size.
        let status =
            unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut bytes, module.raw(), name.as_ptr()) };
        if status == sys::CUresult::CUDA_ERROR_NOT_FOUND {
            return Ok(Err(TraceGlobalError::Missing {
                module: module.name().to_owned(),
            }));
        }
        status
            .result()
            .doing(|| format!("{}: looking up `{TRACE_SYMBOL}`", module.name()))?;
        let needed = bytes_of(TRACE_BLOCKS);
        if bytes < needed {
            return Ok(Err(TraceGlobalError::TooSmall {
                module: module.name().to_owned(),
                bytes,
                needed,
            }));
        }
        Ok(Ok(TraceGlobal { ptr }))
    }

    /// Enqueues zeroing the words of blocks `0..blocks` on the GPU's stream.
    pub fn zero(&self, gpu: &Gpu, blocks: usize) -> Result<(), CudaError> {
        let blocks = blocks.min(TRACE_BLOCKS);
        gpu.bind()?;
        // SAFETY: the words of `blocks <= TRACE_BLOCKS` blocks lie inside the global (checked
        // by `find`), which lives as long as its module; the memset is enqueued on the GPU's
        // stream, before the traced launch that writes them.
        unsafe { sys::cuMemsetD8Async(self.ptr, 0, bytes_of(blocks), gpu.stream().cu_stream()) }
            .result()
            .doing(|| format!("zeroing the block trace of {blocks} blocks"))
    }

    /// The words of blocks `0..blocks`, after the work enqueued so far (waits for the GPU).
    pub fn read(&self, gpu: &Gpu, blocks: usize) -> Result<Vec<u64>, CudaError> {
        let blocks = blocks.min(TRACE_BLOCKS);
        gpu.synchronize()?;
        let mut words = vec![0u64; blocks * WORDS_PER_BLOCK];
        // SAFETY: `words` has room for the bytes copied, which lie inside the global (`find`);
        // the stream is idle (synchronized above), so the traced launch's stores are done.
        unsafe { sys::cuMemcpyDtoH_v2(words.as_mut_ptr().cast(), self.ptr, bytes_of(blocks)) }
            .result()
            .doing(|| format!("reading the block trace of {blocks} blocks"))?;
        Ok(words)
    }
}
