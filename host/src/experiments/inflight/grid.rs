//! The points of the bytes-in-flight sweep: which copy kernel of the variant table's memcpy grid
//! (threads per block, loads per thread, width) runs at how many resident blocks per SM.
//!
//! The kernels and their axes are the table's (`kernels_gpu::variants::MEMCPY_GRID`, the
//! `smem_copy` lines whose bytes in flight live in shared memory, and the `persistent_copy` lines
//! that hold theirs through the whole copy); this file only chooses among them and places them.

use kernels_gpu::variants::{
    MemcpyPoint, PersistentCopyLine, SmemCopyLine, SmemPath, MEMCPY_GRID, PERSISTENT_COPY,
    SMEM_COPY,
};
use serde::{Deserialize, Serialize};

use crate::experiments::copy::CopyKernel;

/// Resident warps per SM the default sweep holds.
pub const COPY_WARPS_PER_SM: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// The distinct values of one axis of the table's memcpy grid, ascending.
fn axis(value: fn(&MemcpyPoint) -> u32) -> Vec<u32> {
    let mut values: Vec<u32> = MEMCPY_GRID.iter().map(value).collect();
    values.sort_unstable();
    values.dedup();
    values
}

/// Threads per block of the table's memcpy grid.
pub fn grid_threads() -> Vec<u32> {
    axis(|p| p.threads)
}

/// Loads per thread of the table's memcpy grid.
pub fn grid_loads() -> Vec<u32> {
    axis(|p| p.loads)
}

/// Floats per access of the table's memcpy grid.
pub fn grid_widths() -> Vec<u32> {
    axis(|p| p.width)
}

/// A warp's ring in shared memory: the bytes in flight of an `smem_copy` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SmemRing {
    /// Bytes of one stage of a warp's ring.
    pub stage_bytes: u32,
    /// Stages (commit groups in flight).
    pub stages: u32,
    /// Filled by Hopper's bulk copies (`tma_copy` lines) rather than by every lane's `cp.async`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bulk: bool,
}

/// One copy kernel of the grid, as the results name it. A copy through shared memory names its
/// ring and counts its requests as loads of width 4: every lane's 16-byte `cp.async`, or a warp's
/// bulk copies (one a stage); its bytes per thread are its warp's ring over the warp's lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CopyShape {
    pub threads: u32,
    pub loads: u32,
    /// Floats per access: 1, 2 or 4.
    pub width: u32,
    /// Where the bytes in flight live: registers (None) or this ring in shared memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ring: Option<SmemRing>,
    /// A `persistent_copy` line: one wave of blocks streaming over the whole copy, so its bytes
    /// in flight are held throughout (absent, false, in runs recorded before these lines).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub persistent: bool,
}

impl From<&MemcpyPoint> for CopyShape {
    fn from(p: &MemcpyPoint) -> Self {
        Self {
            threads: p.threads,
            loads: p.loads,
            width: p.width,
            ring: None,
            persistent: false,
        }
    }
}

impl From<&PersistentCopyLine> for CopyShape {
    fn from(l: &PersistentCopyLine) -> Self {
        Self {
            threads: l.threads,
            loads: l.loads,
            width: l.width,
            ring: None,
            persistent: true,
        }
    }
}

impl From<&SmemCopyLine> for CopyShape {
    fn from(l: &SmemCopyLine) -> Self {
        Self {
            threads: l.threads,
            loads: l.requests_per_thread(),
            width: 4,
            ring: Some(SmemRing {
                stage_bytes: l.stage_bytes,
                stages: l.stages,
                bulk: l.path == SmemPath::Bulk,
            }),
            persistent: false,
        }
    }
}

