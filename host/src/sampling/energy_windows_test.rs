//! The energy phase's bookkeeping on a fake GPU whose energy counter, like the H200's, moves only
//! every 100 ms: joules per GEMM within the counter's step, windows alternating, medians of the
//! ratios over rounds, too-short windows refused, and no counter (no NVML) said, not failed.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use super::energy_windows::*;

/// The counter's update period on the H200.
const STEP: Duration = Duration::from_millis(100);
/// One 4096³ GEMM's FLOPs.
const FLOPS: f64 = 2.0 * 4096.0 * 4096.0 * 4096.0;

/// A side of the fake GPU: its power while it runs, its time per GEMM and its clock.
#[derive(Clone, Copy)]
struct FakeSide {
    watts: f64,
    ms: f64,
    mhz: u32,
}

/// A fake GPU: a clock, the true energy, and the counter, which takes the true energy's value
/// only at each multiple of [`STEP`].
struct World {
    t: Duration,
    joules: f64,
    counter_mj: u64,
    sides: Vec<FakeSide>,
    idle_watts: f64,
    running: Option<usize>,
    nvml: bool,
    /// Launches per batch.
    per_batch: u64,
    /// Which side each window ran, in order.
    windows: Vec<usize>,
    batches: u32,
}

impl World {
    fn new(sides: Vec<FakeSide>) -> Rc<RefCell<World>> {
        Rc::new(RefCell::new(World {
            // Start between two of the counter's steps.
            t: Duration::from_millis(1234),
            joules: 5_000.0,
            counter_mj: 5_000_000,
            sides,
            idle_watts: 90.0,
            running: None,
            nvml: true,
            per_batch: 10,
            windows: Vec::new(),
            batches: 0,
        }))
    }

    /// Runs for `dt` at `watts`, the counter updated at every step boundary crossed.
    fn advance(&mut self, mut dt: Duration, watts: f64) {
        while !dt.is_zero() {
            let step = STEP.as_nanos();
            let next = Duration::from_nanos(((self.t.as_nanos() / step + 1) * step) as u64);
            let to_next = next - self.t;
            let d = dt.min(to_next);
            self.joules += watts * d.as_secs_f64();
            self.t += d;
            dt -= d;
            if self.t == next {
                self.counter_mj = (self.joules * 1e3) as u64;
            }
        }
    }
}

struct FakeMeter(Rc<RefCell<World>>);
struct FakeSides(Rc<RefCell<World>>);

impl Meter for FakeMeter {
    fn energy_mj(&mut self) -> Option<u64> {
        let w = self.0.borrow();
        w.nvml.then_some(w.counter_mj)
    }
    fn sm_mhz(&mut self) -> Option<u32> {
        let w = self.0.borrow();
        w.nvml.then(|| w.running.map_or(1980, |s| w.sides[s].mhz))
    }
    fn throttled_by(&mut self) -> Option<String> {
        let w = self.0.borrow();
        let capped = w.running.is_some_and(|s| w.sides[s].watts >= 700.0);
        w.nvml
            .then(|| if capped { "sw power cap" } else { "" }.to_owned())
    }
    fn now(&mut self) -> Duration {
        self.0.borrow().t
    }
}

impl WindowSides for FakeSides {
    type Error = String;
    fn before(&mut self, side: usize) -> Result<(), String> {
        let mut w = self.0.borrow_mut();
        // A few idle milliseconds between windows (the check of the last one).
        let idle = w.idle_watts;
        w.advance(Duration::from_millis(3), idle);
        w.running = Some(side);
        w.windows.push(side);
        Ok(())
    }
    fn batch(&mut self, side: usize) -> Result<u64, String> {
        let mut w = self.0.borrow_mut();
        let s = w.sides[side];
        let n = w.per_batch;
        w.advance(Duration::from_secs_f64(s.ms * 1e-3 * n as f64), s.watts);
        w.batches += 1;
        Ok(n)
    }
    fn drain(&mut self) -> Result<(), String> {
        Ok(())
    }
    fn kernel_clock_mhz(&mut self) -> Result<Option<f64>, String> {
        let w = self.0.borrow();
        Ok(w.running.map(|s| f64::from(w.sides[s].mhz) + 0.5))
    }
    fn after(&mut self, _: usize) -> Result<(), String> {
        self.0.borrow_mut().running = None;
        Ok(())
    }
}

