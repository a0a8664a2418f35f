//! The GEMM kernel family on the host: its parameter list, buffers with random inputs, the
//! launch in the variant table's shape (grid, threads, dynamic shared memory), and what the
//! shared sides (`gemm_sides.rs`: the timing with the compared module and cuBLAS interleaved,
//! and the check of every element against the f64 reference of `gemm_check`) need of FP32.
//! Shared by the occupancy experiment (every variant, and cuBLAS), the register experiment (one
//! variant under register caps), `held`, the shape sweep and the line choice.

use kernels_gpu::variants::{GemmParams, GemmVariant};

use super::error::ExperimentError;
use super::gemm_check::{record, GemmChecker};
use super::gemm_sides::GemmSides;
use super::inputs::random_floats;
use super::measurement::Peak;
use crate::cuda::{Gpu, LaunchShape};
use crate::results::GemmDims;

pub use super::gemm_sides::{gflops, GemmMeasured, EPILOGUE, TIMED};

/// The launch shape of `variant` over an M x N output: the variant table's grid, threads and
/// dynamic shared memory.
pub fn launch_shape(variant: &GemmVariant, dims: GemmDims) -> LaunchShape {
    LaunchShape {
        grid: variant.grid(dims.m, dims.n),
        threads: variant.threads(),
        dyn_smem: variant.dynamic_shared_bytes(),
    }
}

/// The params struct `$params` of one launch over `$ops` (an [`Operands`]), the device addresses
/// taken through the [`Launch`] `$launch`. Both GEMM families declare the same parameter list in
/// the variant table's `abi:` (A, B, C, M, N, K, alpha, beta; only A's and B's element differs),
/// so this one expression builds either family's struct.
macro_rules! gemm_params {
    ($params:ident, $launch:ident, $ops:expr) => {{
        let $crate::experiments::gemm_sides::Operands {
            dims,
            a,
            b,
            c,
            setting: (alpha, beta),
        } = $ops;
        $params {
            a: $launch.input(a),
            b: $launch.input(b),
            c: $launch.output(c),
            m: dims.m as i32,
            n: dims.n as i32,
            k: dims.k as i32,
            alpha,
            beta,
        }
    }};
}
pub(super) use gemm_params;

/// Implements [`GemmKind`] for a family from what sets it apart (both families share the launch:
/// the variant table's shape and [`gemm_params!`]): its element, table line and params struct,
/// its launch shape, the check's record and the peak (cuBLAS's routine follows from the element:
/// [`crate::cuda::GemmInput`]).
macro_rules! gemm_kind {
    ($kind:ty { elem: $elem:ty, line: $line:ty, params: $params:ident, shape: $shape:path,
        record: $record:path, peak: $peak:path $(,)? }) => {
        impl $crate::experiments::gemm_sides::GemmKind for $kind {
            type Elem = $elem;
            type Variant = $line;

            fn launch_shape(
                variant: &$line,
                dims: $crate::results::GemmDims,
            ) -> $crate::cuda::LaunchShape {
                $shape(variant, dims)
            }

            fn launch(
                gpu: &$crate::cuda::Gpu,
                kernel: &$crate::cuda::Kernel<'_>,
                shape: $crate::cuda::LaunchShape,
                ops: $crate::experiments::gemm_sides::Operands<'_, $elem>,
            ) -> Result<(), $crate::cuda::CudaError> {
                let mut l = $crate::cuda::Launch::new(gpu);
                let params = $crate::experiments::gemm::gemm_params!($params, l, ops);
                // SAFETY: A and B hold M*K and K*N elements and C M*N floats (`GemmSides`
                // allocates them from the same dimensions; cudarc aligns them far beyond the 16
                // bytes the BF16 kernels' copies need); the sizes tile where the line's family
                // needs it (checked at parse time: `flags::check_tiling`; the BF16 lines take any
                // size); each dimension is at most 32768, so M*K etc. fit the kernels' 32-bit
                // indices; the shape is the table's for this line, and the kernel allowed its
                // dynamic shared memory by `prepare`.
                unsafe { l.launch(kernel, shape, &params) }
            }

            fn launch_cublas(
                gpu: &$crate::cuda::Gpu,
                cublas: &$crate::cuda::Cublas,
                ops: $crate::experiments::gemm_sides::Operands<'_, $elem>,
            ) -> Result<(), $crate::cuda::CudaError> {
                let (alpha, beta) = ops.setting;
                let mnk = (ops.dims.m, ops.dims.n, ops.dims.k);
                cublas.gemm_row_major(gpu, mnk, alpha, ops.a, ops.b, beta, ops.c)
            }

            fn record(
                dims: $crate::results::GemmDims,
                parts: &[$crate::experiments::gemm_check::Checked],
            ) -> $crate::results::Check {
                $record(dims, parts)
            }

            fn peak(gpu: &$crate::cuda::Gpu) -> $crate::experiments::measurement::Peak {
                $peak(gpu)
            }
        }
    };
}
pub(super) use gemm_kind;

/// The FP32 family: f32 operands, the `GEMM` table, cuBLAS's SGEMM, FP32's check and peak.
pub struct Fp32;

gemm_kind! {
    Fp32 { elem: f32, line: GemmVariant, params: GemmParams, shape: launch_shape,
        record: record, peak: fp32_peak }
}

/// FP32's spec peak.
fn fp32_peak(gpu: &Gpu) -> Peak {
    Peak::fp32(gpu.info())
}

/// Device buffers of one FP32 GEMM problem, its f64 reference and the check kernels.
pub type GemmBuffers = GemmSides<Fp32>;

