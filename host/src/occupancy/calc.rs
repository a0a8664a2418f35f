//! The occupancy arithmetic: how many blocks of a kernel fit on one SM, and what stops more.
//!
//! The rules follow `cuda_occupancy.h` (`cudaOccMaxActiveBlocksPerMultiprocessor`), which the
//! driver's `cuOccupancyMaxActiveBlocksPerMultiprocessor` agrees with:
//! - a warp's registers are `regs/thread × 32` rounded up to the allocation unit (256);
//! - the register file is split between the SM's sub-partitions (4) and a warp lives in one, so
//!   the resident warps are `floor(regs per sub-partition / regs per warp) × sub-partitions`;
//! - a block's shared memory is static + reserved + dynamic, rounded up to the allocation unit,
//!   and the SM offers the carveout chosen for the kernel (by default the largest one);
//! - blocks are resident whole, so each resource gives a whole number of blocks and the
//!   smallest of the four limits wins.

use std::fmt;

use serde::Serialize;
use thiserror::Error;

use super::arch::Limits;

/// What a kernel asks of an SM per block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KernelResources {
    /// Threads per block.
    pub threads: u32,
    /// Registers per thread, as ptxas/the JIT reports them.
    pub regs_per_thread: u32,
    /// Static shared memory per block, bytes.
    pub static_smem: u32,
    /// Dynamic shared memory per block, bytes (the launch's `sharedMemBytes`).
    pub dyn_smem: u32,
}

/// The shared memory / L1 split asked for with
/// `CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Carveout {
    /// No preference: the SM's full shared memory counts (what the driver reports by default).
    #[default]
    Default,
    /// Percent (0..=100) of the full shared memory, rounded up to the next supported size; ignored
    /// when one block would not fit in it.
    Percent(u8),
}

/// A resource that caps the number of resident blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Limiter {
    Registers,
    SharedMemory,
    Warps,
    Blocks,
}

impl fmt::Display for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
            Limiter::Warps => "warps",
            Limiter::Blocks => "blocks/SM",
        })
    }
}

/// Joins limiters for a table cell: "registers + shared memory".
pub fn limiter_names(limiters: &[Limiter]) -> String {
    limiters
        .iter()
        .map(Limiter::to_string)
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Blocks per SM allowed by each resource on its own (Nsight Compute's "Block Limit" rows).
/// `u32::MAX` means the resource does not limit at all (a kernel using no registers or, before
/// sm_80, no shared memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BlockLimits {
    pub registers: u32,
    pub shared_memory: u32,
    pub warps: u32,
    pub blocks: u32,
}

impl BlockLimits {
    /// The limit of one resource.
    pub fn of(&self, limiter: Limiter) -> u32 {
        match limiter {
            Limiter::Registers => self.registers,
            Limiter::SharedMemory => self.shared_memory,
            Limiter::Warps => self.warps,
            Limiter::Blocks => self.blocks,
        }
    }
}

/// The result for one kernel configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Occupancy {
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    pub max_warps_per_sm: u32,
    /// Resident warps / the SM's maximum, 0..=1.
    pub occupancy: f64,
    pub block_limits: BlockLimits,
    /// The resources whose limit equals the result (ties name several).
    pub binding: Vec<Limiter>,
    /// Registers charged per warp after rounding.
    pub regs_per_warp: u32,
    /// Shared memory charged per block (static + reserved + dynamic, rounded), bytes.
    pub smem_per_block: u32,
    /// Shared memory the SM was configured with for this kernel, bytes.
    pub smem_config: u32,
}

/// Why a kernel cannot launch at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OccupancyError {
    #[error("a block needs at least one thread")]
    NoThreads,
    #[error("{threads} threads per block is more than the {max} allowed (valid: 1..={max})")]
    TooManyThreads { threads: u32, max: u32 },
    #[error("{regs} registers per thread is more than the {max} allowed (valid: 0..={max})")]
    TooManyRegsPerThread { regs: u32, max: u32 },
    #[error(
        "a block of {threads} threads at {regs} registers/thread needs {needed} registers \
         (warps counted in whole groups of {sub_partitions}), more than the {max} a block may \
         hold; at this block size use at most {max_regs} registers/thread"
    )]
    TooManyRegsPerBlock {
        threads: u32,
        regs: u32,
        needed: u32,
        max: u32,
        sub_partitions: u32,
        max_regs: u32,
    },
    #[error(
        "a block needs {needed} bytes of shared memory ({static_smem} static + {dyn_smem} \
         dynamic + {reserved} reserved, rounded to {unit}), more than the {max} bytes a block \
         may have after opting in (valid: static + dynamic <= {max_user})"
    )]
    TooMuchSharedMemory {
        static_smem: u32,
        dyn_smem: u32,
        reserved: u32,
        unit: u32,
        needed: u64,
        max: u32,
        max_user: u32,
    },
    #[error("carveout {0}% is outside 0..=100")]
    BadCarveout(u8),
}

