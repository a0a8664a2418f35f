//! A GEMM experiment's figures per clock and per joule, in a table beside its rows (its second
//! table): every line's GFLOP/s per SM per clock at the SM clock NVML reported over the line's
//! samples, as a share of the pipe's peak at that clock; and, for the sides of its energy phase
//! (`gemm_energy.rs`), joules per GEMM, GFLOP per joule, the clock over the windows and the
//! ratios against cuBLAS per second, per clock and per joule. Runs recorded before the lab kept
//! these have no such table.

use serde::{Deserialize, Serialize};

use super::block_trace::peak_per_sm_clock;
use super::cells;
use super::gemm_figure_columns::GemmFiguresRow;
use crate::cuda::tensor_peak::bf16_dense_flops_per_sm_clock;
use crate::results::{Check, ClockSpan, DeviceInfo};
use crate::sampling::energy_windows::{EnergyPhase, EnergyRun, Ratios, SideFigures};
use crate::table::{columns_table, Column, Kind, TableData, TableRow, Value};

/// What a GEMM run keeps for its per-clock and energy figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockAndEnergy {
    pub sm_count: u32,
    /// The pipe, in words ("FP32 FMA", "dense BF16 tensor core").
    pub pipe: String,
    /// The pipe's peak FLOPs per SM per clock; None where the lab does not know it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_flops_per_sm_clock: Option<f64>,
    /// The energy phase; None when it was not asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<EnergyPhase>,
}

impl ClockAndEnergy {
    /// The FP32 FMA pipe of `info`'s device (its FP32 peak over SMs and the driver's clock).
    pub fn fp32(info: &DeviceInfo, energy: Option<EnergyPhase>) -> Self {
        Self {
            sm_count: info.sm_count,
            pipe: "FP32 FMA".into(),
            peak_flops_per_sm_clock: peak_per_sm_clock(
                info.peak_fp32_gflops,
                info.sm_count,
                info.sm_clock_khz,
            ),
            energy,
        }
    }

    /// The dense BF16 tensor-core pipe of `info`'s device, where the lab knows its rate.
    pub fn bf16(info: &DeviceInfo, energy: Option<EnergyPhase>) -> Self {
        Self {
            sm_count: info.sm_count,
            pipe: "dense BF16 tensor core".into(),
            peak_flops_per_sm_clock: bf16_dense_flops_per_sm_clock(info.compute_capability)
                .map(f64::from),
            energy,
        }
    }

    fn measured(&self) -> Option<&EnergyRun> {
        match self.energy.as_ref()? {
            EnergyPhase::Measured(r) => Some(r),
            EnergyPhase::Unavailable { .. } => None,
        }
    }

    /// The energy sides whose output failed its check after their windows, in words.
    pub fn failures(&self) -> Vec<String> {
        let Some(run) = self.measured() else {
            return Vec::new();
        };
        run.sides
            .iter()
            .filter(|s| s.check.as_ref().is_some_and(|c| !c.passed))
            .map(|s| {
                format!(
                    "{}: its output after its energy windows failed its check",
                    s.label
                )
            })
            .collect()
    }
}

pub use super::block_trace::flop_per_cycle_per_sm;

/// One line of the table: the experiment's row (or cuBLAS's) and its energy side, if any.
pub struct ClockLine {
    label: String,
    gflops: f64,
    /// NVML's SM clock over the figure: the median of its readings.
    mhz: Option<u32>,
    sms: u32,
    peak: Option<f64>,
    energy: Option<SideEnergy>,
}

struct SideEnergy {
    windows: usize,
    figures: SideFigures,
    ratios: Option<Ratios>,
    check: Option<Check>,
}

impl TableRow for ClockLine {
    fn label(&self) -> String {
        self.label.clone()
    }
    fn flags(&self) -> &[String] {
        &[]
    }
    fn compared(&self) -> bool {
        false
    }
}

impl ClockLine {
    fn per_cycle(&self) -> Option<f64> {
        flop_per_cycle_per_sm(self.gflops, self.sms, f64::from(self.mhz?))
    }
    fn energy_figure(&self, f: impl Fn(&SideEnergy) -> Option<f64>) -> Value {
        self.energy
            .as_ref()
            .and_then(f)
            .map_or(Value::NotAvailable, Value::Float)
    }
}

