//! The kernels a call really launched, read through CUPTI's activity API
//! (`CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL`): enable kernel records, run the call, flush, disable,
//! and keep the records (`cupti_record.rs`).
//!
//! Bound with `libloading`, by path where needed, as `cublas.rs` binds cuBLAS, rather than through
//! cudarc's `cupti` feature: that loader tries only bare names built from the workspace's CUDA
//! feature (`libcupti.so.12`, never a CUDA 13 machine's `.so.13`), while the toolkit keeps CUPTI
//! outside the loader's search path (`/usr/local/cuda/targets/x86_64-linux/lib`); it panics when
//! the library is absent, where the lab must say why a row has no kernel; and its record structs
//! follow the CUDA feature, while the lab reads only the leading fields every CUPTI since CUDA
//! 11.8 shares.
//!
//! CUPTI's activity state belongs to the process: the library is opened once, its buffer
//! callbacks registered once, and one call is recorded at a time.

use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::{Mutex, OnceLock};

use libloading::Library;
use ptxas_report::toolkit;

use super::cupti_record::{
    KernelRecord, RawKernelRecord, KIND_CONCURRENT_KERNEL, KIND_KERNEL, MIN_API_VERSION,
};
use super::device::Gpu;
use super::dynamic_library::{load_first, Symbols};
use super::error::{CudaError, CuptiError};

/// Bytes of each activity buffer handed to CUPTI (records are about 200 bytes; a full buffer is
/// delivered and another one requested).
const BUFFER_BYTES: usize = 256 * 1024;

/// `CUptiResult`: 0 is success.
type Status = i32;
const SUCCESS: Status = 0;
/// `CUPTI_ACTIVITY_FLAG_FLUSH_FORCED`: deliver records of buffers not yet full.
const FLUSH_FORCED: u32 = 1;
/// Flushes tried before a call is taken to have launched no kernel.
const FLUSH_ATTEMPTS: u32 = 5;

/// `cuptiActivityEnable`, `cuptiActivityDisable` and `cuptiActivityFlushAll`.
type FlagFn = unsafe extern "C" fn(u32) -> Status;
type NextRecordFn = unsafe extern "C" fn(*mut u8, usize, *mut *mut c_void) -> Status;
type ResultStringFn = unsafe extern "C" fn(Status, *mut *const c_char) -> Status;
type GetVersionFn = unsafe extern "C" fn(*mut u32) -> Status;
type RequestFn = unsafe extern "C" fn(*mut *mut u8, *mut usize, *mut usize);
type CompleteFn = unsafe extern "C" fn(*mut c_void, u32, *mut u8, usize, usize);
type RegisterFn = unsafe extern "C" fn(Option<RequestFn>, Option<CompleteFn>) -> Status;

/// CUPTI, loaded, with its buffer callbacks registered.
pub struct Cupti {
    // Kept alive (for the life of the process) as long as the function pointers are used.
    _library: Library,
    library: String,
    version: u32,
    enable: FlagFn,
    disable: FlagFn,
    flush_all: FlagFn,
    result_string: ResultStringFn,
}

/// The loaded library, once per process (also what the completion callback iterates records
/// with).
static LOADED: OnceLock<Result<Cupti, CuptiError>> = OnceLock::new();
static NEXT_RECORD: OnceLock<NextRecordFn> = OnceLock::new();
/// Kernel records delivered since the recording began.
static DELIVERED: Mutex<Vec<KernelRecord>> = Mutex::new(Vec::new());
/// One recording at a time.
static RECORDING: Mutex<()> = Mutex::new(());

/// Where CUPTI is looked for ([`toolkit::CUPTI`]): the bare names (the dynamic loader's own
/// search), then those names in CUPTI's folders under `$CUDA_PATH`, `$CUDA_HOME` and
/// `/usr/local/cuda`, where `exists` finds them.
pub fn library_candidates(env: &dyn toolkit::Env, exists: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    toolkit::CUPTI
        .candidates(env, exists)
        .into_iter()
        .map(toolkit::Candidate::into_path)
        .collect()
}

/// CUPTI for this process: opened and set up on first use; the same answer every time after.
pub fn cupti() -> Result<&'static Cupti, CuptiError> {
    LOADED
        .get_or_init(Cupti::open)
        .as_ref()
        .map_err(Clone::clone)
}

