//! What the two "ILP x warps per SM" sweeps share (`ilp`'s FMA chains and `mma`'s `mma.sync`
//! chains): the grid's flags (`--ilp`, `--warps-per-sm`, and the one `host all` takes), a
//! warps-per-SM target laid out as blocks, the point a row was launched at and its columns, the
//! points the ILP claims judge, the driver-placement flag of a point, the SM clock a point ran
//! at, and the plot of a rate over resident warps per SM with one series per ILP.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::cuda::Gpu;
use crate::experiments::cells;
use crate::experiments::contract::{Registered, Row};
use crate::experiments::measurement::Measurement;
use crate::figure::{LabelledPoint, Labels, ReferenceLine, ScatterPlot, Series, XScale};
use crate::results::Timing;
use crate::table::{Column, Kind, Value};

/// A sweep's kernels, one per ILP (a line of the variant table): what `--ilp` names.
pub trait IlpLine: Registered + Clone + Debug + PartialEq + Send + Sync + 'static {
    /// ILP `i`'s entry is `{STEM}{i}`.
    const STEM: &'static str;
    /// What ILP counts, in `--ilp`'s help ("chains per thread").
    const CHAINS: &'static str;
    /// `--warps-per-sm`'s default, and that of its flag in `host all`.
    const DEFAULT_WARPS_PER_SM: &'static [u32];
    /// The sweep's warps-per-SM flag in `host all`.
    const ALL_FLAG: &'static str;
    /// The line's (ILP, entry) pairs, ascending ILP.
    const LINE: fn() -> Vec<(u32, &'static str)>;

    /// The ILPs built, ascending.
    fn ilps() -> Vec<u32> {
        (Self::LINE)().into_iter().map(|(ilp, _)| ilp).collect()
    }

    /// The entry of ILP `ilp`, None where none is built.
    fn entry(ilp: u32) -> Option<&'static str> {
        (Self::LINE)()
            .into_iter()
            .find(|&(i, _)| i == ilp)
            .map(|(_, e)| e)
    }
}

/// `--ilp`'s and `--warps-per-sm`'s defaults of `K`'s grid in words, made once per line and
/// kept for the run (clap's derive would keep one for every `SweepGrid<K>`).
fn defaults<K: IlpLine>() -> &'static [Vec<String>; 2] {
    type Kept = BTreeMap<&'static str, &'static [Vec<String>; 2]>;
    static BY_LINE: Mutex<Kept> = Mutex::new(BTreeMap::new());
    let words = |v: &[u32]| v.iter().map(u32::to_string).collect();
    let mut by_line = BY_LINE.lock().unwrap_or_else(PoisonError::into_inner);
    by_line.entry(K::STEM).or_insert_with(|| {
        Box::leak(Box::new([
            words(&K::ilps()),
            words(K::DEFAULT_WARPS_PER_SM),
        ]))
    })
}

/// A sweep's grid: the ILPs of `K`'s line to run, each at every warps-per-SM target.
#[derive(Debug, Clone, PartialEq, clap::Args)]
#[group(skip)]
pub struct SweepGrid<K: IlpLine> {
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_ilp::<K>,
          default_values = defaults::<K>()[0].iter().map(String::as_str),
          help = format!("Independent {} to run (ILPs of the variant table's {} line)",
                         K::CHAINS, K::STEM))]
    pub ilp: Vec<u32>,
    /// Resident warps per SM to hold (1..64; a count that does not split into whole blocks of
    /// at most the largest block is skipped with a note).
    #[arg(long, value_name = "LIST", value_delimiter = ',',
          default_values = defaults::<K>()[1].iter().map(String::as_str),
          value_parser = crate::flag_values::whole(1u32..=64))]
    pub warps_per_sm: Vec<u32>,
    #[arg(skip)]
    line: PhantomData<K>,
}

impl<K: IlpLine> SweepGrid<K> {
    /// Every ILP built, at `warps_per_sm` (the grid `host all` runs).
    pub fn every_ilp(warps_per_sm: &[u32]) -> Self {
        Self::of(K::ilps(), warps_per_sm.to_vec())
    }

