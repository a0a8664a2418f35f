//! CUPTI's kernel activity record (`CUpti_ActivityKernelN` of `cupti_activity.h`), as the lab
//! reads it: the leading fields every version since CUDA 11.8 shares (`CUpti_ActivityKernel8` to
//! the `CUpti_ActivityKernel13` of CUDA 13.4 add fields only at the end), and the owned record
//! the lab keeps of it.

use std::ffi::{c_char, c_void, CStr};

use serde::{Deserialize, Serialize};

use crate::occupancy::KernelResources;

/// The oldest CUPTI API version whose kernel records hold every field the lab reads (CUDA 11.8's
/// `CUpti_ActivityKernel8`).
pub const MIN_API_VERSION: u32 = 18;
/// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_KERNEL` (kernels serialized for the record).
pub const KIND_KERNEL: u32 = 3;
/// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL` (kernels as they really run).
pub const KIND_CONCURRENT_KERNEL: u32 = 10;

/// The shared leading part of a kernel record, at the header's offsets (every field naturally
/// aligned, so `repr(C)` is the header's `PACKED_ALIGNMENT` of 8). The fields the lab does not
/// reads none of are runs of bytes named after them; two it does not read stay for the test.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(dead_code)]
pub(crate) struct RawKernelRecord {
    pub kind: u32,
    _cache_and_shared_memory_config: [u8; 2],
    pub registers_per_thread: u16,
    _partitioned_global_cache_requested_executed: [u32; 2],
    pub start: u64,
    pub end: u64,
    _completed_device_context_stream_ids: [u32; 5],
    pub grid: [i32; 3],
    pub block: [i32; 3],
    pub static_shared_memory: i32,
    pub dynamic_shared_memory: i32,
    pub local_memory_per_thread: u32,
    _local_memory_total_correlation_id: [u32; 2],
    pub grid_id: i64,
    pub name: *const c_char,
    _reserved0_queued_submitted: [u64; 3],
    _launch_type_carveout_requested_padding: [u8; 4],
    pub shared_memory_executed: u32,
    _graph_node_id_shmem_limit_config_graph_id: [u32; 4],
    pub access_policy_window: *mut c_void,
    _channel_id_type: [u32; 2],
    pub cluster: [u32; 3],
    _cluster_scheduling_policy: u32,
}

/// One kernel launch as CUPTI recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelRecord {
    /// The kernel's name as the module exports it (C++ names mangled).
    pub name: String,
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    pub registers_per_thread: u32,
    /// Shared memory per block, bytes: declared in the kernel, and given at launch.
    pub static_shared_bytes: u32,
    pub dynamic_shared_bytes: u32,
    /// Local memory per thread (spills and stack), bytes.
    pub local_bytes_per_thread: u32,
    /// Thread-block cluster dimensions; 0 in every dimension for a launch without clusters.
    pub cluster: [u32; 3],
    /// The SM's shared memory configuration the kernel ran with (the carveout), bytes.
    pub shared_memory_executed: u32,
    /// From the kernel's start to its end on the GPU, nanoseconds.
    pub duration_ns: u64,
}

