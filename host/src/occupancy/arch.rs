//! Per-architecture SM limits: the inputs of the occupancy arithmetic.
//!
//! Sources, cited per field below:
//! - [PG] CUDA C++ Programming Guide, "Technical Specifications per Compute Capability" table
//!   (resident warps/blocks per SM, registers, shared memory per SM and per block).
//! - [OCC] `cuda_occupancy.h` from the CUDA toolkit (allocation granularities, sub-partitions,
//!   the reserved shared memory per block from sm_80 on, the carveout steps in
//!   `cudaOccAlignUpShmemSizeVoltaPlus`).
//! - [TG] the per-architecture tuning guides (Volta, Turing, Ampere, Ada, Hopper, Blackwell) for
//!   the shared memory capacities and the carveout sizes the unified L1/shared array supports.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use thiserror::Error;

const KIB: u32 = 1024;

/// A GPU architecture the calculator knows without a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Arch {
    Sm70,
    Sm75,
    Sm80,
    Sm86,
    Sm87,
    Sm89,
    Sm90,
    Sm100,
    Sm120,
}

/// An architecture name the calculator does not know.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown architecture `{given}`; known: {known}")]
pub struct UnknownArch {
    pub given: String,
    pub known: String,
}

impl Arch {
    pub const ALL: [Arch; 9] = [
        Arch::Sm70,
        Arch::Sm75,
        Arch::Sm80,
        Arch::Sm86,
        Arch::Sm87,
        Arch::Sm89,
        Arch::Sm90,
        Arch::Sm100,
        Arch::Sm120,
    ];

    /// Compute capability (major, minor).
    pub fn compute_capability(self) -> (u32, u32) {
        match self {
            Arch::Sm70 => (7, 0),
            Arch::Sm75 => (7, 5),
            Arch::Sm80 => (8, 0),
            Arch::Sm86 => (8, 6),
            Arch::Sm87 => (8, 7),
            Arch::Sm89 => (8, 9),
            Arch::Sm90 => (9, 0),
            Arch::Sm100 => (10, 0),
            Arch::Sm120 => (12, 0),
        }
    }

    /// The architecture with this compute capability, if the table has it.
    pub fn from_compute_capability(major: u32, minor: u32) -> Option<Arch> {
        Arch::ALL
            .into_iter()
            .find(|a| a.compute_capability() == (major, minor))
    }

    /// `sm_90` style name.
    pub fn name(self) -> String {
        let (major, minor) = self.compute_capability();
        format!("sm_{major}{minor}")
    }