    /// `ilp` at `warps_per_sm` (a grid built in code).
    pub fn of(ilp: Vec<u32>, warps_per_sm: Vec<u32>) -> Self {
        Self {
            ilp,
            warps_per_sm,
            line: PhantomData,
        }
    }

    /// Every (ILP, warps per SM) point, ILP by ILP.
    pub fn points(&self) -> Vec<(u32, u32)> {
        let warps = &self.warps_per_sm;
        (self.ilp.iter())
            .flat_map(|&ilp| warps.iter().map(move |&w| (ilp, w)))
            .collect()
    }

    /// The entry of every ILP asked for; an error names the first without a kernel (arguments
    /// built in code: the command line refuses it already).
    pub fn entries(&self) -> Result<Vec<&'static str>, UnknownIlp> {
        (self.ilp.iter())
            .map(|&i| K::entry(i).ok_or_else(|| UnknownIlp::of::<K>(i)))
            .collect()
    }
}

/// What a sweep adds to `host all`: the warps-per-SM targets of its grid.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct AllWarps<K: IlpLine> {
    #[arg(long = K::ALL_FLAG, id = K::ALL_FLAG, value_name = "LIST", value_delimiter = ',',
          default_values = defaults::<K>()[1].iter().map(String::as_str),
          value_parser = crate::flag_values::whole(1u32..=64),
          help = format!("{}: resident warps per SM to hold", K::NAME))]
    pub warps_per_sm: Vec<u32>,
    #[arg(skip)]
    line: PhantomData<K>,
}

/// An ILP the kernels are not built for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--ilp {ilp}: no {stem}{ilp} kernel (built: {built})")]
pub struct UnknownIlp {
    pub ilp: u32,
    stem: &'static str,
    built: String,
}

impl UnknownIlp {
    /// ILP `ilp` of `K`'s line.
    pub fn of<K: IlpLine>(ilp: u32) -> Self {
        Self {
            ilp,
            stem: K::STEM,
            built: built_ilps::<K>(),
        }
    }
}

/// The ILPs `K`'s kernels are built for, in words.
pub fn built_ilps<K: IlpLine>() -> String {
    let ilps: Vec<String> = K::ilps().iter().map(u32::to_string).collect();
    ilps.join(", ")
}

/// One value of `--ilp`: an ILP with a kernel, refused at parse time (a usage error, exit 2).
fn parse_ilp<K: IlpLine>(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(ilp) if K::entry(ilp).is_some() => Ok(ilp),
        Ok(ilp) => Err(UnknownIlp::of::<K>(ilp).to_string()),
        Err(e) => Err(format!("{s:?}: {e}")),
    }
}

/// A warps-per-SM target laid out as `blocks_per_sm` blocks of `threads` threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    pub warps_per_sm: u32,
    pub blocks_per_sm: u32,
    pub threads: u32,
}

/// The fewest blocks of whole warps, at most `max_block_threads` threads each and at most
/// `max_blocks` of them, that make `warps` warps; None when no such split exists (e.g. a prime
/// above the warps one block may hold).
pub fn layout(
    warps: u32,
    warp_size: u32,
    max_block_threads: u32,
    max_blocks: u32,
) -> Option<Layout> {
    let per_block_max = (max_block_threads / warp_size.max(1)).max(1);
    (warps.div_ceil(per_block_max).max(1)..=max_blocks.min(warps))
        .find(|&b| warps.is_multiple_of(b) && warps / b <= per_block_max)
        .map(|b| Layout {
            warps_per_sm: warps,
            blocks_per_sm: b,
            threads: warps / b * warp_size,
        })
}

/// The [`layout`] of `warps` on `gpu`, or the note of a point of `entry` that has none.
pub fn place(gpu: &Gpu, entry: &str, warps: u32) -> Result<Layout, String> {
    let (info, max_block) = (gpu.info(), gpu.limits().max_threads_per_block);
    layout(warps, info.warp_size, max_block, info.max_blocks_per_sm).ok_or_else(|| {
        format!(
            "{entry} at {warps} warps/SM: no split into whole blocks of at most {max_block} \
             threads"
        )
    })
}

