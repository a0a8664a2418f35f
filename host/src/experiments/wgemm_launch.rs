//! The launch of a `gemm_wgmma` line (sm_90a): its persistent grid, its threads and dynamic
//! shared memory from the table, and the tensor maps of A and B passed by address (see
//! `host::cuda::tensor_map`); which sizes and devices a line cannot run, and one line timed
//! beside cuBLAS. Shared by the `gemm_bf16` experiment (its wgmma rows and energy phase), the
//! shape sweep and the line choice (`line_choice`), which times a line at any shape.

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::{WgemmParams, WgemmVariant};

use super::bf16_gemm::Bf16GemmBuffers;
use super::error::{ExperimentError, InVariant};
use super::gemm_cublas::CublasSide;
use super::gemm_figures::Schedule;
use super::gemm_sides::Operands;
use super::measurement::Measurement;
use crate::cuda::hopper::runs_sm90a;
use crate::cuda::tensor_map::{map_shapes, TensorMaps};
use crate::cuda::{CudaError, Gpu, Kernel, Launch, LaunchShape};
use crate::occupancy::calc::{occupancy, KernelResources, Occupancy, OccupancyError};
use crate::occupancy::Limits;
use crate::results::GemmDims;
use crate::sampling::SamplingConfig;

/// Why `line` cannot run on a device of compute capability `cc` at `dims`; none when it can.
pub fn not_run_reason(cc: (u32, u32), line: &WgemmVariant, dims: GemmDims) -> Option<String> {
    if let Err(e) = runs_sm90a(cc) {
        return Some(e.to_string());
    }
    if !line.takes_odd_n() && !dims.n.is_multiple_of(2) {
        let GemmDims { m, n, k } = dims;
        return Some(format!(
            "the mma.sync ring lines write C in pairs and need N even; got {m}x{n}x{k}"
        ));
    }
    map_shapes(line, dims).err().map(|e| e.to_string())
}

/// A wgmma launch's problem: its dimensions, A and B (row-major bf16) and C.
pub type WgemmOperands<'o> = (
    GemmDims,
    (&'o CudaSlice<u16>, &'o CudaSlice<u16>),
    &'o mut CudaSlice<f32>,
);

/// Ours, the compared kernel's (where given) and ours over cuBLAS of one timed line.
pub type LineFigures = (Measurement, Option<Measurement>, Option<f64>);

/// A line's launches over one problem: its tensor maps, encoded once, its persistent launch
/// shape and its schedule of tiles.
pub struct RingLaunch<'l> {
    line: &'l WgemmVariant,
    maps: TensorMaps,
    pub shape: LaunchShape,
    pub schedule: Schedule,
}

impl<'l> RingLaunch<'l> {
    /// `line` over `buffers`' problem on `gpu`.
    pub fn encode(
        gpu: &Gpu,
        line: &'l WgemmVariant,
        buffers: &Bf16GemmBuffers,
    ) -> Result<Self, ExperimentError> {
        let dims = buffers.dims();
        let (a, b) = buffers.inputs();
        let maps = TensorMaps::encode(gpu, line, dims, a, b).in_variant(line.label)?;
        let sms = gpu.info().sm_count;
        let shape = wgemm_launch_shape(line, dims, sms);
        let (rows, cols) = line.tiles(dims.m, dims.n);
        let tiles = u64::from(rows) * u64::from(cols);
        let scratch = maps.scratch();
        let mut schedule = Schedule::of_launch(tiles, &shape, sms).cut(scratch.split().splits);
        if let Some(tail) = scratch.tail() {
            schedule = schedule.streamed(tail.k_steps);
        }
        Ok(Self {
            line,
            maps,
            shape,
            schedule,
        })
    }