impl Cupti {
    fn open() -> Result<Self, CuptiError> {
        let candidates = library_candidates(&toolkit::ProcessEnv, &Path::exists);
        // SAFETY: loading CUPTI runs its initialisers, which only set up the library (it
        // depends on the driver, which this process loads anyway).
        let (lib, path) =
            unsafe { load_first(&candidates, |p| p.display().to_string()) }.map_err(|reason| {
                CuptiError::NotFound {
                    tried: candidates
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    reason,
                }
            })?;
        let library = path.display().to_string();
        // SAFETY: every `T` asked for below is the C prototype of that CUPTI function
        // (cupti_activity.h, cupti_result.h, cupti_version.h); the pointers are used only while
        // `lib` lives, which is the life of the process.
        let symbols = unsafe { Symbols::new(&lib, "CUPTI", &library) };
        let get_version: GetVersionFn = symbols.get("cuptiGetVersion")?;
        let register: RegisterFn = symbols.get("cuptiActivityRegisterCallbacks")?;
        let next: NextRecordFn = symbols.get("cuptiActivityGetNextRecord")?;
        let cupti = Self {
            enable: symbols.get("cuptiActivityEnable")?,
            disable: symbols.get("cuptiActivityDisable")?,
            flush_all: symbols.get("cuptiActivityFlushAll")?,
            result_string: symbols.get("cuptiGetResultString")?,
            _library: lib,
            library,
            version: 0,
        };
        let mut version = 0u32;
        // SAFETY: writes one integer.
        cupti.check("cuptiGetVersion", unsafe { get_version(&mut version) })?;
        if version < MIN_API_VERSION {
            return Err(CuptiError::TooOld {
                library: cupti.library,
                version,
            });
        }
        // The completion callback iterates records with it (set before the callbacks can run).
        NEXT_RECORD.get_or_init(|| next);
        // SAFETY: both callbacks have the prototypes CUPTI calls them with and stay valid for the
        // life of the process; registered once (this runs once per process).
        cupti.check("cuptiActivityRegisterCallbacks", unsafe {
            register(Some(buffer_requested), Some(buffer_completed))
        })?;
        Ok(Self { version, ..cupti })
    }

    /// The library file that was loaded.
    pub fn library(&self) -> &str {
        &self.library
    }

    /// CUPTI's API version (`cuptiGetVersion`).
    pub fn version(&self) -> u32 {
        self.version
    }

    fn check(&self, call: &'static str, status: Status) -> Result<(), CuptiError> {
        if status == SUCCESS {
            return Ok(());
        }
        let mut text: *const c_char = ptr::null();
        // SAFETY: writes one pointer to a static string of CUPTI's.
        let described = unsafe { (self.result_string)(status, &mut text) } == SUCCESS;
        let message = if described && !text.is_null() {
            // SAFETY: CUPTI's result strings are static and NUL-terminated.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        } else {
            "no description".to_owned()
        };
        Err(CuptiError::Call {
            call,
            status,
            message,
        })
    }

    /// Runs `call` (which enqueues work on `gpu`'s stream) with kernel records enabled and returns
    /// the record of every kernel that ran meanwhile in this process, in the order delivered. The
    /// GPU is idle before the recording starts and after `call`'s work.
    pub fn kernels_during(
        &self,
        gpu: &Gpu,
        call: impl FnOnce() -> Result<(), CudaError>,
    ) -> Result<Vec<KernelRecord>, CudaError> {
        let _one_at_a_time = RECORDING.lock().unwrap_or_else(|e| e.into_inner());
        gpu.synchronize()?;
        delivered().clear();
        // SAFETY: a valid activity kind.
        self.check("cuptiActivityEnable", unsafe {
            (self.enable)(KIND_CONCURRENT_KERNEL)
        })?;
        let ran = call().and_then(|()| gpu.synchronize());
        // Flushed and disabled whether or not the call worked, so that no recording outlives it.
        // A forced flush delivers only complete records; one still being completed after the
        // synchronization is waited for, a little, when none came.
        let mut flushed = Ok(());
        for attempt in 0..FLUSH_ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            // SAFETY: flushes CUPTI's buffers through the callbacks registered at open.
            flushed = self.check("cuptiActivityFlushAll", unsafe {
                (self.flush_all)(FLUSH_FORCED)
            });
            if flushed.is_err() || ran.is_err() || !delivered().is_empty() {
                break;
            }
        }
        // SAFETY: a valid activity kind, enabled above.
        let disabled = self.check("cuptiActivityDisable", unsafe {
            (self.disable)(KIND_CONCURRENT_KERNEL)
        });
        ran?;
        flushed?;
        disabled?;
        Ok(std::mem::take(&mut *delivered()))
    }
}