/// Mean of the clock readings around a figure's samples (MHz).
pub fn mean_clock_mhz(timing: &Timing) -> Option<f64> {
    let readings: Vec<f64> = [timing.sm_clock_mhz_before, timing.sm_clock_mhz_after]
        .iter()
        .flatten()
        .map(|&m| f64::from(m))
        .collect();
    (!readings.is_empty()).then(|| readings.iter().sum::<f64>() / readings.len() as f64)
}

/// One (ILP, warps per SM) point as it was launched: the kernel, its layout, the occupancy and
/// registers the driver reports and the rounds each thread ran. The rows embed it
/// (`#[serde(flatten)]`, so `results.json` keeps these fields where they always were).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Independent chains per thread (FMA chains, or `mma` accumulators per warp).
    pub ilp: u32,
    pub entry: String,
    pub layout: Layout,
    pub warps_per_sm: u32,
    pub occupancy: f64,
    pub regs: u32,
    pub dyn_smem_bytes: u32,
    /// Rounds per thread (ILP independent ops each).
    pub iters: u32,
}

impl SweepPoint {
    /// The point of `entry` (`ilp` chains) launched as `placed`, with the occupancy and
    /// registers its measurement read.
    pub fn launched(
        ilp: u32,
        entry: String,
        placed: Layout,
        mine: &Measurement,
        dyn_smem_bytes: u32,
        iters: u32,
    ) -> Self {
        Self {
            ilp,
            entry,
            layout: placed,
            warps_per_sm: placed.warps_per_sm,
            occupancy: mine.occupancy,
            regs: mine.regs,
            dyn_smem_bytes,
            iters,
        }
    }
}

/// "Low occupancy" of both sweeps' ILP claims: 12.5% (8 of 64 warps on sm_80 and sm_90).
pub const LOW_OCCUPANCY: f64 = 0.125;
/// Fewest independent chains (FMA chains, or mma per warp) of both ILP claims.
pub const MIN_ILP: u32 = 4;
const EPS: f64 = 1e-9;

impl SweepPoint {
    /// A point of the ILP claims: ILP >= [`MIN_ILP`] at <= [`LOW_OCCUPANCY`].
    pub fn ilp_at_low_occupancy(&self) -> bool {
        self.ilp >= MIN_ILP && self.occupancy <= LOW_OCCUPANCY + EPS
    }

    /// A point of the no-ILP claims: ILP 1 at 100% occupancy.
    pub fn no_ilp_at_full_occupancy(&self) -> bool {
        self.ilp == 1 && self.occupancy >= 1.0 - EPS
    }
}

/// A row of an "ILP x warps per SM" sweep: a [`Row`] measured at a [`SweepPoint`].
pub trait SweepRow: Row {
    fn point(&self) -> &SweepPoint;
    /// The SM clock during its samples (MHz; mean of the readings), None where it could not
    /// be read.
    fn sm_clock_mhz(&self) -> Option<f64>;
    fn timing(&self) -> &Timing;
}

/// The checked rows of the points `at` picks (e.g. [`SweepPoint::ilp_at_low_occupancy`]).
pub fn checked_at<R: SweepRow>(rows: &[R], at: fn(&SweepPoint) -> bool) -> Vec<&R> {
    (rows.iter())
        .filter(|r| r.measured().checked() && at(r.point()))
        .collect()
}

/// [`SweepRow`] for a row type whose `point`, `sm_clock_mhz` and `timing` fields are those.
macro_rules! sweep_row {
    ($row:ty) => {
        impl $crate::experiments::ilp_sweep::SweepRow for $row {
            fn point(&self) -> &$crate::experiments::ilp_sweep::SweepPoint {
                &self.point
            }
            fn sm_clock_mhz(&self) -> Option<f64> {
                self.sm_clock_mhz
            }
            fn timing(&self) -> &$crate::results::Timing {
                &self.timing
            }
        }
    };
}
pub(crate) use sweep_row;

