//! Limits from a real GPU's attributes, with the table filling in what the driver does not report.

use serde::{Deserialize, Serialize};

use super::arch::{Arch, Limits};

/// The device attributes the occupancy arithmetic needs, as `cuDeviceGetAttribute` reports them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceAttributes {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub sm_count: u32,
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub regs_per_sm: u32,
    pub regs_per_block: u32,
    pub smem_per_sm: u32,
    pub smem_per_block: u32,
    pub smem_per_block_optin: u32,
    pub reserved_smem_per_block: u32,
}

impl Limits {
    /// Limits from device attributes. Granularities, sub-partitions, the per-thread register cap
    /// and the carveout steps are not attributes: they come from the table entry of the same
    /// compute capability, or, for a part the table lacks, from the rules `cuda_occupancy.h`
    /// applies by major version (256-byte shared memory unit before sm_80, 128 bytes after).
    pub fn from_attributes(attrs: &DeviceAttributes) -> Limits {
        let (major, minor) = attrs.compute_capability;
        let table = Arch::from_compute_capability(major, minor).map(Arch::limits);
        let warp_size = attrs.warp_size.max(1);
        Limits {
            name: attrs.name.clone(),
            compute_capability: attrs.compute_capability,
            warp_size,
            max_threads_per_block: attrs.max_threads_per_block,
            max_warps_per_sm: attrs.max_threads_per_sm / warp_size,
            max_blocks_per_sm: attrs.max_blocks_per_sm,
            regs_per_sm: attrs.regs_per_sm,
            regs_per_block: attrs.regs_per_block,
            max_regs_per_thread: table.as_ref().map_or(255, |t| t.max_regs_per_thread),
            reg_alloc_unit: table.as_ref().map_or(256, |t| t.reg_alloc_unit),
            sub_partitions: table.as_ref().map_or(4, |t| t.sub_partitions),
            smem_per_sm: attrs.smem_per_sm,
            smem_per_block: attrs.smem_per_block,
            smem_per_block_optin: attrs.smem_per_block_optin.max(attrs.smem_per_block),
            reserved_smem_per_block: attrs.reserved_smem_per_block,
            smem_alloc_unit: table
                .as_ref()
                .map_or(if major >= 8 { 128 } else { 256 }, |t| t.smem_alloc_unit),
            carveout_steps_kib: table.as_ref().map_or(&[], |t| t.carveout_steps_kib),
            sm_count: Some(attrs.sm_count),
        }
    }

    /// The fields of these limits that a device reports, for comparing the table with a GPU.
    pub fn reported_fields(&self) -> Vec<(&'static str, u32)> {
        vec![
            ("warp_size", self.warp_size),
            ("max_threads_per_block", self.max_threads_per_block),
            ("max_warps_per_sm", self.max_warps_per_sm),
            ("max_blocks_per_sm", self.max_blocks_per_sm),
            ("regs_per_sm", self.regs_per_sm),
            ("regs_per_block", self.regs_per_block),
            ("smem_per_sm", self.smem_per_sm),
            ("smem_per_block", self.smem_per_block),
            ("smem_per_block_optin", self.smem_per_block_optin),
            ("reserved_smem_per_block", self.reserved_smem_per_block),
        ]
    }
}
