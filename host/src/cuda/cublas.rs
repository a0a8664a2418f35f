//! cuBLAS's SGEMM and its BF16 GEMM (`cublasGemmEx`), loaded at run time, as the references the
//! lab's GEMMs are measured against.
//!
//! Opened with `libloading` by its usual names, newest first, binding only the functions the lab
//! calls. Not cudarc's `cublas` module: cudarc picks one CUDA version at build time for all its
//! bindings, driver included. With the workspace's `cuda-12080` its loader looks for
//! `libcublas.so.12` and older, so on a CUDA 13 machine (`libcublas.so.13` alone) it finds nothing
//! and panics; with `cuda-13000` every driver binding becomes CUDA 13's, which the lab could not
//! check on a CUDA 12 driver. Binding these few functions by hand keeps any cuBLAS from 11 to 13,
//! and an error instead of a panic. Only cudarc's enum types are used (`cudarc::cublas::sys`),
//! never its functions, so its loader never runs; their values are the same in the headers of
//! cuBLAS 11 to 13 (a test pins them). A status stays a plain `int`: a newer cuBLAS may return
//! one cudarc's enum lacks.
//!
//! The lab's matrices are row-major and cuBLAS is column-major: [`ColumnMajorGemm`] holds the
//! mapping (a pure function, tested on the CPU), the same for both calls.

use std::ffi::{c_int, c_void};

use cudarc::cublas::sys::cudaDataType_t as DataType;
use cudarc::cublas::sys::{cublasComputeType_t as ComputeType, cublasGemmAlgo_t as Algo};
use cudarc::cublas::sys::{cublasMath_t as MathMode, cublasOperation_t as Op};
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr};
use libloading::Library;
use ptxas_report::toolkit;

use super::device::Gpu;
use super::dynamic_library::{load_first, Symbols};
use super::error::{CublasError, CudaError};

/// `cublasStatus_t`: 0 is success.
type Status = c_int;
type Handle = *mut c_void;
/// A matrix dimension or leading dimension (`int`).
type Dim = c_int;
const OP_N: Op = Op::CUBLAS_OP_N;
/// Plain FP32 for SGEMM: no TF32 tensor cores.
const DEFAULT_MATH: MathMode = MathMode::CUBLAS_DEFAULT_MATH;
/// SGEMM's inputs rounded to TF32 for the tensor cores, products accumulated in FP32.
const TF32_TENSOR_OP_MATH: MathMode = MathMode::CUBLAS_TF32_TENSOR_OP_MATH;
const R_32F: DataType = DataType::CUDA_R_32F;
const R_16BF: DataType = DataType::CUDA_R_16BF;
/// FP32 accumulation; with BF16 inputs cuBLAS runs them on the tensor cores in any math mode.
const COMPUTE_32F: ComputeType = ComputeType::CUBLAS_COMPUTE_32F;
/// cuBLAS's heuristics choose the kernel.
const GEMM_DEFAULT: Algo = Algo::CUBLAS_GEMM_DEFAULT;

type CreateFn = unsafe extern "C" fn(*mut Handle) -> Status;
type DestroyFn = unsafe extern "C" fn(Handle) -> Status;
type SetStreamFn = unsafe extern "C" fn(Handle, *mut c_void) -> Status;
type GetVersionFn = unsafe extern "C" fn(Handle, *mut c_int) -> Status;
type SetMathModeFn = unsafe extern "C" fn(Handle, MathMode) -> Status;
/// `cublasSgemm_v2` (cublas_api.h), one line per group of parameters: the transposes, the sizes,
/// then each scalar, and each matrix with its leading dimension.
#[rustfmt::skip] // rustfmt would give each parameter a line of its own and lose the groups
type SgemmFn = unsafe extern "C" fn(
    Handle,
    Op, Op,                       // transa, transb
    Dim, Dim, Dim,                // m, n, k
    *const f32,                   // alpha
    *const f32, Dim,              // A, lda
    *const f32, Dim,              // B, ldb
    *const f32,                   // beta
    *mut f32, Dim,                // C, ldc
) -> Status;
/// `cublasGemmEx`, grouped as SGEMM: alpha and beta point to floats (the scale type of
/// `CUBLAS_COMPUTE_32F`), each matrix's element type stands between its pointer and its leading
/// dimension, and the compute type and algorithm come last.
#[rustfmt::skip] // as SgemmFn
type GemmExFn = unsafe extern "C" fn(
    Handle,
    Op, Op,                       // transa, transb
    Dim, Dim, Dim,                // m, n, k
    *const c_void,                // alpha
    *const c_void, DataType, Dim, // A, Atype, lda
    *const c_void, DataType, Dim, // B, Btype, ldb
    *const c_void,                // beta
    *mut c_void, DataType, Dim,   // C, Ctype, ldc
    ComputeType, Algo,            // computeType, algo
) -> Status;

