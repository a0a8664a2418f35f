//! What the GEMM experiments' rows (`occupancy`, `regs`, `held`, `gemm_bf16`, `shapes`) record
//! alike of one timed GEMM build: its
//! registers, the occupancy calculator's residency, the timing and the throughput, and how its
//! grid of output tiles fills the GPU (waves and the last one's tail). The rows embed it
//! (`#[serde(flatten)]`, so `results.json` keeps these fields where they always were).

use serde::{Deserialize, Serialize};

use super::block_trace::BlockTrace;
use super::measurement::Measurement;
use crate::claim::ratio;
use crate::confidence::{Interval, NoInterval};
use crate::cuda::LaunchShape;
use crate::occupancy::waves::Waves;
use crate::results::Timing;

/// One GEMM build's registers, residency, timing and GFLOP/s.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GemmFigures {
    pub regs: u32,
    pub blocks_per_sm: u32,
    /// Theoretical occupancy, 0..=1.
    pub occupancy: f64,
    /// What limits the resident blocks, by the occupancy calculator (e.g. "registers + warps").
    pub limiter: String,
    pub timing: Timing,
    pub gflops: f64,
    /// The launch's tiles and grid on the device's SMs; absent in runs recorded before waves
    /// were (their tables keep their columns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Schedule>,
    /// The block trace of one untimed launch of the build's traced entry: achieved occupancy
    /// and the clock inside the kernel, or why there is none; absent in runs before traces
    /// were, and for a build the lab did not trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_trace: Option<BlockTrace>,
}

/// How a launch covers the output: its tiles, the blocks it launched and the device's SMs.
/// A grid of one block per tile runs in waves of SMs x blocks/SM; a persistent grid (fewer
/// blocks than tiles, each walking several) runs its own schedule of tiles per block.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct Schedule {
    /// Output tiles of the product at the run's size.
    pub tiles: u64,
    /// Blocks the grid launched.
    pub blocks: u64,
    /// The device's SMs.
    pub sms: u32,
    /// Work units each tile's K is cut into (split-K); 1 where K is whole, and in runs recorded
    /// before split-K was.
    #[serde(default = "whole_k", skip_serializing_if = "is_whole_k")]
    pub k_splits: u32,
    /// A tile's K slices where the grid streams its last partial wave (each block an equal run
    /// of its slices); absent where tiles are dealt whole, and in runs before streamed tails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streamed: Option<u32>,
}

fn whole_k() -> u32 {
    1
}

fn is_whole_k(splits: &u32) -> bool {
    *splits == 1
}

impl Schedule {
    /// The schedule of a launch of `shape` covering `tiles` output tiles on `sms` SMs.
    pub fn of_launch(tiles: u64, shape: &LaunchShape, sms: u32) -> Self {
        let (x, y) = shape.grid;
        Self {
            tiles,
            blocks: u64::from(x) * u64::from(y),
            sms,
            k_splits: 1,
            streamed: None,
        }
    }

    /// This schedule with its last partial wave streamed in runs of tiles' `k_steps` slices.
    pub fn streamed(self, k_steps: u32) -> Self {
        Self {
            streamed: Some(k_steps),
            ..self
        }
    }

    /// This schedule with each tile's K cut into `splits` work units.
    pub fn cut(self, splits: u32) -> Self {
        Self {
            k_splits: splits.max(1),
            ..self
        }
    }

    /// The longest run of the streamed last wave's K slices a block takes (None where tiles are
    /// dealt whole): the tail's tiles' slices over the blocks, rounded up.
    pub fn streamed_run(&self) -> Option<u32> {
        let k = u64::from(self.streamed?);
        let tail = self.tiles % self.blocks.max(1);
        u32::try_from((tail * k).div_ceil(self.blocks.max(1))).ok()
    }

    /// The walk's work units: tiles, times the units of each tile's K.
    pub fn units(&self) -> u64 {
        self.tiles * u64::from(self.k_splits)
    }

    /// The schedule of a grid of one block per tile (the grid's blocks are the tiles).
    pub fn one_block_per_tile(shape: &LaunchShape, sms: u32) -> Self {
        let (x, y) = shape.grid;
        Self::of_launch(u64::from(x) * u64::from(y), shape, sms)
    }

    /// Whether the grid is persistent: fewer blocks than work units, each walking several.
    pub fn persistent(&self) -> bool {
        self.blocks < self.units()
    }

    /// The work units (tiles, or parts of their K where it is cut) over the slots that run
    /// them at `blocks_per_sm`: SMs x blocks/SM for a grid of one block per unit (waves), the
    /// launched blocks for a persistent one (units per block).
    pub fn waves(&self, blocks_per_sm: u32) -> Waves {
        if self.persistent() {
            Waves {
                tiles: self.units(),
                slots: self.blocks,
                grain: 1,
            }
            .streamed(self.streamed.map_or(1, u64::from))
        } else {
            Waves::new(self.units(), self.sms, blocks_per_sm)
        }
    }
}

