//! The one launch path: a kernel's arguments pushed in order from a typed parameter struct
//! ([`KernelParams`], one per kernel family), the grid and block from the variant table, one
//! `cuLaunchKernel`.
//!
//! cudarc's own `LaunchArgs` builder needs a `CudaFunction`, which only cudarc's module loader
//! makes, and that loader (`cuModuleLoadData`) returns no JIT info log; the register, spill and
//! stack columns need that log, so modules are loaded here with `cuModuleLoadDataEx`
//! ([`super::Module`]) and launched through this builder, which follows cudarc's: buffers are
//! pushed as `CudaSlice`s, and the guards that record their read/write events stay alive until
//! the launch has been enqueued.

use std::ffi::c_void;
use std::ptr;

use cudarc::driver::sys;
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr, SyncOnDrop};

use super::{CudaError, DriverContext, Gpu, Kernel};

/// Grid, block and dynamic shared memory of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchShape {
    /// Blocks in x and y, as the variant table's `grid` gives them.
    pub grid: (u32, u32),
    /// Threads per block, as the variant table gives them.
    pub threads: u32,
    /// Dynamic shared memory per block, bytes.
    pub dyn_smem: u32,
}

/// The type of one kernel parameter as PTX declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `.param .u64 .ptr`: a device address.
    Pointer,
    /// `.param .u32` / `.s32`.
    I32,
    /// `.param .u64` (not a pointer).
    U64,
    /// `.param .f32`.
    F32,
}

/// A kernel parameter as a PTX `.param` line declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtxParam {
    /// `.u64 .ptr`: an address (rustc marks pointers so).
    Pointer,
    /// `.u64`/`.s64`/`.b64` without `.ptr`: an address or a 64-bit integer (nvcc declares
    /// pointers so).
    Bits64,
    /// `.u32`/`.s32`/`.b32`.
    Bits32,
    /// `.f32`.
    F32,
}

impl PtxParam {
    /// The parameter of a declaration's type words, e.g. `.u64 .ptr .align 1`.
    pub fn from_words(words: &[&str]) -> Option<PtxParam> {
        let pointer = words.contains(&".ptr");
        match words.first().copied()? {
            ".u64" | ".s64" | ".b64" if pointer => Some(PtxParam::Pointer),
            ".u64" | ".s64" | ".b64" => Some(PtxParam::Bits64),
            ".u32" | ".s32" | ".b32" => Some(PtxParam::Bits32),
            ".f32" => Some(PtxParam::F32),
            _ => None,
        }
    }

    /// Whether the host may pass a `kind` for this parameter.
    pub fn accepts(self, kind: ParamKind) -> bool {
        matches!(
            (self, kind),
            (PtxParam::Pointer, ParamKind::Pointer)
                | (PtxParam::Bits64, ParamKind::Pointer | ParamKind::U64)
                | (PtxParam::Bits32, ParamKind::I32)
                | (PtxParam::F32, ParamKind::F32)
        )
    }
}

/// Whether a PTX entry's parameter list takes the arguments of `signature`.
pub fn ptx_accepts(ptx: &[PtxParam], signature: &[ParamKind]) -> bool {
    ptx.len() == signature.len() && ptx.iter().zip(signature).all(|(p, k)| p.accepts(*k))
}

/// A scalar a kernel takes by value, with its PTX kind.
pub trait DeviceValue: DeviceRepr {
    const KIND: ParamKind;
}

impl DeviceValue for i32 {
    const KIND: ParamKind = ParamKind::I32;
}

impl DeviceValue for u32 {
    const KIND: ParamKind = ParamKind::I32;
}

impl DeviceValue for u64 {
    const KIND: ParamKind = ParamKind::U64;
}

impl DeviceValue for f32 {
    const KIND: ParamKind = ParamKind::F32;
}