    /// The limits of this architecture from the table.
    pub fn limits(self) -> Limits {
        let (major, minor) = self.compute_capability();
        // Registers: 64 K 32-bit registers per SM and per block, at most 255 per thread, on every
        // architecture here [PG]. Register allocation unit: 256 registers per warp [OCC
        // cudaOccRegAllocationGranularity]. Four SM sub-partitions (warp schedulers) each own a
        // quarter of the register file [OCC cudaOccSubPartitionsPerMultiprocessor].
        // Shared memory: 48 KB per block without opt-in on all of them [PG].
        let base = Limits {
            name: self.name(),
            compute_capability: (major, minor),
            warp_size: 32,
            max_threads_per_block: 1024,
            max_warps_per_sm: 64,
            max_blocks_per_sm: 32,
            regs_per_sm: 64 * KIB,
            regs_per_block: 64 * KIB,
            max_regs_per_thread: 255,
            reg_alloc_unit: 256,
            sub_partitions: 4,
            smem_per_sm: 0,
            smem_per_block: 48 * KIB,
            smem_per_block_optin: 0,
            reserved_smem_per_block: 0,
            smem_alloc_unit: 128,
            carveout_steps_kib: &[],
            sm_count: None,
        };
        // From sm_80 on, 1 KB of shared memory is reserved per block [PG, OCC
        // cudaOccSMemPerBlock]; the later architectures share one of three shared memory
        // layouts.
        // A100: 164 KB per SM, 163 KB opt-in per block; carveouts up to 164 KB [OCC, TG Ampere].
        let a100 = Limits {
            smem_per_sm: 164 * KIB,
            smem_per_block_optin: 163 * KIB,
            reserved_smem_per_block: KIB,
            carveout_steps_kib: &[0, 8, 16, 32, 64, 100, 132, 164],
            ..base.clone()
        };
        // GA10x: 100 KB per SM, 99 KB opt-in [PG]; carveouts up to 100 KB [OCC].
        let ga10x = Limits {
            smem_per_sm: 100 * KIB,
            smem_per_block_optin: 99 * KIB,
            reserved_smem_per_block: KIB,
            carveout_steps_kib: &[0, 8, 16, 32, 64, 100],
            ..base.clone()
        };
        // Hopper: 64 warps, 32 blocks, 228 KB per SM, 227 KB opt-in [PG, TG Hopper]; carveouts
        // 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 KB [TG Hopper, OCC 12.x].
        let hopper = Limits {
            smem_per_sm: 228 * KIB,
            smem_per_block_optin: 227 * KIB,
            reserved_smem_per_block: KIB,
            carveout_steps_kib: &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
            ..base.clone()
        };
        match self {
            // Volta (V100): 64 warps, 32 blocks, 96 KB shared memory per SM, all of it opt-in per
            // block [PG]; no reserved shared memory before sm_80 and a 256-byte shared memory
            // allocation unit on 7.x [OCC cudaOccSMemAllocationGranularity]; carveouts 0, 8, 16,
            // 32, 64, 96 KB [OCC cudaOccAlignUpShmemSizeVoltaPlus, TG Volta].
            Arch::Sm70 => Limits {
                smem_per_sm: 96 * KIB,
                smem_per_block_optin: 96 * KIB,
                smem_alloc_unit: 256,
                carveout_steps_kib: &[0, 8, 16, 32, 64, 96],
                ..base
            },
            // Turing: 32 warps (1024 threads), 16 blocks, 64 KB per SM and per block [PG];
            // carveouts 32 or 64 KB [OCC, TG Turing].
            Arch::Sm75 => Limits {
                max_warps_per_sm: 32,
                max_blocks_per_sm: 16,
                smem_per_sm: 64 * KIB,
                smem_per_block_optin: 64 * KIB,
                smem_alloc_unit: 256,
                carveout_steps_kib: &[32, 64],
                ..base
            },
            Arch::Sm80 => a100,
            // GA10x: 48 warps (1536 threads), 16 blocks [PG].
            Arch::Sm86 => Limits {
                max_warps_per_sm: 48,
                max_blocks_per_sm: 16,
                ..ga10x
            },
            // Jetson Orin: 48 warps, 16 blocks [PG], with the A100's shared memory and carveout
            // steps [PG, OCC: minor 0 or 7].
            Arch::Sm87 => Limits {
                max_warps_per_sm: 48,
                max_blocks_per_sm: 16,
                ..a100
            },
            // Ada: 48 warps, 24 blocks [PG, TG Ada], with GA10x's shared memory.
            Arch::Sm89 => Limits {
                max_warps_per_sm: 48,
                max_blocks_per_sm: 24,
                ..ga10x
            },
            // Datacenter Blackwell has Hopper's SM limits [PG, TG Blackwell].
            Arch::Sm90 | Arch::Sm100 => hopper,
            // Consumer Blackwell: 48 warps, 32 blocks [PG 12.x column, TG Blackwell], with GA10x's
            // shared memory.
            Arch::Sm120 => Limits {
                max_warps_per_sm: 48,
                ..ga10x
            },
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for Arch {
    type Err = UnknownArch;

    /// Accepts `sm_90`, `sm90`, `90`, `9.0` and `compute_90`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        let digits = t
            .strip_prefix("sm_")
            .or_else(|| t.strip_prefix("sm"))
            .or_else(|| t.strip_prefix("compute_"))
            .unwrap_or(&t);
        let found = if let Some((major, minor)) = digits.split_once('.') {
            match (major.parse(), minor.parse()) {
                (Ok(ma), Ok(mi)) => Arch::from_compute_capability(ma, mi),
                _ => None,
            }
        } else {
            Arch::ALL.into_iter().find(|a| {
                let (ma, mi) = a.compute_capability();
                format!("{ma}{mi}") == digits
            })
        };
        found.ok_or_else(|| UnknownArch {
            given: s.to_string(),
            known: Arch::ALL.map(|a| a.name()).join(", "),
        })
    }
}

/// Everything about an SM that decides how many blocks fit on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// `sm_90` for a table entry, the device name for a real GPU.
    pub name: String,
    pub compute_capability: (u32, u32),
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_warps_per_sm: u32,
    pub max_blocks_per_sm: u32,
    /// 32-bit registers per SM.
    pub regs_per_sm: u32,
    /// Registers one block may hold.
    pub regs_per_block: u32,
    pub max_regs_per_thread: u32,
    /// Registers are handed to a warp in multiples of this many.
    pub reg_alloc_unit: u32,
    /// The register file is split evenly between this many sub-partitions.
    pub sub_partitions: u32,
    /// Shared memory per SM at the largest carveout, bytes.
    pub smem_per_sm: u32,
    /// Shared memory a block may use without opting in, bytes.
    pub smem_per_block: u32,
    /// Shared memory a block may use after opting in
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`), bytes.
    pub smem_per_block_optin: u32,
    /// Shared memory the driver keeps for itself in every block, bytes.
    pub reserved_smem_per_block: u32,
    /// A block's shared memory is rounded up to a multiple of this, bytes.
    pub smem_alloc_unit: u32,
    /// Shared memory sizes (KB) the L1/shared split can be configured to.
    pub carveout_steps_kib: &'static [u32],
    /// Number of SMs, when the limits come from a device (or `--sms`).
    pub sm_count: Option<u32>,
}

impl Limits {
    /// Warps a block of `threads` threads occupies.
    pub fn warps_per_block(&self, threads: u32) -> u32 {
        threads.div_ceil(self.warp_size)
    }

    /// The smallest carveout (bytes) that holds `bytes` of shared memory, or `None` when it is
    /// larger than every carveout. Without a list of steps the SM's full size is the only one.
    pub fn carveout_at_least(&self, bytes: u32) -> Option<u32> {
        if self.carveout_steps_kib.is_empty() {
            return (bytes <= self.smem_per_sm).then_some(self.smem_per_sm);
        }
        self.carveout_steps_kib
            .iter()
            .map(|k| k * KIB)
            .find(|&step| step >= bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_spelling() {
        for s in ["sm_90", "SM90", "90", "9.0", "compute_90"] {
            assert_eq!(s.parse::<Arch>().unwrap(), Arch::Sm90, "{s}");
        }
        assert_eq!("sm_120".parse::<Arch>().unwrap(), Arch::Sm120);
        assert!("sm_61".parse::<Arch>().is_err());
    }

    #[test]
    fn table_is_consistent() {
        for arch in Arch::ALL {
            let l = arch.limits();
            assert!(l.smem_per_block_optin + l.reserved_smem_per_block <= l.smem_per_sm);
            assert_eq!(
                *l.carveout_steps_kib.last().unwrap() * KIB,
                l.smem_per_sm,
                "{arch}"
            );
        }
    }
}
