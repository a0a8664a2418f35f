//! A kernel's residency: how many blocks the driver keeps on an SM, the theoretical occupancy and
//! what limits it, by the occupancy calculator checked against the driver; and holding a kernel
//! at a fixed number of resident blocks per SM with dynamic shared memory (the blog holds its
//! copies at 2 blocks/SM with 48 KB per block; the size that does that depends on the SM's shared
//! memory, so the occupancy calculator computes it for the GPU at hand and the driver confirms
//! it).

use super::error::{ExperimentError, ResidencyError};
use crate::cuda::{Gpu, Kernel};
use crate::occupancy::{
    dyn_smem_for_blocks, limiter_names, occupancy, warp_occupancy, KernelResources, Limits,
};

/// Resident blocks per SM the bandwidth experiment holds every variant at.
pub const BLOCKS_PER_SM: u32 = 2;

/// Finds the dynamic shared memory that the occupancy API confirms gives exactly `blocks`
/// blocks for `kernel` at `threads`, starting from the calculator's answer
/// ([`dyn_smem_for_blocks`]) and stepping up by the allocation unit while the driver still allows
/// more blocks. Leaves the kernel allowed to use that much dynamic shared memory.
pub fn hold_at_blocks(
    kernel: &Kernel<'_>,
    threads: u32,
    blocks: u32,
    limits: &Limits,
) -> Result<u32, ResidencyError> {
    let static_smem = kernel.static_smem_bytes()?;
    let entry = kernel.entry();
    let mut dynamic = dyn_smem_for_blocks(limits, static_smem, blocks).map_err(|source| {
        ResidencyError::Calculator {
            entry: entry.to_owned(),
            source,
        }
    })?;
    let ceiling = limits.smem_per_block_optin.saturating_sub(static_smem);
    kernel.set_max_dynamic_smem(ceiling)?;
    loop {
        let got = kernel.max_active_blocks(threads, dynamic)?;
        if got == blocks {
            return Ok(dynamic);
        }
        let next = dynamic.saturating_add(limits.smem_alloc_unit.max(1));
        if got < blocks || next > ceiling {
            return Err(ResidencyError::DriverDisagrees {
                entry: entry.to_owned(),
                threads,
                dyn_smem: dynamic,
                got,
                blocks,
                hint: if got < blocks {
                    " (threads or registers per SM already allow fewer on this device)"
                } else {
                    ""
                },
            });
        }
        dynamic = next;
    }
}

/// Residency of a kernel as the driver computes it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Resident {
    pub regs: u32,
    pub blocks_per_sm: u32,
    /// Resident warps / the SM's maximum warps.
    pub occupancy: f64,
    /// What limits the resident blocks, by the occupancy calculator.
    pub limiter: String,
    /// The calculator's blocks/SM differ from the driver's.
    pub disagreement: Option<String>,
}

/// Registers from the loaded function's attribute; blocks per SM from
/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`; theoretical occupancy in warps; the limiter
/// from the occupancy calculator on the device's limits, checked against the driver's blocks.
pub(crate) fn residency_of(
    gpu: &Gpu,
    kernel: &Kernel<'_>,
    threads: u32,
    dyn_smem: u32,
) -> Result<Resident, ExperimentError> {
    let module = kernel.module().name().to_owned();
    let max = kernel.max_threads_per_block()?;
    if threads > max {
        return Err(ExperimentError::BlockTooLarge {
            entry: kernel.entry().to_owned(),
            module,
            max,
            threads,
        });
    }
    let regs = kernel.num_regs()?;
    let blocks_per_sm = kernel.max_active_blocks(threads, dyn_smem)?;
    if blocks_per_sm == 0 {
        return Err(ExperimentError::NoResidency {
            entry: kernel.entry().to_owned(),
            module,
            threads,
            regs,
            dyn_smem,
        });
    }
    let resources = KernelResources {
        threads,
        regs_per_thread: regs,
        static_smem: kernel.static_smem_bytes()?,
        dyn_smem,
    };
    let (limiter, disagreement) = calculator_limiter(gpu.limits(), &resources, blocks_per_sm);
    Ok(Resident {
        regs,
        blocks_per_sm,
        occupancy: warp_occupancy(gpu.limits(), blocks_per_sm, threads),
        limiter,
        disagreement,
    })
}

/// The Limiter cell for a kernel by the occupancy calculator (the binding resources, e.g.
/// "registers" or "registers + warps"), and a flag when the calculator's blocks/SM differ from
/// `driver_blocks`, the driver's `cuOccupancyMaxActiveBlocksPerMultiprocessor` for the same
/// launch. A kernel the calculator says cannot launch at all gets "?" and a flag saying why.
pub fn calculator_limiter(
    limits: &Limits,
    kernel: &KernelResources,
    driver_blocks: u32,
) -> (String, Option<String>) {
    match occupancy(limits, kernel) {
        Ok(o) if o.blocks_per_sm == driver_blocks => (limiter_names(&o.binding), None),
        Ok(o) => (
            limiter_names(&o.binding),
            Some(format!(
                "calculator says {} blocks/SM, driver says {driver_blocks}",
                o.blocks_per_sm
            )),
        ),
        Err(e) => (
            "?".to_owned(),
            Some(format!(
                "calculator says 0 blocks/SM ({e}), driver says {driver_blocks}"
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gemm(threads: u32, regs: u32) -> KernelResources {
        KernelResources {
            threads,
            regs_per_thread: regs,
            static_smem: kernels_gpu::variants::GemmVariant::SEED_STATIC_SHARED_BYTES,
            dyn_smem: 0,
        }
    }

    #[test]
    fn the_limiter_is_the_calculators_and_a_driver_that_disagrees_is_flagged() {
        let h100 = crate::occupancy::Arch::Sm90.limits();
        let tiny = KernelResources {
            static_smem: 0,
            ..gemm(16, 32)
        };
        let disagrees = Some("calculator says 4 blocks/SM, driver says 3");
        for (kernel, driver_blocks, limiter, flag) in [
            // 256 threads at 64 registers: 16384 registers a block, 4 fill the register file.
            (gemm(256, 64), 4, "registers", None),
            // 1024 threads at 32 registers: warps and registers both allow exactly 2.
            (gemm(1024, 32), 2, "registers + warps", None),
            // 16 threads at 32 registers, no shared memory: the 32-blocks/SM cap binds.
            (tiny, 32, "blocks/SM", None),
            // A driver that disagrees is flagged with both figures; the limiter stays the
            // calculator's.
            (gemm(256, 64), 3, "registers", disagrees),
        ] {
            let got = calculator_limiter(&h100, &kernel, driver_blocks);
            assert_eq!((got.0.as_str(), got.1.as_deref()), (limiter, flag));
        }
        // 1024 threads at 255 registers cannot launch: flagged, not hidden.
        let (limiter, flag) = calculator_limiter(&h100, &gemm(1024, 255), 1);
        assert_eq!(limiter, "?");
        let flag = flag.expect("flagged");
        assert!(
            flag.starts_with("calculator says 0 blocks/SM (") && flag.ends_with("driver says 1"),
            "{flag}"
        );
    }
}
