//! A module's global variable, found by name ([`Module::global`](super::Module::global)): what
//! an instrumented entry records into (the sampled persistent copies' stamps), zeroed before its
//! launch and read back after it as u64 words.

use cudarc::driver::{sys, CudaStream};

use super::error::{CudaError, DriverContext};

/// A module global's device address and size; valid while its module is loaded.
#[derive(Debug, Clone)]
pub struct ModuleGlobal {
    ptr: sys::CUdeviceptr,
    bytes: usize,
    name: String,
}

impl ModuleGlobal {
    pub(super) fn new(ptr: sys::CUdeviceptr, bytes: usize, name: &str) -> Self {
        Self {
            ptr,
            bytes,
            name: name.to_owned(),
        }
    }

    /// Its size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The first `words` u64 words, or an error naming the global when it holds fewer.
    fn span(&self, words: usize) -> Result<usize, CudaError> {
        let bytes = words.saturating_mul(8);
        if bytes > self.bytes {
            return Err(CudaError::Size {
                what: format!("the global `{}` in u64 words", self.name),
                host: words,
                device: self.bytes / 8,
            });
        }
        Ok(bytes)
    }

    /// Enqueues zeroing its first `words` u64 words on `stream` (the GPU's, before the launch
    /// that records into them). Takes the stream rather than the GPU so that this file stays
    /// below device.rs, whose GPU loads modules.
    pub fn zero(&self, stream: &CudaStream, words: usize) -> Result<(), CudaError> {
        let bytes = self.span(words)?;
        // SAFETY: `ptr` addresses the global's `self.bytes` bytes (its module is loaded, which
        // the caller's borrow of the module's kernel keeps so), and `bytes` is within them.
        unsafe { sys::cuMemsetD8Async(self.ptr, 0, bytes, stream.cu_stream()) }
            .result()
            .doing(|| format!("zeroing the global `{}`", self.name))
    }

    /// Its first `words` u64 words. The caller waits for the launch that wrote them first
    /// (`Gpu::synchronize`, with its time limit): the copy itself would wait without one.
    pub fn read_words(&self, words: usize) -> Result<Vec<u64>, CudaError> {
        let bytes = self.span(words)?;
        let mut host = vec![0u64; words];
        // SAFETY: the source is within the global (above); the destination holds `bytes` bytes.
        unsafe { sys::cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), self.ptr, bytes) }
            .result()
            .doing(|| format!("reading the global `{}`", self.name))?;
        Ok(host)
    }
}
