//! Holding a kernel at a fixed number of resident blocks per SM with dynamic shared memory (the
//! blog holds its copies at 2 blocks/SM with 48 KB per block; the size that does that depends on
//! the SM's shared memory, so the occupancy calculator computes it for the GPU at hand and the
//! driver confirms it).

use crate::cuda::{CudaError, Kernel};
use crate::occupancy::{dyn_smem_for_blocks, HoldError, Limits};

/// Resident blocks per SM the bandwidth experiment holds every variant at.
pub const BLOCKS_PER_SM: u32 = 2;

#[derive(Debug, thiserror::Error)]
pub enum ResidencyError {
    #[error("`{entry}`: {source}")]
    Calculator {
        entry: String,
        #[source]
        source: HoldError,
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

/// [`hold_at_blocks`] at [`BLOCKS_PER_SM`].
pub fn hold_at_two_blocks(
    kernel: &Kernel<'_>,
    threads: u32,
    limits: &Limits,
) -> Result<u32, ResidencyError> {
    hold_at_blocks(kernel, threads, BLOCKS_PER_SM, limits)
}
