//! One GPU: its context and stream, its limits as the driver reports them, and the spec peaks.

use std::ffi::{c_char, c_int, CStr};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::sys::{self, CUdevice_attribute as Attr};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaSlice, CudaStream, DevicePtrMut, DriverError, PinnedHostSlice,
};

use super::deadline::{gpu_hung, note_hung, poll_until, Waited, Wall, DEFAULT_LAUNCH_TIMEOUT};
use super::driver::{disable_jit_cache, driver_present};
use super::error::{CudaError, DriverContext};
use super::fault::{is_sticky, InFlight, Side};
use super::module::{JitOptions, Module};
use super::module_cache::ModuleCache;
use super::ptx_assembly::{find_ptxas, AssemblyJobs};
use super::sm_clock::SmClock;
use crate::occupancy::Limits;
use crate::results::DeviceInfo;

/// Page-locked host memory that downloads land in ([`Gpu::host_buffer`]).
pub struct HostBuffer<T>(PinnedHostSlice<T>);

/// An open GPU: primary context, its default stream and the figures describing it.
pub struct Gpu {
    /// Released on drop unless a kernel never completed ([`super::deadline`]): releasing would
    /// wait for it.
    ctx: ManuallyDrop<Arc<CudaContext>>,
    stream: ManuallyDrop<Arc<CudaStream>>,
    info: DeviceInfo,
    limits: Limits,
    clock: SmClock,
    /// The last SM clock reading and when it was taken ([`Gpu::recent_sm_clock_mhz`]).
    last_clock: std::sync::Mutex<Option<(std::time::Instant, Option<u32>)>>,
    /// The built-in modules compiled so far, shared by the run's experiments.
    modules: ModuleCache<Module>,
    /// The built-in modules ptxas is assembling ([`Gpu::assemble_builtins`]).
    assembly: AssemblyJobs,
    /// The kernels enqueued since the last completed wait: those a fault is laid on.
    in_flight: InFlight,
    /// The longest a wait for the GPU may take (`--launch-timeout`), milliseconds.
    launch_timeout_ms: AtomicU64,
}

/// Age below which [`Gpu::recent_sm_clock_mhz`] reuses a reading instead of asking NVML again:
/// the watch reads around every figure, and NVML's clock is itself an average over a short
/// window, so readings closer than this add nothing.
pub const CLOCK_REUSE: std::time::Duration = std::time::Duration::from_millis(100);

