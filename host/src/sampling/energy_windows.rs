//! Energy per GEMM from NVML's total-energy counter: each side run alone in windows of at least a
//! second (back-to-back launches until the window's time is up), the sides' windows alternating
//! in rotating order ([`super::rounds::rotation`]), the counter read at each window's ends and
//! the SM clock, the counter and the throttle reasons polled between the window's batches.
//!
//! Why windows of a second: on the H200 the counter moves in steps about every 100 ms
//! (`../shared/notes/h200-energy-and-clock.md`), so a reading lags the energy by up to one step
//! and a window's energy is known to within one step either way. The largest change of the
//! counter seen inside a window is kept as that step ([`EnergyWindow::step_mj`]) and every
//! per-joule figure carries it as its error.
//!
//! The loop ([`run_windows`]) reads the counter and the clock through [`Meter`] and launches
//! through [`WindowSides`], so the bookkeeping is tested on the CPU with a fake counter.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::rounds::rotation;
use crate::confidence::median;
use crate::results::Check;

/// The shortest window taken: several of the counter's ~100 ms steps.
pub const MIN_WINDOW: Duration = Duration::from_secs(1);
/// The fewest windows per side: a median over windows needs three.
pub const MIN_WINDOWS: u32 = 3;

/// What the energy phase reads: NVML's counter and clock (or a fake in tests), and the time.
pub trait Meter {
    /// The device's total energy since the driver loaded, millijoules; None without NVML.
    fn energy_mj(&mut self) -> Option<u64>;
    /// The SM clock now, MHz.
    fn sm_mhz(&mut self) -> Option<u32>;
    /// What holds the clocks down now, in NVML's words (empty: nothing).
    fn throttled_by(&mut self) -> Option<String>;
    /// Time since a fixed origin.
    fn now(&mut self) -> Duration;
}

/// The sides the windows run, by index.
pub trait WindowSides {
    type Error;
    /// Before `side`'s window: e.g. its output filled with a value no correct element has.
    fn before(&mut self, side: usize) -> Result<(), Self::Error>;
    /// Enqueues one batch of `side`'s launches (waiting for the batch before the last, so that
    /// the GPU is never idle and the queue stays short); gives how many were enqueued.
    fn batch(&mut self, side: usize) -> Result<u64, Self::Error>;
    /// Waits until every launch enqueued has run.
    fn drain(&mut self) -> Result<(), Self::Error>;
    /// The SM clock read from inside a kernel launched now, right after the window (MHz); None
    /// where no such probe can run.
    fn kernel_clock_mhz(&mut self) -> Result<Option<f64>, Self::Error>;
    /// After `side`'s window (drained): e.g. its output checked.
    fn after(&mut self, side: usize) -> Result<(), Self::Error>;
}

/// How long each window runs and how many each side gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowPlan {
    pub window: Duration,
    pub windows: u32,
}

/// A plan the counter cannot measure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowPlanError {
    #[error(
        "an energy window of {0:?} is too short: NVML's energy counter moves in steps of about \
         100 ms, so windows must last at least {MIN_WINDOW:?}"
    )]
    TooShort(Duration),
    #[error("{0} energy windows per side are too few: a median over windows needs {MIN_WINDOWS}")]
    TooFew(u32),
}

impl WindowPlan {
    /// The least the lab takes (`host all`): three windows of a second per side.
    pub const MINIMUM: WindowPlan = WindowPlan {
        window: MIN_WINDOW,
        windows: MIN_WINDOWS,
    };

    /// `windows` windows of `window` each; refused when shorter or fewer than the minimum.
    pub fn new(window: Duration, windows: u32) -> Result<Self, WindowPlanError> {
        if window < MIN_WINDOW {
            return Err(WindowPlanError::TooShort(window));
        }
        if windows < MIN_WINDOWS {
            return Err(WindowPlanError::TooFew(windows));
        }
        Ok(Self { window, windows })
    }
}

