//! The `regs` experiment's run: every cap of the plan's line, timed in one problem's buffers of
//! the line's family (FP32 or BF16).

use super::row::RegsRow;
use super::spec::{Plan, Spec};
use super::wave_claims::compared_pairs;
use crate::cuda::Gpu;
use crate::experiments::contract::{Registered, RunContext};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::gemm_figures::{GemmFigures, Schedule};
use crate::experiments::gemm_sides::{GemmKind, GemmSides};
use crate::experiments::measured::Measured;
use crate::experiments::module_source::load_capped;
use crate::experiments::progress::progress_bar;
use crate::experiments::spills::Spills;
use crate::experiments::whole_wave_buffers::WholeWaveBuffers;
use crate::experiments::whole_waves::{whole_wave_dims, WholeWave};
use crate::kernel_source::kind::ModuleKind;
use crate::kernel_source::sources::Sources;
use crate::results::GemmDims;

/// Every cap's row, in the plan's order, for the line `variant` of `buffers`' family; then the
/// pairs seed 001's and 002's verdicts compare, timed again at whole waves in buffers of
/// `buffers_at` a size.
pub(super) fn every_cap<K: GemmKind>(
    gpu: &Gpu,
    ctx: &RunContext,
    p: &Plan,
    (buffers, buffers_at): (&mut GemmSides<K>, BuffersAt<'_, K>),
    variant: &K::Variant,
) -> Result<Vec<RegsRow>, ExperimentError> {
    let bar = progress_bar(ctx, p.caps.len(), Spec::NAME);
    let mut rows = Vec::with_capacity(p.caps.len());
    for &cap in &p.caps {
        bar.set_message(format!("cap {cap}"));
        rows.push(measure_cap(gpu, ctx, p, buffers, variant, cap)?);
        crate::phase_log::mark(&format!("regs: cap {cap}"));
        bar.inc(1);
    }
    bar.finish_and_clear();
    pairs_at_whole_waves(gpu, ctx, p, (&mut rows, buffers_at), variant)?;
    crate::phase_log::mark("regs: whole waves");
    Ok(rows)
}

/// Makes a problem's buffers at a size (the whole-wave size of a pair).
pub(super) type BuffersAt<'f, K> = &'f dyn Fn(GemmDims) -> Result<GemmSides<K>, ExperimentError>;

/// Each pair [`compared_pairs`] names, timed again (our module alone) at the size nearest the
/// plan's at which both builds run whole waves, recorded in their rows' `whole_waves`. A pair
/// already whole at the plan's size keeps its figures; one with no such size is left untimed
/// (its verdict says so).
fn pairs_at_whole_waves<K: GemmKind>(
    gpu: &Gpu,
    ctx: &RunContext,
    p: &Plan,
    (rows, buffers_at): (&mut [RegsRow], BuffersAt<'_, K>),
    variant: &K::Variant,
) -> Result<(), ExperimentError> {
    let sms = gpu.info().sm_count;
    let ours_only = Plan {
        sources: Sources {
            theirs: None,
            ..p.sources.clone()
        },
        ..p.clone()
    };
    let mut buffers = WholeWaveBuffers::<K>::default();
    for (a, b) in compared_pairs(rows) {
        let blocks = |cap: u32| {
            let r = rows
                .iter()
                .find(|r| r.cap == cap)
                .expect("a pair of the rows");
            r.figures.blocks_per_sm
        };
        let Some(size) = whole_wave_dims(p.size, p.line.tile(), &[blocks(a), blocks(b)], sms)
        else {
            continue;
        };
        for cap in [a, b] {
            let row = rows
                .iter_mut()
                .find(|r| r.cap == cap)
                .expect("a pair of the rows");
            if row.whole_waves.iter().any(|w| w.size == size) {
                continue;
            }
            let figures = buffers.figures_at(size, (p.size, &row.figures), buffers_at, |at| {
                Ok(measure_cap(gpu, ctx, &ours_only, at, variant, cap)?.figures)
            })?;
            row.whole_waves.push(WholeWave { size, figures });
        }
    }
    Ok(())
}

/// One cap's row: the capped variant timed (with the compared module's build of the same cap,
/// samples interleaved), checked, and its spills read from each compiler's report.
fn measure_cap<K: GemmKind>(
    gpu: &Gpu,
    ctx: &RunContext,
    p: &Plan,
    buffers: &mut GemmSides<K>,
    variant: &K::Variant,
    cap: u32,
) -> Result<RegsRow, ExperimentError> {
    let at = format!("{} at cap {cap}", p.line.label());
    let builtin = |cap| p.line.builtin_capped(cap);
    let ours = load_capped(gpu, &p.sources.ours, cap, builtin).in_variant(&at)?;
    let theirs = p
        .sources
        .theirs
        .as_ref()
        .map(|other| load_capped(gpu, other, cap, builtin).map(|l| l.compared(other)))
        .transpose()
        .in_variant(&at)?;
    let (kernel, other) = ours
        .entry_pair(theirs.as_ref(), p.line.entry())
        .in_variant(&at)?;
    let m = buffers
        .measure(gpu, &kernel, other.as_ref(), variant, &ctx.timing, None)
        .in_variant(&at)?;
    let our_spills = Spills::of(&ours, &kernel).in_variant(&at)?;
    let mut flags = m.ours.flags.clone();
    if our_spills.stores.is_none() && ours.module.kind() == ModuleKind::Ptx {
        flags.push(format!(
            "the JIT info log of {} has no resource report for `{}`; spills unknown",
            ours.module.name(),
            kernel.entry()
        ));
    }
    let compared = match (m.theirs, &theirs, &other) {
        (Some(m), Some(t), Some(k)) => Some((m, Some(Spills::of(t, k).in_variant(&at)?))),
        _ => None,
    };
    let ours = m.ours;
    // The launch's schedule at the buffers' size (a pair timed again at whole waves runs in
    // buffers of another size than the plan's).
    let shape = K::launch_shape(variant, buffers.dims());
    let schedule = Schedule::one_block_per_tile(&shape, gpu.info().sm_count);
    Ok(RegsRow {
        cap,
        figures: GemmFigures::of(&ours).scheduled(schedule),
        spill_stores: our_spills.stores.unwrap_or(0),
        spill_loads: our_spills.loads.unwrap_or(0),
        spills_unknown: our_spills.stores.is_none(),
        stack_frame: our_spills.stack_frame,
        measured: Measured::new(&ours, flags, compared),
        whole_waves: vec![],
    })
}