impl Gpu {
    /// Opens device `ordinal`. Fails with [`CudaError::NoDriver`] when libcuda is absent.
    pub fn open(ordinal: u32) -> Result<Self, CudaError> {
        if !driver_present() {
            return Err(CudaError::NoDriver);
        }
        disable_jit_cache();
        let count = CudaContext::device_count().doing(|| "counting CUDA devices".into())?;
        let count = u32::try_from(count).unwrap_or(0);
        if ordinal >= count {
            return Err(CudaError::NoSuchDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal as usize)
            .doing(|| format!("creating a context on device {ordinal}"))?;
        let stream = ctx.default_stream();
        let at = |a: Attr| -> Result<i64, CudaError> {
            ctx.attribute(a)
                .map(i64::from)
                .doing(|| format!("reading device attribute {a:?}"))
        };
        let (major, minor) = (
            at(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            at(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let sm_count = at(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let sm_clock_khz = at(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)? as u32;
        let mem_clock_khz = at(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)? as u32;
        let mem_bus_width_bits = at(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)? as u32;
        let cc = (major as u32, minor as u32);
        let mut driver_version: c_int = 0;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .doing(|| "reading the driver version".into())?;
        let info = DeviceInfo {
            ordinal,
            name: ctx.name().doing(|| "reading the device name".into())?,
            compute_capability: cc,
            sm_count,
            sm_clock_khz,
            mem_clock_khz,
            mem_bus_width_bits,
            l2_bytes: at(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64,
            regs_per_sm: at(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)? as u32,
            max_regs_per_block: at(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)? as u32,
            smem_per_sm: at(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)? as u64,
            smem_per_block: at(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)? as u64,
            smem_per_block_optin: at(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?
                as u64,
            max_threads_per_sm: at(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?
                as u32,
            max_blocks_per_sm: at(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)? as u32,
            warp_size: at(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)? as u32,
            total_mem_bytes: ctx.total_mem().doing(|| "reading the memory size".into())? as u64,
            driver_version: format!(
                "CUDA {}.{}",
                driver_version / 1000,
                (driver_version % 1000) / 10
            ),
            peak_fp32_gflops: peak_fp32_gflops(cc, sm_count, sm_clock_khz),
            peak_dram_gbps: peak_dram_gbps(mem_clock_khz, mem_bus_width_bits),
            max_threads_per_block: Some(at(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32),
            reserved_smem_per_block: Some(at(
                Attr::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
            )? as u32),
        };
        // The one set of limits of this device, built here once from what `results.json` stores.
        let limits = Limits::from_device_info(&info);
        let clock = SmClock::open(pci_bus_id(ctx.cu_device()).as_deref());
        Ok(Self {
            ctx: ManuallyDrop::new(ctx),
            stream: ManuallyDrop::new(stream),
            info,
            limits,
            clock,
            last_clock: std::sync::Mutex::new(None),
            modules: ModuleCache::default(),
            assembly: AssemblyJobs::default(),
            in_flight: InFlight::default(),
            launch_timeout_ms: AtomicU64::new(DEFAULT_LAUNCH_TIMEOUT.as_millis() as u64),
        })
    }

    /// The longest a wait for the GPU may take before the run ends (`--launch-timeout`).
    pub fn launch_timeout(&self) -> Duration {
        Duration::from_millis(self.launch_timeout_ms.load(Ordering::Relaxed))
    }

    pub fn set_launch_timeout(&self, limit: Duration) {
        let ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
        self.launch_timeout_ms.store(ms, Ordering::Relaxed);
    }

    /// Notes a launch of `entry` (of `side`, from `module`) for the attribution of a fault.
    pub(crate) fn launched(&self, side: Side, entry: &str, module: &str) {
        self.in_flight.launched(side, entry, module);
    }

    /// A driver error of `what`: a [`CudaError::Fault`] naming the kernels in flight when it is
    /// a kernel's fault (sticky: the context is lost), else a plain driver error.
    pub fn failure(&self, source: DriverError, what: impl Into<String>) -> CudaError {
        let what = what.into();
        if is_sticky(source.0) {
            CudaError::Fault {
                what,
                source,
                suspects: self.in_flight.suspects(),
            }
        } else {
            CudaError::Driver { what, source }
        }
    }

    /// Waits until `done` says the work is finished, polling, for at most the launch timeout.
    fn wait(
        &self,
        what: &str,
        mut done: impl FnMut() -> Result<bool, DriverError>,
    ) -> Result<(), CudaError> {
        self.bind()?;
        let limit = self.launch_timeout();
        match poll_until(&Wall::default(), limit, &mut done) {
            Ok(()) => {
                self.in_flight.settled();
                Ok(())
            }
            Err(Waited::Failed(source)) => Err(self.failure(source, what)),
            Err(Waited::TimedOut(_)) => {
                let e = CudaError::Timeout {
                    what: what.to_owned(),
                    limit,
                    suspects: self.in_flight.suspects(),
                };
                note_hung(&e);
                Err(e)
            }
        }
    }

    /// Waits for `event` (recorded on the stream) to complete, for at most the launch timeout.
    pub fn wait_for(&self, event: &CudaEvent, what: &str) -> Result<(), CudaError> {
        self.wait(what, || event.try_is_complete())
    }

    /// The built-in module `image` (PTX embedded in the binary), compiled once on this GPU and
    /// shared: later calls, from any experiment, get the same module. Compiled by the ptxas
    /// started on it ([`Gpu::assemble_builtins`]) where one was, else (or where that ptxas
    /// failed, said on stderr) by the driver's JIT.
    pub fn builtin_module(
        &self,
        name: &str,
        image: &'static str,
    ) -> Result<Arc<Module>, CudaError> {
        let (bytes, jit) = (image.as_bytes(), JitOptions::default());
        self.modules
            .get(bytes, jit, || match self.assembly.take(bytes) {
                Some(Ok(assembled)) => Module::load_assembled(self, name, bytes, assembled),
                Some(Err(e)) => {
                    eprintln!("note: {e}; the driver compiles {name} instead");
                    Module::load_with(self, name, bytes, jit)
                }
                None => Module::load_with(self, name, bytes, jit),
            })
    }

    /// Starts ptxas on each built-in module of `images` (PTX), each in a process of its own,
    /// for [`Gpu::builtin_module`] to load: the driver's JIT compiles one module at a time and
    /// holds the process's other module loads meanwhile (`cuda::ptx_assembly` says more). The
    /// ptxas used, or `None` where none was found (the JIT then compiles them, as before).
    pub fn assemble_builtins(&self, images: &[&'static str]) -> Option<std::path::PathBuf> {
        let ptxas = find_ptxas()?;
        self.assembly
            .start(&ptxas, images, self.info.compute_capability);
        Some(ptxas)
    }

    /// Compiles the built-in module `image` now, for a later [`Gpu::builtin_module`]; meant for
    /// another thread while the GPU runs something else. A failure is reported by that later
    /// call.
    pub fn warm_builtin(&self, name: &str, image: &'static str) {
        let _ = self.builtin_module(name, image);
    }

    /// How many built-in modules are compiled and kept.
    pub fn builtin_modules_kept(&self) -> usize {
        self.modules.kept()
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The device's limits (the occupancy calculator's input), read from the driver at open.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Copies a host slice to a new device buffer.
    pub fn upload<T: cudarc::driver::DeviceRepr>(
        &self,
        host: &[T],
    ) -> Result<CudaSlice<T>, CudaError> {
        self.stream
            .clone_htod(host)
            .doing(|| format!("uploading {} MiB", mib_of::<T>(host.len())))
    }

    /// Overwrites a device buffer with a host slice of the same length.
    pub fn overwrite(&self, host: &[f32], dev: &mut CudaSlice<f32>) -> Result<(), CudaError> {
        self.stream
            .memcpy_htod(host, dev)
            .doing(|| format!("uploading {} MiB", mib_of::<f32>(host.len())))
    }

    /// A new zeroed device buffer of `len` floats.
    pub fn zeros<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>, CudaError> {
        self.stream
            .alloc_zeros(len)
            .doing(|| format!("allocating {} MiB on the device", mib_of::<T>(len)))
    }

    /// Zeroes a device buffer.
    pub fn clear(&self, dev: &mut CudaSlice<f32>) -> Result<(), CudaError> {
        self.stream
            .memset_zeros(dev)
            .doing(|| "zeroing a device buffer".into())
    }

    /// Enqueues setting every float of a device buffer to `value` (`cuMemsetD32Async`).
    pub fn fill(&self, dev: &mut CudaSlice<f32>, value: f32) -> Result<(), CudaError> {
        let len = dev.len();
        let (ptr, _guard) = dev.device_ptr_mut(&self.stream);
        // SAFETY: `ptr` addresses the buffer's `len` floats, alive until the guard drops after
        // the memset has been enqueued on the stream the buffer belongs to; any bit pattern is
        // a valid f32.
        unsafe { sys::cuMemsetD32Async(ptr, value.to_bits(), len, self.stream.cu_stream()) }
            .result()
            .doing(|| format!("filling {} MiB with {value:e}", mib_of::<f32>(len)))
    }

    /// Copies a device buffer back to the host (waits for the stream).
    pub fn download<T: cudarc::driver::DeviceRepr>(
        &self,
        dev: &CudaSlice<T>,
    ) -> Result<Vec<T>, CudaError> {
        // The copy from pageable memory blocks until the work before it is done: waited for
        // first, with the limit.
        self.synchronize()?;
        let host = self
            .stream
            .clone_dtoh(dev)
            .doing(|| format!("downloading {} MiB", mib_of::<T>(dev.len())))?;
        self.synchronize()?;
        Ok(host)
    }

    /// Page-locked host memory for `len` elements, to download into again and again
    /// ([`Gpu::download_into`]).
    pub fn host_buffer<T: cudarc::driver::DeviceRepr>(
        &self,
        len: usize,
    ) -> Result<HostBuffer<T>, CudaError> {
        // SAFETY: the memory is left unset, and `HostBuffer` hands it out only after a download
        // has filled it (`download_into` copies a whole buffer of the same length first). Flags
        // 0: not write-combined, which would make the CPU's reads of it very slow.
        unsafe { self.ctx.alloc_pinned_with_flags(len, 0) }
            .map(HostBuffer)
            .doing(|| {
                format!(
                    "allocating {} MiB of page-locked host memory",
                    mib_of::<T>(len)
                )
            })
    }

    /// Copies `dev` into `host` (of the same length) and waits for it: what [`Gpu::download`]
    /// does without a fresh allocation each time. A copy experiment's check downloads a buffer
    /// of hundreds of MiB per point; into pageable memory allocated anew, faulting its pages in
    /// and staging them through the driver took longer than the copies it checks.
    pub fn download_into<'h, T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        &self,
        dev: &CudaSlice<T>,
        host: &'h mut HostBuffer<T>,
    ) -> Result<&'h [T], CudaError> {
        let what = || format!("downloading {} MiB", mib_of::<T>(dev.len()));
        if host.0.len() != dev.len() {
            return Err(CudaError::Size {
                what: what(),
                host: host.0.len(),
                device: dev.len(),
            });
        }
        self.stream.memcpy_dtoh(dev, &mut host.0).doing(what)?;
        // Waited for with the limit, so that the slice below finds the copy done.
        self.synchronize()?;
        host.0.as_slice().doing(what)
    }

    /// Enqueues a device-to-device copy of the whole of `src` into `dst` (`cuMemcpyDtoDAsync`).
    pub fn copy_device(
        &self,
        src: &CudaSlice<f32>,
        dst: &mut CudaSlice<f32>,
    ) -> Result<(), CudaError> {
        self.stream
            .memcpy_dtod(src, dst)
            .doing(|| "device-to-device copy".into())
    }

    /// Makes the GPU's context current on this thread (for driver calls made outside cudarc).
    pub(crate) fn bind(&self) -> Result<(), CudaError> {
        self.ctx
            .bind_to_thread()
            .doing(|| "making the GPU's context current".into())
    }

    /// Waits for all work on the stream, for at most the launch timeout.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        let stream = self.stream.cu_stream();
        self.wait("waiting for the GPU", || {
            // SAFETY: the stream belongs to this GPU's context, current on this thread (`wait`
            // binds it).
            match unsafe { sys::cuStreamQuery(stream) } {
                sys::CUresult::CUDA_SUCCESS => Ok(true),
                sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
                other => Err(DriverError(other)),
            }
        })
    }

    /// A timing event.
    pub fn event(&self) -> Result<CudaEvent, CudaError> {
        self.ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .doing(|| "creating a CUDA event".into())
    }

    /// Records `event` on the stream.
    pub fn record(&self, event: &CudaEvent) -> Result<(), CudaError> {
        event
            .record(&self.stream)
            .doing(|| "recording a CUDA event".into())
    }

    /// The SM clock in MHz (NVML; None where it cannot be read): the last reading when it is
    /// younger than [`CLOCK_REUSE`], else a fresh one. The timing's clock watch reads this before
    /// and after every figure, so consecutive figures share readings.
    pub fn recent_sm_clock_mhz(&self) -> Option<u32> {
        let mut last = self
            .last_clock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((at, mhz)) = *last {
            if at.elapsed() < CLOCK_REUSE {
                return mhz;
            }
        }
        let mhz = self.clock.mhz();
        *last = Some((std::time::Instant::now(), mhz));
        mhz
    }

    /// What holds the clocks down now, in words (empty: nothing), or None without NVML.
    pub fn throttled_by(&self) -> Option<String> {
        self.clock.throttled_by()
    }

    /// The SM clock in MHz asked of NVML now (no reading reused), or None without NVML.
    pub fn sm_clock_mhz_now(&self) -> Option<u32> {
        self.clock.mhz()
    }

    /// NVML's total-energy counter, millijoules, or None without NVML or a counter.
    pub fn total_energy_mj(&self) -> Option<u64> {
        self.clock.energy_mj()
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        if gpu_hung() {
            // Releasing the context would wait for the kernel that never completed.
            return;
        }
        // SAFETY: dropped once, here; the fields are not used after.
        unsafe {
            ManuallyDrop::drop(&mut self.stream);
            ManuallyDrop::drop(&mut self.ctx);
        }
    }
}

fn mib_of<T>(len: usize) -> usize {
    (len * std::mem::size_of::<T>()) >> 20
}

fn pci_bus_id(dev: sys::CUdevice) -> Option<String> {
    let mut buf = [0 as c_char; 64];
    // SAFETY: the driver writes a NUL-terminated string of at most `len` bytes.
    unsafe { sys::cuDeviceGetPCIBusId(buf.as_mut_ptr(), buf.len() as c_int, dev) }
        .result()
        .ok()?;
    // SAFETY: NUL-terminated by the driver within the buffer.
    let id = unsafe { CStr::from_ptr(buf.as_ptr()) };
    Some(id.to_string_lossy().into_owned())
}

/// FP32 lanes per SM: 64 on sm_60, sm_70/72/75 and sm_80; 128 on sm_61/62, sm_86/87/89, sm_90,
/// sm_100 and sm_120. Falls back to 128 for later architectures.
pub fn fp32_lanes_per_sm(cc: (u32, u32)) -> u32 {
    match cc {
        (6, 0) | (7, _) | (8, 0) => 64,
        _ => 128,
    }
}

/// Spec FP32 peak: SMs x FP32 lanes x 2 flops (FMA) x max SM clock, in GFLOP/s.
pub fn peak_fp32_gflops(cc: (u32, u32), sm_count: u32, sm_clock_khz: u32) -> f64 {
    sm_count as f64 * fp32_lanes_per_sm(cc) as f64 * 2.0 * sm_clock_khz as f64 * 1e3 / 1e9
}

/// Spec DRAM peak: 2 transfers per memory clock (DDR) x bus width in bytes, in GB/s (1e9 bytes).
pub fn peak_dram_gbps(mem_clock_khz: u32, bus_width_bits: u32) -> f64 {
    2.0 * mem_clock_khz as f64 * 1e3 * (bus_width_bits as f64 / 8.0) / 1e9
}

/// The context modules are loaded into ([`Module::load`]).
impl AsRef<Arc<CudaContext>> for Gpu {
    fn as_ref(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peaks_match_the_datasheets() {
        // H100 SXM: 132 SMs at 1980 MHz boost, 128 lanes: 66.9 TFLOP/s.
        let p = peak_fp32_gflops((9, 0), 132, 1_980_000);
        assert!((p - 66_908.16).abs() < 0.1, "{p}");
        // A100: 108 SMs at 1410 MHz, 64 lanes: 19.5 TFLOP/s.
        let p = peak_fp32_gflops((8, 0), 108, 1_410_000);
        assert!((p - 19_491.84).abs() < 0.1, "{p}");
        assert_eq!(fp32_lanes_per_sm((8, 6)), 128);
        assert_eq!(fp32_lanes_per_sm((8, 9)), 128);
        // DRAM counts both clock edges: a 5120-bit HBM3 bus at a reported 2619 MHz: 3352 GB/s.
        let p = peak_dram_gbps(2_619_000, 5120);
        assert!((p - 3352.32).abs() < 0.01, "{p}");
    }
}