/// One window of one side, as read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnergyWindow {
    /// The round (0-based) of the alternation it ran in.
    pub round: u32,
    /// Its position in the whole phase's sequence of windows (0-based).
    pub order: u32,
    /// From the first counter reading to the last, after every launch had run.
    pub seconds: f64,
    pub launches: u64,
    /// The counter's change over the window.
    pub millijoules: u64,
    /// The largest single change of the counter seen between two polls inside the window: the
    /// window's energy is known to within this either way. None when it changed fewer than
    /// twice (no whole step was seen).
    pub step_mj: Option<u64>,
    /// How many times the counter changed inside the window.
    pub counter_changes: u32,
    /// The mean of the SM clock readings NVML gave during the window, MHz.
    pub clock_mean_mhz: Option<f64>,
    pub clock_min_mhz: Option<u32>,
    pub clock_max_mhz: Option<u32>,
    pub clock_readings: u32,
    /// Every throttle reason NVML named during the window (comma-separated; empty: none).
    pub throttled_by: String,
    /// The SM clock an in-kernel probe (`%clock64` over `%globaltimer`) read right after the
    /// window's last launch, MHz; None where the probe could not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_clock_mhz: Option<f64>,
}

/// One side's windows and the check of its output after them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnergySide {
    pub label: String,
    pub windows: Vec<EnergyWindow>,
    /// Its output after its windows, checked as its timed output was; None where not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
}

/// The energy phase of a GEMM experiment: measured, or why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum EnergyPhase {
    Measured(EnergyRun),
    /// No counter (no NVML, or a device without one): the run went on without the phase.
    Unavailable {
        reason: String,
    },
}

/// The windows of every side of the phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnergyRun {
    /// FLOPs of one GEMM of the problem.
    pub flops_per_gemm: f64,
    /// The window's planned length, seconds.
    pub window_s: f64,
    /// How the sides were chosen, in words (fixed before the phase ran).
    pub chosen: String,
    /// The side the ratios are taken against (cuBLAS), by label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    pub sides: Vec<EnergySide>,
}

/// Runs `plan.windows` windows of each of `labels`' sides through `sides`, in rotating order,
/// reading `meter`. Without an energy counter nothing is launched and the phase says why.
pub fn run_windows<M: Meter, S: WindowSides>(
    meter: &mut M,
    sides: &mut S,
    labels: &[String],
    plan: WindowPlan,
) -> Result<Result<Vec<EnergySide>, String>, S::Error> {
    if meter.energy_mj().is_none() {
        return Ok(Err(
            "NVML's total-energy counter could not be read (no NVML, or the device has none): \
             no energy phase"
                .into(),
        ));
    }
    let mut out: Vec<EnergySide> = labels
        .iter()
        .map(|l| EnergySide {
            label: l.clone(),
            windows: Vec::new(),
            check: None,
        })
        .collect();
    let mut order = 0;
    for round in 0..plan.windows {
        for side in rotation(round, labels.len()) {
            sides.before(side)?;
            match window(meter, sides, side, plan.window)? {
                Some(mut w) => {
                    w.round = round;
                    w.order = order;
                    out[side].windows.push(w);
                }
                None => return Ok(Err("NVML's energy counter stopped answering".into())),
            }
            sides.after(side)?;
            order += 1;
        }
    }
    Ok(Ok(out))
}

/// One window of `side`: launches until `length` has passed, then drained; None when the
/// counter did not answer at either end.
fn window<M: Meter, S: WindowSides>(
    meter: &mut M,
    sides: &mut S,
    side: usize,
    length: Duration,
) -> Result<Option<EnergyWindow>, S::Error> {
    let start = meter.now();
    let Some(e0) = meter.energy_mj() else {
        return Ok(None);
    };
    let mut polls = Polls::new(e0);
    let mut launches = 0;
    while meter.now() - start < length {
        launches += sides.batch(side)?;
        polls.read(meter);
    }
    sides.drain()?;
    polls.read(meter);
    let Some(e1) = meter.energy_mj() else {
        return Ok(None);
    };
    polls.energy(e1);
    let seconds = (meter.now() - start).as_secs_f64();
    // After the window's readings, so that the probe's launch is no part of its energy.
    let kernel_clock_mhz = sides.kernel_clock_mhz()?;
    let clocks = &polls.clocks;
    let mean = (!clocks.is_empty())
        .then(|| clocks.iter().map(|&c| f64::from(c)).sum::<f64>() / clocks.len() as f64);
    Ok(Some(EnergyWindow {
        round: 0,
        order: 0,
        seconds,
        launches,
        millijoules: e1.saturating_sub(e0),
        step_mj: polls.step(),
        counter_changes: polls.changes.len() as u32,
        clock_mean_mhz: mean,
        clock_min_mhz: clocks.iter().copied().min(),
        clock_max_mhz: clocks.iter().copied().max(),
        clock_readings: clocks.len() as u32,
        throttled_by: polls.reasons.join(", "),
        kernel_clock_mhz,
    }))
}

