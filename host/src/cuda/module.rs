//! Kernel modules (PTX or cubin) loaded with `cuModuleLoadDataEx`, keeping the JIT's info log
//! (the same register/spill/stack lines as `ptxas -v`), and kernel handles with their attributes.
//! What an image is (its kind, its entries) is read in [`crate::kernel_source`], the room of where
//! kernels come from; loading one needs the driver's context, so it stands here, above that room.

use std::ffi::{c_uint, c_void, CString};
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUfunction_attribute as FnAttr, CUjit_option as Jit};
use cudarc::driver::CudaContext;

use super::error::{CudaError, DriverContext};
use super::module_global::ModuleGlobal;
use crate::kernel_source::image::module_entries;
use crate::kernel_source::kind::ModuleKind;

/// Options for the driver's JIT when a module is PTX (ignored for a cubin).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct JitOptions {
    /// `CU_JIT_MAX_REGISTERS`: the most registers per thread the JIT may allocate (None: no cap).
    pub max_registers: Option<u32>,
}

/// What compiled a module's PTX, whose report [`Module::info_log`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compiler {
    /// The driver's JIT, at load (its info log); also a cubin's "compiler", with an empty log.
    DriverJit,
    /// ptxas in a child process before the load (its `-v` report): `super::ptx_assembly`.
    Ptxas(std::path::PathBuf),
}

/// A loaded module. Unloaded on drop; its kernels borrow it.
pub struct Module {
    raw: sys::CUmodule,
    ctx: Arc<CudaContext>,
    name: String,
    kind: ModuleKind,
    compiler: Compiler,
    info_log: String,
    entries: Vec<String>,
    /// Whether this is the module compared with ours (`--compare`), for naming a fault.
    compared: std::sync::atomic::AtomicBool,
}

impl Module {
    /// Loads a PTX, cubin or fatbin image into `gpu`'s context; `name` says where it came from in
    /// messages. Takes what holds the context (a [`Gpu`](super::device::Gpu)) rather than the
    /// `Gpu` type, so that this file stays below device.rs, whose GPU keeps the built-in modules
    /// it has loaded.
    pub fn load(
        gpu: &impl AsRef<Arc<CudaContext>>,
        name: &str,
        image: &[u8],
    ) -> Result<Self, CudaError> {
        Self::load_with(gpu, name, image, JitOptions::default())
    }