fn round_up(x: u64, unit: u64) -> u64 {
    x.div_ceil(unit) * unit
}

/// Registers charged per warp for `regs` registers per thread.
pub fn regs_per_warp(limits: &Limits, regs: u32) -> u32 {
    round_up(
        u64::from(regs) * u64::from(limits.warp_size),
        u64::from(limits.reg_alloc_unit),
    ) as u32
}

/// Warps the register file holds at `regs` registers per thread, whatever the block size
/// (capped at the SM's warp limit).
pub fn warps_by_registers(limits: &Limits, regs: u32) -> u32 {
    let per_warp = regs_per_warp(limits, regs);
    if per_warp == 0 {
        return limits.max_warps_per_sm;
    }
    let per_sub = limits.regs_per_sm / limits.sub_partitions;
    ((per_sub / per_warp) * limits.sub_partitions).min(limits.max_warps_per_sm)
}

/// Occupancy with the default carveout, as the driver reports it.
pub fn occupancy(limits: &Limits, kernel: &KernelResources) -> Result<Occupancy, OccupancyError> {
    occupancy_with_carveout(limits, kernel, Carveout::Default)
}

/// Occupancy with an explicit shared memory carveout preference.
pub fn occupancy_with_carveout(
    limits: &Limits,
    kernel: &KernelResources,
    carveout: Carveout,
) -> Result<Occupancy, OccupancyError> {
    let &KernelResources {
        threads,
        regs_per_thread: regs,
        static_smem,
        dyn_smem,
    } = kernel;
    if threads == 0 {
        return Err(OccupancyError::NoThreads);
    }
    if threads > limits.max_threads_per_block {
        return Err(OccupancyError::TooManyThreads {
            threads,
            max: limits.max_threads_per_block,
        });
    }
    if regs > limits.max_regs_per_thread {
        return Err(OccupancyError::TooManyRegsPerThread {
            regs,
            max: limits.max_regs_per_thread,
        });
    }
    let warps_per_block = limits.warps_per_block(threads);

    // Warps.
    let warps = limits.max_warps_per_sm / warps_per_block;

    // Registers. The per-block check counts the block's warps rounded up to whole groups of
    // sub-partitions, as the hardware's launch check does.
    let per_warp = regs_per_warp(limits, regs);
    let counted_warps = warps_per_block.next_multiple_of(limits.sub_partitions);
    let needed = u64::from(per_warp) * u64::from(counted_warps);
    if needed > u64::from(limits.regs_per_block) {
        let max_per_warp = limits.regs_per_block / counted_warps;
        let max_regs =
            (max_per_warp / limits.reg_alloc_unit * limits.reg_alloc_unit) / limits.warp_size;
        return Err(OccupancyError::TooManyRegsPerBlock {
            threads,
            regs,
            needed: needed as u32,
            max: limits.regs_per_block,
            sub_partitions: limits.sub_partitions,
            max_regs: max_regs.min(limits.max_regs_per_thread),
        });
    }
    let per_sub = limits.regs_per_sm / limits.sub_partitions;
    let registers = per_sub
        .checked_div(per_warp)
        .map_or(u32::MAX, |w| w * limits.sub_partitions / warps_per_block);

    // Shared memory.
    let unit = u64::from(limits.smem_alloc_unit);
    let total =
        u64::from(static_smem) + u64::from(dyn_smem) + u64::from(limits.reserved_smem_per_block);
    let smem_block = round_up(total, unit);
    let max_block = limits.smem_per_block_optin + limits.reserved_smem_per_block;
    if smem_block > u64::from(max_block) {
        return Err(OccupancyError::TooMuchSharedMemory {
            static_smem,
            dyn_smem,
            reserved: limits.reserved_smem_per_block,
            unit: limits.smem_alloc_unit,
            needed: smem_block,
            max: max_block,
            max_user: limits.smem_per_block_optin,
        });
    }
    let smem_block = smem_block as u32;
    let smem_config = smem_config(limits, smem_block, carveout)?;
    let shared_memory = smem_config.checked_div(smem_block).unwrap_or(u32::MAX);

    let block_limits = BlockLimits {
        registers,
        shared_memory,
        warps,
        blocks: limits.max_blocks_per_sm,
    };
    let order = [
        Limiter::Registers,
        Limiter::SharedMemory,
        Limiter::Warps,
        Limiter::Blocks,
    ];
    let blocks_per_sm = order.iter().map(|&l| block_limits.of(l)).min().unwrap_or(0);
    let binding = order
        .into_iter()
        .filter(|&l| block_limits.of(l) == blocks_per_sm)
        .collect();
    let warps_per_sm = blocks_per_sm * warps_per_block;
    Ok(Occupancy {
        blocks_per_sm,
        warps_per_sm,
        max_warps_per_sm: limits.max_warps_per_sm,
        occupancy: warp_occupancy(limits, blocks_per_sm, threads),
        block_limits,
        binding,
        regs_per_warp: per_warp,
        smem_per_block: smem_block,
        smem_config,
    })
}