/// A row-major GEMM (C = alpha*A*B + beta*C, A m x k, B k x n, C m x n, all row-major) as the
/// column-major `sgemm` that computes it: a row-major matrix is its transpose in column-major
/// order, so C^T = B^T A^T is a column-major product of size (n, m, k) with B's memory as the
/// first operand (leading dimension n) and A's as the second (leading dimension k); C's memory
/// is the column-major n x m result with leading dimension n. No data moves: the first operand is
/// always the row-major B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnMajorGemm {
    /// Rows of the column-major result (= N).
    pub m: i32,
    /// Columns of the column-major result (= M).
    pub n: i32,
    pub k: i32,
    pub lda: i32,
    pub ldb: i32,
    pub ldc: i32,
}

impl ColumnMajorGemm {
    /// The column-major call for a row-major (m, n, k) product.
    pub const fn for_row_major(m: u32, n: u32, k: u32) -> Self {
        Self {
            m: n as i32,
            n: m as i32,
            k: k as i32,
            lda: n as i32,
            ldb: k as i32,
            ldc: n as i32,
        }
    }
}

/// cuBLAS, loaded, with one handle bound to the GPU's stream.
pub struct Cublas {
    // Kept alive as long as the function pointers below are used.
    _library: Library,
    library_name: &'static str,
    handle: Handle,
    destroy: DestroyFn,
    set_math: SetMathModeFn,
    sgemm: SgemmFn,
    gemm_ex: GemmExFn,
    version: i32,
}

/// A cuBLAS status as a result: 0 is success.
fn check(call: &'static str, status: Status) -> Result<(), CublasError> {
    match status {
        0 => Ok(()),
        status => Err(CublasError::Call { call, status }),
    }
}

/// Where cuBLAS is looked for ([`toolkit::CUBLAS`]): its names, for the dynamic loader alone.
fn library_candidates() -> Vec<&'static str> {
    toolkit::CUBLAS
        .candidates(&toolkit::ProcessEnv, &std::path::Path::exists)
        .into_iter()
        .filter_map(|c| match c {
            toolkit::Candidate::Loader(name) => Some(name),
            // CUBLAS names no folders, so its search offers no file.
            toolkit::Candidate::File(_) => None,
        })
        .collect()
}

/// `major.minor.patch` from `cublasGetVersion` (major*10000 + minor*100 + patch from CUDA 12 on;
/// major*1000 + minor*100 + patch before).
pub fn version_text(v: i32) -> String {
    if v >= 100_000 {
        format!("{}.{}.{}", v / 10_000, (v % 10_000) / 100, v % 100)
    } else {
        format!("{}.{}.{}", v / 1000, (v % 1000) / 100, v % 100)
    }
}

