//! The copy kernel family on the host: its parameter list, buffers, the launch held at a
//! number of resident blocks per SM, the timing and the exact check. The bandwidth experiment
//! runs its variants, the bytes-in-flight experiment its grid, the copies whose bytes in
//! flight live in shared memory (the table's `smem_copy` lines, same parameters, a persistent
//! grid) and the persistent register-held copies (the `persistent_copy` lines, same parameters).

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::{
    MemcpyParams, MemcpyPoint, PersistentCopyLine, PersistentCopyParams, SmemCopyLine,
    SmemCopyParams,
};

use super::error::ExperimentError;
use super::inputs::random_floats;
use super::measurement::{Measurement, Peak};
use super::residency::{hold_at_blocks, residency_of};
use super::verify::check_copy;
use crate::cuda::{CudaError, Gpu, HostBuffer, Kernel, Launch, LaunchShape};
use crate::results::{Check, Timing};
use crate::sampling::{time_launches, time_sides, SamplingConfig, Side};

/// Largest grid x dimension.
pub const MAX_GRID_X: u64 = (1 << 31) - 1;

/// Refuses a copy whose source and destination of `bytes` each do not fit in the device's
/// memory, naming the largest that would.
pub fn check_fits(gpu: &Gpu, bytes: u64) -> Result<(), ExperimentError> {
    let total = gpu.info().total_mem_bytes;
    if bytes.saturating_mul(2) > total {
        return Err(ExperimentError::CopyTooLarge {
            mib: bytes >> 20,
            have_mib: total >> 20,
            max_mib: ((total / 2) >> 20).saturating_sub(256),
        });
    }
    Ok(())
}

/// GB/s (1e9 bytes) for `bytes` read and as many written in `ms`.
pub fn copy_gbps(bytes: u64, ms: f64) -> f64 {
    2.0 * bytes as f64 / (ms * 1e-3) / 1e9
}

/// A copy kernel of the variant table: a memcpy grid point (bytes in flight in registers, one
/// block per slice of the copy), an `smem_copy` line (bytes in flight in shared memory, one
/// wave of blocks that loops over the copy) or a `persistent_copy` line (bytes in flight in
/// registers, one wave of blocks that loops over the copy).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKernel<'a> {
    Registers(&'a MemcpyPoint),
    Shared(&'a SmemCopyLine),
    Persistent(&'a PersistentCopyLine),
}

impl CopyKernel<'_> {
    pub fn entry(&self) -> &'static str {
        match self {
            CopyKernel::Registers(p) => p.entry,
            CopyKernel::Shared(l) => l.entry,
            CopyKernel::Persistent(l) => l.entry,
        }
    }
    pub fn threads(&self) -> u32 {
        match self {
            CopyKernel::Registers(p) => p.threads,
            CopyKernel::Shared(l) => l.threads,
            CopyKernel::Persistent(l) => l.threads,
        }
    }
    /// Floats per access: what the exact check counts a whole vector as.
    pub fn width(&self) -> u32 {
        match self {
            CopyKernel::Registers(p) => p.width,
            CopyKernel::Shared(_) => 4,
            CopyKernel::Persistent(l) => l.width,
        }
    }
    /// Blocks a launch over `floats` takes at `blocks_per_sm` on `sms` SMs.
    pub fn grid(&self, floats: u64, blocks_per_sm: u32, sms: u32) -> u64 {
        match self {
            CopyKernel::Registers(p) => p.grid(floats),
            CopyKernel::Shared(_) => u64::from(blocks_per_sm) * u64::from(sms),
            CopyKernel::Persistent(l) => l.grid(blocks_per_sm, sms),
        }
    }
}

/// Source and destination of one copy problem, with the source on the host for the check.
pub struct CopyBuffers {
    src_host: Vec<f32>,
    src: CudaSlice<f32>,
    dst: CudaSlice<f32>,
    /// Where the destination is downloaded to be checked, allocated once.
    dst_host: HostBuffer<f32>,
}

impl CopyBuffers {
    /// Random source floats (seeded) and a zeroed destination, `floats` each.
    pub fn new(gpu: &Gpu, floats: usize, seed: u64) -> Result<Self, CudaError> {
        let src_host = random_floats(floats, seed);
        Ok(Self {
            src: gpu.upload(&src_host)?,
            dst: gpu.zeros(floats)?,
            dst_host: gpu.host_buffer(floats)?,
            src_host,
        })
    }

