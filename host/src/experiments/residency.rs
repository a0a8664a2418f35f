//! Holding a kernel at a fixed number of resident blocks per SM with dynamic shared memory (the
//! blog holds its copies at 2 blocks/SM with 48 KB per block; the size that does that depends on
//! the SM's shared memory, so it is computed for the GPU at hand and confirmed by the driver).

use crate::cuda::{CudaError, Kernel, SmemLimits};

/// Resident blocks per SM the bandwidth experiment holds every variant at.
pub const BLOCKS_PER_SM: u32 = 2;

#[derive(Debug, thiserror::Error)]
pub enum ResidencyError {
    #[error(
        "`{entry}`: no dynamic shared memory gives exactly {blocks} blocks/SM: {static_smem} B \
         static + {reserved} B reserved per block already allow only {max_blocks} block(s) in \
         {per_sm} B per SM"
    )]
    StaticTooLarge {
        entry: String,
        blocks: u32,
        static_smem: u64,
        reserved: u64,
        per_sm: u64,
        max_blocks: u64,
    },
    #[error(
        "`{entry}`: {needed} B of dynamic shared memory are needed for {blocks} blocks/SM but a \
         block may have at most {optin} B (static {static_smem} B included)"
    )]
    AboveOptIn {
        entry: String,
        blocks: u32,
        needed: u64,
        optin: u64,
        static_smem: u64,
    },
    #[error(
        "`{entry}` at {threads} threads: the occupancy API gives {got} block(s)/SM with {dyn_smem} \
         B of dynamic shared memory, not {blocks}{hint}"
    )]
    DriverDisagrees {
        entry: String,
        threads: u32,
        dyn_smem: u32,
        got: u32,
        blocks: u32,
        hint: &'static str,
    },
    #[error(transparent)]
    Cuda(#[from] CudaError),
}

/// The smallest dynamic shared memory per block such that at most `blocks` blocks fit in an SM's
/// shared memory (and `blocks` still do): the per-block footprint
/// `roundup(static + dynamic + reserved, granularity)` must lie in `(per_sm/(blocks+1), per_sm/blocks]`.
pub fn dyn_smem_for_blocks(
    limits: SmemLimits,
    static_smem: u64,
    blocks: u32,
    entry: &str,
) -> Result<u32, ResidencyError> {
    let g = limits.granularity.max(1);
    let blocks64 = u64::from(blocks.max(1));
    let fixed = static_smem + limits.reserved_per_block;
    let footprint = |dynamic: u64| (fixed + dynamic).div_ceil(g) * g;
    // Smallest footprint with floor(per_sm / footprint) <= blocks.
    let min_footprint = (limits.per_sm / (blocks64 + 1) + 1).div_ceil(g) * g;
    let dynamic = min_footprint.saturating_sub(fixed);
    let fits = limits.per_sm / footprint(dynamic);
    if fits < blocks64 {
        return Err(ResidencyError::StaticTooLarge {
            entry: entry.to_owned(),
            blocks,
            static_smem,
            reserved: limits.reserved_per_block,
            per_sm: limits.per_sm,
            max_blocks: limits.per_sm / footprint(0),
        });
    }
    if static_smem + dynamic > limits.per_block_optin {
        return Err(ResidencyError::AboveOptIn {
            entry: entry.to_owned(),
            blocks,
            needed: dynamic,
            optin: limits.per_block_optin,
            static_smem,
        });
    }
    Ok(dynamic as u32)
}

/// Finds the dynamic shared memory that the occupancy API confirms gives exactly
/// [`BLOCKS_PER_SM`] blocks for `kernel` at `threads`, starting from [`dyn_smem_for_blocks`] and
/// stepping up by the allocation granularity while the driver still allows more blocks.
/// Leaves the kernel allowed to use that much dynamic shared memory.
pub fn hold_at_two_blocks(
    kernel: &Kernel<'_>,
    threads: u32,
    limits: SmemLimits,
) -> Result<u32, ResidencyError> {
    let static_smem = u64::from(kernel.static_smem_bytes()?);
    let entry = kernel.entry();
    let mut dynamic = dyn_smem_for_blocks(limits, static_smem, BLOCKS_PER_SM, entry)?;
    let ceiling = limits.per_block_optin.saturating_sub(static_smem) as u32;
    kernel.set_max_dynamic_smem(ceiling)?;
    loop {
        let got = kernel.max_active_blocks(threads, dynamic)?;
        if got == BLOCKS_PER_SM {
            return Ok(dynamic);
        }
        let next = dynamic + limits.granularity.max(1) as u32;
        if got < BLOCKS_PER_SM || next > ceiling {
            return Err(ResidencyError::DriverDisagrees {
                entry: entry.to_owned(),
                threads,
                dyn_smem: dynamic,
                got,
                blocks: BLOCKS_PER_SM,
                hint: if got < BLOCKS_PER_SM {
                    " (threads or registers per SM already allow fewer on this device)"
                } else {
                    ""
                },
            });
        }
        dynamic = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200: SmemLimits = SmemLimits {
        per_sm: 233_472,
        per_block_optin: 232_448,
        reserved_per_block: 1024,
        granularity: 128,
    };
    const ADA: SmemLimits = SmemLimits {
        per_sm: 102_400,
        per_block_optin: 101_376,
        reserved_per_block: 1024,
        granularity: 128,
    };

    fn blocks_fitting(l: SmemLimits, static_smem: u64, dynamic: u32) -> u64 {
        let f = (static_smem + l.reserved_per_block + u64::from(dynamic)).div_ceil(l.granularity)
            * l.granularity;
        l.per_sm / f
    }

    #[test]
    fn h200_needs_about_76_kib_for_two_blocks() {
        let d = dyn_smem_for_blocks(H200, 0, 2, "k").unwrap();
        assert_eq!(d, 76_928);
        assert_eq!(blocks_fitting(H200, 0, d), 2);
        // It is the smallest: one granule less lets a third block in.
        assert_eq!(blocks_fitting(H200, 0, d - 128), 3);
    }

    #[test]
    fn a_100_kib_part_is_held_at_two_by_about_the_blogs_48_kb() {
        let d = dyn_smem_for_blocks(ADA, 0, 2, "k").unwrap();
        assert_eq!(blocks_fitting(ADA, 0, d), 2);
        assert!(d > 32 * 1024 && d <= 48 * 1024, "{d}");
    }

    #[test]
    fn static_shared_memory_counts_toward_the_footprint() {
        let d0 = dyn_smem_for_blocks(H200, 0, 2, "k").unwrap();
        let d = dyn_smem_for_blocks(H200, 4384, 2, "k").unwrap();
        assert!(d < d0);
        assert_eq!(blocks_fitting(H200, 4384, d), 2);
        // Already past a third of the SM: no dynamic memory needed.
        assert_eq!(dyn_smem_for_blocks(H200, 90_000, 2, "k").unwrap(), 0);
    }

    #[test]
    fn too_much_static_memory_is_an_error_naming_the_kernel() {
        let e = dyn_smem_for_blocks(H200, 200_000, 2, "memcpy_t1_l1_w1").unwrap_err();
        assert!(
            matches!(e, ResidencyError::StaticTooLarge { max_blocks: 1, .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("memcpy_t1_l1_w1"));
    }

    #[test]
    fn the_opt_in_limit_is_respected() {
        let tight = SmemLimits {
            per_block_optin: 48 * 1024,
            ..H200
        };
        let e = dyn_smem_for_blocks(tight, 0, 2, "k").unwrap_err();
        assert!(matches!(e, ResidencyError::AboveOptIn { .. }), "{e:?}");
    }
}