impl CopyShape {
    /// The table's memcpy grid kernel of this shape (None for a shape the grid does not build,
    /// and for a copy through shared memory).
    pub fn kernel(&self) -> Option<&'static MemcpyPoint> {
        MEMCPY_GRID.iter().find(|p| CopyShape::from(*p) == *self)
    }

    /// The table's `smem_copy` line of this shape, if it is one.
    pub fn smem_line(&self) -> Option<&'static SmemCopyLine> {
        SMEM_COPY.iter().find(|l| CopyShape::from(*l) == *self)
    }

    /// The table's `persistent_copy` line of this shape, if it is one.
    pub fn persistent_line(&self) -> Option<&'static PersistentCopyLine> {
        PERSISTENT_COPY
            .iter()
            .find(|l| CopyShape::from(*l) == *self)
    }

    /// The table's kernel of this shape, whichever family builds it.
    pub fn copy_kernel(&self) -> Option<CopyKernel<'static>> {
        match self.ring {
            None if self.persistent => self.persistent_line().map(CopyKernel::Persistent),
            None => self.kernel().map(CopyKernel::Registers),
            Some(_) => self.smem_line().map(CopyKernel::Shared),
        }
    }

    /// Bytes each thread loads before its first store (`MemcpyPoint::bytes_per_thread`, for
    /// shapes known only by their numbers, as in results read back).
    pub fn bytes_per_thread(&self) -> u32 {
        match self.ring {
            Some(r) => r.stage_bytes * r.stages / 32,
            None => 4 * self.loads * self.width,
        }
    }
}

/// How residency is chosen for each point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Residency {
    /// Every kernel at this many blocks per SM.
    BlocksPerSm(u32),
    /// These resident warps per SM. With `every_block_size`, every block size of the list that
    /// divides the target into whole blocks runs; otherwise only the largest block (fewest
    /// blocks per SM) does.
    WarpsPerSm {
        targets: Vec<u32>,
        every_block_size: bool,
    },
}

/// A point of the sweep: a kernel and the blocks per SM it is held at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    pub shape: CopyShape,
    pub blocks_per_sm: u32,
}

impl Point {
    pub fn warps_per_sm(&self, warp_size: u32) -> u32 {
        self.blocks_per_sm * self.shape.threads.div_ceil(warp_size.max(1))
    }
}

/// The device limits the plan respects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanLimits {
    pub warp_size: u32,
    pub max_blocks_per_sm: u32,
    pub max_warps_per_sm: u32,
}

impl PlanLimits {
    fn warp(&self) -> u32 {
        self.warp_size.max(1)
    }

    /// Whether an SM holds `blocks` blocks of `threads` (at least one, within both limits).
    fn holds(&self, threads: u32, blocks: u32) -> bool {
        blocks >= 1
            && blocks <= self.max_blocks_per_sm
            && blocks * threads.div_ceil(self.warp()) <= self.max_warps_per_sm
    }
}

/// Every point of the sweep, in the table's order (loads, then width) within each residency:
/// the grid points that pass the filters (`threads`, `loads`, `widths`; values the grid does not
/// have select nothing), the blocks per SM from `residency`; placements the SM cannot hold (more
/// blocks or warps than it allows) are left out.
pub fn plan_points(
    threads: &[u32],
    loads: &[u32],
    widths: &[u32],
    residency: &Residency,
    limits: PlanLimits,
) -> Vec<Point> {
    let warp = limits.warp();
    let placements: Vec<(u32, u32)> = match residency {
        Residency::BlocksPerSm(b) => threads.iter().map(|&t| (t, *b)).collect(),
        Residency::WarpsPerSm {
            targets,
            every_block_size,
        } => targets
            .iter()
            .flat_map(|&w| {
                let mut ways: Vec<(u32, u32)> = threads
                    .iter()
                    .filter(|&&t| t.is_multiple_of(warp) && (w * warp).is_multiple_of(t))
                    .map(|&t| (t, w * warp / t))
                    .filter(|&(t, b)| limits.holds(t, b))
                    .collect();
                ways.sort_by_key(|&(t, _)| std::cmp::Reverse(t));
                ways.truncate(if *every_block_size { ways.len() } else { 1 });
                ways
            })
            .collect(),
    };
    placements
        .into_iter()
        .filter(|&(t, b)| limits.holds(t, b))
        .flat_map(|(t, blocks)| {
            MEMCPY_GRID
                .iter()
                .filter(move |p| {
                    p.threads == t && loads.contains(&p.loads) && widths.contains(&p.width)
                })
                .map(move |p| Point {
                    shape: p.into(),
                    blocks_per_sm: blocks,
                })
        })
        .collect()
}