impl GemmSides<Fp32> {
    /// Random A, B and initial C in [-1, 1), seeded (at M = N = K the inputs are those of the
    /// square runs before `MxNxK` sizes), and their f64 reference, computed on the GPU.
    pub fn new(gpu: &Gpu, dims: GemmDims, seed: u64) -> Result<Self, ExperimentError> {
        let (m, n, k) = (dims.m as usize, dims.n as usize, dims.k as usize);
        let a = gpu.upload(&random_floats(m * k, seed))?;
        let b = gpu.upload(&random_floats(k * n, seed.wrapping_add(1)))?;
        let c0 = gpu.upload(&random_floats(m * n, seed.wrapping_add(2)))?;
        let checker = GemmChecker::new(gpu)?;
        let reference = checker.reference(gpu, dims, &a, &b)?;
        Ok(Self::from_parts(dims, (a, b, c0), checker, reference))
    }
}

#[cfg(test)]
mod tests {
    use super::launch_shape;
    use crate::kernel_source::builtin;
    use crate::kernel_source::ptx_params::{ptx_entry_params, ParamClass};
    use crate::results::GemmDims;
    use kernels_gpu::variants::{find_gemm, GEMM, SHARED_WITHOUT_OPT_IN};

    /// The launch of every line comes from the table: the seed's exact grid, the tuned family's
    /// rounded-up grid at any size, and the dynamic shared memory that needs the opt-in attribute.
    #[test]
    fn launch_shapes_come_from_the_variant_table() {
        let d = find_gemm(GEMM, "D").unwrap();
        let s = launch_shape(d, GemmDims::square(4096));
        assert_eq!((s.grid, s.threads, s.dyn_smem), ((64, 64), 32, 0));
        assert_eq!(s.dyn_smem_opt_in(), None);

        let r4 = find_gemm(GEMM, "R4").unwrap();
        assert_eq!((r4.bm, r4.bn, r4.bk), (256, 128, 16));
        let (m, n, k) = (2048, 8192, 1024);
        let s = launch_shape(r4, GemmDims { m, n, k });
        assert_eq!(s.grid, (8192 / 128, 2048 / 256), "x over N, y over M");
        assert_eq!(s.threads, 256);
        assert_eq!(s.dyn_smem, r4.dynamic_shared_bytes());
        assert!(s.dyn_smem > SHARED_WITHOUT_OPT_IN);
        assert_eq!(s.dyn_smem_opt_in(), Some(s.dyn_smem));
        // A size that does not tile: edge blocks round the grid up.
        let (m, n, k) = (257, 129, 5);
        assert_eq!(launch_shape(r4, GemmDims { m, n, k }).grid, (2, 2));
        assert_eq!(launch_shape(r4, GemmDims::square(1)).grid, (1, 1));

        // Which lines need the opt-in is the table's, not a list here: the tuned lines whose
        // stages pass 48 KB (R2 and R4 in today's table), none of the seed lines.
        for v in GEMM {
            let s = launch_shape(v, GemmDims::square(4096));
            assert_eq!(
                s.dyn_smem_opt_in().is_some(),
                v.dynamic_shared_bytes() > SHARED_WITHOUT_OPT_IN,
                "{}",
                v.label
            );
            assert_eq!(s.threads, v.threads());
        }
        let opted: Vec<&str> = GEMM
            .iter()
            .filter(|v| {
                launch_shape(v, GemmDims::square(64))
                    .dyn_smem_opt_in()
                    .is_some()
            })
            .map(|v| v.label)
            .collect();
        assert!(opted.contains(&"R4") && !opted.contains(&"D"), "{opted:?}");
    }
    use kernels_gpu::abi::ParamKind;
    use kernels_gpu::entries::entries;
    use kernels_gpu::variants::REGS;

    /// Every family's declared parameter list against the PTX of each of its entries in every
    /// module the lab builds (launch-bounded, unbounded, capped): the launch pushes what the
    /// table declares, so the two must agree.
    #[test]
    fn every_entry_takes_its_familys_parameters() {
        let modules = [builtin::MAIN, builtin::UNBOUNDED, builtin::TENSOR]
            .into_iter()
            .chain(builtin::CAPPED.iter().map(|(_, ptx)| *ptx));
        let mut checked = 0;
        for ptx in modules {
            for e in entries() {
                if let Some(found) = ptx_entry_params(ptx, e.name) {
                    // rustc marks every pointer `.ptr`: the kinds match one for one.
                    let declared: Vec<ParamClass> = e
                        .params()
                        .iter()
                        .map(|p| match p.kind {
                            ParamKind::Ptr => ParamClass::Pointer,
                            ParamKind::U64 => ParamClass::Bits64,
                            ParamKind::I32 | ParamKind::U32 => ParamClass::Bits32,
                            ParamKind::F32 => ParamClass::F32,
                        })
                        .collect();
                    assert_eq!(found, declared, "{}", e.name);
                    checked += 1;
                }
            }
        }
        // Not vacuous: every entry is in the main module or the tensor-core one (exactly one of
        // the two), each capped module has the regs variant.
        for e in entries() {
            let in_main = ptx_entry_params(builtin::MAIN, e.name).is_some();
            let in_tensor = ptx_entry_params(builtin::TENSOR, e.name).is_some();
            assert!(in_main != in_tensor, "{}", e.name);
        }
        for (cap, ptx) in builtin::CAPPED {
            assert!(
                ptx_entry_params(ptx, REGS.gemm().entry).is_some(),
                "cap {cap}"
            );
        }
        assert!(checked > entries().count());
    }
}
