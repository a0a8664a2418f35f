//! Experiment 2, bandwidth vs occupancy: strided copies that trade threads for bytes in flight
//! per thread, every variant held at 2 blocks/SM by dynamic shared memory, against the
//! device-to-device copy (`cuMemcpyDtoD`) of the same buffer timed the same way.

use std::ffi::c_void;

use cudarc::driver::CudaSlice;
use kernels_gpu::variants::MemcpyVariant;

use super::inputs::random_floats;
use super::module_source::load;
use super::residency::hold_at_two_blocks;
use super::verify::check_copy;
use super::{comparison, progress_bar, residency_of, ExperimentError, Measured, Options};
use crate::cuda::{CudaError, Gpu, Kernel};
use crate::results::{Bandwidth, CopyRow, Timing};
use crate::timing::{time_launches, time_sides, Side, TimingPlan};

/// Largest grid x dimension.
const MAX_GRID_X: u64 = (1 << 31) - 1;

/// GB/s (1e9 bytes) for `bytes` read and as many written in `ms`.
pub fn copy_gbps(bytes: u64, ms: f64) -> f64 {
    2.0 * bytes as f64 / (ms * 1e-3) / 1e9
}

struct CopyBuffers {
    src_host: Vec<f32>,
    src: CudaSlice<f32>,
    dst: CudaSlice<f32>,
}

impl CopyBuffers {
    fn bytes(&self) -> u64 {
        self.src_host.len() as u64 * 4
    }

    fn launch(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        variant: &MemcpyVariant,
        grid: u32,
        dyn_smem: u32,
    ) -> Result<(), CudaError> {
        let mut src = gpu.address(&self.src);
        let mut dst = gpu.address_mut(&mut self.dst);
        let mut n = self.src_host.len() as u64;
        let mut params: [*mut c_void; 3] = [
            (&raw mut src).cast(),
            (&raw mut dst).cast(),
            (&raw mut n).cast(),
        ];
        // SAFETY: the entry ABI is memcpy(src, dst: pointers, n: u64 floats); both buffers hold
        // n floats (allocations are 256-byte aligned) and the grid is ceil(n / floats per block)
        // blocks of `threads`, the launch contract of every memcpy_t*_l*_w* entry.
        unsafe { kernel.launch(gpu, (grid, 1), variant.threads, dyn_smem, &mut params) }
    }

    /// Times `kernel`, and `other` with it when there is one (samples interleaved), each held
    /// at 2 blocks/SM by its own dynamic shared memory, then checks one copy of each. Gives each
    /// side's figures and our dynamic shared memory.
    fn measure(
        &mut self,
        gpu: &Gpu,
        kernel: &Kernel<'_>,
        other: Option<&Kernel<'_>>,
        variant: &MemcpyVariant,
        plan: TimingPlan,
    ) -> Result<(Measured, Option<Measured>, u32), ExperimentError> {
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
        let smem_limits = gpu.smem_limits();
        let dyn_smem = hold_at_two_blocks(kernel, variant.threads, smem_limits)?;
        let other = other
            .map(|k| {
                Ok::<_, ExperimentError>((k, hold_at_two_blocks(k, variant.threads, smem_limits)?))
            })
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
        variant: &MemcpyVariant,
        grid: u32,
        dyn_smem: u32,
        timing: Timing,
    ) -> Result<Measured, ExperimentError> {
        let resident = residency_of(gpu, kernel, variant.threads, dyn_smem)?;
        gpu.clear(&mut self.dst)?;
        self.launch(gpu, kernel, variant, grid, dyn_smem)?;
        gpu.synchronize()?;
        let dst_host = gpu.download(&self.dst)?;
        let check = check_copy(&self.src_host, &dst_host, variant.width);
        let throughput = copy_gbps(self.bytes(), timing.median_ms);
        Ok(Measured::new(
            resident,
            timing,
            throughput,
            check,
            gpu.info().peak_dram_gbps,
            "GB/s",
            "DRAM",
        ))
    }
}

/// Runs experiment 2 with `opts.kernels`, and `opts.compare` timed with it per variant.
pub fn run(gpu: &Gpu, opts: &Options) -> Result<Bandwidth, ExperimentError> {
    let total = gpu.info().total_mem_bytes;
    if opts.copy_bytes.saturating_mul(2) > total {
        return Err(ExperimentError::CopyTooLarge {
            mib: opts.copy_bytes >> 20,
            have_mib: total >> 20,
            max_mib: ((total / 2) >> 20).saturating_sub(256),
        });
    }
    let ours = load(gpu, &opts.kernels)?;
    let theirs = opts.compare.as_ref().map(|k| load(gpu, k)).transpose()?;
    let floats = (opts.copy_bytes / 4) as usize;
    let src_host = random_floats(floats, opts.seed.wrapping_add(10));
    let mut buffers = CopyBuffers {
        src: gpu.upload(&src_host)?,
        dst: gpu.zeros(floats)?,
        src_host,
    };
    let bar = progress_bar(opts, opts.copy_variants.len() + 1, "bandwidth");
    bar.set_message("cuMemcpyDtoD");
    let reference_timing = time_launches(gpu, opts.timing, || {
        gpu.copy_device(&buffers.src, &mut buffers.dst)
    })?;
    let reference_gbps = copy_gbps(buffers.bytes(), reference_timing.median_ms);
    bar.inc(1);
    let mut rows = Vec::with_capacity(opts.copy_variants.len());
    for variant in &opts.copy_variants {
        bar.set_message(variant.label);
        let (kernel, other) = ours.entry_pair(theirs.as_ref(), variant.entry)?;
        let (measured, compared, dyn_smem) =
            buffers.measure(gpu, &kernel, other.as_ref(), variant, opts.timing)?;
        let mut flags = measured.flags.clone();
        let compare = comparison(&measured, compared.map(|m| (m, None, None)), &mut flags);
        rows.push(CopyRow {
            variant: variant.label.to_owned(),
            threads: variant.threads,
            loads: variant.loads,
            width: variant.width,
            bytes_per_thread: variant.bytes_per_thread(),
            regs: measured.regs,
            dyn_smem_bytes: dyn_smem,
            blocks_per_sm: measured.blocks_per_sm,
            occupancy: measured.occupancy,
            limiter: measured.limiter,
            timing: measured.timing,
            gbps: measured.throughput,
            fraction_of_reference: measured.throughput / reference_gbps,
            check: measured.check,
            flags,
            compare,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(Bandwidth {
        reference_gbps,
        reference_timing,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gbps_counts_read_and_written_bytes() {
        // 1 GiB each way in 1 ms: 2 * 1.073741824 GB / 1e-3 s.
        assert!((copy_gbps(1 << 30, 1.0) - 2147.483648).abs() < 1e-9);
    }
}