/// The `smem_copy` lines' points: every line at the blocks per SM `residency` gives its block
/// size (a warps target its block does not divide is left out), where the SM holds that many
/// blocks and their rings fit in `smem_per_sm` (the driver has the last word when the point is
/// held).
pub fn smem_points(residency: &Residency, limits: PlanLimits, smem_per_sm: u32) -> Vec<Point> {
    let warp = limits.warp();
    SMEM_COPY
        .iter()
        .flat_map(|line| {
            let blocks: Vec<u32> = match residency {
                Residency::BlocksPerSm(b) => vec![*b],
                Residency::WarpsPerSm { targets, .. } => targets
                    .iter()
                    .filter(|&&w| (w * warp).is_multiple_of(line.threads))
                    .map(|&w| w * warp / line.threads)
                    .collect(),
            };
            blocks
                .into_iter()
                .filter(move |&b| {
                    limits.holds(line.threads, b)
                        && u64::from(b) * u64::from(line.shared_bytes()) <= u64::from(smem_per_sm)
                })
                .map(move |b| Point {
                    shape: CopyShape::from(line),
                    blocks_per_sm: b,
                })
        })
        .collect()
}

/// Blocks per SM the persistent copies run at: one block, so that a line's bytes in flight per SM
/// are its block's (the table's lines hold 8 to 64 KiB at this residency).
pub const PERSISTENT_BLOCKS_PER_SM: u32 = 1;