const MHZ: Kind = Kind::Rate {
    unit: "MHz",
    decimals: 0,
};

/// The headers of the energy columns, shown only where the phase measured.
const ENERGY: [&str; 12] = [
    "Energy windows",
    "J/GEMM",
    "GFLOP/J",
    "Step error",
    "NVML SM MHz, windows",
    "In-kernel MHz after windows",
    "GFLOP/s, windows",
    "vs cuBLAS per s",
    "vs cuBLAS per clock",
    "vs cuBLAS per J",
    "per J, step low-high",
    "Energy windows verified",
];

fn columns() -> Vec<Column<ClockLine>> {
    vec![
        // Text columns named as the committed-results check knows them ("Variant", "... verified").
        Column::new("Variant", Kind::Text, |r| Value::Text(r.label.clone())),
        Column::new(
            "GFLOP/s",
            Kind::Rate {
                unit: "GFLOP/s",
                decimals: 0,
            },
            |r| Value::Float(r.gflops),
        ),
        Column::new("NVML SM MHz (figure median)", MHZ, |r| {
            r.mhz.map_or(Value::NotAvailable, |m| Value::Int(m.into()))
        }),
        Column::new(
            "FLOP/cycle/SM",
            Kind::Rate {
                unit: "FLOP/cycle/SM",
                decimals: 0,
            },
            |r| r.per_cycle().map_or(Value::NotAvailable, Value::Float),
        ),
        Column::new("% of peak at that clock", Kind::Percent, |r| {
            match (r.per_cycle(), r.peak) {
                (Some(c), Some(p)) if p > 0.0 => Value::Float(c / p),
                _ => Value::NotAvailable,
            }
        }),
        Column::new(ENERGY[0], Kind::Count, |r| {
            r.energy
                .as_ref()
                .map_or(Value::Empty, |e| Value::Int(e.windows as u64))
        }),
        Column::new(
            ENERGY[1],
            Kind::Rate {
                unit: "J",
                decimals: 4,
            },
            |r| r.energy_figure(|e| e.figures.joules_per_gemm),
        ),
        Column::new(
            ENERGY[2],
            Kind::Rate {
                unit: "GFLOP/J",
                decimals: 0,
            },
            |r| r.energy_figure(|e| e.figures.gflop_per_joule),
        ),
        Column::new(ENERGY[3], Kind::Percent, |r| {
            r.energy_figure(|e| e.figures.step_error)
        }),
        Column::new(ENERGY[4], MHZ, |r| {
            r.energy_figure(|e| e.figures.clock_mean_mhz)
        }),
        Column::new(ENERGY[5], MHZ, |r| {
            r.energy_figure(|e| e.figures.kernel_clock_mhz)
        }),
        Column::new(
            ENERGY[6],
            Kind::Rate {
                unit: "GFLOP/s",
                decimals: 0,
            },
            |r| r.energy_figure(|e| e.figures.gflops),
        ),
        Column::new(ENERGY[7], Kind::Ratio, |r| {
            r.energy_figure(|e| e.ratios?.per_second)
        }),
        Column::new(ENERGY[8], Kind::Ratio, |r| {
            r.energy_figure(|e| e.ratios?.per_clock)
        }),
        Column::new(ENERGY[9], Kind::Ratio, |r| {
            r.energy_figure(|e| e.ratios?.per_joule)
        }),
        Column::new(
            ENERGY[10],
            Kind::Dims {
                sep: "-",
                names: &["per J low (x1000)", "per J high (x1000)"],
            },
            |r| match r.energy.as_ref().and_then(|e| e.ratios?.per_joule_range) {
                // Thousandths: the kind prints whole numbers.
                Some((lo, hi)) if hi.is_finite() => {
                    Value::Dims(vec![(lo * 1e3).round() as u64, (hi * 1e3).round() as u64])
                }
                _ => Value::NotAvailable,
            },
        ),
        Column::new(ENERGY[11], Kind::Check, |r| {
            r.energy
                .as_ref()
                .and_then(|e| e.check.as_ref())
                .map_or(Value::NotAvailable, cells::check)
        }),
    ]
}

/// A GEMM experiment's failed checks: its `rows`', then `others` (cuBLAS's), then those of the
/// energy sides' outputs after their windows.
pub fn gemm_failures<R: GemmFiguresRow>(
    rows: &[R],
    others: Vec<String>,
    ce: Option<&ClockAndEnergy>,
) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows {
        r.measured().failed(&r.label(), &mut out);
    }
    out.extend(others);
    out.extend(ce.iter().flat_map(|c| c.failures()));
    out
}