/// What the polls inside a window saw.
struct Polls {
    last_mj: u64,
    /// Each change of the counter between two polls, mJ.
    changes: Vec<u64>,
    clocks: Vec<u32>,
    reasons: Vec<String>,
}

impl Polls {
    fn new(e0: u64) -> Self {
        Self {
            last_mj: e0,
            changes: Vec::new(),
            clocks: Vec::new(),
            reasons: Vec::new(),
        }
    }

    fn read<M: Meter>(&mut self, meter: &mut M) {
        if let Some(mhz) = meter.sm_mhz() {
            self.clocks.push(mhz);
        }
        if let Some(e) = meter.energy_mj() {
            self.energy(e);
        }
        for r in meter.throttled_by().iter().flat_map(|w| w.split(", ")) {
            if !r.is_empty() && !self.reasons.iter().any(|k| k == r) {
                self.reasons.push(r.to_owned());
            }
        }
    }

    fn energy(&mut self, e: u64) {
        if e != self.last_mj {
            self.changes.push(e.saturating_sub(self.last_mj));
            self.last_mj = e;
        }
    }

    /// The largest whole step: the first change may be a step the window began inside of, so
    /// a step is known once the counter has changed at least twice.
    fn step(&self) -> Option<u64> {
        (self.changes.len() >= 2).then(|| self.changes.iter().copied().max().unwrap_or(0))
    }
}

// ---- The figures of the windows ----

/// One window's figures: joules per GEMM, GFLOP per joule (with its range from the counter's
/// step), GFLOP/s and GFLOP/s per MHz.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowFigures {
    pub joules_per_gemm: Option<f64>,
    pub gflop_per_joule: Option<f64>,
    /// GFLOP/J with the window's energy one step higher and one step lower.
    pub gflop_per_joule_range: Option<(f64, f64)>,
    pub gflops: f64,
    pub gflops_per_mhz: Option<f64>,
}

impl EnergyWindow {
    /// This window's figures for GEMMs of `flops` each; none per joule where the counter did not
    /// move or no GEMM ran.
    pub fn figures(&self, flops: f64) -> WindowFigures {
        let joules = self.millijoules as f64 / 1e3;
        let gflop = flops * self.launches as f64 / 1e9;
        let usable = joules > 0.0 && self.launches > 0;
        let per_joule = |j: f64| (j > 0.0).then(|| gflop / j);
        let range = self.step_mj.filter(|_| usable).and_then(|s| {
            let s = s as f64 / 1e3;
            Some((
                per_joule(joules + s)?,
                per_joule(joules - s).unwrap_or(f64::INFINITY),
            ))
        });
        let gflops = if self.seconds > 0.0 {
            gflop / self.seconds
        } else {
            0.0
        };
        WindowFigures {
            joules_per_gemm: usable.then(|| joules / self.launches as f64),
            gflop_per_joule: usable.then(|| gflop / joules),
            gflop_per_joule_range: range,
            gflops,
            gflops_per_mhz: self.clock_mean_mhz.filter(|&m| m > 0.0).map(|m| gflops / m),
        }
    }

    /// The counter's step over the window's energy: the relative error of its per-joule figures.
    pub fn step_error(&self) -> Option<f64> {
        let step = self.step_mj? as f64;
        (self.millijoules > 0).then(|| step / self.millijoules as f64)
    }
}

/// A side's medians over its windows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SideFigures {
    pub joules_per_gemm: Option<f64>,
    pub gflop_per_joule: Option<f64>,
    pub gflops: Option<f64>,
    pub clock_mean_mhz: Option<f64>,
    /// The in-kernel probe's clock right after each window, median over windows.
    pub kernel_clock_mhz: Option<f64>,
    /// The largest step error of its windows (relative).
    pub step_error: Option<f64>,
}

/// The median of the values present; None when none is.
pub fn median_of(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let mut v: Vec<f64> = values.into_iter().flatten().collect();
    (!v.is_empty()).then(|| median(&mut v))
}

