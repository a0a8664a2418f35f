//! One traced launch of our side of a GEMM row, after its timed samples and checks, never among
//! them: the line's `_traced` entry (same module, same parameters and launch bounds) launched
//! once in the verified launch's shape over the same operands on a C filled first with a value
//! no element comes near; its block trace read back and judged (`block_trace.rs`). The trace is
//! used only where the traced build needs the shared memory and blocks/SM the timed one does (a
//! difference in registers is noted, not failed: `Footprint::differs`) and its C hashes to the
//! verified launch's: otherwise the row's trace is failed, with the reason, and its timed
//! figures stand.

use super::block_trace::{
    check_grid, figures, peak_per_sm_clock, traced_entry, BlockTrace, Footprint, TraceBasis,
    TraceFigures,
};
use super::gemm_sides::{GemmKind, GemmSides, SideLaunch, Who, TIMED, UNWRITTEN};
use super::measurement::Peak;
use crate::cuda::trace_global::TraceGlobal;
use crate::cuda::{prepare, CudaError, Gpu, Kernel, LaunchShape};

/// What the driver says `kernel` needs in `shape`.
fn footprint(kernel: &Kernel<'_>, shape: LaunchShape) -> Result<Footprint, CudaError> {
    Ok(Footprint {
        regs: kernel.num_regs()?,
        static_smem: kernel.static_smem_bytes()?,
        dyn_smem: shape.dyn_smem,
        blocks_per_sm: kernel.max_active_blocks(shape.threads, shape.dyn_smem)?,
    })
}

impl<K: GemmKind> GemmSides<K> {
    /// The block trace of `how`'s kernel: one launch of its traced entry, judged against
    /// `verified` (the hash of the verified launch's C); `gflops` is the row's timed figure,
    /// `peak` the family's. A driver error is the caller's (a fault is a fault); anything else
    /// that keeps the trace from standing fails the trace alone.
    pub(super) fn trace(
        &mut self,
        gpu: &Gpu,
        how: &SideLaunch<'_, '_, K::Elem>,
        verified: u64,
        (gflops, peak): (f64, Peak),
    ) -> Result<BlockTrace, CudaError> {
        let failed = |why: String| Ok(BlockTrace::Failed(why));
        let shape = how.shape;
        let name = traced_entry(how.kernel.entry());
        let module = how.kernel.module();
        let traced = match module.kernel(&name) {
            Ok(k) => k,
            Err(CudaError::MissingEntry { .. }) => {
                return failed(format!("{}: has no entry `{name}`", module.name()))
            }
            Err(e) => return Err(e),
        };
        prepare(&traced, shape)?;
        let (timed_needs, traced_needs) =
            (footprint(how.kernel, shape)?, footprint(&traced, shape)?);
        if let Some(why) = timed_needs.differs(&traced_needs) {
            return failed(why);
        }
        let blocks = shape.grid.0 as usize * shape.grid.1 as usize;
        if let Err(e) = check_grid(blocks) {
            return failed(e.to_string());
        }
        let global = match TraceGlobal::find(module)? {
            Ok(g) => g,
            Err(e) => return failed(e.to_string()),
        };
        global.zero(gpu, blocks)?;
        gpu.fill(self.c_of(gpu, how.side)?, UNWRITTEN)?;
        let traced_how = SideLaunch {
            side: how.side,
            kernel: &traced,
            shape,
            launcher: how.launcher,
        };
        self.launch_who(gpu, Who::Kernel(&traced_how), TIMED)?;
        let hash = self.hash_now(gpu, how.side)?;
        let words = global.read(gpu, blocks)?;
        if hash != verified {
            return failed(format!(
                "the traced launch's C hashes to {hash:#018x}, the verified launch's to \
                 {verified:#018x}"
            ));
        }
        let info = gpu.info();
        let limits = gpu.limits();
        let basis = TraceBasis {
            sms: info.sm_count,
            max_warps_per_sm: limits.max_warps_per_sm,
            warps: u64::from(limits.warps_per_block(shape.threads)),
            gflops,
            peak_flops_per_sm_clock: peak_per_sm_clock(
                peak.value,
                info.sm_count,
                info.sm_clock_khz,
            ),
        };
        Ok(figures(&words, blocks, basis).map_or_else(
            |e| BlockTrace::Failed(e.to_string()),
            |f| {
                BlockTrace::Traced(TraceFigures {
                    traced_regs: timed_needs.traced_regs(&traced_needs),
                    ..f
                })
            },
        ))
    }
}
