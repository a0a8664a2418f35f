//! The `inflight` experiment on the GPU: the chases ([`super::chase_run`]; the loaded ones on the
//! copy's own buffers), then the sweep's copies, run by the copy family's host side
//! ([`CopyBuffers::measure`]: held at the point's blocks/SM by dynamic shared memory, timed with
//! the compared module's samples interleaved, each copy checked exactly). A point that cannot be
//! held at its residency (in either module) is skipped with a note. The persistent copies follow
//! the sweep, measured the same way, into their own rows ([`super::sustained`]), each with one
//! sampled launch beside its timed ones ([`super::sampled_run`]).

use kernels_gpu::variants::CHASE;

use super::chase_run::{measure_latency, measure_loaded, Ring};
use super::grid::{persistent_points, PlanLimits, Point};
use super::loaded::{predictions, LoadedLatency};
use super::model::{bytes_in_flight_per_sm, requests_in_flight_per_sm, LittlesLaw};
use super::output::Inflight;
use super::reads_run::measure_reads;
use super::row::{headline, CopyReference, InflightRow, HEADLINE_FRACTIONS, SPILLS_NOTE};
use super::sampled_run::measure_sampled;
use super::sizes::measure_sizes;
use super::spec::{Plan, Spec, CHASE_L2_MULTIPLE};
use super::sustained::{Sustained, SustainedRow};
use crate::cuda::hopper::{hopper_module, HopperError};
use crate::cuda::Gpu;
use crate::experiments::contract::{Registered, RunContext};
use crate::experiments::copy::{check_fits, copy_gbps, CopyBuffers, MAX_GRID_X};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::measured::Measured;
use crate::experiments::module_source::{load, Loaded};
use crate::experiments::progress::progress_bar;
use crate::experiments::spills::Spills;
use crate::experiments::sweep::{sweep, with_compared, Step, Swept};
use crate::kernel_source::sources::Kernels;

