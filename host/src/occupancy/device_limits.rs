//! Limits from a real GPU's attributes, with the table filling in what the driver does not report.

use serde::{Deserialize, Serialize};

use super::arch::{Arch, Limits};
use crate::results::DeviceInfo;

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

impl DeviceAttributes {
    /// The attributes recorded in a run's [`DeviceInfo`] (`results.json`), with the largest block
    /// and the shared memory reserved per block as given ([`Limits::from_device_info`] takes them
    /// from the record where it has them, else from the architecture's table).
    pub fn from_device_info(
        info: &DeviceInfo,
        max_threads_per_block: u32,
        reserved_smem_per_block: u32,
    ) -> DeviceAttributes {
        DeviceAttributes {
            name: info.name.clone(),
            compute_capability: info.compute_capability,
            sm_count: info.sm_count,
            warp_size: info.warp_size,
            max_threads_per_block,
            max_threads_per_sm: info.max_threads_per_sm,
            max_blocks_per_sm: info.max_blocks_per_sm,
            regs_per_sm: info.regs_per_sm,
            regs_per_block: info.max_regs_per_block,
            smem_per_sm: u32::try_from(info.smem_per_sm).unwrap_or(u32::MAX),
            smem_per_block: u32::try_from(info.smem_per_block).unwrap_or(u32::MAX),
            smem_per_block_optin: u32::try_from(info.smem_per_block_optin).unwrap_or(u32::MAX),
            reserved_smem_per_block,
        }
    }
}

impl Limits {
    /// The limits of a device from what the driver reported ([`DeviceInfo`]): how `Gpu::open`
    /// builds them, and how a results folder's are rebuilt without a GPU. Results recorded before
    /// `DeviceInfo` kept the largest block and the reserved shared memory take them from the table
    /// entry of the same compute capability or, for a part the table lacks, from
    /// `cuda_occupancy.h`'s rules: 1024 threads per block, 1 KiB reserved per block from sm_80 on
    /// and none before.
    pub fn from_device_info(info: &DeviceInfo) -> Limits {
        let (major, minor) = info.compute_capability;
        let (table_threads, table_reserved) = match Arch::from_compute_capability(major, minor) {
            Some(a) => {
                let t = a.limits();
                (t.max_threads_per_block, t.reserved_smem_per_block)
            }
            None => (1024, if major >= 8 { 1024 } else { 0 }),
        };
        let max_threads = info.max_threads_per_block.unwrap_or(table_threads);
        let reserved = info.reserved_smem_per_block.unwrap_or(table_reserved);
        Limits::from_attributes(&DeviceAttributes::from_device_info(
            info,
            max_threads,
            reserved,
        ))
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored device record with the figures of the table's entry for `arch`.
    fn info_of(arch: Arch) -> DeviceInfo {
        let l = arch.limits();
        DeviceInfo {
            ordinal: 0,
            name: l.name.clone(),
            compute_capability: l.compute_capability,
            sm_count: 132,
            sm_clock_khz: 1_980_000,
            mem_clock_khz: 2_619_000,
            mem_bus_width_bits: 5120,
            l2_bytes: 50 << 20,
            regs_per_sm: l.regs_per_sm,
            max_regs_per_block: l.regs_per_block,
            smem_per_sm: u64::from(l.smem_per_sm),
            smem_per_block: u64::from(l.smem_per_block),
            smem_per_block_optin: u64::from(l.smem_per_block_optin),
            max_threads_per_sm: l.max_warps_per_sm * l.warp_size,
            max_blocks_per_sm: l.max_blocks_per_sm,
            warp_size: l.warp_size,
            total_mem_bytes: 80 << 30,
            driver_version: "CUDA 12.8".into(),
            peak_fp32_gflops: 0.0,
            peak_dram_gbps: 0.0,
            max_threads_per_block: None,
            reserved_smem_per_block: None,
        }
    }

    #[test]
    fn a_stored_device_gives_the_tables_limits_or_cuda_occupancys_rules() {
        for arch in Arch::ALL {
            let table = arch.limits();
            let l = Limits::from_device_info(&info_of(arch));
            assert_eq!(l.reported_fields(), table.reported_fields(), "{arch:?}");
            assert_eq!(l.smem_alloc_unit, table.smem_alloc_unit, "{arch:?}");
            assert_eq!(l.sub_partitions, table.sub_partitions, "{arch:?}");
            assert_eq!(l.sm_count, Some(132));
        }
        // A part the table lacks follows cuda_occupancy.h's rules.
        let mut info = info_of(Arch::Sm90);
        info.compute_capability = (11, 0);
        let l = Limits::from_device_info(&info);
        assert_eq!(l.max_threads_per_block, 1024);
        assert_eq!(l.reserved_smem_per_block, 1024);
        assert_eq!(l.smem_alloc_unit, 128);
        // Xavier (7.2) is not in the table: cuda_occupancy.h's 256 B unit of 7.x.
        info.compute_capability = (7, 2);
        let l = Limits::from_device_info(&info);
        assert_eq!((l.smem_alloc_unit, l.reserved_smem_per_block), (256, 0));
    }
}