impl Cublas {
    /// Opens cuBLAS, creates a handle on `gpu`'s context and binds it to its stream, in the
    /// default (plain FP32) math mode.
    pub fn open(gpu: &Gpu) -> Result<Self, CublasError> {
        // SAFETY: loading cuBLAS runs its initialisers, which only set up the library (it
        // depends on libcublasLt and the driver, both already meant to be in this process).
        let (library, library_name) =
            unsafe { load_first(library_candidates(), |name| name.to_string()) }
                .map_err(|reason| CublasError::NotFound { reason })?;
        // SAFETY: every type asked for below is the C prototype of that cuBLAS function
        // (cublas_api.h, the `_v2` entry points); the pointers are used only while `library`
        // lives (it moves into `Self`, with them).
        let symbols = unsafe { Symbols::new(&library, "cuBLAS", library_name) };
        let create: CreateFn = symbols.get("cublasCreate_v2")?;
        let destroy: DestroyFn = symbols.get("cublasDestroy_v2")?;
        let set_stream: SetStreamFn = symbols.get("cublasSetStream_v2")?;
        let get_version: GetVersionFn = symbols.get("cublasGetVersion_v2")?;
        let set_math: SetMathModeFn = symbols.get("cublasSetMathMode")?;
        let sgemm: SgemmFn = symbols.get("cublasSgemm_v2")?;
        let gemm_ex: GemmExFn = symbols.get("cublasGemmEx")?;
        // cuBLAS creates its handle in the current context.
        gpu.context()
            .bind_to_thread()
            .map_err(|_| CublasError::Call {
                call: "binding the context before cublasCreate",
                status: -1,
            })?;
        let mut handle: Handle = std::ptr::null_mut();
        // SAFETY: writes one handle; the GPU's context is current.
        check("cublasCreate", unsafe { create(&mut handle) })?;
        let mut cublas = Self {
            _library: library,
            library_name,
            handle,
            destroy,
            set_math,
            sgemm,
            gemm_ex,
            version: 0,
        };
        // SAFETY: a live handle; the stream belongs to the context the handle was created in.
        check("cublasSetStream", unsafe {
            set_stream(handle, gpu.stream().cu_stream().cast())
        })?;
        // SAFETY: a live handle; DEFAULT_MATH is a valid cublasMath_t.
        check("cublasSetMathMode", unsafe {
            set_math(handle, DEFAULT_MATH)
        })?;
        let mut version: c_int = 0;
        // SAFETY: a live handle; writes one int.
        check("cublasGetVersion", unsafe {
            get_version(handle, &mut version)
        })?;
        // (From here on `cublas` owns the handle: an error above drops it, destroying it.)
        cublas.version = version;
        Ok(cublas)
    }

    /// Switches this handle to TF32 tensor-core math. The lab never times it: the GEMM check's
    /// GPU tests use it as a real kernel whose inputs are rounded to TF32, which the check must
    /// fail.
    pub fn use_tf32(&self) -> Result<(), CublasError> {
        // SAFETY: a live handle; TF32_TENSOR_OP_MATH is a valid cublasMath_t.
        check("cublasSetMathMode", unsafe {
            (self.set_math)(self.handle, TF32_TENSOR_OP_MATH)
        })
    }

    /// `major.minor.patch`.
    pub fn version(&self) -> String {
        version_text(self.version)
    }