/// Runs the `inflight` experiment on `gpu` as `p` asks, timing every figure by `ctx.timing`.
pub fn run(gpu: &Gpu, ctx: &RunContext, p: &Plan) -> Result<Inflight, ExperimentError> {
    let info = gpu.info().clone();
    let copy_bytes = p.sweep.copy_mib << 20;
    check_fits(gpu, copy_bytes)?;
    let (ours, theirs) = p.sources.load(gpu)?;
    crate::phase_log::mark("inflight: loaded");
    let limits = PlanLimits {
        warp_size: info.warp_size,
        max_blocks_per_sm: info.max_blocks_per_sm,
        max_warps_per_sm: info.max_threads_per_sm / info.warp_size.max(1),
    };
    let mut points = p.sweep.points(limits);
    let smem_per_sm = u32::try_from(info.smem_per_sm).unwrap_or(u32::MAX);
    points.extend(p.sweep.smem_points(limits, smem_per_sm));
    let persistent = persistent_points(limits);
    let bar = progress_bar(ctx, points.len() + persistent.len() + 2, Spec::NAME);

    bar.set_message("latency");
    // The chase of our module, or the built-in one when `--module` names a file without it
    // (e.g. the peer's).
    let builtin;
    let chase_module = if ours.module.kernel(CHASE.entry).is_ok() {
        &ours
    } else {
        builtin = load(gpu, &Kernels::Builtin)?;
        &builtin
    };
    let chase = chase_module
        .module
        .kernel(CHASE.entry)
        .in_variant("chase")?;
    let chase_bytes = p
        .sweep
        .chase_mib
        .map_or(CHASE_L2_MULTIPLE * info.l2_bytes.max(1 << 20), |m| m << 20);
    let mut ring = Ring::new(gpu, chase_bytes, ctx.seed.wrapping_add(41))?;
    let latency =
        measure_latency(gpu, &chase, &mut ring, p.sweep.chase_steps).in_variant("chase")?;
    bar.inc(1);
    crate::phase_log::mark("inflight: chase");

    let floats = (copy_bytes / 4) as usize;
    let mut buffers = CopyBuffers::new(gpu, floats, ctx.seed.wrapping_add(40))?;
    let loaded = match p.sweep.loaded_steps {
        0 => LoadedLatency::default(),
        steps => {
            bar.set_message("loaded latency");
            let kernels = (&chase, &*chase_module.module);
            let unloaded = latency.ns_per_step;
            measure_loaded(gpu, kernels, &mut ring, &mut buffers, steps, unloaded)?
        }
    };
    drop(ring);
    crate::phase_log::mark("inflight: loaded chase");
    bar.set_message("cuMemcpyDtoD");
    let copy_timing = buffers
        .time_reference(gpu, &ctx.timing)
        .in_variant("cuMemcpyDtoD")?;
    let copy = CopyReference {
        bytes: copy_bytes,
        gbps: copy_gbps(copy_bytes, copy_timing.median_ms),
        timing: copy_timing,
    };
    bar.inc(1);
    let model = LittlesLaw {
        sms: info.sm_count,
        latency_ns: latency.ns_per_step,
        peak_gbps: copy.gbps,
    };

    let modules = (&ours, theirs.as_ref());
    // The bulk-copy lines live in the sm_90a module: loaded where the device runs it, and their
    // points skipped with the reason elsewhere.
    let any_bulk = points.iter().any(|p| p.shape.ring.is_some_and(|r| r.bulk));
    let hopper = match any_bulk.then(|| hopper_module(gpu)) {
        Some(Ok(module)) => Ok(Loaded {
            module,
            report: None,
        }),
        Some(Err(HopperError::Cuda(e))) => return Err(e.into()),
        Some(Err(why @ HopperError::NeedsSm90a(_))) => Err(why.to_string()),
        None => Err(String::new()),
    };
    // The compared build's sm_90a module, where it has one: the bulk copies' compared kernels.
    let theirs_hopper = match &hopper {
        Ok(_) => p.sources.load_compared_sm90a(gpu)?,
        Err(_) => None,
    };
    crate::phase_log::mark("inflight: copy reference, sm_90a module");
    let swept = sweep(&bar, points, point_name, |point| {
        let at = (&copy, &model);
        if !point.shape.ring.is_some_and(|r| r.bulk) {
            return measure_point(gpu, ctx, &mut buffers, modules, point, at);
        }
        match &hopper {
            Ok(h) => {
                let entry = point.shape.copy_kernel().map(|k| k.entry());
                let theirs = theirs_hopper.as_ref().filter(|t| {
                    entry.is_some_and(|e| matches!(t.kernel_if_present(e), Ok(Some(_))))
                });
                measure_point(gpu, ctx, &mut buffers, (h, theirs), point, at)
            }
            Err(why) => Ok(Step::Skipped(format!("{}: {why}", point_name(point)))),
        }
    })?;
    let at = (&copy, &model);
    crate::phase_log::mark("inflight: copy grid");
    let streamed = measure_persistent(gpu, ctx, &mut buffers, modules, &persistent, at, &bar)?;
    crate::phase_log::mark("inflight: persistent copies");
    bar.set_message("copy sizes");
    let (sizes, mut skipped) = measure_sizes(gpu, ctx, &ours, &swept.rows, &p.sweep.sizes_mib)?;
    skipped.splice(0..0, swept.skipped.into_iter().chain(streamed.skipped));
    bar.set_message("read-only");
    let beside = (swept.rows.as_slice(), copy.gbps);
    crate::phase_log::mark("inflight: copy sizes");
    let (reads, not_read) = measure_reads(gpu, ctx, modules, &buffers, beside)?;
    crate::phase_log::mark("inflight: reads");
    skipped.extend(not_read);
    bar.finish_and_clear();
    Ok(Inflight {
        sizes,
        reads,
        sustained: (!persistent.is_empty()).then_some(Sustained {
            rows: streamed.rows,
        }),
        headline: headline(&swept.rows, &model),
        loaded_predictions: predictions(&loaded, &model, &swept.rows, &HEADLINE_FRACTIONS),
        loaded,
        copy,
        latency,
        model,
        rows: swept.rows,
        skipped,
    })
}