    /// Bytes of the source (and of the destination).
    pub fn bytes(&self) -> u64 {
        self.src_host.len() as u64 * 4
    }

    /// The source, on the device and on the host (the read-only kernels read it too).
    pub fn source(&self) -> (&CudaSlice<f32>, &[f32]) {
        (&self.src, &self.src_host)
    }

    /// Times the device-to-device copy (`cuMemcpyDtoD`) of the same buffers.
    pub fn time_reference(
        &mut self,
        gpu: &Gpu,
        plan: &SamplingConfig,
    ) -> Result<Timing, CudaError> {
        time_launches(gpu, plan, || gpu.copy_device(&self.src, &mut self.dst))
    }

    /// Enqueues one copy with `held`'s kernel in the variant table's shape.
    pub fn launch(&mut self, gpu: &Gpu, held: &Held<'_, '_>) -> Result<(), CudaError> {
        let shape = LaunchShape {
            grid: (held.grid, 1),
            threads: held.point.threads(),
            dyn_smem: held.dyn_smem,
        };
        let n = self.src_host.len() as u64;
        let mut l = Launch::new(gpu);
        let (src, dst) = (l.input(&self.src), l.output(&mut self.dst));
        match held.point {
            CopyKernel::Registers(_) => {
                let params = MemcpyParams { src, dst, n };
                // SAFETY: both buffers hold n floats (allocations are 256-byte aligned, as the
                // vector loads need) and the grid is the variant table's ceil(n / floats per
                // block).
                unsafe { l.launch(held.kernel, shape, &params) }
            }
            CopyKernel::Shared(_) => {
                let params = SmemCopyParams { src, dst, n };
                // SAFETY: both buffers hold n floats, 256-byte aligned; `hold` gave the block at
                // least its rings' shared memory; the kernel loops over the copy whatever the
                // grid.
                unsafe { l.launch(held.kernel, shape, &params) }
            }
            CopyKernel::Persistent(_) => {
                let params = PersistentCopyParams { src, dst, n };
                // SAFETY: both buffers hold n floats, 256-byte aligned (as the vector loads
                // need); the kernel loops over the copy whatever the grid.
                unsafe { l.launch(held.kernel, shape, &params) }
            }
        }
    }

    /// Times `kernel`, and `other` with it when there is one (samples interleaved), each held
    /// at `blocks_per_sm` resident blocks by its own dynamic shared memory, then checks one copy
    /// of each. Gives each side's figures and our dynamic shared memory.
    pub fn measure(
        &mut self,
        gpu: &Gpu,
        (kernel, other): (&Kernel<'_>, Option<&Kernel<'_>>),
        point: CopyKernel<'_>,
        blocks_per_sm: u32,
        plan: &SamplingConfig,
    ) -> Result<(Measurement, Option<Measurement>, u32), ExperimentError> {
        let hold = |kernel| self.hold(gpu, kernel, point, blocks_per_sm);
        let ours = hold(kernel)?;
        let theirs = other.map(hold).transpose()?;
        let (timing, compared) =
            time_sides(gpu, plan, theirs.is_some(), |side| match (side, &theirs) {
                (Side::Theirs, Some(t)) => self.launch(gpu, t),
                _ => self.launch(gpu, &ours),
            })?;
        let mine = self.finish(gpu, &ours, timing)?;
        let compared = match (theirs, compared) {
            (Some(t), Some(timing)) => Some(self.finish(gpu, &t, timing)?),
            _ => None,
        };
        Ok((mine, compared, ours.dyn_smem))
    }