    /// The library file that was loaded.
    pub fn library(&self) -> &'static str {
        self.library_name
    }

    /// Enqueues C = alpha*A*B + beta*C for row-major A (m x k), B (k x n) and f32 C (m x n) on
    /// the GPU's stream, through [`ColumnMajorGemm::for_row_major`], by the routine of A's and B's
    /// element type ([`GemmInput`]).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_row_major<E: GemmInput>(
        &self,
        gpu: &Gpu,
        (m, n, k): (u32, u32, u32),
        alpha: f32,
        a: &CudaSlice<E>,
        b: &CudaSlice<E>,
        beta: f32,
        c: &mut CudaSlice<f32>,
    ) -> Result<(), CudaError> {
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        assert!(
            a.len() >= mu * ku && b.len() >= ku * nu && c.len() >= mu * nu,
            "buffers smaller than the product"
        );
        let g = ColumnMajorGemm::for_row_major(m, n, k);
        let stream = gpu.stream();
        let (pa, _ga) = a.device_ptr(stream);
        let (pb, _gb) = b.device_ptr(stream);
        let (pc, _gc) = c.device_ptr_mut(stream);
        let (first, second) = (pb, pa);
        // SAFETY: a live handle bound to the GPU's stream; A and B hold at least the product's
        // elements of the type their routine reads (f32 for SGEMM, 2-byte bf16 for
        // CUDA_R_16BF: `GemmInput` pairs each element type with its routine) and C its floats
        // (asserted above), all alive until the guards drop, after the call has been enqueued;
        // alpha and beta are host floats (the default pointer mode), SGEMM's scalars and the
        // scale type of CUBLAS_COMPUTE_32F.
        #[rustfmt::skip] // the arguments in the prototypes' groups
        let status = unsafe {
            match E::ROUTINE {
                Routine::Sgemm => (self.sgemm)(
                    self.handle,
                    OP_N, OP_N,
                    g.m, g.n, g.k,
                    &alpha,
                    first as *const f32, g.lda,
                    second as *const f32, g.ldb,
                    &beta,
                    pc as *mut f32, g.ldc,
                ),
                Routine::GemmExBf16 => (self.gemm_ex)(
                    self.handle,
                    OP_N, OP_N,
                    g.m, g.n, g.k,
                    (&alpha as *const f32).cast(),
                    first as *const c_void, R_16BF, g.lda,
                    second as *const c_void, R_16BF, g.ldb,
                    (&beta as *const f32).cast(),
                    pc as *mut c_void, R_32F, g.ldc,
                    COMPUTE_32F, GEMM_DEFAULT,
                ),
            }
        };
        let name = E::ROUTINE.call();
        check(name, status)?;
        gpu.launched(super::fault::Side::Cublas, name, name);
        Ok(())
    }
}

/// The cuBLAS routine that multiplies one element type of A and B (C is f32 for both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routine {
    /// `cublasSgemm`: f32 A and B.
    Sgemm,
    /// `cublasGemmEx` with `CUDA_R_16BF` A and B, `CUDA_R_32F` C, `CUBLAS_COMPUTE_32F` and the
    /// default algorithm: bf16 products accumulated in FP32.
    GemmExBf16,
}

impl Routine {
    /// The call, as an error names it.
    pub const fn call(self) -> &'static str {
        match self {
            Routine::Sgemm => "cublasSgemm",
            Routine::GemmExBf16 => "cublasGemmEx (BF16 in, FP32 compute and out)",
        }
    }
}

/// An element type of A and B that cuBLAS multiplies, and the routine that does. Sealed: the
/// call's safety rests on each type reading as its routine's element.
pub trait GemmInput: DeviceRepr + sealed::Sealed {
    const ROUTINE: Routine;
}

mod sealed {
    /// The element types [`GemmInput`] is implemented for, and no others.
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for u16 {}
}

impl GemmInput for f32 {
    const ROUTINE: Routine = Routine::Sgemm;
}