/// The persistent copies' points, each measured as a sweep point (held at its blocks/SM, timed
/// with the compared module's build where it has the entry, checked exactly), with its rounds
/// over the copy.
fn measure_persistent(
    gpu: &Gpu,
    ctx: &RunContext,
    buffers: &mut CopyBuffers,
    (ours, theirs): (&Loaded, Option<&Loaded>),
    points: &[Point],
    at: (&CopyReference, &LittlesLaw),
    bar: &indicatif::ProgressBar,
) -> Result<Swept<SustainedRow>, ExperimentError> {
    let floats = buffers.bytes() / 4;
    let sms = gpu.info().sm_count;
    let mut unsampled = Vec::new();
    let mut swept = sweep(
        bar,
        points,
        |p| point_name(p),
        |point| {
            let Some(entry) = point.shape.copy_kernel().map(|k| k.entry()) else {
                let why = format!("{:?}: not a kernel of the variant table", point.shape);
                return Ok(Step::Skipped(why));
            };
            if ours.module.kernel(entry).is_err() {
                // A module given by --module (e.g. the peer's) need not build the persistent copies.
                return Ok(Step::Skipped(format!("{entry}: not in our module")));
            }
            // A compared build from before these lines is left out of them.
            let theirs = theirs.filter(|t| matches!(t.kernel_if_present(entry), Ok(Some(_))));
            Ok(
                match measure_point(gpu, ctx, buffers, (ours, theirs), point, at)? {
                    Step::Row(row) => match SustainedRow::new(row, floats, sms) {
                        Some(mut r) => {
                            // One sampled launch beside the timed ones (sampled_run.rs).
                            let line = point.shape.persistent_line().expect("a persistent row");
                            let blocks = r.copy.blocks_per_sm;
                            match measure_sampled(gpu, buffers, ours, line, blocks)? {
                                Ok(s) => r.samples = Some(s),
                                Err(why) => unsampled.push(why),
                            }
                            Step::Row(r)
                        }
                        None => Step::Skipped(format!("{entry}: not a persistent line")),
                    },
                    Step::Skipped(why) => Step::Skipped(why),
                },
            )
        },
    )?;
    swept.skipped.extend(unsampled);
    Ok(swept)
}

/// A point as the progress bar, its skip note and its errors name it.
fn point_name(point: &Point) -> String {
    match point.shape.copy_kernel() {
        Some(k) => format!("{} at {} blocks/SM", k.entry(), point.blocks_per_sm),
        None => format!("{:?}", point.shape),
    }
}