/// The `persistent_copy` lines' points: every line at [`PERSISTENT_BLOCKS_PER_SM`], where the SM
/// holds it (whatever the residency the register-held sweep asks for: these points are the
/// loaded-latency law's evidence, placed before the data).
pub fn persistent_points(limits: PlanLimits) -> Vec<Point> {
    PERSISTENT_COPY
        .iter()
        .filter(|l| limits.holds(l.threads, PERSISTENT_BLOCKS_PER_SM))
        .map(|l| Point {
            shape: CopyShape::from(l),
            blocks_per_sm: PERSISTENT_BLOCKS_PER_SM,
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const H200: PlanLimits = PlanLimits {
        warp_size: 32,
        max_blocks_per_sm: 32,
        max_warps_per_sm: 64,
    };

    /// The default sweep's warps targets, each with its largest block only.
    pub(crate) fn default_targets() -> Residency {
        Residency::WarpsPerSm {
            targets: COPY_WARPS_PER_SM.to_vec(),
            every_block_size: false,
        }
    }

    /// The default sweep's points on an H200.
    pub(crate) fn default_points() -> Vec<Point> {
        let (t, l, w) = (grid_threads(), grid_loads(), grid_widths());
        plan_points(&t, &l, &w, &default_targets(), H200)
    }

    /// (threads, blocks/SM) of every point of `residency` over the whole grid's threads.
    fn placed(loads: u32, width: u32, residency: Residency) -> Vec<(u32, u32)> {
        plan_points(&grid_threads(), &[loads], &[width], &residency, H200)
            .iter()
            .map(|p| (p.shape.threads, p.blocks_per_sm))
            .collect()
    }

    #[test]
    fn shapes_name_table_kernels_of_either_family() {
        let s = CopyShape {
            threads: 32,
            loads: 14,
            width: 4,
            ring: None,
            persistent: false,
        };
        assert_eq!(s.kernel().map(|k| k.entry), Some("memcpy_t32_l14_w4"));
        assert_eq!(s.bytes_per_thread(), 224);
        assert_eq!(CopyShape { width: 3, ..s }.kernel(), None);
        let registers = MEMCPY_GRID.iter().map(|p| {
            (
                CopyShape::from(p),
                CopyKernel::Registers(p),
                p.bytes_per_thread(),
            )
        });
        let shared = SMEM_COPY.iter().map(|l| {
            (
                CopyShape::from(l),
                CopyKernel::Shared(l),
                l.bytes_per_thread(),
            )
        });
        let persistent = PERSISTENT_COPY.iter().map(|l| {
            (
                CopyShape::from(l),
                CopyKernel::Persistent(l),
                l.bytes_per_thread(),
            )
        });
        for (shape, kernel, bytes) in registers.chain(shared).chain(persistent) {
            assert_eq!(shape.copy_kernel(), Some(kernel));
            assert_eq!(shape.bytes_per_thread(), bytes, "{}", kernel.entry());
            match kernel {
                CopyKernel::Registers(p) => assert_eq!(shape.kernel(), Some(p)),
                CopyKernel::Shared(l) => {
                    assert_eq!(shape.kernel(), None, "not a memcpy grid point");
                    assert_eq!(shape.smem_line(), Some(l));
                }
                CopyKernel::Persistent(l) => {
                    // The same numbers as a memcpy grid point, but not that point's kernel.
                    assert_eq!(shape.kernel(), None, "not a memcpy grid point");
                    assert_eq!(shape.persistent_line(), Some(l));
                    let registers = CopyShape {
                        persistent: false,
                        ..shape
                    };
                    assert_eq!(registers.persistent_line(), None);
                }
            }
        }
    }

    #[test]
    fn the_axes_are_the_tables() {
        let (t, l, w) = (grid_threads(), grid_loads(), grid_widths());
        assert_eq!(
            t.len() * l.len() * w.len(),
            MEMCPY_GRID.len(),
            "a full product"
        );
        assert!(MEMCPY_GRID
            .iter()
            .all(|p| t.contains(&p.threads) && l.contains(&p.loads) && w.contains(&p.width)));
        assert!(t.windows(2).all(|x| x[0] < x[1]));
    }

    #[test]
    fn filter_values_off_the_grid_select_nothing() {
        let one = Residency::BlocksPerSm(1);
        assert!(plan_points(&[256], &[5], &[4], &one, H200).is_empty());
        assert_eq!(plan_points(&[256], &[4, 5], &[4], &one, H200).len(), 1);
    }

    #[test]
    fn the_default_sweep_spans_warps_1_to_64_and_bytes_4_to_512() {
        let points = default_points();
        let warps: std::collections::BTreeSet<u32> =
            points.iter().map(|p| p.warps_per_sm(32)).collect();
        assert_eq!(warps.into_iter().collect::<Vec<_>>(), COPY_WARPS_PER_SM);
        let bytes: Vec<u32> = points.iter().map(|p| p.shape.bytes_per_thread()).collect();
        assert_eq!(bytes.iter().min(), Some(&4));
        assert_eq!(bytes.iter().max(), Some(&512));
        assert_eq!(points.len(), 7 * 11 * 3, "one block size per warps target");
        // The largest block is used: 64 warps as 2 x 1024, 8 warps as 1 x 256.
        let at = |t, b| {
            points
                .iter()
                .any(|p| (p.shape.threads, p.blocks_per_sm) == (t, b))
        };
        assert!(at(1024, 2) && at(256, 1));
    }

    #[test]
    fn every_block_size_decomposes_each_target_and_fixed_blocks_drop_what_does_not_fit() {
        let every = Residency::WarpsPerSm {
            targets: vec![64],
            every_block_size: true,
        };
        // 32 threads would need 64 blocks, above the 32-block limit.
        let ways = [(1024, 2), (512, 4), (256, 8), (128, 16), (64, 32)];
        assert_eq!(placed(1, 1, every), ways);
        // 4 x 1024 threads = 128 warps > 64.
        let fixed = [(32, 4), (64, 4), (128, 4), (256, 4), (512, 4)];
        assert_eq!(placed(2, 4, Residency::BlocksPerSm(4)), fixed);
    }

    #[test]
    fn smem_lines_are_placed_where_their_rings_fit() {
        let points = smem_points(&default_targets(), H200, 228 * 1024);
        let placed = |entry: &str| -> Vec<u32> {
            let of = |p: &&Point| p.shape.smem_line().map(|l| l.entry) == Some(entry);
            points.iter().filter(of).map(|p| p.blocks_per_sm).collect()
        };
        // 8 KiB a warp: one warp per SM up to 16 (then 32 x 8 KiB would pass the SM's memory).
        assert_eq!(placed("cp_async_copy_t32_b2048_s4"), [1, 2, 4, 8, 16]);
        // 192 KiB a warp: one warp per SM only.
        assert_eq!(placed("cp_async_copy_t32_b8192_s24"), [1]);
        // 128 threads: from 4 warps per SM, one block.
        assert_eq!(placed("cp_async_copy_t128_b2048_s4")[..2], [1, 2]);
        let fixed = smem_points(&Residency::BlocksPerSm(2), H200, 228 * 1024);
        assert!(fixed.iter().all(|p| p.blocks_per_sm == 2));
        assert!(fixed
            .iter()
            .all(|p| p.shape.smem_line().unwrap().shared_bytes() <= 114 * 1024));
    }

    #[test]
    fn persistent_points_step_through_16_to_32_kib_per_sm() {
        let points = persistent_points(H200);
        assert_eq!(
            points.len(),
            PERSISTENT_COPY.len(),
            "an H200 holds every line"
        );
        let kib = |p: &Point| {
            let l = p.shape.persistent_line().expect("a persistent line");
            l.bytes_in_flight_per_sm(p.blocks_per_sm) / 1024
        };
        assert!(points
            .iter()
            .all(|p| p.blocks_per_sm == 1 && p.shape.persistent));
        // The 256-thread line steps by 4 KiB through the band the law is judged in, with points
        // below and above it; the 1024-thread line repeats the band with four times the warps.
        let band: Vec<u64> = points
            .iter()
            .filter(|p| p.shape.threads == 256)
            .map(kib)
            .filter(|k| (16..=32).contains(k))
            .collect();
        assert_eq!(band, [16, 20, 24, 28, 32]);
        assert!(points.iter().any(|p| kib(p) < 16) && points.iter().any(|p| kib(p) > 32));
        let wide: Vec<u64> = points
            .iter()
            .filter(|p| p.shape.threads == 1024)
            .map(kib)
            .collect();
        assert_eq!(wide, [16, 24, 32]);
        // A device that holds fewer warps leaves the 1024-thread line out.
        let small = PlanLimits {
            max_warps_per_sm: 16,
            ..H200
        };
        assert!(persistent_points(small)
            .iter()
            .all(|p| p.shape.threads == 256));
    }

    #[test]
    fn shapes_recorded_before_the_persistent_lines_read_back_as_they_were() {
        let grid = CopyShape::from(&MEMCPY_GRID[0]);
        let json = serde_json::to_string(&grid).unwrap();
        assert!(!json.contains("persistent"), "{json}");
        assert_eq!(serde_json::from_str::<CopyShape>(&json).unwrap(), grid);
        let line = CopyShape::from(&PERSISTENT_COPY[0]);
        let json = serde_json::to_string(&line).unwrap();
        assert!(json.contains("\"persistent\":true"), "{json}");
        assert_eq!(serde_json::from_str::<CopyShape>(&json).unwrap(), line);
    }
}