    /// [`Module::load`] with options for the JIT (e.g. a register cap).
    pub fn load_with(
        gpu: &impl AsRef<Arc<CudaContext>>,
        name: &str,
        image: &[u8],
        jit: JitOptions,
    ) -> Result<Self, CudaError> {
        let kind = ModuleKind::sniff(image);
        let mut owned;
        let bytes: &[u8] = match kind {
            ModuleKind::Ptx if image.last() != Some(&0) => {
                owned = image.to_vec();
                owned.push(0);
                &owned
            }
            _ => image,
        };
        let ctx = gpu.as_ref().clone();
        ctx.bind_to_thread()
            .doing(|| "making the context current".into())?;
        // Room for the verbose report of every entry: the main module's (about 300 bytes an
        // entry) outgrew 64 KiB with the tensor-core entries, and a cut log loses the register
        // and spill figures of the entries reported last.
        const LOG: usize = 1 << 20;
        let mut info = vec![0u8; LOG];
        let mut error = vec![0u8; LOG];
        let mut options = vec![
            Jit::CU_JIT_INFO_LOG_BUFFER,
            Jit::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            Jit::CU_JIT_ERROR_LOG_BUFFER,
            Jit::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            Jit::CU_JIT_LOG_VERBOSE,
        ];
        // Integer option values travel in the pointer slots, as the driver API specifies.
        let mut values: Vec<*mut c_void> = vec![
            info.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut(LOG),
            error.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut(LOG),
            // CU_JIT_LOG_VERBOSE = 1, passed by value in the pointer slot.
            std::ptr::without_provenance_mut(1),
        ];
        if let Some(regs) = jit.max_registers {
            // An unsigned int, passed by value in the pointer slot.
            options.push(Jit::CU_JIT_MAX_REGISTERS);
            values.push(std::ptr::without_provenance_mut(regs as usize));
        }
        debug_assert_eq!(options.len(), values.len());
        let mut raw: sys::CUmodule = ptr::null_mut();
        // SAFETY: `bytes` is a NUL-terminated PTX or a binary image that outlives the call; the
        // log buffers are LOG bytes long as declared; `options` and `values` have equal lengths;
        // the context is current.
        let status = unsafe {
            sys::cuModuleLoadDataEx(
                &mut raw,
                bytes.as_ptr().cast(),
                options.len() as c_uint,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        let info_log = c_text(&info);
        if let Err(source) = status.result() {
            let error_log = c_text(&error);
            return Err(CudaError::Load {
                module: name.to_owned(),
                log: if error_log.is_empty() {
                    info_log
                } else {
                    error_log
                },
                source,
            });
        }
        Ok(Self {
            raw,
            ctx,
            name: name.to_owned(),
            kind,
            compiler: Compiler::DriverJit,
            info_log,
            entries: module_entries(image),
            compared: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The PTX `ptx` as ptxas assembled it (`assembled`), loaded: a PTX module whose report is
    /// ptxas's rather than the JIT's, with the entries of the PTX.
    pub fn load_assembled(
        gpu: &impl AsRef<Arc<CudaContext>>,
        name: &str,
        ptx: &[u8],
        assembled: super::ptx_assembly::Assembled,
    ) -> Result<Self, CudaError> {
        let mut m = Self::load(gpu, name, &assembled.cubin)?;
        m.kind = ModuleKind::Ptx;
        m.compiler = Compiler::Ptxas(assembled.ptxas);
        m.info_log = assembled.report;
        m.entries = module_entries(ptx);
        Ok(m)
    }

    /// Where the module came from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Marks this module as the one compared with ours (a fault in it is named so).
    pub fn mark_compared(&self) {
        self.compared
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whose kernels these are.
    pub fn side(&self) -> super::fault::Side {
        if self.compared.load(std::sync::atomic::Ordering::Relaxed) {
            super::fault::Side::Compared
        } else {
            super::fault::Side::Ours
        }
    }

    pub fn kind(&self) -> ModuleKind {
        self.kind
    }

    /// What compiled the module's PTX.
    pub fn compiler(&self) -> &Compiler {
        &self.compiler
    }

    /// The compiler's report: the JIT's info log, or ptxas's `-v` (empty for a cubin).
    pub fn info_log(&self) -> &str {
        &self.info_log
    }

    /// Looks up an entry point.
    pub fn kernel(&self, entry: &str) -> Result<Kernel<'_>, CudaError> {
        let missing = || CudaError::MissingEntry {
            module: self.name.clone(),
            entry: entry.to_owned(),
            available: self.entries.clone(),
        };
        let c_name = CString::new(entry).map_err(|_| missing())?;
        self.ctx
            .bind_to_thread()
            .doing(|| "making the context current".into())?;
        let mut raw: sys::CUfunction = ptr::null_mut();
        // SAFETY: the module is loaded in this context; the name is NUL-terminated.
        let status = unsafe { sys::cuModuleGetFunction(&mut raw, self.raw, c_name.as_ptr()) };
        match status {
            sys::CUresult::CUDA_SUCCESS => Ok(Kernel {
                raw,
                module: self,
                entry: entry.to_owned(),
            }),
            sys::CUresult::CUDA_ERROR_NOT_FOUND => Err(missing()),
            other => other
                .result()
                .doing(|| format!("{}: looking up `{entry}`", self.name))
                .map(|_| unreachable!("a non-success status is an error")),
        }
    }
}

impl Module {
    /// The module's global variable `name` (its device address and size), e.g. the words an
    /// instrumented entry records into ([`ModuleGlobal`]); `None` where the module has none.
    pub fn global(&self, name: &str) -> Result<Option<ModuleGlobal>, CudaError> {
        let c_name = CString::new(name).map_err(|_| CudaError::MissingEntry {
            module: self.name.clone(),
            entry: name.to_owned(),
            available: Vec::new(),
        })?;
        self.ctx
            .bind_to_thread()
            .doing(|| "making the context current".into())?;
        let (mut ptr, mut bytes): (sys::CUdeviceptr, usize) = (0, 0);
        // SAFETY: the module is loaded in this context; the name is NUL-terminated; both
        // outputs are valid for writes.
        let status =
            unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut bytes, self.raw, c_name.as_ptr()) };
        if status == sys::CUresult::CUDA_ERROR_NOT_FOUND {
            return Ok(None);
        }
        status
            .result()
            .doing(|| format!("{}: looking up the global `{name}`", self.name))?;
        Ok(Some(ModuleGlobal::new(ptr, bytes, name)))
    }
}

// SAFETY: a module handle belongs to its context, not to the thread that loaded it: the driver
// API is thread-safe, and every use here (looking up an entry, unloading) makes the module's
// context current on the calling thread first. The fields beside the handle are plain data.
// This lets one load be shared by a run's experiments and done on another thread
// (`module_cache.rs`).
unsafe impl Send for Module {}
// SAFETY: as for Send; `&Module` only reads the handle and the plain fields.
unsafe impl Sync for Module {}

impl Drop for Module {
    fn drop(&mut self) {
        // Unloading would wait for a kernel that never completed: left loaded.
        if !super::deadline::gpu_hung() && self.ctx.bind_to_thread().is_ok() {
            // SAFETY: loaded by us in this context, unloaded once; kernels borrow the module so
            // none outlive it.
            let _ = unsafe { sys::cuModuleUnload(self.raw) };
        }
    }
}

/// One entry point of a loaded module.
pub struct Kernel<'m> {
    raw: sys::CUfunction,
    module: &'m Module,
    entry: String,
}

impl Kernel<'_> {
    pub fn entry(&self) -> &str {
        &self.entry
    }

    pub fn module(&self) -> &Module {
        self.module
    }

    /// The driver's handle, for the launch path (`super::launch`).
    pub(crate) fn raw(&self) -> sys::CUfunction {
        self.raw
    }

    fn attribute(&self, attr: FnAttr) -> Result<i32, CudaError> {
        let mut value = 0;
        // SAFETY: a valid function handle of a loaded module; writes one int.
        unsafe { sys::cuFuncGetAttribute(&mut value, attr, self.raw) }
            .result()
            .doing(|| format!("reading {attr:?} of `{}`", self.entry))?;
        Ok(value)
    }

    /// Registers per thread, as allocated by the compiler.
    pub fn num_regs(&self) -> Result<u32, CudaError> {
        Ok(self.attribute(FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS)? as u32)
    }

    /// Local memory per thread (the stack frame, spills included), bytes.
    pub fn local_bytes(&self) -> Result<u32, CudaError> {
        Ok(self.attribute(FnAttr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)? as u32)
    }

    /// Static shared memory per block, bytes.
    pub fn static_smem_bytes(&self) -> Result<u32, CudaError> {
        Ok(self.attribute(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)? as u32)
    }

    /// Largest block this kernel can be launched with.
    pub fn max_threads_per_block(&self) -> Result<u32, CudaError> {
        Ok(self.attribute(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32)
    }

    /// Allows up to `bytes` of dynamic shared memory per launch (needed above 48 KiB).
    pub fn set_max_dynamic_smem(&self, bytes: u32) -> Result<(), CudaError> {
        // SAFETY: a valid function handle; the driver validates the value.
        unsafe {
            sys::cuFuncSetAttribute(
                self.raw,
                FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        }
        .result()
        .doing(|| {
            format!(
                "allowing {bytes} bytes of dynamic shared memory for `{}`",
                self.entry
            )
        })
    }

    /// Resident blocks per SM, from `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
    pub fn max_active_blocks(&self, threads: u32, dyn_smem: u32) -> Result<u32, CudaError> {
        let mut blocks = 0;
        // SAFETY: a valid function handle; writes one int.
        unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut blocks,
                self.raw,
                threads as i32,
                dyn_smem as usize,
            )
        }
        .result()
        .doing(|| {
            format!(
                "occupancy of `{}` at {threads} threads, {dyn_smem} B dynamic smem",
                self.entry
            )
        })?;
        Ok(blocks as u32)
    }
}

/// The text before the first NUL of a log buffer.
fn c_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_text_stops_at_the_nul() {
        assert_eq!(
            c_text(b"info : Used 8 registers\n\0garbage"),
            "info : Used 8 registers"
        );
    }
}
