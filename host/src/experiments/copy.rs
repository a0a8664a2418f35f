//! The copy kernel family on the host: its parameter list, buffers, the launch held at a
//! number of resident blocks per SM, the timing and the exact check. The bandwidth experiment
//! runs its variants, the bytes-in-flight experiment its grid.

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::{MemcpyParams, MemcpyPoint};

use super::error::ExperimentError;
use super::inputs::random_floats;
use super::measurement::{Measurement, Peak};
use super::residency::{hold_at_blocks, residency_of};
use super::verify::check_copy;
use crate::cuda::{CudaError, Gpu, Kernel, Launch, LaunchShape};
use crate::results::Timing;
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

/// Source and destination of one copy problem, with the source on the host for the check.
pub struct CopyBuffers {
    src_host: Vec<f32>,
    src: CudaSlice<f32>,
    dst: CudaSlice<f32>,
}

impl CopyBuffers {
    /// Random source floats (seeded) and a zeroed destination, `floats` each.
    pub fn new(gpu: &Gpu, floats: usize, seed: u64) -> Result<Self, CudaError> {
        let src_host = random_floats(floats, seed);
        Ok(Self {
            src: gpu.upload(&src_host)?,
            dst: gpu.zeros(floats)?,
            src_host,
        })
    }

    /// Bytes of the source (and of the destination).
    pub fn bytes(&self) -> u64 {
        self.src_host.len() as u64 * 4
    }

    /// Times the device-to-device copy (`cuMemcpyDtoD`) of the same buffers.
    pub fn time_reference(
        &mut self,
        gpu: &Gpu,
        plan: &SamplingConfig,
    ) -> Result<Timing, CudaError> {
        time_launches(gpu, plan, || gpu.copy_device(&self.src, &mut self.dst))
    }

    /// Enqueues one copy with `kernel` in the variant table's shape.
    fn launch(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        variant: &MemcpyPoint,
        grid: u32,
        dyn_smem: u32,
    ) -> Result<(), CudaError> {
        let shape = LaunchShape {
            grid: (grid, 1),
            threads: variant.threads,
            dyn_smem,
        };
        let n = self.src_host.len() as u64;
        let mut l = Launch::new(gpu);
        let params = MemcpyParams {
            src: l.input(&self.src),
            dst: l.output(&mut self.dst),
            n,
        };
        // SAFETY: both buffers hold n floats (allocations are 256-byte aligned, as the vector
        // loads need) and the grid is the variant table's ceil(n / floats per block).
        unsafe { l.launch(kernel, shape, &params) }
    }

    /// Times `kernel`, and `other` with it when there is one (samples interleaved), each held
    /// at `blocks_per_sm` resident blocks by its own dynamic shared memory, then checks one copy
    /// of each. Gives each side's figures and our dynamic shared memory.
    pub fn measure(
        &mut self,
        gpu: &Gpu,
        (kernel, other): (&Kernel<'_>, Option<&Kernel<'_>>),
        variant: &MemcpyPoint,
        blocks_per_sm: u32,
        plan: &SamplingConfig,
    ) -> Result<(Measurement, Option<Measurement>, u32), ExperimentError> {
        let floats = self.src_host.len() as u64;
        let blocks = variant.grid(floats);
        if blocks > MAX_GRID_X {
            return Err(ExperimentError::GridTooLarge {
                entry: variant.entry.to_owned(),
                blocks,
                floats,
            });
        }
        let grid = blocks as u32;
        let limits = gpu.limits();
        let hold = |k: &Kernel<'_>| hold_at_blocks(k, variant.threads, blocks_per_sm, limits);
        let dyn_smem = hold(kernel)?;
        let other = other
            .map(|k| Ok::<_, ExperimentError>((k, hold(k)?)))
            .transpose()?;
        let (ours, theirs) = time_sides(gpu, plan, other.is_some(), |side| match (side, other) {
            (Side::Theirs, Some((k, smem))) => self.launch(gpu, k, variant, grid, smem),
            _ => self.launch(gpu, kernel, variant, grid, dyn_smem),
        })?;
        let ours = self.finish(gpu, kernel, variant, grid, dyn_smem, ours)?;
        let theirs = match (other, theirs) {
            (Some((k, smem)), Some(t)) => Some(self.finish(gpu, k, variant, grid, smem, t)?),
            _ => None,
        };
        Ok((ours, theirs, dyn_smem))
    }

    /// `kernel`'s figures from its `timing`: residency, GB/s and the check of one fresh copy.
    fn finish(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        variant: &MemcpyPoint,
        grid: u32,
        dyn_smem: u32,
        timing: Timing,
    ) -> Result<Measurement, ExperimentError> {
        let resident = residency_of(gpu, kernel, variant.threads, dyn_smem)?;
        gpu.clear(&mut self.dst)?;
        self.launch(gpu, kernel, variant, grid, dyn_smem)?;
        gpu.synchronize()?;
        let dst_host = gpu.download(&self.dst)?;
        let check = check_copy(&self.src_host, &dst_host, variant.width);
        let throughput = copy_gbps(self.bytes(), timing.median_ms);
        let peak = Peak::dram(gpu.info());
        Ok(Measurement::new(resident, timing, throughput, check, peak))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvcc_style_parameter_lists_are_accepted() {
        use crate::cuda::ParamClass::{Bits64, Pointer};
        // nvcc declares pointers as plain `.u64`; rustc marks them `.ptr`.
        assert!(crate::cuda::ptx_accepts(
            &[Pointer, Pointer, Bits64],
            MemcpyParams::PARAMS
        ));
        assert!(crate::cuda::ptx_accepts(
            &[Bits64, Bits64, Bits64],
            MemcpyParams::PARAMS
        ));
        assert!(!crate::cuda::ptx_accepts(
            &[Pointer, Bits64],
            MemcpyParams::PARAMS
        ));
        assert!(!crate::cuda::ptx_accepts(
            &[Pointer, Pointer, Pointer],
            MemcpyParams::PARAMS
        ));
    }

    #[test]
    fn gbps_counts_read_and_written_bytes() {
        // 1 GiB each way in 1 ms: 2 * 1.073741824 GB / 1e-3 s.
        assert!((copy_gbps(1 << 30, 1.0) - 2147.483648).abs() < 1e-9);
    }
}