    /// `kernel` of `point`, held at `blocks_per_sm` by its dynamic shared memory, over these
    /// buffers: what [`CopyBuffers::launch`] enqueues.
    pub fn hold<'a, 'k>(
        &self,
        gpu: &Gpu,
        kernel: &'a Kernel<'k>,
        point: CopyKernel<'a>,
        blocks_per_sm: u32,
    ) -> Result<Held<'a, 'k>, ExperimentError> {
        let floats = self.src_host.len() as u64;
        let blocks = point.grid(floats, blocks_per_sm, gpu.info().sm_count);
        if blocks > MAX_GRID_X {
            return Err(ExperimentError::GridTooLarge {
                entry: point.entry().to_owned(),
                blocks,
                floats,
            });
        }
        let mut dyn_smem = hold_at_blocks(kernel, point.threads(), blocks_per_sm, gpu.limits())?;
        if let CopyKernel::Shared(line) = point {
            // The least that holds the residency may be less than the rings: a block then takes
            // its rings' size, if the driver still keeps exactly as many blocks with it.
            let need = line.shared_bytes();
            if dyn_smem < need {
                if kernel.max_active_blocks(line.threads, need)? != blocks_per_sm {
                    return Err(ExperimentError::RingTooLarge {
                        entry: line.entry.to_owned(),
                        blocks_per_sm,
                        need,
                        held: dyn_smem,
                    });
                }
                dyn_smem = need;
            }
        }
        Ok(Held {
            kernel,
            point,
            grid: blocks as u32,
            dyn_smem,
        })
    }

    /// Zeroes the destination (before a copy checked on its own, e.g. a sampled launch after
    /// the timed ones left theirs there).
    pub fn clear(&mut self, gpu: &Gpu) -> Result<(), CudaError> {
        gpu.clear(&mut self.dst)
    }

    /// Checks the destination against the source, exactly (after the caller's copies have
    /// finished), then clears it for the next copy.
    pub fn check_and_clear(&mut self, gpu: &Gpu, width: u32) -> Result<Check, CudaError> {
        gpu.synchronize()?;
        let dst_host = gpu.download_into(&self.dst, &mut self.dst_host)?;
        let check = check_copy(&self.src_host, dst_host, width);
        gpu.clear(&mut self.dst)?;
        Ok(check)
    }

    /// `held`'s figures from its `timing`: residency, GB/s and the check of one fresh copy.
    fn finish(
        &mut self,
        gpu: &Gpu,
        held: &Held<'_, '_>,
        timing: Timing,
    ) -> Result<Measurement, ExperimentError> {
        let resident = residency_of(gpu, held.kernel, held.point.threads(), held.dyn_smem)?;
        gpu.clear(&mut self.dst)?;
        self.launch(gpu, held)?;
        gpu.synchronize()?;
        let dst_host = gpu.download_into(&self.dst, &mut self.dst_host)?;
        let check = check_copy(&self.src_host, dst_host, held.point.width());
        let throughput = copy_gbps(self.bytes(), timing.median_ms);
        let peak = Peak::dram(gpu.info());
        Ok(Measurement::new(resident, timing, throughput, check, peak))
    }
}

/// A kernel held at its residency: its point of the grid, its grid and the dynamic shared
/// memory that holds it there.
pub struct Held<'a, 'k> {
    kernel: &'a Kernel<'k>,
    point: CopyKernel<'a>,
    grid: u32,
    dyn_smem: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvcc_style_parameter_lists_are_accepted() {
        use crate::kernel_source::ptx_params::{
            ptx_accepts,
            ParamClass::{Bits64, Pointer},
        };
        // nvcc declares pointers as plain `.u64`; rustc marks them `.ptr`.
        let accepts = |params: &[_]| ptx_accepts(params, MemcpyParams::PARAMS);
        assert!(accepts(&[Pointer, Pointer, Bits64]));
        assert!(accepts(&[Bits64, Bits64, Bits64]));
        assert!(!accepts(&[Pointer, Bits64]));
        assert!(!accepts(&[Pointer, Pointer, Pointer]));
    }

    #[test]
    fn a_persistent_copy_launches_one_wave_whatever_the_copy() {
        use kernels_gpu::variants::PERSISTENT_COPY;
        let line = &PERSISTENT_COPY[0];
        let k = CopyKernel::Persistent(line);
        for floats in [1u64, 1 << 20, 1 << 30] {
            assert_eq!(k.grid(floats, 2, 132), 264);
        }
        assert_eq!(
            (k.entry(), k.threads(), k.width()),
            (line.entry, line.threads, line.width)
        );
        assert_eq!(PersistentCopyParams::PARAMS, MemcpyParams::PARAMS);
    }

    #[test]
    fn gbps_counts_read_and_written_bytes() {
        // 1 GiB each way in 1 ms: 2 * 1.073741824 GB / 1e-3 s.
        assert!((copy_gbps(1 << 30, 1.0) - 2147.483648).abs() < 1e-9);
    }
}