/// A kernel family's parameter list: pushes each argument, in the order of the entry's
/// signature, onto a [`Launch`]. `SIGNATURE` states that order; every launch checks the pushed
/// arguments against it (a mismatch is an error, not a launch), and the tests check it against
/// the PTX of every entry of the family.
///
/// # Safety
/// An implementation must push exactly the entry's parameters, in order, with the entry's types.
pub unsafe trait KernelParams {
    /// The entry's parameters, in order.
    const SIGNATURE: &'static [ParamKind];
    fn push<'p>(&'p mut self, launch: &mut Launch<'p>);
}

/// Arguments being gathered for one launch. Each scalar is referenced where it lives (in the
/// parameter struct, borrowed for the launch); each device pointer is boxed here so its address
/// is stable, and its stream guard is kept until [`launch`] has enqueued the kernel.
pub struct Launch<'p> {
    gpu: &'p Gpu,
    args: Vec<*mut c_void>,
    kinds: Vec<ParamKind>,
    // Boxed so that each address stays put while the vector grows: `args` points at them.
    #[allow(clippy::vec_box)]
    addresses: Vec<Box<sys::CUdeviceptr>>,
    guards: Vec<SyncOnDrop<'p>>,
}

impl<'p> Launch<'p> {
    fn new(gpu: &'p Gpu) -> Self {
        Self {
            gpu,
            args: Vec::new(),
            kinds: Vec::new(),
            addresses: Vec::new(),
            guards: Vec::new(),
        }
    }

    fn address(&mut self, ptr: sys::CUdeviceptr, guard: SyncOnDrop<'p>) -> &mut Self {
        let boxed = Box::new(ptr);
        self.args.push((&raw const *boxed).cast_mut().cast());
        self.kinds.push(ParamKind::Pointer);
        self.addresses.push(boxed);
        self.guards.push(guard);
        self
    }

    /// A buffer the kernel reads.
    pub fn input<T>(&mut self, buffer: &'p CudaSlice<T>) -> &mut Self {
        let (ptr, guard) = buffer.device_ptr(self.gpu.stream());
        self.address(ptr, guard)
    }

    /// A buffer the kernel writes.
    pub fn output<T>(&mut self, buffer: &'p mut CudaSlice<T>) -> &mut Self {
        let (ptr, guard) = buffer.device_ptr_mut(self.gpu.stream());
        self.address(ptr, guard)
    }

    /// A scalar passed by value.
    pub fn value<T: DeviceValue>(&mut self, v: &'p T) -> &mut Self {
        self.args.push((v as *const T).cast_mut().cast());
        self.kinds.push(T::KIND);
        self
    }
}

/// Launches `kernel` with `params` in `shape` on the GPU's stream.
///
/// # Safety
/// `params` must be the parameter list of `kernel`'s family, every buffer in it large enough for
/// the launch `shape`, and `shape` the variant table's for this entry.
pub unsafe fn launch<P: KernelParams>(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    shape: LaunchShape,
    params: &mut P,
) -> Result<(), CudaError> {
    let mut l = Launch::new(gpu);
    params.push(&mut l);
    if l.kinds != P::SIGNATURE {
        return Err(CudaError::Signature {
            entry: kernel.entry().to_owned(),
            declared: format!("{:?}", P::SIGNATURE),
            pushed: format!("{:?}", l.kinds),
        });
    }
    // SAFETY: the arguments point into `params` (borrowed until this function returns) and into
    // `l.addresses` (boxed, alive until `l` drops below); their order and types are the family's
    // (the caller's contract); the stream belongs to the kernel's context.
    let status = unsafe {
        sys::cuLaunchKernel(
            kernel.raw(),
            shape.grid.0,
            shape.grid.1,
            1,
            shape.threads,
            1,
            1,
            shape.dyn_smem,
            gpu.stream().cu_stream(),
            l.args.as_mut_ptr(),
            ptr::null_mut(),
        )
    }
    .result()
    .doing(|| {
        format!(
            "launching `{}` on grid {:?} x {} threads",
            kernel.entry(),
            shape.grid,
            shape.threads
        )
    });
    // The guards record the buffers' events after the launch is on the stream.
    drop(l);
    status
}