/// A GEMM experiment's per-clock and per-joule table: each of `rows` at its figure's clock (the
/// NVML readings over its samples), with cuBLAS's (label, GFLOP/s) where it ran.
pub fn gemm_table<R: GemmFiguresRow>(
    title: &str,
    rows: &[R],
    cublas: Option<(&str, f64)>,
    ce: &ClockAndEnergy,
) -> TableData {
    let lines = (rows.iter())
        .map(|r| {
            let f = r.gemm_figures();
            (r.label(), f.gflops, f.timing.sm_clock_mhz_during)
        })
        .collect();
    table(title, lines, cublas.map(|(l, g)| (l.to_owned(), g)), ce)
}

/// The table titled `title` over the experiment's `lines` (label, GFLOP/s, NVML's clock over
/// the figure) and cuBLAS's (label, GFLOP/s; its pooled figure keeps no clock).
pub fn table(
    title: &str,
    lines: Vec<(String, f64, Option<ClockSpan>)>,
    cublas: Option<(String, f64)>,
    ce: &ClockAndEnergy,
) -> TableData {
    let run = ce.measured();
    let energy_of = |label: &str| {
        let run = run?;
        let side = run.sides.iter().find(|s| s.label == label)?;
        Some(SideEnergy {
            windows: side.windows.len(),
            figures: side.figures(run.flops_per_gemm),
            ratios: run.ratios_of(side),
            check: side.check.clone(),
        })
    };
    let line = |label: String, gflops: f64, mhz: Option<u32>| ClockLine {
        energy: energy_of(&label),
        label,
        gflops,
        mhz,
        sms: ce.sm_count,
        peak: ce.peak_flops_per_sm_clock,
    };
    let mut rows: Vec<ClockLine> = lines
        .into_iter()
        .map(|(l, g, span)| line(l, g, span.map(|s| s.median_mhz)))
        .collect();
    rows.extend(cublas.map(|(l, g)| line(l, g, None)));
    let columns: Vec<Column<ClockLine>> = columns()
        .into_iter()
        .filter(|c| run.is_some() || !ENERGY.contains(&c.header))
        .collect();
    let mut t = columns_table(title, &columns, &rows);
    t.notes.extend(notes(ce));
    t
}

/// What the table's figures are, which clock, and what state the clocks were in.
fn notes(ce: &ClockAndEnergy) -> Vec<String> {
    let peak = match ce.peak_flops_per_sm_clock {
        Some(p) => format!(
            "% of peak at that clock is FLOP/cycle/SM over the {} pipe's {p:.0} FLOPs per SM per \
             clock",
            ce.pipe
        ),
        None => format!("the {} pipe's rate per clock is not known here", ce.pipe),
    };
    let mut out = vec![format!(
        "Per clock: FLOP/cycle/SM = GFLOP/s / ({} SMs x MHz), the MHz being NVML's SM clock \
         over the line's figure (the median of the readings taken before, between and after its \
         samples), not an in-kernel clock: the power cap moves the clock inside the samples, \
         which NVML's readings between them miss; {peak}. cuBLAS's pooled figure keeps no \
         clock.",
        ce.sm_count
    )];
    match &ce.energy {
        None => out.push(
            "No energy phase (`--energy` measures every line; `host all` the headline ones)."
                .into(),
        ),
        Some(EnergyPhase::Unavailable { reason }) => out.push(format!("Energy phase: {reason}.")),
        Some(EnergyPhase::Measured(run)) => out.extend(energy_notes(run)),
    }
    out
}

