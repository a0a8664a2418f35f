//! The pointer chases on the GPU ([`super::chase`]): the unloaded latency ([`measure_latency`])
//! and the loaded-latency curve ([`measure_loaded`]: the same chase on a side stream while a
//! memcpy grid point copies on the GPU's stream, from idle to the full copy).

use cudarc::driver::{CudaEvent, CudaSlice};
use kernels_gpu::models::probe_results::{build_chase_ring, chase_end};
use kernels_gpu::variants::{
    ChaseKernel, ChaseParams, ChaseResult, MemcpyPoint, CHASE, MEMCPY_GRID,
};

use super::chase::{check_chase, Latency};
use super::loaded::{LoadedLatency, LoadedPoint};
use crate::cuda::{CudaError, Gpu, Kernel, Launch, LaunchShape, Module, SideStream};
use crate::experiments::copy::{copy_gbps, CopyBuffers, CopyKernel};
use crate::experiments::error::{ExperimentError, InVariant};
use crate::experiments::inputs::Rng;
use crate::results::Check;

/// The background copies of the loaded-latency curve, (threads, loads, width, blocks/SM), from
/// a trickle to the full copy by bytes in flight per SM (128 B to 128 KiB). Each holds at most
/// 32 of an SM's 64 warps, so the chase's one warp always finds room beside it.
pub const BACKGROUNDS: [(u32, u32, u32, u32); 8] = [
    (32, 1, 1, 1),
    (32, 4, 4, 1),
    (64, 8, 4, 1),
    (128, 8, 4, 1),
    (128, 16, 4, 1),
    (256, 16, 4, 1),
    (1024, 4, 4, 1),
    (1024, 8, 4, 1),
];

/// The background copies keep going at least this many times the longest the chase could
/// take (every hop at [`SLOWEST_HOP_NS`] or 8x the unloaded latency, whichever is longer), so
/// the whole chase runs under load.
const COVER: f64 = 1.5;
/// A hop slower than any loaded latency expected on current GPUs (the rows' effective latency
/// near the full copy is a few microseconds, itself an upper bound).
const SLOWEST_HOP_NS: f64 = 8000.0;

/// How many back-to-back copies of `one_ms` each outlast a chase of `steps` hops by [`COVER`]
/// at the slowest hop it could take; at least 2, at most 20000 (a few seconds of launches).
pub fn copies_to_cover(steps: u32, unloaded_ns: f64, one_ms: f64) -> u32 {
    let longest_ms = f64::from(steps) * SLOWEST_HOP_NS.max(8.0 * unloaded_ns) * 1e-6;
    ((COVER * longest_ms / one_ms.max(1e-3)).ceil() as u32).clamp(2, 20_000)
}

/// The chase's ring on the host (for the CPU's walk) and on the device, with its output words.
pub struct Ring {
    next: Vec<u32>,
    next_dev: CudaSlice<u32>,
    out: CudaSlice<u64>,
}

impl Ring {
    pub fn new(gpu: &Gpu, bytes: u64, seed: u64) -> Result<Self, CudaError> {
        let n = (bytes / 4).min(u64::from(u32::MAX)) as usize;
        let mut next = vec![0u32; n];
        let mut rng = Rng::new(seed);
        build_chase_ring(&mut next, CHASE.slot_elems(), |below| rng.below(below));
        Ok(Self {
            next_dev: gpu.upload(&next)?,
            out: gpu.zeros::<u64>(ChaseKernel::OUT_WORDS)?,
            next,
        })
    }

    fn bytes(&self) -> u64 {
        self.next.len() as u64 * 4
    }

    /// Enqueues one chase of `steps` hops from slot 0, on `side` when given.
    fn launch(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        steps: u32,
        side: Option<&SideStream>,
    ) -> Result<(), CudaError> {
        let mut l = match side {
            Some(s) => Launch::on_side(gpu, s),
            None => Launch::new(gpu),
        };
        let params = ChaseParams {
            next: l.input(&self.next_dev),
            start: 0,
            steps,
            out: l.output(&mut self.out),
        };
        let shape = LaunchShape {
            grid: ChaseKernel::GRID,
            threads: ChaseKernel::THREADS,
            dyn_smem: 0,
        };
        // SAFETY: the chase entry, one thread: `next` is a ring of n indices below n whose hops
        // land on slot starts (index 0 is one), `out` holds OUT_WORDS u64.
        unsafe { l.launch(kernel, shape, &params) }
    }

    /// The last chase's figures (its stream synchronized) and their check.
    fn result(&self, gpu: &Gpu, steps: u32) -> Result<(ChaseResult, Check), CudaError> {
        let got = gpu.download(&self.out)?;
        let mut words = [0u64; ChaseKernel::OUT_WORDS];
        words.copy_from_slice(&got); // `out` was allocated with OUT_WORDS words
        let measured = ChaseKernel::result(words);
        let predicted = chase_end(&self.next, 0, u64::from(steps));
        Ok((measured, check_chase(measured.end, predicted, steps)))
    }
}

