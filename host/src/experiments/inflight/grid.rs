//! The points of the bytes-in-flight sweep: which copy kernel (threads per block, loads per
//! thread, width) runs at how many resident blocks per SM.
//!
//! The kernels are the variant table's memcpy grid; their entry names follow the contract
//! `memcpy_t{THREADS}_l{LOADS}_w{WIDTH}` (`../shared/peer/README.md`), which is all this file
//! assumes about them.

use serde::{Deserialize, Serialize};

/// Threads per block of the memcpy grid.
pub const GRID_THREADS: [u32; 6] = [32, 64, 128, 256, 512, 1024];
/// Loads per thread of the memcpy grid.
pub const GRID_LOADS: [u32; 11] = [1, 2, 3, 4, 6, 8, 12, 14, 16, 24, 32];
/// Floats per access of the memcpy grid.
pub const GRID_WIDTHS: [u32; 3] = [1, 2, 4];
/// Resident warps per SM the default sweep holds.
pub const COPY_WARPS_PER_SM: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// One copy kernel of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CopyShape {
    pub threads: u32,
    pub loads: u32,
    /// Floats per access: 1, 2 or 4.
    pub width: u32,
}

impl CopyShape {
    /// The entry point's name by the kernel contract.
    pub fn entry(&self) -> String {
        format!("memcpy_t{}_l{}_w{}", self.threads, self.loads, self.width)
    }

    /// Bytes each thread loads before its first store.
    pub fn bytes_per_thread(&self) -> u32 {
        4 * self.loads * self.width
    }

    /// Floats one block copies.
    pub fn floats_per_block(&self) -> u64 {
        u64::from(self.threads) * u64::from(self.loads) * u64::from(self.width)
    }

    /// Blocks for `floats` floats: ceil(floats / floats per block), the contract's grid.
    pub fn grid(&self, floats: u64) -> u64 {
        floats.div_ceil(self.floats_per_block())
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

/// Every point of the sweep, in the order threads, loads, width within each residency: the
/// shapes come from the filters (`threads`, `loads`, `widths`), the blocks per SM from
/// `residency`; placements the SM cannot hold (more blocks or warps than it allows) are left
/// out.
pub fn plan_points(
    threads: &[u32],
    loads: &[u32],
    widths: &[u32],
    residency: &Residency,
    limits: PlanLimits,
) -> Vec<Point> {
    let warp = limits.warp_size.max(1);
    let fits = |t: u32, blocks: u32| {
        blocks >= 1
            && blocks <= limits.max_blocks_per_sm
            && blocks * t.div_ceil(warp) <= limits.max_warps_per_sm
    };
    let mut placements: Vec<(u32, u32)> = Vec::new();
    match residency {
        Residency::BlocksPerSm(b) => {
            placements.extend(threads.iter().filter(|&&t| fits(t, *b)).map(|&t| (t, *b)));
        }
        Residency::WarpsPerSm {
            targets,
            every_block_size,
        } => {
            for &w in targets {
                let mut ways: Vec<(u32, u32)> = threads
                    .iter()
                    .filter(|&&t| t.is_multiple_of(warp) && (w * warp).is_multiple_of(t))
                    .map(|&t| (t, w * warp / t))
                    .filter(|&(t, b)| fits(t, b))
                    .collect();
                ways.sort_by_key(|&(t, _)| std::cmp::Reverse(t));
                if !every_block_size {
                    ways.truncate(1);
                }
                placements.extend(ways);
            }
        }
    }
    let mut points = Vec::new();
    for (t, blocks) in placements {
        for &l in loads {
            for &w in widths {
                points.push(Point {
                    shape: CopyShape {
                        threads: t,
                        loads: l,
                        width: w,
                    },
                    blocks_per_sm: blocks,
                });
            }
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200: PlanLimits = PlanLimits {
        warp_size: 32,
        max_blocks_per_sm: 32,
        max_warps_per_sm: 64,
    };

    fn default_points() -> Vec<Point> {
        plan_points(
            &GRID_THREADS,
            &GRID_LOADS,
            &GRID_WIDTHS,
            &Residency::WarpsPerSm {
                targets: COPY_WARPS_PER_SM.to_vec(),
                every_block_size: false,
            },
            H200,
        )
    }

    #[test]
    fn entry_names_follow_the_contract() {
        let s = CopyShape {
            threads: 32,
            loads: 14,
            width: 4,
        };
        assert_eq!(s.entry(), "memcpy_t32_l14_w4");
        assert_eq!(s.bytes_per_thread(), 224);
        assert_eq!(s.grid(32 * 14 * 4 * 3 + 1), 4);
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
        assert!(points
            .iter()
            .any(|p| p.shape.threads == 1024 && p.blocks_per_sm == 2));
        assert!(points
            .iter()
            .any(|p| p.shape.threads == 256 && p.blocks_per_sm == 1));
    }

    #[test]
    fn every_block_size_decomposes_each_target() {
        let points = plan_points(
            &GRID_THREADS,
            &[1],
            &[1],
            &Residency::WarpsPerSm {
                targets: vec![64],
                every_block_size: true,
            },
            H200,
        );
        let ways: Vec<(u32, u32)> = points
            .iter()
            .map(|p| (p.shape.threads, p.blocks_per_sm))
            .collect();
        // 32 threads would need 64 blocks, above the 32-block limit.
        assert_eq!(ways, [(1024, 2), (512, 4), (256, 8), (128, 16), (64, 32)]);
    }

    #[test]
    fn fixed_blocks_per_sm_drops_what_the_sm_cannot_hold() {
        let points = plan_points(&GRID_THREADS, &[2], &[4], &Residency::BlocksPerSm(4), H200);
        let threads: Vec<u32> = points.iter().map(|p| p.shape.threads).collect();
        // 4 x 1024 threads = 128 warps > 64.
        assert_eq!(threads, [32, 64, 128, 256, 512]);
    }
}
