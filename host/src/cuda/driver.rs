//! The driver library itself: whether this machine has it, and the one setting made before it
//! starts (its JIT cache off).

/// Whether the CUDA driver library (`libcuda`) can be loaded on this machine.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names and closes it again.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Turns the driver's JIT cache off for this process (unless the user set `CUDA_CACHE_DISABLE`).
///
/// The register, spill and stack columns come from the JIT's info log, and a module the driver
/// finds in its cache (`~/.nv/ComputeCache`, e.g. from the previous run) is loaded without
/// compiling, hence without a log. Takes effect only before the driver initializes, so
/// `Gpu::open` calls it first.
pub fn disable_jit_cache() {
    if std::env::var_os("CUDA_CACHE_DISABLE").is_none() {
        // SAFETY (edition 2021 `set_var`): called before the driver, or any thread of ours that
        // reads the environment, starts.
        std::env::set_var("CUDA_CACHE_DISABLE", "1");
    }
}