impl EnergySide {
    pub fn figures(&self, flops: f64) -> SideFigures {
        let f: Vec<WindowFigures> = self.windows.iter().map(|w| w.figures(flops)).collect();
        SideFigures {
            joules_per_gemm: median_of(f.iter().map(|w| w.joules_per_gemm)),
            gflop_per_joule: median_of(f.iter().map(|w| w.gflop_per_joule)),
            gflops: median_of(f.iter().map(|w| Some(w.gflops))),
            clock_mean_mhz: median_of(self.windows.iter().map(|w| w.clock_mean_mhz)),
            kernel_clock_mhz: median_of(self.windows.iter().map(|w| w.kernel_clock_mhz)),
            step_error: self
                .windows
                .iter()
                .filter_map(EnergyWindow::step_error)
                .reduce(f64::max),
        }
    }
}

/// A side against the reference: medians over rounds of the ratio of the two sides' windows of
/// one round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratios {
    pub per_second: Option<f64>,
    /// GFLOP/s per MHz over the reference's.
    pub per_clock: Option<f64>,
    pub per_joule: Option<f64>,
    /// The per-joule ratio's range with each window's energy off by its step in the direction
    /// that lowers (raises) the ratio, as a median over rounds.
    pub per_joule_range: Option<(f64, f64)>,
    /// Rounds in which both sides had a window.
    pub rounds: usize,
}

/// `side` over `reference`, round by round, for GEMMs of `flops` each.
pub fn ratios(side: &EnergySide, reference: &EnergySide, flops: f64) -> Ratios {
    let pairs: Vec<(WindowFigures, WindowFigures)> = side
        .windows
        .iter()
        .filter_map(|w| {
            let r = reference.windows.iter().find(|r| r.round == w.round)?;
            Some((w.figures(flops), r.figures(flops)))
        })
        .collect();
    let over = |a: Option<f64>, b: Option<f64>| Some(a? / b.filter(|&b| b > 0.0)?);
    // Each bound a median over rounds of its own: the side's window off by its step against
    // the reference's off by its step the other way.
    let bound = |pick: fn(&WindowFigures, &WindowFigures) -> Option<f64>| {
        let v: Option<Vec<f64>> = pairs.iter().map(|(s, r)| pick(s, r)).collect();
        v.filter(|v| !v.is_empty()).map(|mut v| median(&mut v))
    };
    let low = bound(|s, r| Some(s.gflop_per_joule_range?.0 / r.gflop_per_joule_range?.1));
    let high = bound(|s, r| Some(s.gflop_per_joule_range?.1 / r.gflop_per_joule_range?.0));
    let per_joule_range = low.zip(high);
    Ratios {
        per_second: median_of(
            pairs
                .iter()
                .map(|(s, r)| over(Some(s.gflops), Some(r.gflops))),
        ),
        per_clock: median_of(
            pairs
                .iter()
                .map(|(s, r)| over(s.gflops_per_mhz, r.gflops_per_mhz)),
        ),
        per_joule: median_of(
            pairs
                .iter()
                .map(|(s, r)| over(s.gflop_per_joule, r.gflop_per_joule)),
        ),
        per_joule_range,
        rounds: pairs.len(),
    }
}

impl EnergyRun {
    /// The reference side, where one was named and ran.
    pub fn reference_side(&self) -> Option<&EnergySide> {
        let name = self.reference.as_ref()?;
        self.sides.iter().find(|s| &s.label == name)
    }

    /// `side` against the reference, where there is one (and it is not the side itself).
    pub fn ratios_of(&self, side: &EnergySide) -> Option<Ratios> {
        let r = self.reference_side()?;
        (r.label != side.label).then(|| ratios(side, r, self.flops_per_gemm))
    }

    /// Every throttle reason NVML named in any window, deduplicated, in words; empty: none.
    pub fn throttle_words(&self) -> String {
        let mut seen: Vec<&str> = Vec::new();
        let windows = self.sides.iter().flat_map(|s| &s.windows);
        for r in windows.flat_map(|w| w.throttled_by.split(", ")) {
            if !r.is_empty() && !seen.contains(&r) {
                seen.push(r);
            }
        }
        seen.join(", ")
    }
}