fn delivered() -> std::sync::MutexGuard<'static, Vec<KernelRecord>> {
    DELIVERED.lock().unwrap_or_else(|e| e.into_inner())
}

/// CUPTI asks for a buffer: 8-byte aligned (`ACTIVITY_RECORD_ALIGNMENT`), owned by CUPTI until
/// [`buffer_completed`] gives it back.
unsafe extern "C" fn buffer_requested(buffer: *mut *mut u8, size: *mut usize, max: *mut usize) {
    let words = vec![0u64; BUFFER_BYTES / 8].into_boxed_slice();
    // SAFETY: CUPTI passes valid pointers to write the buffer, its size and the record limit to.
    unsafe {
        *buffer = Box::into_raw(words).cast::<u8>();
        *size = BUFFER_BYTES;
        *max = 0; // as many records as fit
    }
}

/// CUPTI hands a buffer back with `valid` bytes of records: the kernel records are kept, the
/// buffer freed. Never panics (it runs inside CUPTI, possibly on CUPTI's own thread).
unsafe extern "C" fn buffer_completed(
    _context: *mut c_void,
    _stream: u32,
    buffer: *mut u8,
    size: usize,
    valid: usize,
) {
    if buffer.is_null() {
        return;
    }
    if let Some(next) = NEXT_RECORD.get() {
        let mut kept = Vec::new();
        let mut record: *mut c_void = ptr::null_mut();
        // SAFETY: `buffer` holds `valid` bytes of records; CUPTI steps `record` through them
        // and answers non-zero after the last.
        while unsafe { next(buffer, valid, &mut record) } == SUCCESS {
            // SAFETY: every record starts with its 4-byte kind.
            let kind = unsafe { ptr::read_unaligned(record.cast::<u32>()) };
            if kind == KIND_CONCURRENT_KERNEL || kind == KIND_KERNEL {
                // SAFETY: a kernel record of a CUPTI of API version MIN_API_VERSION or later
                // (checked at open) starts with `RawKernelRecord`'s fields; its name is CUPTI's,
                // NUL-terminated and alive.
                let raw = unsafe { ptr::read_unaligned(record.cast::<RawKernelRecord>()) };
                kept.push(unsafe { KernelRecord::from_raw(&raw) });
            }
        }
        delivered().extend(kept);
    }
    // SAFETY: `buffer` is a boxed slice of `size / 8` words made by `buffer_requested` (CUPTI
    // returns the size it was given), freed once, here.
    drop(unsafe {
        Box::from_raw(ptr::slice_from_raw_parts_mut(
            buffer.cast::<u64>(),
            size / 8,
        ))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_the_names_then_existing_files_under_the_roots() {
        let dir = crate::regular_file::tests::scratch("cupti");
        let lib = dir.join("targets/x86_64-linux/lib");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::write(lib.join("libcupti.so.13"), b"").unwrap();
        // The roots as `$CUDA_PATH` and `$CUDA_HOME`; only files under `dir` are real here, so a
        // CUPTI installed on this machine does not join the list.
        struct Roots(PathBuf);
        impl toolkit::Env for Roots {
            fn var(&self, name: &str) -> Option<std::ffi::OsString> {
                match name {
                    "CUDA_PATH" => Some(self.0.clone().into()),
                    "CUDA_HOME" => Some(self.0.join("absent").into()),
                    _ => None,
                }
            }
            fn pip_purelib(&self) -> Option<PathBuf> {
                None
            }
        }
        let found = library_candidates(&Roots(dir.clone()), &|p| p.starts_with(&dir) && p.exists());
        let names: Vec<PathBuf> = toolkit::CUPTI.files.iter().map(PathBuf::from).collect();
        assert_eq!(&found[..names.len()], &names[..], "bare names first");
        assert_eq!(&found[names.len()..], &[lib.join("libcupti.so.13")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_library_says_where_it_was_looked_for() {
        let e = CuptiError::NotFound {
            tried: "libcupti.so.13, /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13".into(),
            reason: "libcupti.so.13: cannot open shared object file".into(),
        };
        let text = e.to_string();
        assert!(
            text.starts_with("CUPTI not found: none of libcupti.so.13, "),
            "{text}"
        );
        let old = CuptiError::TooOld {
            library: "libcupti.so.11".into(),
            version: 16,
        };
        assert!(old.to_string().contains("before version 18"));
    }
}