    /// How the sides launch a kernel of this line over their operands: through these maps
    /// (take `&` of it for a [`Launcher`](super::gemm_sides::Launcher)).
    pub fn launcher(
        &self,
    ) -> impl Fn(&Gpu, &Kernel<'_>, LaunchShape, Operands<'_, u16>) -> Result<(), CudaError> + '_
    {
        move |gpu, kernel, shape, ops| {
            let operands = (ops.dims, (ops.a, ops.b), ops.c);
            let line = (self.line, shape);
            launch_wgemm(gpu, kernel, line, &self.maps, operands, ops.setting)
        }
    }
}

/// Times `line`'s `kernels` (ours, and the compared build's entry where given) over `buffers`'
/// problem, through tensor maps encoded once for it, cuBLAS interleaved where `cublas` has it;
/// gives the figures and the launch's schedule of tiles.
pub fn measure_wgemm_line(
    gpu: &Gpu,
    (line, kernels): (&WgemmVariant, (&Kernel<'_>, Option<&Kernel<'_>>)),
    (buffers, cublas): (&mut Bf16GemmBuffers, &mut CublasSide),
    timing: &SamplingConfig,
) -> Result<(LineFigures, Schedule), ExperimentError> {
    let ring = RingLaunch::encode(gpu, line, buffers)?;
    let launch = ring.launcher();
    let figures = cublas.measure(
        gpu,
        buffers,
        (line.label, kernels),
        (ring.shape, &launch),
        timing,
    )?;
    Ok((figures, ring.schedule))
}

/// The theoretical occupancy of `line` by the lab's calculator on an SM of `limits`, at
/// `regs` registers per thread (ptxas's or the JIT's report for the entry).
pub fn wgemm_occupancy(
    line: &WgemmVariant,
    limits: &Limits,
    regs: u32,
) -> Result<Occupancy, OccupancyError> {
    occupancy(
        limits,
        &KernelResources {
            threads: line.threads(),
            regs_per_thread: regs,
            static_smem: line.static_shared_bytes(),
            dyn_smem: line.dynamic_shared_bytes(),
        },
    )
}

/// The launch shape of `line` over an M x N x K product on a GPU of `sms` SMs: one persistent
/// block per SM at most, one per work unit when there are fewer (a tile, or part of its K where
/// the line cuts it: `WgemmVariant::k_split`); one per SM where the line streams its tail.
pub fn wgemm_launch_shape(line: &WgemmVariant, dims: GemmDims, sms: u32) -> LaunchShape {
    LaunchShape {
        grid: (line.walk_grid(dims.m, dims.n, dims.k, sms), 1),
        threads: line.threads(),
        dyn_smem: line.dynamic_shared_bytes(),
    }
}