/// One point of the sweep: its copy held at the point's blocks/SM and timed (the compared
/// module's build interleaved where it can be held there too), checked, and set against the
/// copy reference and the model.
fn measure_point(
    gpu: &Gpu,
    ctx: &RunContext,
    buffers: &mut CopyBuffers,
    (ours, theirs): (&Loaded, Option<&Loaded>),
    point: &Point,
    (copy, model): (&CopyReference, &LittlesLaw),
) -> Result<Step<InflightRow>, ExperimentError> {
    let Some(kernel_point) = point.shape.copy_kernel() else {
        let why = format!("{:?}: not a kernel of the variant table", point.shape);
        return Ok(Step::Skipped(why));
    };
    let entry = kernel_point.entry();
    let sms = gpu.info().sm_count;
    if kernel_point.grid(buffers.bytes() / 4, point.blocks_per_sm, sms) > MAX_GRID_X {
        let why = format!("{entry}: more blocks than a grid holds; use a smaller copy");
        return Ok(Step::Skipped(why));
    }
    if point.shape.ring.is_some() && ours.module.kernel(entry).is_err() {
        // A module given by --module (e.g. the peer's) need not build the shared-memory copies.
        let why = format!("{entry}: not in our module");
        return Ok(Step::Skipped(why));
    }
    let (kernel, other) = ours.entry_pair(theirs, entry)?;
    // The compared module's build of a point may not fit where ours does (e.g. registers
    // without a launch bound leave fewer threads per block): ours is then timed alone.
    let mut flags = Vec::new();
    let (mine, compared, dyn_smem) = with_compared(other.as_ref(), &mut flags, |other| {
        let kernels = (&kernel, other);
        buffers.measure(gpu, kernels, kernel_point, point.blocks_per_sm, &ctx.timing)
    })?;
    flags.extend(mine.flags.iter().cloned());
    // What the compiler did with each module's build of the entry decides whether all its
    // loads can be in flight: a spill or a stack frame means they cannot.
    let spills = Spills::of(ours, &kernel)?;
    let compare_spills = match (&compared, theirs, other.as_ref()) {
        (Some(_), Some(t), Some(k)) => Some(Spills::of(t, k)?),
        _ => None,
    };
    if spills.in_local_memory() {
        flags.push(format!(
            "{}; left out of the bytes-in-flight plots, the model fit, the headline and the \
             verdicts",
            spill_flag("ours", &spills)
        ));
    }
    if let Some(s) = compare_spills.filter(Spills::in_local_memory) {
        flags.push(spill_flag("compared module", &s));
    }
    let threads = kernel_point.threads();
    let warps = mine.blocks_per_sm * threads.div_ceil(gpu.info().warp_size.max(1));
    let bytes_per_thread = point.shape.bytes_per_thread();
    let bif = bytes_in_flight_per_sm(threads * mine.blocks_per_sm, bytes_per_thread);
    Ok(Step::Row(InflightRow {
        point: *point,
        entry: entry.to_owned(),
        bytes_per_thread,
        regs: mine.regs,
        dyn_smem_bytes: dyn_smem,
        blocks_per_sm: mine.blocks_per_sm,
        warps_per_sm: warps,
        occupancy: mine.occupancy,
        bytes_in_flight_per_sm: bif,
        requests_in_flight_per_sm: requests_in_flight_per_sm(warps, point.shape.loads),
        gbps: mine.throughput,
        fraction_of_copy: mine.throughput / copy.gbps,
        predicted_gbps: model.predicted_gbps(bif as f64),
        effective_latency_ns: model.effective_latency_ns(bif as f64, mine.throughput),
        limiter: mine.limiter.clone(),
        timing: mine.timing.clone(),
        measured: Measured::new(&mine, flags, compared.map(|m| (m, compare_spills))),
        spills: Some(spills),
        compare_spills,
    }))
}

/// The row's note for a build that keeps values in local memory.
fn spill_flag(whose: &str, s: &Spills) -> String {
    let spilled = match (s.stores, s.loads) {
        (Some(st), Some(ld)) => format!("{st} B of spill stores, {ld} B of spill loads, "),
        _ => String::new(),
    };
    format!(
        "{SPILLS_NOTE} ({whose}: {spilled}{} B stack frame)",
        s.stack_frame
    )
}

#[cfg(test)]
mod tests {
    use crate::experiments::verify::check_copy;

    #[test]
    fn a_skipped_or_wrong_copy_is_caught() {
        let src: Vec<f32> = (0..4096).map(|i| i as f32 + 0.5).collect();
        assert!(check_copy(&src, &src, 4).passed);
        // A block that never ran leaves its slice of the zeroed destination at zero.
        let mut skipped = src.clone();
        skipped[1024..1024 + 256].fill(0.0);
        let c = check_copy(&src, &skipped, 4);
        assert!(!c.passed);
        assert_eq!(c.error, 256.0);
        // One float copied to the wrong place.
        let mut wrong = src.clone();
        wrong.swap(7, 8);
        assert!(!check_copy(&src, &wrong, 1).passed);
        // A copy that stops one vector short.
        let mut short = src.clone();
        short[4092..].fill(0.0);
        assert!(!check_copy(&src, &short, 4).passed);
    }
}