impl GemmFigures {
    /// The figures of our side of a measurement (no schedule: [`GemmFigures::scheduled`]).
    pub fn of(ours: &Measurement) -> Self {
        Self {
            regs: ours.regs,
            blocks_per_sm: ours.blocks_per_sm,
            occupancy: ours.occupancy,
            limiter: ours.limiter.clone(),
            timing: ours.timing.clone(),
            gflops: ours.throughput,
            schedule: None,
            block_trace: ours.trace.clone(),
        }
    }

    /// These figures with the launch's schedule.
    pub fn scheduled(self, schedule: Schedule) -> Self {
        Self {
            schedule: Some(schedule),
            ..self
        }
    }

    /// Waves (or tiles per block, for a persistent grid) at this build's blocks/SM, where the
    /// run recorded the schedule.
    pub fn waves(&self) -> Option<Waves> {
        self.schedule.map(|s| s.waves(self.blocks_per_sm))
    }

    /// These GFLOP/s over `other`'s, with the interval of their samples.
    pub fn over(&self, other: &GemmFigures) -> Result<Interval, NoInterval> {
        ratio((self.gflops, &self.timing), (other.gflops, &other.timing))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(grid: (u32, u32)) -> LaunchShape {
        LaunchShape {
            grid,
            threads: 256,
            dyn_smem: 0,
        }
    }

    #[test]
    fn a_cut_tiles_units_are_what_runs_in_waves() {
        // 16x4096x4096 on a 128 x 128 line: 32 tiles, K cut in 4: 128 blocks of one unit each.
        let s = Schedule::of_launch(32, &shape((128, 1)), 132).cut(4);
        assert_eq!((s.units(), s.persistent()), (128, false));
        assert_eq!(s.waves(1), Waves::new(128, 132, 1));
        // The same tiles whole: 32 blocks, a quarter of a wave.
        let whole = Schedule::of_launch(32, &shape((32, 1)), 132);
        assert_eq!((whole.k_splits, whole.units()), (1, 32));
        assert!((whole.waves(1).waves() - 32.0 / 132.0).abs() < 1e-12);
        // A run recorded before split-K reads as K whole, and K whole is not written.
        let old: Schedule = serde_json::from_str(r#"{"tiles":32,"blocks":32,"sms":132}"#).unwrap();
        assert_eq!(old, whole);
        assert!(!serde_json::to_string(&whole).unwrap().contains("k_splits"));
    }

    #[test]
    fn a_grid_of_one_block_per_tile_runs_in_waves_of_its_residency() {
        let s = Schedule::one_block_per_tile(&shape((64, 64)), 132);
        assert_eq!((s.tiles, s.blocks, s.persistent()), (4096, 4096, false));
        assert_eq!(s.waves(8), Waves::new(4096, 132, 8));
        assert!((s.waves(6).waves() - 4096.0 / 792.0).abs() < 1e-12);
    }

    #[test]
    fn a_persistent_grid_runs_tiles_per_block() {
        // 32 x 32 tiles on 132 blocks: 7.76 tiles a block, the last round 76% full.
        let s = Schedule::of_launch(1024, &shape((132, 1)), 132);
        assert!(s.persistent());
        let w = s.waves(1);
        assert_eq!(w.slots, 132);
        assert!((w.waves() - 1024.0 / 132.0).abs() < 1e-12);
        assert!((w.tail_efficiency() - 1024.0 / 132.0 / 8.0).abs() < 1e-12);
        // Streamed, the last round's 100 tiles of 64 slices are shared out in runs of 48 or 49:
        // the busiest block runs 7 tiles and 49 slices; the schedule says so only then.
        let streamed = s.streamed(64);
        let t = streamed.waves(1).tail_efficiency();
        assert!((t - 1024.0 * 64.0 / (132.0 * (7.0 * 64.0 + 49.0))).abs() < 1e-12);
        assert!(serde_json::to_string(&streamed)
            .unwrap()
            .contains(r#""streamed":64"#));
        assert!(!serde_json::to_string(&s).unwrap().contains("streamed"));
        assert_eq!(
            (streamed.streamed_run(), s.streamed_run()),
            (Some(49), None)
        );
        // Fewer tiles than SMs: one block a tile, a fraction of one wave.
        let small = Schedule::of_launch(66, &shape((66, 1)), 132);
        assert!(!small.persistent());
        assert!((small.waves(1).waves() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn the_schedule_is_absent_from_old_rows_and_round_trips() {
        let timing = crate::sampling::summarize(vec![1.0], None, None);
        let f = GemmFigures {
            regs: 128,
            blocks_per_sm: 8,
            occupancy: 0.5,
            limiter: "registers".into(),
            timing,
            gflops: 1000.0,
            schedule: None,
            block_trace: None,
        };
        let json = serde_json::to_value(&f).unwrap();
        assert!(json.get("schedule").is_none() && json.get("block_trace").is_none());
        assert_eq!(serde_json::from_value::<GemmFigures>(json).unwrap(), f);
        let s = f
            .clone()
            .scheduled(Schedule::one_block_per_tile(&shape((64, 64)), 132));
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["schedule"]["tiles"], 4096);
        assert_eq!(serde_json::from_value::<GemmFigures>(json).unwrap(), s);
        assert_eq!(s.waves(), Some(Waves::new(4096, 132, 8)));
        assert_eq!(f.waves(), None);
    }
}