/// Enqueues one launch of `kernel` (line `line`, [`prepare`](crate::cuda::prepare)d for
/// `shape`) computing C = alpha*A*B + beta*C at `dims` through `maps`, which were encoded for
/// this line and these dimensions over A and B; before it, the copies of A or B into padded
/// rows where the maps read those ([`TensorMaps::stage`]), so that a timed launch pays for them.
///
/// # Panics
/// If C does not hold M*N floats, A or B its matrix, or N is odd on a line that needs it even.
pub fn launch_wgemm(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    (line, shape): (&WgemmVariant, LaunchShape),
    maps: &TensorMaps,
    (dims, (a, b), c): WgemmOperands<'_>,
    (alpha, beta): (f32, f32),
) -> Result<(), CudaError> {
    assert_eq!(
        c.len(),
        dims.m as usize * dims.n as usize,
        "C must hold M*N floats"
    );
    assert_eq!(shape.threads, line.threads(), "the line's threads");
    assert!(
        line.takes_odd_n() || dims.n.is_multiple_of(2),
        "{} writes C in pairs: N must be even",
        line.label
    );
    maps.stage(gpu, a, b)?;
    let mut l = Launch::new(gpu);
    let base = l.input(maps.buffer());
    let scratch = maps.scratch();
    let (partials, arrivals) = scratch.addresses(gpu);
    let params = WgemmParams {
        a_map: base,
        b_map: base + TensorMaps::B_OFFSET,
        c: l.output(c),
        m: dims.m as i32,
        n: dims.n as i32,
        k: dims.k as i32,
        alpha,
        beta,
        k_slices: scratch.k_slices(),
        stream_tail: scratch.stream_tail(),
        partials,
        arrivals,
    };
    // SAFETY: the threads and dynamic shared memory are the line's (`wgemm_launch_shape`); the
    // maps describe A and B at these dimensions with the line's boxes (`TensorMaps::encode`),
    // over A and B or their padded copies just enqueued on the same stream; C holds M*N floats
    // (asserted above), written one float at a time where N is odd by the lines that take it,
    // and N is even for the others (asserted above); where the maps' scratch cuts K or streams
    // the tail, it was sized for this line and these dimensions (`SplitScratch::new`) on this
    // GPU's SMs, the blocks of the grid `wgemm_launch_shape` gives (the tail's runs are shared
    // out over the grid), and its arrival words are zero between launches (each launch's last
    // arrivals zero them).
    unsafe { l.launch(kernel, shape, &params) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::occupancy::Arch;
    use kernels_gpu::sections::gemm_wgmma::launch_regs;
    use kernels_gpu::variants::{MAX_SHARED_OPT_IN, WGEMM};

    /// Issue 18's bar: every line at most 18.75% theoretical occupancy on sm_90, whatever
    /// registers ptxas gives it within its launch bound: its ring holds the SM to one block.
    #[test]
    fn every_line_runs_one_block_per_sm_at_most_18_75_percent() {
        let limits = Arch::Sm90.limits();
        for v in WGEMM {
            for regs in [32, 128, launch_regs(v.threads())] {
                let o = wgemm_occupancy(v, &limits, regs).expect("a launchable line");
                assert_eq!(o.blocks_per_sm, 1, "{} at {regs} registers", v.label);
                let (label, occupancy) = (v.label, o.occupancy);
                assert!(occupancy <= 0.1875 + 1e-12, "{label}: {occupancy}");
                assert_eq!(o.warps_per_sm, v.threads() / 32);
            }
        }
    }

    /// The embedded sm_90a module (built here, no GPU) declares every line's entry with the
    /// parameters the `abi:` line states and its launch bounds: a drifted ABI or a lost bound
    /// fails here, not at a launch.
    #[test]
    fn the_sm90a_module_declares_every_line_with_its_abi_and_bounds() {
        use crate::kernel_source::ptx_params::{ptx_accepts, ptx_entry_params};
        use kernels_gpu::variants::WgemmParams;
        let ptx = crate::kernel_source::builtin::HOPPER;
        for v in WGEMM {
            let params = ptx_entry_params(ptx, v.entry)
                .unwrap_or_else(|| panic!("{} is not in the sm_90a module", v.entry));
            assert!(ptx_accepts(&params, WgemmParams::PARAMS), "{}", v.entry);
            // The entry's header: from its name to the brace that opens its body, where the
            // build puts the directives.
            let from = &ptx[ptx.find(&format!(".entry {}(", v.entry)).unwrap()..];
            let header = &from[..from.find("\n{").expect("the entry has a body")];
            let bounds = format!(".maxntid {}, 1, 1\n.minnctapersm 1", v.threads());
            assert!(header.contains(&bounds), "{}: want {bounds:?}", v.entry);
        }
    }

    #[test]
    fn shapes_are_persistent_and_within_the_opt_in() {
        for v in WGEMM {
            let s = wgemm_launch_shape(v, GemmDims::square(4096), 132);
            assert_eq!(s.grid, (132, 1), "{}", v.label);
            assert_eq!(s.threads, v.threads());
            assert!(s.dyn_smem <= MAX_SHARED_OPT_IN && s.dyn_smem_opt_in().is_some());
            // A tile per block, or a pair of tiles per cluster of two blocks.
            let small = wgemm_launch_shape(v, GemmDims { m: 65, n: 8, k: 8 }, 132);
            let units = 65u32.div_ceil(v.bm).div_ceil(v.cluster);
            assert_eq!(small.grid, (units * v.cluster, 1), "{}", v.label);
        }
    }
}