impl KernelRecord {
    /// The owned record of a raw one.
    ///
    /// # Safety
    /// `raw.name` is null or points to a NUL-terminated string that lives through the call (CUPTI
    /// keeps kernel names for the life of the process).
    pub(crate) unsafe fn from_raw(raw: &RawKernelRecord) -> Self {
        let name = if raw.name.is_null() {
            String::new()
        } else {
            // SAFETY: the caller's contract: a NUL-terminated string.
            unsafe { CStr::from_ptr(raw.name) }
                .to_string_lossy()
                .into_owned()
        };
        let count = |v: i32| u32::try_from(v).unwrap_or(0);
        Self {
            name,
            grid: raw.grid.map(count),
            block: raw.block.map(count),
            registers_per_thread: u32::from(raw.registers_per_thread),
            static_shared_bytes: count(raw.static_shared_memory),
            dynamic_shared_bytes: count(raw.dynamic_shared_memory),
            local_bytes_per_thread: raw.local_memory_per_thread,
            cluster: raw.cluster,
            shared_memory_executed: raw.shared_memory_executed,
            duration_ns: raw.end.saturating_sub(raw.start),
        }
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u32 {
        self.block.iter().fold(1u32, |p, &d| p.saturating_mul(d))
    }

    /// Blocks per cluster (1 for a launch without clusters).
    pub fn cluster_blocks(&self) -> u32 {
        (self.cluster.iter()).fold(1u32, |p, &d| p.saturating_mul(d.max(1)))
    }

    /// What the kernel asks of an SM per block, for the occupancy calculator.
    pub fn resources(&self) -> KernelResources {
        KernelResources {
            threads: self.threads_per_block(),
            regs_per_thread: self.registers_per_thread,
            static_smem: self.static_shared_bytes,
            dyn_smem: self.dynamic_shared_bytes,
        }
    }

    /// The launch in words: grid, block, registers, shared memory and cluster.
    pub fn launch_text(&self) -> String {
        let dims = |d: [u32; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
        let cluster = if self.cluster_blocks() > 1 {
            format!(", clusters of {}", dims(self.cluster))
        } else {
            ", no clusters".to_owned()
        };
        format!(
            "grid {}, block {} ({} threads), {} registers/thread, {} B static + {} B dynamic \
             shared memory/block{}",
            dims(self.grid),
            dims(self.block),
            self.threads_per_block(),
            self.registers_per_thread,
            self.static_shared_bytes,
            self.dynamic_shared_bytes,
            cluster
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The offsets of `cupti_activity.h` (CUpti_ActivityKernel8 and later, LP64): a field out
    /// of place would read another field's bytes.
    #[test]
    fn the_record_prefix_has_the_headers_offsets() {
        type R = RawKernelRecord;
        let times = (
            offset_of!(R, registers_per_thread),
            offset_of!(R, start),
            offset_of!(R, end),
        );
        assert_eq!(times, (6, 16, 24));
        assert_eq!((offset_of!(R, grid), offset_of!(R, block)), (52, 64));
        let memory = (
            offset_of!(R, static_shared_memory),
            offset_of!(R, dynamic_shared_memory),
            offset_of!(R, local_memory_per_thread),
            offset_of!(R, grid_id),
        );
        assert_eq!(memory, (76, 80, 84, 96));
        let late = (
            offset_of!(R, name),
            offset_of!(R, shared_memory_executed),
            offset_of!(R, access_policy_window),
        );
        assert_eq!(late, (104, 140, 160));
        assert_eq!((offset_of!(R, cluster), size_of::<R>()), (176, 192));
    }

    /// A record of the fields the lab reads; the others zero, as CUPTI may leave them.
    fn raw(name: &CStr) -> RawKernelRecord {
        // SAFETY: every field is an integer or a raw pointer, for which zero bytes are a value.
        let mut r: RawKernelRecord = unsafe { std::mem::zeroed() };
        r.kind = KIND_CONCURRENT_KERNEL;
        r.registers_per_thread = 168;
        (r.start, r.end) = (1_000, 5_500);
        (r.grid, r.block) = ([66, 2, 1], [384, 1, 1]);
        r.dynamic_shared_memory = 213_000;
        r.name = name.as_ptr();
        r.shared_memory_executed = 233_472;
        r.cluster = [2, 1, 1];
        r
    }

    #[test]
    fn a_raw_record_becomes_the_launch_it_describes_with_or_without_clusters() {
        let name = c"nvjet_tst_128x256_64x4_2x1_v_bz_coopB_NNT";
        // SAFETY: the name is a NUL-terminated literal.
        let r = unsafe { KernelRecord::from_raw(&raw(name)) };
        assert_eq!(r.name, "nvjet_tst_128x256_64x4_2x1_v_bz_coopB_NNT");
        assert_eq!((r.grid, r.block), ([66, 2, 1], [384, 1, 1]));
        assert_eq!((r.registers_per_thread, r.duration_ns), (168, 4_500));
        assert_eq!((r.cluster_blocks(), r.threads_per_block()), (2, 384));
        let res = KernelResources {
            threads: 384,
            regs_per_thread: 168,
            static_smem: 0,
            dyn_smem: 213_000,
        };
        assert_eq!(r.resources(), res);
        assert_eq!(
            r.launch_text(),
            "grid 66x2x1, block 384x1x1 (384 threads), 168 registers/thread, 0 B static + \
             213000 B dynamic shared memory/block, clusters of 2x1x1"
        );
        // A launch without clusters or a name reads as such.
        let mut r = raw(c"k");
        r.cluster = [0, 0, 0];
        r.name = std::ptr::null();
        r.dynamic_shared_memory = -1;
        // SAFETY: a null name is allowed.
        let k = unsafe { KernelRecord::from_raw(&r) };
        assert_eq!((k.name.as_str(), k.cluster_blocks()), ("", 1));
        assert_eq!(k.dynamic_shared_bytes, 0, "a negative size is no size");
        assert!(k.launch_text().ends_with("no clusters"));
    }
}