/// bf16, given as its bits.
impl GemmInput for u16 {
    const ROUTINE: Routine = Routine::GemmExBf16;
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // Destroying the handle waits for the device: not while a kernel never completes.
        if super::deadline::gpu_hung() {
            return;
        }
        // SAFETY: the handle was created by us and is destroyed once; the library is still
        // loaded (fields drop after this).
        let _ = unsafe { (self.destroy)(self.handle) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::inputs::random_floats;

    /// Reference column-major sgemm (no transposes): C = alpha*A*B + beta*C with A m x k (lda),
    /// B k x n (ldb), C m x n (ldc), all column-major, as cuBLAS defines it.
    fn column_major_sgemm(
        g: &ColumnMajorGemm,
        alpha: f32,
        a: &[f32],
        b: &[f32],
        beta: f32,
        c: &mut [f32],
    ) {
        let (m, n, k) = (g.m as usize, g.n as usize, g.k as usize);
        let (lda, ldb, ldc) = (g.lda as usize, g.ldb as usize, g.ldc as usize);
        for j in 0..n {
            for i in 0..m {
                let mut acc = 0.0f32;
                for p in 0..k {
                    acc = a[i + p * lda].mul_add(b[p + j * ldb], acc);
                }
                c[i + j * ldc] = alpha * acc + beta * c[i + j * ldc];
            }
        }
    }

    #[test]
    fn the_row_major_product_is_the_column_major_call_with_the_operands_swapped() {
        for (m, n, k) in [(3u32, 5u32, 7u32), (1, 1, 1), (8, 2, 1), (5, 9, 4)] {
            let (a, b, c0) = (
                random_floats((m * k) as usize, 1),
                random_floats((k * n) as usize, 2),
                random_floats((m * n) as usize, 3),
            );
            let dims = crate::results::GemmDims { m, n, k };
            let expected =
                crate::experiments::verify::tests::cpu_gemm((&a, &b, &c0), dims, 1.5, 0.5);
            let g = ColumnMajorGemm::for_row_major(m, n, k);
            assert_eq!((g.m, g.n, g.k), (n as i32, m as i32, k as i32));
            assert_eq!((g.lda, g.ldb, g.ldc), (n as i32, k as i32, n as i32));
            let mut c = c0.clone();
            column_major_sgemm(&g, 1.5, &b, &a, 0.5, &mut c);
            for (x, y) in c.iter().zip(&expected) {
                assert!(
                    (x - y).abs() <= 1e-5 * (1.0 + y.abs()),
                    "{m}x{n}x{k}: {x} vs {y}"
                );
            }
            // The unswapped call computes something else (unless the product is trivial).
            if m > 1 && n > 1 && m != n {
                let g_wrong = ColumnMajorGemm {
                    m: m as i32,
                    n: n as i32,
                    lda: m as i32,
                    ldb: k as i32,
                    ldc: m as i32,
                    ..g
                };
                let mut wrong = c0.clone();
                column_major_sgemm(&g_wrong, 1.5, &a, &b, 0.5, &mut wrong);
                assert!(wrong
                    .iter()
                    .zip(&expected)
                    .any(|(x, y)| (x - y).abs() > 1e-3));
            }
        }
    }

    #[test]
    fn each_element_type_takes_its_routine_and_errors_name_it() {
        assert_eq!(<f32 as GemmInput>::ROUTINE, Routine::Sgemm);
        assert_eq!(<u16 as GemmInput>::ROUTINE, Routine::GemmExBf16);
        assert_eq!(Routine::Sgemm.call(), "cublasSgemm");
        assert_eq!(
            Routine::GemmExBf16.call(),
            "cublasGemmEx (BF16 in, FP32 compute and out)"
        );
    }

    /// The enum values the calls pass, as cuBLAS 11 to 13's headers define them: the library is
    /// loaded whatever its version, while cudarc's enums come from one version's headers.
    #[test]
    fn the_enums_have_the_values_of_every_cublas_header() {
        assert_eq!(OP_N as i32, 0);
        assert_eq!(DEFAULT_MATH as i32, 0);
        assert_eq!(TF32_TENSOR_OP_MATH as i32, 3);
        assert_eq!(R_32F as i32, 0);
        assert_eq!(R_16BF as i32, 14);
        assert_eq!(COMPUTE_32F as i32, 68);
        assert_eq!(GEMM_DEFAULT as i32, -1);
    }

    #[test]
    fn versions_read_as_major_minor_patch() {
        assert_eq!(version_text(130_100), "13.1.0");
        assert_eq!(version_text(120_804), "12.8.4");
        assert_eq!(version_text(11_402), "11.4.2");
    }

    #[test]
    fn a_missing_library_says_which_names_were_tried() {
        let e = CublasError::NotFound {
            reason: "libcublas.so.13: not found".into(),
        };
        let text = e.to_string();
        assert!(
            text.starts_with("cuBLAS not found: none of libcublas.so.13, "),
            "{text}"
        );
    }
}