/// A sweep's table columns: `lead` (e.g. the op, where a sweep times several), the point's,
/// from ILP to the rounds, the rate and the SM clock it ran at, the sweep's own `figures`, then
/// the noise and the check.
pub fn sweep_columns<R: SweepRow>(lead: Vec<Column<R>>, figures: Vec<Column<R>>) -> Vec<Column<R>> {
    let point = [
        Column::new("ILP", Kind::Count, |r: &R| count(r.point().ilp)),
        Column::new("Warps/SM", Kind::Count, |r| count(r.point().warps_per_sm)),
        Column::new(
            "Blocks x threads",
            Kind::Dims {
                sep: " x ",
                names: &["Blocks/SM", "Threads/block"],
            },
            |r| {
                let l = r.point().layout;
                Value::pair(l.blocks_per_sm.into(), l.threads.into())
            },
        ),
        Column::new("Theo. occ", Kind::Percent, |r| {
            Value::Float(r.point().occupancy)
        }),
        Column::new("Regs/thread", Kind::Count, |r| count(r.point().regs)),
        Column::new("Rounds", Kind::Count, |r| count(r.point().iters)),
        Column::new(R::RATE.unit, R::RATE.kind(), |r| {
            cells::rate(r.figures().0, &r.measured().flags)
        }),
        Column::new("SM clock (MHz)", Kind::Count, |r| {
            r.sm_clock_mhz().map_or(Value::NotAvailable, Value::Float)
        }),
    ];
    let checks = [
        Column::new("Noise", Kind::Noise, |r: &R| cells::noise(r.timing())),
        Column::new("Verified", Kind::Check, |r| {
            cells::check(&r.measured().check)
        }),
    ];
    lead.into_iter()
        .chain(point)
        .chain(figures)
        .chain(checks)
        .collect()
}

/// A count's cell.
pub fn count(n: u32) -> Value {
    Value::Int(n.into())
}

/// The flag a point carries when the driver placed another number of blocks per SM than its
/// layout asked for (its warps per SM are then not the ones the row names).
pub fn layout_mismatch(driver_blocks_per_sm: u32, placed: &Layout) -> Option<String> {
    (driver_blocks_per_sm != placed.blocks_per_sm).then(|| {
        format!(
            "driver gives {} blocks/SM, the layout asked for {}",
            driver_blocks_per_sm, placed.blocks_per_sm
        )
    })
}

/// A point of a per-ILP series: `y` at `warps` resident warps per SM.
pub fn at_warps(warps: u32, y: f64) -> LabelledPoint {
    LabelledPoint::at(f64::from(warps), y)
}

/// One drawn series per ILP, in ascending ILP, each with its points in ascending warps.
pub fn series_by_ilp(by_ilp: BTreeMap<u32, Vec<LabelledPoint>>) -> Vec<Series> {
    by_ilp
        .into_iter()
        .map(|(ilp, mut points)| {
            points.sort_by(|a, b| a.x.total_cmp(&b.x));
            Series::joined(format!("ILP {ilp}"), points)
        })
        .collect()
}

