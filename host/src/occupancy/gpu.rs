//! The driver side: device attributes, JIT-compiled kernels and the driver's own occupancy answer.
//!
//! Every entry point checks that the CUDA driver library can be loaded before touching it, so a
//! machine without a GPU gets [`GpuError::NoDriver`] instead of a panic.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys;
use thiserror::Error;

use super::arch::Limits;
use super::device_limits::DeviceAttributes;

/// A failure talking to the GPU.
#[derive(Debug, Error)]
pub enum GpuError {
    #[error("no CUDA driver library (libcuda) on this machine: this needs a GPU")]
    NoDriver,
    #[error("{call} failed: {source}")]
    Driver {
        call: &'static str,
        #[source]
        source: DriverError,
    },
    #[error("{call} failed: {source}; JIT log: {log}")]
    Jit {
        call: &'static str,
        #[source]
        source: DriverError,
        log: String,
    },
    #[error("the module has no entry `{0}`")]
    NoEntry(String),
    #[error("the PTX contains a NUL byte")]
    BadPtx,
}

fn check(call: &'static str, r: sys::CUresult) -> Result<(), GpuError> {
    r.result()
        .map_err(|source| GpuError::Driver { call, source })
}

/// A GPU with its primary context current on this thread.
pub struct Gpu {
    device: sys::CUdevice,
}

impl Gpu {
    /// Opens device `ordinal` and makes its primary context current.
    pub fn open(ordinal: u32) -> Result<Gpu, GpuError> {
        // SAFETY: only probes for the library; nothing is called through it.
        if !unsafe { sys::is_culib_present() } {
            return Err(GpuError::NoDriver);
        }
        let mut device: sys::CUdevice = 0;
        let mut ctx: sys::CUcontext = ptr::null_mut();
        // SAFETY: the library is present; out-pointers are valid locals.
        unsafe {
            check("cuInit", sys::cuInit(0))?;
            check(
                "cuDeviceGet",
                sys::cuDeviceGet(&mut device, ordinal as c_int),
            )?;
            check(
                "cuDevicePrimaryCtxRetain",
                sys::cuDevicePrimaryCtxRetain(&mut ctx, device),
            )?;
            check("cuCtxSetCurrent", sys::cuCtxSetCurrent(ctx))?;
        }
        Ok(Gpu { device })
    }

    fn attribute(&self, attr: sys::CUdevice_attribute) -> Result<u32, GpuError> {
        let mut v: c_int = 0;
        // SAFETY: valid device handle and out-pointer.
        check("cuDeviceGetAttribute", unsafe {
            sys::cuDeviceGetAttribute(&mut v, attr, self.device)
        })?;
        Ok(v.max(0) as u32)
    }

