//! Experiment 3, register pressure: one GEMM variant (the table's `REGS.variant`) rebuilt under
//! each register cap; actual registers from the loaded function, spills and stack frame from
//! the compiler's own report (the JIT's info log, or a `ptxas -v` report beside a cubin).

use kernels_gpu::variants::REGS;

use super::gemm::GemmBuffers;
use super::module_source::{load_capped, Loaded};
use super::{comparison, progress_bar, ExperimentError, Options};
use crate::cuda::{Gpu, Kernel, ModuleKind};
use crate::results::RegsRow;

/// Spill and stack figures of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spills {
    pub stores: Option<u32>,
    pub loads: Option<u32>,
    /// Bytes of stack frame (the report's, else the function's local memory).
    pub stack_frame: u32,
}

fn spills(loaded: &Loaded, kernel: &Kernel<'_>) -> Result<Spills, ExperimentError> {
    match loaded.report.as_ref().and_then(|r| r.entry(kernel.entry())) {
        Some(e) => Ok(Spills {
            stores: Some(e.spill_stores),
            loads: Some(e.spill_loads),
            stack_frame: e.stack_frame,
        }),
        None => Ok(Spills {
            stores: None,
            loads: None,
            stack_frame: kernel.local_bytes()?,
        }),
    }
}

/// Runs experiment 3 with `opts.capped`, and `opts.compare_capped` timed with it per cap.
pub fn run(gpu: &Gpu, opts: &Options) -> Result<Vec<RegsRow>, ExperimentError> {
    let variant = REGS.gemm();
    let mut buffers = GemmBuffers::new(gpu, opts.gemm_size, opts.seed)?;
    let bar = progress_bar(opts, opts.caps.len(), "regs");
    let mut rows = Vec::with_capacity(opts.caps.len());
    for &cap in &opts.caps {
        bar.set_message(format!("cap {cap}"));
        let ours = load_capped(gpu, &opts.capped, cap)?;
        let theirs = opts
            .compare_capped
            .as_ref()
            .map(|other| load_capped(gpu, other, cap))
            .transpose()?;
        let (kernel, other) = ours.entry_pair(theirs.as_ref(), variant.entry)?;
        let (measured, compared) =
            buffers.measure(gpu, &kernel, other.as_ref(), variant, opts.timing)?;
        let our_spills = spills(&ours, &kernel)?;
        let mut flags = measured.flags.clone();
        if our_spills.stores.is_none() && ours.module.kind() == ModuleKind::Ptx {
            flags.push(format!(
                "the JIT info log of {} has no resource report for `{}`; spills unknown",
                ours.module.name(),
                kernel.entry()
            ));
        }
        let compared = match (compared, &theirs, &other) {
            (Some(m), Some(t), Some(k)) => {
                let s = spills(t, k)?;
                Some((m, s.stores, s.loads))
            }
            _ => None,
        };
        let compare = comparison(&measured, compared, &mut flags);
        rows.push(RegsRow {
            cap,
            regs: measured.regs,
            blocks_per_sm: measured.blocks_per_sm,
            occupancy: measured.occupancy,
            limiter: measured.limiter,
            timing: measured.timing,
            gflops: measured.throughput,
            spill_stores: our_spills.stores.unwrap_or(0),
            spill_loads: our_spills.loads.unwrap_or(0),
            spills_unknown: our_spills.stores.is_none(),
            stack_frame: our_spills.stack_frame,
            check: measured.check,
            flags,
            compare,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(rows)
}
