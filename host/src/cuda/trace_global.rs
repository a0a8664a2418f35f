//! The block trace's module global (`kernels_gpu::sections::block_trace`): found by name in a
//! loaded module, the words of a launch's blocks zeroed before a traced launch and read back
//! after it. The traced entries store into it; the timed entries never touch it.

use kernels_gpu::sections::block_trace::{TRACE_BLOCKS, TRACE_SYMBOL, WORDS_PER_BLOCK};

use super::device::Gpu;
use super::error::CudaError;
use super::module::Module;
use super::module_global::ModuleGlobal;

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

/// A module's [`TRACE_SYMBOL`], holding at least `TRACE_BLOCKS * WORDS_PER_BLOCK` u64 words.
pub struct TraceGlobal {
    global: ModuleGlobal,
}

impl TraceGlobal {
    /// The trace global of `module`: Ok(Err) where the module has none or one too small, Err
    /// where the driver fails.
    pub fn find(module: &Module) -> Result<Result<TraceGlobal, TraceGlobalError>, CudaError> {
        let Some(global) = module.global(TRACE_SYMBOL)? else {
            return Ok(Err(TraceGlobalError::Missing {
                module: module.name().to_owned(),
            }));
        };
        let needed = TRACE_BLOCKS * WORDS_PER_BLOCK * std::mem::size_of::<u64>();
        if global.bytes() < needed {
            return Ok(Err(TraceGlobalError::TooSmall {
                module: module.name().to_owned(),
                bytes: global.bytes(),
                needed,
            }));
        }
        Ok(Ok(TraceGlobal { global }))
    }

    /// Enqueues zeroing the words of blocks `0..blocks` on the GPU's stream.
    pub fn zero(&self, gpu: &Gpu, blocks: usize) -> Result<(), CudaError> {
        let blocks = blocks.min(TRACE_BLOCKS);
        gpu.bind()?;
        self.global.zero(gpu.stream(), blocks * WORDS_PER_BLOCK)
    }

    /// The words of blocks `0..blocks`, after the work enqueued so far (waits for the GPU).
    pub fn read(&self, gpu: &Gpu, blocks: usize) -> Result<Vec<u64>, CudaError> {
        let blocks = blocks.min(TRACE_BLOCKS);
        gpu.synchronize()?;
        self.global.read_words(blocks * WORDS_PER_BLOCK)
    }
}