    /// The device's name.
    pub fn name(&self) -> Result<String, GpuError> {
        let mut buf = [0 as c_char; 256];
        // SAFETY: the buffer is as long as we say.
        check("cuDeviceGetName", unsafe {
            sys::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int, self.device)
        })?;
        // SAFETY: the driver NUL-terminates within the length given.
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    /// The attributes the occupancy arithmetic needs.
    pub fn attributes(&self) -> Result<DeviceAttributes, GpuError> {
        use sys::CUdevice_attribute::*;
        Ok(DeviceAttributes {
            name: self.name()?,
            compute_capability: (
                self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            sm_count: self.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            warp_size: self.attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            max_threads_per_block: self.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_threads_per_sm: self
                .attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
            max_blocks_per_sm: self.attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
            regs_per_sm: self.attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
            regs_per_block: self.attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            smem_per_sm: self
                .attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            smem_per_block: self.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            smem_per_block_optin: self
                .attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            reserved_smem_per_block: self
                .attribute(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)?,
        })
    }

    /// The device's limits.
    pub fn limits(&self) -> Result<Limits, GpuError> {
        Ok(Limits::from_attributes(&self.attributes()?))
    }
}

impl Limits {
    /// Limits of GPU `ordinal`, read from the driver.
    pub fn from_device(ordinal: u32) -> Result<Limits, GpuError> {
        Gpu::open(ordinal)?.limits()
    }
}

/// A PTX module JIT-compiled by the driver, optionally under a register cap.
pub struct JitModule {
    module: sys::CUmodule,
}

impl JitModule {
    /// JIT-compiles `ptx` on the current context (`Gpu::open` first).
    pub fn load(ptx: &str, max_regs: Option<u32>) -> Result<JitModule, GpuError> {
        let image = CString::new(ptx).map_err(|_| GpuError::BadPtx)?;
        let mut log = vec![0u8; 8192];
        let mut options = vec![
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // JIT option values are passed as pointer-sized integers or pointers.
        let mut values: Vec<*mut c_void> = vec![log.as_mut_ptr().cast(), log.len() as *mut c_void];
        if let Some(r) = max_regs {
            options.push(sys::CUjit_option::CU_JIT_MAX_REGISTERS);
            values.push(r as usize as *mut c_void);
        }
        let mut module: sys::CUmodule = ptr::null_mut();
        // SAFETY: the image is NUL-terminated, options and values have equal lengths, and the
        // log buffer outlives the call.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                image.as_ptr().cast(),
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        r.result().map_err(|source| {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            GpuError::Jit {
                call: "cuModuleLoadDataEx",
                source,
                log: String::from_utf8_lossy(&log[..end]).into_owned(),
            }
        })?;
        Ok(JitModule { module })
    }

    /// An entry point of the module.
    pub fn function(&self, name: &str) -> Result<Function<'_>, GpuError> {
        let cname = CString::new(name).map_err(|_| GpuError::NoEntry(name.to_string()))?;
        let mut f: sys::CUfunction = ptr::null_mut();
        // SAFETY: valid module and NUL-terminated name.
        let r = unsafe { sys::cuModuleGetFunction(&mut f, self.module, cname.as_ptr()) };
        r.result()
            .map_err(|_| GpuError::NoEntry(name.to_string()))?;
        Ok(Function { f, _module: self })
    }
}

impl Drop for JitModule {
    fn drop(&mut self) {
        // SAFETY: the module was loaded by us and no Function outlives it (borrow).
        unsafe {
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}

/// A kernel of a loaded module.
pub struct Function<'m> {
    f: sys::CUfunction,
    _module: &'m JitModule,
}

impl Function<'_> {
    fn attribute(&self, attr: sys::CUfunction_attribute) -> Result<u32, GpuError> {
        let mut v: c_int = 0;
        // SAFETY: valid function handle and out-pointer.
        check("cuFuncGetAttribute", unsafe {
            sys::cuFuncGetAttribute(&mut v, attr, self.f)
        })?;
        Ok(v.max(0) as u32)
    }

    /// Registers per thread the JIT gave the kernel.
    pub fn num_regs(&self) -> Result<u32, GpuError> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
    }

    /// Static shared memory per block, bytes.
    pub fn static_smem(&self) -> Result<u32, GpuError> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
    }

    /// Sets the dynamic shared memory the kernel may be launched with (the opt-in).
    pub fn set_max_dyn_smem(&self, bytes: u32) -> Result<(), GpuError> {
        // SAFETY: valid function handle.
        check("cuFuncSetAttribute", unsafe {
            sys::cuFuncSetAttribute(
                self.f,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as c_int,
            )
        })
    }

    /// The driver's resident blocks per SM (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).
    pub fn driver_blocks_per_sm(&self, threads: u32, dyn_smem: u32) -> Result<u32, GpuError> {
        let mut n: c_int = 0;
        // SAFETY: valid function handle and out-pointer.
        check("cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut n,
                self.f,
                threads as c_int,
                dyn_smem as usize,
            )
        })?;
        Ok(n.max(0) as u32)
    }
}