/// The unloaded latency: a short chase first warms the code and the TLB's first pages, then
/// `steps` hops alone on the GPU.
pub fn measure_latency(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    ring: &mut Ring,
    steps: u32,
) -> Result<Latency, CudaError> {
    for s in [1000, steps] {
        ring.launch(gpu, kernel, s, None)?;
    }
    gpu.synchronize()?;
    let (measured, check) = ring.result(gpu, steps)?;
    Ok(Latency::new(steps, ring.bytes(), measured, check))
}

/// The memcpy grid point of a background.
fn background_point(shape: (u32, u32, u32)) -> Option<&'static MemcpyPoint> {
    MEMCPY_GRID
        .iter()
        .find(|p| (p.threads, p.loads, p.width) == shape)
}

/// The loaded-latency curve: the chase alone, then under each of [`BACKGROUNDS`]. Each background
/// copy is timed once alone to size the run; then `k` copies are enqueued on the GPU's stream
/// with the chase on a side stream after the first, `k` chosen so the copies outlast the chase
/// ([`COVER`]). The background's GB/s is the `k` copies' over their events; the chase's ns per
/// hop its own. A point is on the curve when its chase ends where the CPU's walk does, the
/// copies cover it, and the last copy checks exactly.
pub fn measure_loaded(
    gpu: &Gpu,
    (chase, copies): (&Kernel<'_>, &Module),
    ring: &mut Ring,
    buffers: &mut CopyBuffers,
    steps: u32,
    unloaded_ns: f64,
) -> Result<LoadedLatency, ExperimentError> {
    let side = SideStream::new(gpu)?;
    let mut points = Vec::new();
    // Idle: the chase alone, on the same stream and at the same length as the loaded ones.
    ring.launch(gpu, chase, steps, Some(&side))?;
    side.synchronize()?;
    let (idle, check) = ring.result(gpu, steps)?;
    points.push(LoadedPoint {
        background: "none".into(),
        background_gbps: 0.0,
        ns_per_hop: idle.nanos as f64 / f64::from(steps),
        covered: true,
        check,
    });
    for (threads, loads, width, blocks) in BACKGROUNDS {
        let Some(point) = background_point((threads, loads, width)) else {
            continue;
        };
        let entry = point.entry;
        let kernel = copies.kernel(entry).in_variant(entry)?;
        let held = buffers
            .hold(gpu, &kernel, CopyKernel::Registers(point), blocks)
            .in_variant(entry)?;
        // One copy alone (after a warm-up) sizes the loaded run.
        let (start, end) = (gpu.event()?, gpu.event()?);
        buffers.launch(gpu, &held)?;
        gpu.record(&start)?;
        buffers.launch(gpu, &held)?;
        gpu.record(&end)?;
        gpu.synchronize()?;
        let one_ms = elapsed_ms(&start, &end)?.max(1e-3);
        let k = copies_to_cover(steps, unloaded_ns, one_ms);
        gpu.record(&start)?;
        buffers.launch(gpu, &held)?;
        ring.launch(gpu, chase, steps, Some(&side))?;
        for _ in 1..k {
            buffers.launch(gpu, &held)?;
        }
        gpu.record(&end)?;
        side.synchronize()?;
        gpu.synchronize()?;
        let window_ms = elapsed_ms(&start, &end)?;
        let (measured, mut check) = ring.result(gpu, steps)?;
        let copy_check = buffers.check_and_clear(gpu, width)?;
        if !copy_check.passed {
            check.passed = false;
            check.what = format!("{}; background copy: {}", check.what, copy_check.what);
        }
        points.push(LoadedPoint {
            background: format!("{entry} at {blocks} blocks/SM, x{k}"),
            background_gbps: copy_gbps(buffers.bytes(), window_ms / f64::from(k)),
            ns_per_hop: measured.nanos as f64 / f64::from(steps),
            covered: (measured.nanos as f64) * 1e-6 <= window_ms,
            check,
        });
    }
    Ok(LoadedLatency::new(points))
}

/// Milliseconds between two recorded events.
pub(super) fn elapsed_ms(start: &CudaEvent, end: &CudaEvent) -> Result<f64, CudaError> {
    start
        .elapsed_ms(end)
        .map(f64::from)
        .map_err(|source| CudaError::Driver {
            what: "reading a copy's events".into(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copies_outlast_the_slowest_chase() {
        // 8192 hops at 8 us (the floor over 8 x 350 ns) = 65.5 ms, x1.5 = 98.3 ms of 0.067 ms
        // copies: 1468 of them.
        assert_eq!(copies_to_cover(8192, 350.0, 0.067), 1468);
        // A slow unloaded latency raises the bound: 8 x 2000 ns = 16 us a hop.
        assert_eq!(copies_to_cover(1000, 2000.0, 1.0), 24);
        // Long copies: never fewer than two; absurdly short ones: capped.
        assert_eq!(copies_to_cover(10, 350.0, 100.0), 2);
        assert_eq!(copies_to_cover(1 << 20, 350.0, 0.0), 20_000);
    }

    #[test]
    fn every_background_is_a_grid_point_with_room_for_the_chase() {
        for (threads, loads, width, blocks) in BACKGROUNDS {
            let shape = (threads, loads, width);
            assert!(background_point(shape).is_some(), "{shape:?}");
            assert!(threads / 32 * blocks <= 32, "{threads} x {blocks}");
        }
    }
}