/// The shared memory the SM offers a kernel whose blocks take `smem_block` bytes.
fn smem_config(
    limits: &Limits,
    smem_block: u32,
    carveout: Carveout,
) -> Result<u32, OccupancyError> {
    let preferred = match carveout {
        Carveout::Default => limits.smem_per_sm,
        Carveout::Percent(p) if p > 100 => return Err(OccupancyError::BadCarveout(p)),
        Carveout::Percent(p) => {
            let wanted = (u64::from(p) * u64::from(limits.smem_per_sm) / 100) as u32;
            limits
                .carveout_at_least(wanted)
                .unwrap_or(limits.smem_per_sm)
        }
    };
    if preferred >= smem_block {
        Ok(preferred)
    } else {
        // One block must fit: the driver moves to the smallest carveout that holds it.
        Ok(limits
            .carveout_at_least(smem_block)
            .unwrap_or(limits.smem_per_sm))
    }
}

/// Resident warps over the SM's maximum for `blocks` resident blocks of `threads` threads (a
/// block of 16 threads still takes a whole warp).
pub fn warp_occupancy(limits: &Limits, blocks: u32, threads: u32) -> f64 {
    let warps = u64::from(blocks) * u64::from(limits.warps_per_block(threads));
    warps as f64 / f64::from(limits.max_warps_per_sm.max(1))
}

/// Why no dynamic shared memory holds a kernel at a given number of blocks per SM.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HoldError {
    #[error(
        "no dynamic shared memory gives exactly {blocks} blocks/SM: {static_smem} B static + \
         {reserved} B reserved per block already allow only {max_blocks} block(s) in {per_sm} B \
         per SM"
    )]
    StaticTooLarge {
        blocks: u32,
        static_smem: u32,
        reserved: u32,
        per_sm: u32,
        max_blocks: u64,
    },
    #[error(
        "{needed} B of dynamic shared memory are needed for {blocks} blocks/SM but a block may \
         have at most {optin} B (static {static_smem} B included)"
    )]
    AboveOptIn {
        blocks: u32,
        needed: u64,
        optin: u32,
        static_smem: u32,
    },
}