fn labels(n: usize) -> Vec<String> {
    ["ours", "wgmma", "cuBLAS"][..n]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn run(world: &Rc<RefCell<World>>, n: usize, plan: WindowPlan) -> Result<Vec<EnergySide>, String> {
    let mut meter = FakeMeter(world.clone());
    let mut sides = FakeSides(world.clone());
    run_windows(&mut meter, &mut sides, &labels(n), plan).unwrap()
}

/// Ours at 400 W and 2 ms a GEMM (0.8 J), 1700 MHz; cuBLAS at 700 W and 1 ms (0.7 J), 1600 MHz.
fn two_sides() -> Vec<FakeSide> {
    vec![
        FakeSide {
            watts: 400.0,
            ms: 2.0,
            mhz: 1700,
        },
        FakeSide {
            watts: 700.0,
            ms: 1.0,
            mhz: 1600,
        },
    ]
}

#[test]
fn joules_per_gemm_come_within_one_step_of_the_truth_on_a_counter_stepping_every_100_ms() {
    let world = World::new(two_sides());
    let sides = run(&world, 2, WindowPlan::MINIMUM).unwrap();
    for (side, truth_j) in sides.iter().zip([0.8, 0.7]) {
        assert_eq!(side.windows.len(), 3);
        let watts = truth_j / if truth_j == 0.8 { 2e-3 } else { 1e-3 };
        for w in &side.windows {
            assert!(w.seconds >= 1.0 && w.seconds < 1.1, "{w:?}");
            // A whole step is a tenth of a second's energy: at the side's power, or up to the
            // highest power of the 100 ms before it (the window's first step may straddle the
            // side before).
            let step = w.step_mj.expect("a second holds several steps") as f64 / 1e3;
            assert!(
                step > watts * 0.1 - 0.5 && step < 70.5,
                "{step} J at {watts} W"
            );
            assert!(w.counter_changes >= 9, "{w:?}");
            let f = w.figures(FLOPS);
            let j = f.joules_per_gemm.unwrap();
            let within = step / w.launches as f64 + 1e-9;
            assert!(
                (j - truth_j).abs() <= within,
                "{j} J vs {truth_j} ± {within}"
            );
            // The per-joule range holds the truth.
            let (lo, hi) = f.gflop_per_joule_range.unwrap();
            let truth = FLOPS / 1e9 / truth_j;
            assert!(lo <= truth && truth <= hi, "{lo} {truth} {hi}");
            assert!((f.gflop_per_joule.unwrap() - FLOPS / 1e9 / j).abs() < 1e-9);
            assert!(w.step_error().unwrap() > 0.05 && w.step_error().unwrap() < 0.15);
        }
        let figures = side.figures(FLOPS);
        assert!((figures.joules_per_gemm.unwrap() - truth_j).abs() < 0.1 * truth_j);
    }
    // The clock NVML gave while each side ran, and the cap named for cuBLAS's windows alone.
    assert_eq!(sides[0].windows[0].clock_mean_mhz, Some(1700.0));
    assert_eq!(sides[1].windows[2].clock_mean_mhz, Some(1600.0));
    // The in-kernel probe after each window, while the side's state holds.
    assert_eq!(sides[0].windows[2].kernel_clock_mhz, Some(1700.5));
    assert_eq!(sides[1].figures(FLOPS).kernel_clock_mhz, Some(1600.5));
    assert_eq!(sides[0].windows[1].throttled_by, "");
    assert_eq!(sides[1].windows[1].throttled_by, "sw power cap");
    // Ratios against cuBLAS, medians over the three rounds: per second 0.5; per clock 0.5 over
    // 1700/1600; per joule 0.7/0.8, inside the step's range.
    let run = EnergyRun {
        flops_per_gemm: FLOPS,
        window_s: 1.0,
        chosen: "fixed".into(),
        reference: Some("wgmma".into()),
        sides,
    };
    assert_eq!(run.throttle_words(), "sw power cap");
    let r = run.ratios_of(&run.sides[0]).unwrap();
    assert_eq!(r.rounds, 3);
    let per_second = r.per_second.unwrap();
    assert!((per_second - 0.5).abs() < 0.005, "{per_second}");
    let per_clock = r.per_clock.unwrap();
    assert!(
        (per_clock - 0.5 * 1600.0 / 1700.0).abs() < 0.005,
        "{per_clock}"
    );
    let per_joule = r.per_joule.unwrap();
    assert!((per_joule - 0.875).abs() < 0.875 * 0.2, "{per_joule}");
    let (lo, hi) = r.per_joule_range.unwrap();
    assert!(lo <= 0.875 && 0.875 <= hi && hi - lo < 0.5, "{lo} {hi}");
    // The reference is not compared with itself.
    assert_eq!(run.ratios_of(&run.sides[1]), None);
}

#[test]
fn windows_alternate_in_rotating_order() {
    let mut three = two_sides();
    three.insert(
        1,
        FakeSide {
            watts: 650.0,
            ms: 1.2,
            mhz: 1650,
        },
    );
    let world = World::new(three);
    let sides = run(&world, 3, WindowPlan::MINIMUM).unwrap();
    assert_eq!(world.borrow().windows, [0, 1, 2, 1, 2, 0, 2, 0, 1]);
    let orders: Vec<Vec<(u32, u32)>> = sides
        .iter()
        .map(|s| s.windows.iter().map(|w| (w.round, w.order)).collect())
        .collect();
    assert_eq!(
        orders,
        [
            vec![(0, 0), (1, 5), (2, 7)],
            vec![(0, 1), (1, 3), (2, 8)],
            vec![(0, 2), (1, 4), (2, 6)]
        ]
    );
}

#[test]
fn too_short_or_too_few_windows_are_refused() {
    let short = WindowPlan::new(Duration::from_millis(999), 3).unwrap_err();
    assert_eq!(short, WindowPlanError::TooShort(Duration::from_millis(999)));
    assert!(short.to_string().contains("100 ms"), "{short}");
    let few = WindowPlan::new(Duration::from_secs(1), 2).unwrap_err();
    assert_eq!(few, WindowPlanError::TooFew(2));
    assert_eq!(
        WindowPlan::new(Duration::from_secs(1), 3),
        Ok(WindowPlan::MINIMUM)
    );
    assert!(WindowPlan::new(Duration::from_secs(2), 5).is_ok());
}

#[test]
fn without_nvml_the_phase_says_so_and_launches_nothing() {
    let world = World::new(two_sides());
    world.borrow_mut().nvml = false;
    let why = run(&world, 2, WindowPlan::MINIMUM).unwrap_err();
    assert!(why.contains("could not be read"), "{why}");
    assert_eq!(world.borrow().batches, 0);
}

/// A window of `round` that took `millijoules` for `launches` at a mean NVML clock of `mhz`, its
/// step a tenth of its energy (the rest plain: first in its round, one reading, no throttle).
pub(crate) fn window(round: u32, millijoules: u64, launches: u64, mhz: f64) -> EnergyWindow {
    EnergyWindow {
        round,
        order: 0,
        seconds: 1.0,
        launches,
        millijoules,
        step_mj: Some(millijoules / 10),
        counter_changes: 10,
        clock_mean_mhz: Some(mhz),
        clock_min_mhz: None,
        clock_max_mhz: None,
        clock_readings: 1,
        throttled_by: String::new(),
        kernel_clock_mhz: None,
    }
}

#[test]
fn ratios_are_medians_over_rounds_of_the_windows_of_one_round() {
    let side = |label: &str, windows: Vec<EnergyWindow>| EnergySide {
        label: label.into(),
        windows,
        check: None,
    };
    let flops = 1e9;
    // cuBLAS: 1000 GEMMs for 1000 J in every round (1 GFLOP/J), at 1600 MHz.
    let cublas = side(
        "cuBLAS",
        (0..3).map(|r| window(r, 1_000_000, 1000, 1600.0)).collect(),
    );
    // Ours per joule: 0.5, 0.9, 0.6 of cuBLAS; per second 0.5, 0.9, 0.6 too; the median is the
    // middle round's neither first nor last: 0.6.
    let ours = side(
        "M9",
        vec![
            window(0, 1_000_000, 500, 1600.0),
            window(1, 1_000_000, 900, 1800.0),
            window(2, 1_000_000, 600, 1600.0),
        ],
    );
    let r = ratios(&ours, &cublas, flops);
    assert!((r.per_joule.unwrap() - 0.6).abs() < 1e-12);
    assert!((r.per_second.unwrap() - 0.6).abs() < 1e-12);
    // Per clock: 0.5, 0.8 (0.9 at 1800 against 1600), 0.6: median 0.6.
    assert!((r.per_clock.unwrap() - 0.6).abs() < 1e-12);
    // Each window's energy is known to a tenth: the range is 0.6 x (0.9/1.1 .. 1.1/0.9).
    let (lo, hi) = r.per_joule_range.unwrap();
    assert!((lo - 0.6 * 0.9 / 1.1).abs() < 1e-9 && (hi - 0.6 * 1.1 / 0.9).abs() < 1e-9);
    // A round the reference lacks is not paired.
    let lone = side("M9", vec![window(7, 1_000_000, 500, 1600.0)]);
    let r = ratios(&lone, &cublas, flops);
    assert_eq!((r.rounds, r.per_joule), (0, None));
}

#[test]
fn a_counter_that_did_not_move_gives_no_figure_per_joule() {
    let mut w = window(0, 0, 1000, 1600.0);
    w.step_mj = None;
    let f = w.figures(1e9);
    assert_eq!((f.joules_per_gemm, f.gflop_per_joule), (None, None));
    assert_eq!(f.gflop_per_joule_range, None);
    assert!((f.gflops - 1000.0).abs() < 1e-9);
    assert_eq!(w.step_error(), None);
    // A step as large as the window's energy leaves the upper bound open.
    let mut coarse = window(0, 100_000, 1000, 1600.0);
    coarse.step_mj = Some(100_000);
    let (_, hi) = coarse.figures(1e9).gflop_per_joule_range.unwrap();
    assert!(hi.is_infinite());
}