/// A sweep's plot over resident warps per SM (log x: the warps double along the sweep).
pub fn over_warps(
    title: String,
    y_label: &str,
    series: Vec<Series>,
    references: Vec<ReferenceLine>,
) -> ScatterPlot {
    ScatterPlot {
        labels: Labels::new(title, "resident warps per SM", y_label),
        x_scale: XScale::Log,
        x_unit_suffix: String::new(),
        series,
        references,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::measured::Measured;
    use crate::flag_values::parse_flags;

    /// A synthetic point of `entry` on a 64-warp SM, laid out as the sweeps lay them out
    /// (blocks of at most 1024 threads).
    pub(crate) fn point(entry: String, ilp: u32, warps: u32) -> SweepPoint {
        SweepPoint {
            ilp,
            entry,
            layout: layout(warps, 32, 1024, 32).expect("a layout of whole warps"),
            warps_per_sm: warps,
            occupancy: f64::from(warps) / 64.0,
            regs: 16,
            dyn_smem_bytes: 0,
            iters: 1024,
        }
    }

    /// A synthetic point's timing: 1 ms with 0.1% noise.
    pub(crate) fn timing() -> Timing {
        Timing {
            noise: Some(0.001),
            noise_target: Some(0.005),
            ..crate::sampling::summarize(vec![0.999, 1.001, 1.0, 0.9995, 1.0005], None, None)
        }
    }

    /// `t`'s median with +-2% noise over 9 samples (a fraction near a bar straddles it).
    pub(crate) fn noisy(t: &Timing) -> Timing {
        let m = t.median_ms;
        let samples = (0..9).map(|i| m * (0.98 + 0.005 * f64::from(i))).collect();
        crate::sampling::summarize(samples, None, None)
    }

    /// Too few samples for an interval.
    pub(crate) fn two_samples() -> Timing {
        crate::sampling::summarize(vec![1.0, 1.0], None, None)
    }

    /// A synthetic point's passed check, without flags or a compared module.
    pub(crate) fn passed() -> Measured {
        Measured {
            check: crate::results::Check {
                passed: true,
                error: 0.0,
                bound: 0.0,
                what: "synthetic".into(),
                hashes: None,
            },
            flags: vec![],
            compare: None,
        }
    }

    /// `f` of every (a, b) pair, `b` varying fastest.
    pub(crate) fn grid<A: Copy, B: Copy, R>(a: &[A], b: &[B], f: impl Fn(A, B) -> R) -> Vec<R> {
        a.iter()
            .flat_map(|&x| b.iter().map(move |&y| (x, y)))
            .map(|(x, y)| f(x, y))
            .collect()
    }

    /// Asserts that `text` says `words`, printing it whole where it does not.
    #[track_caller]
    pub(crate) fn has(text: &str, words: &str) {
        assert!(text.contains(words), "{text}");
    }

    /// `S`'s flags refuse `--ilp unknown` (saying `says`) and bad grid and cycle values, each a
    /// usage error.
    pub(crate) fn bad_grid_values_are_usage_errors<S>(unknown: &str, says: &str)
    where
        S: clap::Args + clap::FromArgMatches + Debug,
    {
        let e = parse_flags::<S>(&["--ilp", unknown]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
        assert_eq!(e.exit_code(), 2, "a usage error");
        has(&e.to_string(), says);
        for bad in [
            ["--ilp", "x"],
            ["--warps-per-sm", "65"],
            ["--warps-per-sm", "0"],
            ["--target-cycles", "0"],
            ["--target-cycles", "NaN"],
        ] {
            assert!(parse_flags::<S>(&bad).is_err(), "{bad:?}");
        }
    }

    /// The default grid: every ILP of `K`'s line at `warps`, which span 1 to 64 warps per SM.
    pub(crate) fn default_grid_spans_1_to_64<K: IlpLine>(warps: &[u32]) {
        let g = parse_flags::<SweepGrid<K>>(&[]).unwrap();
        assert_eq!(g.ilp, K::ilps());
        assert_eq!(g.warps_per_sm, warps);
        assert_eq!(g.warps_per_sm.first(), Some(&1));
        assert_eq!(g.warps_per_sm.last(), Some(&64));
    }

    #[test]
    fn warps_split_into_the_fewest_blocks() {
        for (warps, split) in [
            (8, (1, 256)),
            (64, (2, 1024)),
            (48, (2, 768)),
            (33, (3, 352)),
        ] {
            let l = layout(warps, 32, 1024, 32).unwrap();
            assert_eq!((l.blocks_per_sm, l.threads), split, "{warps} warps");
        }
        // 37 warps: only 37 blocks of one warp would do, above the 32-block limit.
        assert_eq!(layout(37, 32, 1024, 32), None);
    }

    #[test]
    fn a_mismatch_is_flagged_and_a_match_is_not() {
        let placed = Layout {
            warps_per_sm: 8,
            blocks_per_sm: 2,
            threads: 128,
        };
        assert_eq!(layout_mismatch(2, &placed), None);
        assert_eq!(
            layout_mismatch(1, &placed).as_deref(),
            Some("driver gives 1 blocks/SM, the layout asked for 2")
        );
    }

    #[test]
    fn series_come_in_ilp_order_with_points_in_warps_order() {
        let mut by_ilp = BTreeMap::new();
        by_ilp.insert(4, vec![at_warps(8, 1.0), at_warps(1, 2.0)]);
        by_ilp.insert(1, Vec::new());
        let s = series_by_ilp(by_ilp);
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ILP 1", "ILP 4"]);
        let xs: Vec<f64> = s[1].points.iter().map(|p| p.x).collect();
        assert_eq!(xs, [1.0, 8.0]);
    }
}