/// The smallest dynamic shared memory per block such that at most `blocks` blocks fit in an SM's
/// shared memory (and `blocks` still do), by the same footprint rule as [`occupancy`]:
/// `roundup(static + dynamic + reserved, unit)` must lie in `(per_sm/(blocks+1), per_sm/blocks]`.
pub fn dyn_smem_for_blocks(
    limits: &Limits,
    static_smem: u32,
    blocks: u32,
) -> Result<u32, HoldError> {
    let unit = u64::from(limits.smem_alloc_unit.max(1));
    let per_sm = u64::from(limits.smem_per_sm);
    let blocks64 = u64::from(blocks.max(1));
    let fixed = u64::from(static_smem) + u64::from(limits.reserved_smem_per_block);
    let footprint = |dynamic: u64| round_up(fixed + dynamic, unit);
    // Smallest footprint with floor(per_sm / footprint) <= blocks.
    let min_footprint = round_up(per_sm / (blocks64 + 1) + 1, unit);
    let dynamic = min_footprint.saturating_sub(fixed);
    if per_sm / footprint(dynamic) < blocks64 {
        return Err(HoldError::StaticTooLarge {
            blocks,
            static_smem,
            reserved: limits.reserved_smem_per_block,
            per_sm: limits.smem_per_sm,
            max_blocks: per_sm / footprint(0),
        });
    }
    if u64::from(static_smem) + dynamic > u64::from(limits.smem_per_block_optin) {
        return Err(HoldError::AboveOptIn {
            blocks,
            needed: dynamic,
            optin: limits.smem_per_block_optin,
            static_smem,
        });
    }
    Ok(dynamic as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::occupancy::Arch;

    fn h200() -> Limits {
        Limits {
            smem_per_sm: 233_472,
            smem_per_block_optin: 232_448,
            ..Arch::Sm90.limits()
        }
    }

    /// One warp at `regs_per_thread` with the given shared memory.
    fn warp(regs_per_thread: u32, static_smem: u32, dyn_smem: u32) -> KernelResources {
        KernelResources {
            threads: 32,
            regs_per_thread,
            static_smem,
            dyn_smem,
        }
    }

    fn blocks_fitting(l: &Limits, static_smem: u32, dynamic: u32) -> u32 {
        let k = warp(8, static_smem, dynamic);
        occupancy(l, &k).unwrap().block_limits.shared_memory
    }

    #[test]
    fn the_dynamic_memory_holding_two_blocks_is_the_smallest_that_does() {
        // H200: about 76 KiB; one allocation unit less lets a third block in.
        let l = h200();
        let d0 = dyn_smem_for_blocks(&l, 0, 2).unwrap();
        assert_eq!(d0, 76_928);
        assert_eq!(blocks_fitting(&l, 0, d0), 2);
        assert_eq!(blocks_fitting(&l, 0, d0 - 128), 3);
        // Static shared memory counts toward the footprint; past a third of the SM no dynamic
        // memory is needed.
        let d = dyn_smem_for_blocks(&l, 4384, 2).unwrap();
        assert!(d < d0);
        assert_eq!(blocks_fitting(&l, 4384, d), 2);
        assert_eq!(dyn_smem_for_blocks(&l, 90_000, 2).unwrap(), 0);
        // A 100 KiB part is held at two by about the blog's 48 KB.
        let l = Arch::Sm89.limits();
        let d = dyn_smem_for_blocks(&l, 0, 2).unwrap();
        assert_eq!(blocks_fitting(&l, 0, d), 2);
        assert!(d > 32 * 1024 && d <= 48 * 1024, "{d}");
    }

    #[test]
    fn too_much_static_memory_or_a_low_opt_in_is_refused() {
        let e = dyn_smem_for_blocks(&h200(), 200_000, 2).unwrap_err();
        assert!(
            matches!(e, HoldError::StaticTooLarge { max_blocks: 1, .. }),
            "{e:?}"
        );
        let tight = Limits {
            smem_per_block_optin: 48 * 1024,
            ..h200()
        };
        let e = dyn_smem_for_blocks(&tight, 0, 2).unwrap_err();
        assert!(matches!(e, HoldError::AboveOptIn { .. }), "{e:?}");
    }

    #[test]
    fn occupancy_counts_warps() {
        let l = Arch::Sm90.limits();
        assert_eq!(warp_occupancy(&l, 2, 1024), 1.0);
        assert_eq!(warp_occupancy(&l, 3, 128), 12.0 / 64.0);
        // A 16-thread block still occupies a whole warp.
        assert_eq!(warp_occupancy(&Arch::Sm86.limits(), 4, 16), 4.0 / 48.0);
    }

    /// `cuda_occupancy.h` (`cudaOccSMemAllocationGranularity`) rounds a block's shared memory to
    /// 256 B on compute capability 3.x to 7.x and to 128 B from 8.x on. On a V100, 3100 B per
    /// block give 29 blocks under the 256 B unit (3328 B each) where a 128 B unit would give 30.
    #[test]
    fn volta_and_turing_allocate_shared_memory_in_256_byte_units() {
        for arch in [Arch::Sm70, Arch::Sm75] {
            assert_eq!(arch.limits().smem_alloc_unit, 256, "{arch}");
        }
        for arch in [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Sm120] {
            assert_eq!(arch.limits().smem_alloc_unit, 128, "{arch}");
        }
        let o = occupancy(&Arch::Sm70.limits(), &warp(32, 3100, 0)).unwrap();
        assert_eq!((o.smem_per_block, o.blocks_per_sm), (3328, 29));
        assert_eq!(o.binding, [Limiter::SharedMemory]);
    }
}