fn energy_notes(run: &EnergyRun) -> Vec<String> {
    let windows: Vec<_> = run.sides.iter().flat_map(|s| &s.windows).collect();
    let seconds: f64 = windows.iter().map(|w| w.seconds).sum();
    let changes: u32 = (windows.iter()).fold(0u32, |s, w| s.saturating_add(w.counter_changes));
    let step_ms = (changes > 0).then(|| seconds * 1e3 / f64::from(changes));
    let largest = windows.iter().filter_map(|w| w.step_mj).max();
    let rounds = run.sides.iter().map(|s| s.windows.len()).max().unwrap_or(0);
    let mut out = vec![format!(
        "Energy phase: the sides are {}; each ran alone, back-to-back launches of the timed \
         build on the timed problem, in {rounds} alternating windows of {:.0} s or more \
         (rotating order), {seconds:.1} s in all. J/GEMM, GFLOP/J and the clock are medians over \
         a side's windows; the clock of a window is the mean of NVML's SM clock readings polled \
         between its batches, and In-kernel MHz is `%clock64` cycles over `%globaltimer` \
         nanoseconds of a 2 ms probe (one warp a block, a block an SM, its own launch) run right \
         after each window, median over blocks and then windows. The ratios against {} are medians over rounds of the two sides' \
         windows of one round: per s of GFLOP/s, per clock of GFLOP/s over that mean MHz, per J \
         of GFLOP/J.",
        run.chosen,
        run.window_s,
        run.reference
            .as_deref()
            .unwrap_or("cuBLAS (which did not run)"),
    )];
    out.push(format!(
        "NVML's total-energy counter moves in steps{}: a window's energy is known to within one \
         step either way (the largest change seen inside a window{}), so Step error is that step over \
         the window's energy (the worst of the side's windows), and per J, step low-high is the \
         per-joule ratio with each side's windows off by their step in the direction that lowers \
         (raises) it, in thousandths.",
        step_ms.map_or(String::new(), |ms| format!(
            " (here about every {ms:.0} ms)"
        )),
        largest.map_or(String::new(), |mj| format!(
            ": up to {:.1} J here",
            mj as f64 / 1e3
        )),
    ));
    let throttle = run.throttle_words();
    let lo = windows.iter().filter_map(|w| w.clock_min_mhz).min();
    let hi = windows.iter().filter_map(|w| w.clock_max_mhz).max();
    let range = lo.zip(hi).map_or(String::new(), |(lo, hi)| {
        format!(" NVML's SM clock read {lo}-{hi} MHz in the windows;")
    });
    out.push(if throttle.is_empty() {
        format!(
            "Clocks:{range} NVML named no throttle reason during them (the lab never sets clocks \
             or power limits)."
        )
    } else {
        format!(
            "Clocks:{range} NVML named {throttle} as holding the clocks down during them (the \
             lab never sets clocks or power limits)."
        )
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::energy_windows::{EnergySide, EnergyWindow};
    use crate::sampling::energy_windows_test;
    use crate::table::to_csv;

    /// The energy bookkeeping's window, as the phase records it under the power cap: second in
    /// its round, a clock range, the probe's clock beside NVML's.
    fn window(round: u32, millijoules: u64, launches: u64, mhz: f64) -> EnergyWindow {
        EnergyWindow {
            order: round * 2,
            clock_min_mhz: Some(mhz as u32 - 10),
            clock_max_mhz: Some(mhz as u32 + 10),
            clock_readings: 100,
            throttled_by: "sw power cap".into(),
            kernel_clock_mhz: Some(mhz + 1.0),
            ..energy_windows_test::window(round, millijoules, launches, mhz)
        }
    }

    fn span(mhz: u32) -> Option<ClockSpan> {
        Some(ClockSpan {
            readings: 3,
            min_mhz: mhz,
            median_mhz: mhz,
            max_mhz: mhz,
        })
    }

    fn basis(energy: Option<EnergyPhase>) -> ClockAndEnergy {
        ClockAndEnergy {
            sm_count: 132,
            pipe: "dense BF16 tensor core".into(),
            peak_flops_per_sm_clock: Some(4096.0),
            energy,
        }
    }

    fn phase() -> EnergyPhase {
        let side = |label: &str, windows: Vec<EnergyWindow>| EnergySide {
            label: label.into(),
            windows,
            check: Some(Check {
                passed: true,
                error: 1e-3,
                bound: 1e-2,
                what: "every element".into(),
                hashes: None,
            }),
        };
        EnergyPhase::Measured(EnergyRun {
            flops_per_gemm: 1e9,
            window_s: 1.0,
            chosen: "fixed".into(),
            reference: Some("cuBLAS BF16".into()),
            sides: vec![
                side(
                    "M9",
                    (0..3).map(|r| window(r, 1_000_000, 600, 1700.0)).collect(),
                ),
                side(
                    "cuBLAS BF16",
                    (0..3).map(|r| window(r, 1_000_000, 1000, 1600.0)).collect(),
                ),
            ],
        })
    }

    #[test]
    fn flop_per_cycle_per_sm_is_gflops_over_sms_and_mhz() {
        // 132 SMs at 1980 MHz doing 4096 FLOPs a clock each: 1,070,530.56 GFLOP/s.
        let g = 132.0 * 1980.0 * 4096.0 / 1e3;
        assert!((flop_per_cycle_per_sm(g, 132, 1980.0).unwrap() - 4096.0).abs() < 1e-9);
        assert_eq!(flop_per_cycle_per_sm(g, 0, 1980.0), None);
        assert_eq!(flop_per_cycle_per_sm(g, 132, 0.0), None);
    }

    #[test]
    fn the_table_shows_per_clock_figures_and_energy_only_where_measured() {
        let lines = vec![
            ("M9".to_owned(), 132.0 * 1700.0 * 2048.0 / 1e3, span(1700)),
            ("M1".to_owned(), 400_000.0, None),
        ];
        let cublas = Some(("cuBLAS BF16".to_owned(), 700_000.0));
        let t = table("t", lines.clone(), cublas.clone(), &basis(Some(phase())));
        let csv = to_csv(&t);
        // The text columns carry the names the committed-results check reads as text.
        let header = csv.lines().next().unwrap();
        assert!(header.starts_with("Variant,") && header.contains(",Energy windows verified,"));
        let m9 = csv.lines().find(|l| l.starts_with("M9,")).unwrap();
        // 2048 FLOP/cycle/SM at 1700 MHz: 50% of the 4096 peak; 3 windows of 600 GEMMs for
        // 1000 J: 1.6667 J/GEMM, 0.6 GFLOP/J (GEMMs of 1 GFLOP), ± a tenth, 600 GFLOP/s.
        let head = "M9,459571.2,1700,2048,50,3,1.666666667,0.6,10,1700,1701,600,";
        assert!(m9.starts_with(head), "{m9}");
        // Per s 0.6, per clock 0.6 x 1600/1700, per J 0.6 with its step range.
        assert!(m9.contains(",0.6,0.5647058824,0.6,491,733,"), "{m9}");
        let m1 = csv.lines().find(|l| l.starts_with("M1,")).unwrap();
        assert!(m1.starts_with("M1,400000,,,,,,,,,"), "{m1}");
        let notes = t.notes.join("\n");
        assert!(notes.contains("132 SMs") && notes.contains("not an in-kernel clock"));
        assert!(notes.contains("sw power cap"), "{notes}");
        assert!(notes.contains("about every 100 ms"), "{notes}");
        // Without a phase the energy columns are not shown and the note says how to get one.
        let plain = table("t", lines.clone(), cublas.clone(), &basis(None));
        assert!(!to_csv(&plain).lines().next().unwrap().contains("J/GEMM"));
        assert!(plain.notes.join(" ").contains("No energy phase"));
        let why = EnergyPhase::Unavailable {
            reason: "no NVML".into(),
        };
        let none = table("t", lines, cublas, &basis(Some(why)));
        assert!(none.notes.join(" ").contains("Energy phase: no NVML."));
    }

    #[test]
    fn a_side_whose_output_failed_after_its_windows_is_a_failed_check() {
        let mut ce = basis(Some(phase()));
        assert!(ce.failures().is_empty());
        if let Some(EnergyPhase::Measured(run)) = ce.energy.as_mut() {
            run.sides[0].check.as_mut().unwrap().passed = false;
        }
        assert_eq!(ce.failures().len(), 1);
        assert!(ce.failures()[0].starts_with("M9:"));
    }

    #[test]
    fn the_fp32_pipe_is_two_flops_per_lane_per_clock() {
        // The committed H200 run's device.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../results/h200");
        let text = crate::run_json::read_run_json(std::path::Path::new(dir), u64::MAX).1;
        let json: serde_json::Value = serde_json::from_slice(&text.unwrap()).unwrap();
        let d: DeviceInfo = serde_json::from_value(json["device"].clone()).unwrap();
        assert_eq!(
            ClockAndEnergy::fp32(&d, None).peak_flops_per_sm_clock,
            Some(256.0)
        );
        assert_eq!(
            ClockAndEnergy::bf16(&d, None).peak_flops_per_sm_clock,
            Some(4096.0)
        );
    }
}
