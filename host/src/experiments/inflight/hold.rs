//! Holding a kernel at a chosen number of resident blocks per SM with dynamic shared memory:
//! experiment 2's two-block hold generalized to any count, for the sweeps of experiments 4 and
//! 5. The size comes from the occupancy arithmetic ([`dyn_smem_for_blocks`]) and is confirmed
//! by the driver's occupancy API.
//!
//! Written against [`Occupant`], the three questions it asks of a kernel, so that it can be
//! tested without a GPU. (When the occupancy arithmetic moves to `occupancy/calc.rs`, this is
//! where the call changes.)

use crate::cuda::{CudaError, Kernel, SmemLimits};
use crate::experiments::residency::{dyn_smem_for_blocks, ResidencyError};

/// Why a kernel cannot be held at a residency; the sweeps skip such a point with this as its
/// note, and go on.
#[derive(Debug, thiserror::Error)]
pub enum HoldError {
    /// The kernel's registers (no `.maxntid` to bound them, e.g. an unbounded module's big
    /// copies) leave fewer threads per block than the point asks for: it cannot launch at all.
    #[error(
        "`{entry}` cannot launch {threads} threads per block: at most {max} with its {regs} \
         registers per thread"
    )]
    BlockTooLarge {
        entry: String,
        threads: u32,
        max: u32,
        regs: u32,
    },
    #[error(transparent)]
    Residency(#[from] ResidencyError),
    #[error(transparent)]
    Cuda(#[from] CudaError),
}

/// What holding a kernel at a residency needs to know of it.
pub trait Occupant {
    fn entry_name(&self) -> &str;
    /// Most threads per block the kernel can launch with, and its registers per thread.
    fn launch_limit(&self) -> Result<(u32, u32), CudaError>;
    fn static_smem(&self) -> Result<u32, CudaError>;
    /// Resident blocks per SM at `threads` and `dyn_smem` (the driver's occupancy API).
    fn blocks_at(&self, threads: u32, dyn_smem: u32) -> Result<u32, CudaError>;
    /// Allows the kernel up to `bytes` of dynamic shared memory.
    fn allow_dyn_smem(&self, bytes: u32) -> Result<(), CudaError>;
}

impl Occupant for Kernel<'_> {
    fn entry_name(&self) -> &str {
        self.entry()
    }
    fn launch_limit(&self) -> Result<(u32, u32), CudaError> {
        Ok((self.max_threads_per_block()?, self.num_regs()?))
    }
    fn static_smem(&self) -> Result<u32, CudaError> {
        self.static_smem_bytes()
    }
    fn blocks_at(&self, threads: u32, dyn_smem: u32) -> Result<u32, CudaError> {
        self.max_active_blocks(threads, dyn_smem)
    }
    fn allow_dyn_smem(&self, bytes: u32) -> Result<(), CudaError> {
        self.set_max_dynamic_smem(bytes)
    }
}

/// The dynamic shared memory that the driver confirms gives exactly `blocks` resident blocks of
/// `threads` threads: the arithmetic's size, then stepped up one allocation unit at a time while
/// the driver still allows more. An error when the kernel cannot launch blocks of `threads`, or
/// registers or threads allow fewer than `blocks`.
pub fn hold_at_blocks(
    kernel: &impl Occupant,
    threads: u32,
    blocks: u32,
    limits: SmemLimits,
) -> Result<u32, HoldError> {
    let entry = kernel.entry_name();
    let (max, regs) = kernel.launch_limit()?;
    if threads > max {
        return Err(HoldError::BlockTooLarge {
            entry: entry.to_owned(),
            threads,
            max,
            regs,
        });
    }
    let static_smem = u64::from(kernel.static_smem()?);
    let mut dynamic = dyn_smem_for_blocks(limits, static_smem, blocks, entry)?;
    let ceiling = limits.per_block_optin.saturating_sub(static_smem) as u32;
    kernel.allow_dyn_smem(ceiling)?;
    loop {
        let got = kernel.blocks_at(threads, dynamic)?;
        if got == blocks {
            return Ok(dynamic);
        }
        let next = dynamic + limits.granularity.max(1) as u32;
        if got < blocks || next > ceiling {
            return Err(HoldError::Residency(ResidencyError::DriverDisagrees {
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
            }));
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

    /// A kernel whose residency is the shared-memory bound plus an optional register bound, with
    /// an extra `driver_slack` bytes the driver counts per block that the arithmetic does not.
    struct Fake {
        regs_blocks: u32,
        driver_slack: i64,
        max_threads: u32,
    }

    impl Occupant for Fake {
        fn entry_name(&self) -> &str {
            "fake"
        }
        fn launch_limit(&self) -> Result<(u32, u32), CudaError> {
            Ok((self.max_threads, 40))
        }
        fn static_smem(&self) -> Result<u32, CudaError> {
            Ok(0)
        }
        fn blocks_at(&self, _threads: u32, dyn_smem: u32) -> Result<u32, CudaError> {
            let per_block = u64::from(dyn_smem) + H200.reserved_per_block;
            let footprint = (per_block.div_ceil(H200.granularity) * H200.granularity) as i64
                + self.driver_slack;
            Ok(((H200.per_sm as i64 / footprint) as u32).min(self.regs_blocks))
        }
        fn allow_dyn_smem(&self, _bytes: u32) -> Result<(), CudaError> {
            Ok(())
        }
    }

    #[test]
    fn any_block_count_is_held() {
        let k = Fake {
            regs_blocks: 32,
            driver_slack: 0,
            max_threads: 1024,
        };
        for blocks in [1, 2, 3, 4, 8, 16, 32] {
            let d = hold_at_blocks(&k, 64, blocks, H200).unwrap();
            assert_eq!(k.blocks_at(64, d).unwrap(), blocks, "{blocks} blocks");
        }
    }

    #[test]
    fn the_driver_has_the_last_word() {
        // The driver counts 1 KiB less per block than the arithmetic, so the arithmetic's size
        // lets a fifth block in: the size steps up until the driver says 4.
        let k = Fake {
            regs_blocks: 32,
            driver_slack: -1024,
            max_threads: 1024,
        };
        let first = dyn_smem_for_blocks(H200, 0, 4, "fake").unwrap();
        assert_eq!(k.blocks_at(64, first).unwrap(), 5);
        let d = hold_at_blocks(&k, 64, 4, H200).unwrap();
        assert!(d > first);
        assert_eq!(k.blocks_at(64, d).unwrap(), 4);
    }

    #[test]
    fn registers_allowing_fewer_blocks_are_an_error() {
        let k = Fake {
            regs_blocks: 1,
            driver_slack: 0,
            max_threads: 1024,
        };
        let e = hold_at_blocks(&k, 1024, 2, H200).unwrap_err();
        assert!(
            matches!(
                e,
                HoldError::Residency(ResidencyError::DriverDisagrees {
                    got: 1,
                    blocks: 2,
                    ..
                })
            ),
            "{e:?}"
        );
    }

    #[test]
    fn a_block_the_kernel_cannot_launch_is_an_error_naming_the_limit() {
        // An unbounded copy whose registers leave room for 256 threads per block.
        let k = Fake {
            regs_blocks: 32,
            driver_slack: 0,
            max_threads: 256,
        };
        let e = hold_at_blocks(&k, 1024, 1, H200).unwrap_err();
        assert!(
            matches!(
                e,
                HoldError::BlockTooLarge {
                    threads: 1024,
                    max: 256,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("at most 256"), "{e}");
        assert!(hold_at_blocks(&k, 256, 1, H200).is_ok());
    }
}
