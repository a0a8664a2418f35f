//! The GEMM experiments' energy phase on the GPU: the sides chosen before it (the headline ones in
//! `host all`, every line timed that passed its checks with `--energy`), each run alone in windows
//! of a second or more, alternating, NVML's counter read at each window's ends and its clock polled
//! between batches ([`crate::sampling::energy_windows`]). The launches are the timed figures' own
//! (same kernels, shapes and buffers, alpha=1, beta=0), and each side's output after each of its
//! windows is checked in every element as its timed output was.

use cudarc::driver::CudaEvent;

use super::error::ExperimentError;
use super::gemm_cublas::CublasSide;
use super::gemm_sides::{GemmKind, GemmSides};
use super::gemm_sides_energy::EnergyLaunch;
use crate::cuda::clock_probe::ClockProbe;
use crate::cuda::{CudaError, Gpu};
use crate::results::Check;
use crate::sampling::energy_windows::{
    run_windows, EnergyPhase, EnergyRun, WindowPlan, WindowSides,
};
use crate::sampling::nvml_meter::GpuMeter;

/// Which sides an experiment's energy phase runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnergyScope {
    /// None (a subcommand without `--energy`).
    #[default]
    Off,
    /// The headline sides: the experiment's fastest verified line of each kind and cuBLAS
    /// (`host all`).
    Headline,
    /// Every line timed that passed its checks, and cuBLAS (`--energy`).
    Every,
}

impl EnergyScope {
    /// `--energy` asked for every line; otherwise `host all` takes the headline sides and a
    /// subcommand none.
    pub fn of(every: bool, in_all: bool) -> Self {
        match (every, in_all) {
            (true, _) => EnergyScope::Every,
            (false, true) => EnergyScope::Headline,
            (false, false) => EnergyScope::Off,
        }
    }
}

/// How long one batch of launches lasts, about: long against NVML's polls between batches, short
/// against the window (the window ends at the first batch boundary after its time is up).
const BATCH_MS: f64 = 10.0;

/// Launches per batch for a GEMM of `median_ms`: about [`BATCH_MS`] of them, at least one.
pub fn launches_per_batch(median_ms: f64) -> u64 {
    if median_ms.is_finite() && median_ms > 0.0 {
        (BATCH_MS / median_ms).ceil().clamp(1.0, 10_000.0) as u64
    } else {
        1
    }
}

/// One side of the phase: its label, its launch and its batch.
pub struct PhaseSide<'s, 'k, E> {
    pub label: String,
    pub launch: EnergyLaunch<'s, 'k, E>,
    pub per_batch: u64,
}

/// The windows' view of the GPU: batches double-buffered on two events, so that one batch is
/// always queued behind the one running.
struct OnGpu<'a, 's, 'k, K: GemmKind> {
    gpu: &'a Gpu,
    buffers: &'a mut GemmSides<K>,
    sides: &'a [PhaseSide<'s, 'k, K::Elem>],
    events: [CudaEvent; 2],
    batches: usize,
    /// Each side's checks after its windows, merged: the first failure kept.
    checks: Vec<Option<Check>>,
    /// The in-kernel clock probe: loaded at the first window's end; None inside when it could
    /// not be loaded (the windows go on without it).
    probe: Option<Option<ClockProbe>>,
}

impl<K: GemmKind> WindowSides for OnGpu<'_, '_, '_, K> {
    type Error = CudaError;

    fn before(&mut self, side: usize) -> Result<(), CudaError> {
        self.buffers
            .energy_before(self.gpu, &self.sides[side].launch)
    }

    fn batch(&mut self, side: usize) -> Result<u64, CudaError> {
        let s = &self.sides[side];
        for _ in 0..s.per_batch {
            self.buffers.energy_launch(self.gpu, &s.launch)?;
        }
        let i = self.batches % 2;
        self.gpu.record(&self.events[i])?;
        if self.batches > 0 {
            self.gpu
                .wait_for(&self.events[1 - i], "an energy window's batch")?;
        }
        self.batches += 1;
        Ok(s.per_batch)
    }

    fn drain(&mut self) -> Result<(), CudaError> {
        self.batches = 0;
        self.gpu.synchronize()
    }

    fn kernel_clock_mhz(&mut self) -> Result<Option<f64>, CudaError> {
        let gpu = self.gpu;
        let probe = self.probe.get_or_insert_with(|| ClockProbe::new(gpu).ok());
        match probe {
            Some(p) => p.mhz(gpu),
            None => Ok(None),
        }
    }

    fn after(&mut self, side: usize) -> Result<(), CudaError> {
        let check = self
            .buffers
            .energy_check(self.gpu, &self.sides[side].launch)?;
        let slot = &mut self.checks[side];
        if slot.as_ref().is_none_or(|c| c.passed) {
            *slot = Some(check);
        }
        Ok(())
    }
}

/// Runs the phase over `sides` on `buffers`' problem: `plan`'s windows, `chosen` saying how the
/// sides were picked, the ratios against `reference` (cuBLAS's label) where it is among them.
/// Without NVML's counter the phase is recorded as unavailable and the run goes on.
pub fn run_phase<K: GemmKind>(
    gpu: &Gpu,
    buffers: &mut GemmSides<K>,
    sides: &[PhaseSide<'_, '_, K::Elem>],
    (chosen, reference): (String, Option<String>),
    plan: WindowPlan,
) -> Result<EnergyPhase, ExperimentError> {
    let flops_per_gemm = buffers.dims().flops();
    let labels: Vec<String> = sides.iter().map(|s| s.label.clone()).collect();
    let mut on_gpu = OnGpu {
        gpu,
        buffers,
        sides,
        events: [gpu.event()?, gpu.event()?],
        batches: 0,
        checks: vec![None; sides.len()],
        probe: None,
    };
    let mut meter = GpuMeter::new(gpu);
    let measured = run_windows(&mut meter, &mut on_gpu, &labels, plan)?;
    let checks = on_gpu.checks;
    Ok(match measured {
        Err(reason) => EnergyPhase::Unavailable { reason },
        Ok(mut out) => {
            for (side, check) in out.iter_mut().zip(checks) {
                side.check = check;
            }
            EnergyPhase::Measured(EnergyRun {
                flops_per_gemm,
                window_s: plan.window.as_secs_f64(),
                chosen,
                reference: reference.filter(|r| labels.contains(r)),
                sides: out,
            })
        }
    })
}

/// Adds cuBLAS to the kernels' `sides` (as `cublas_label`, where it was timed) and runs the
/// phase at its minimum plan, `chosen` saying how the sides were picked; without a side to
/// measure, the phase is recorded as unavailable.
pub fn with_cublas_run<'k, 'l, K: GemmKind>(
    gpu: &Gpu,
    buffers: &mut GemmSides<K>,
    mut sides: Vec<PhaseSide<'k, 'l, K::Elem>>,
    (cublas, cublas_label): (&'k CublasSide, &str),
    chosen: String,
) -> Result<EnergyPhase, ExperimentError> {
    if let (Some(c), Some(ms)) = (cublas.usable(), cublas.median_ms()) {
        sides.push(PhaseSide {
            label: cublas_label.to_owned(),
            launch: EnergyLaunch::Cublas(c),
            per_batch: launches_per_batch(ms),
        });
    }
    if sides.is_empty() {
        return Ok(EnergyPhase::Unavailable {
            reason: "no verified line and no cuBLAS to measure".into(),
        });
    }
    let reference = Some(cublas_label.to_owned());
    run_phase(
        gpu,
        buffers,
        &sides,
        (chosen, reference),
        WindowPlan::MINIMUM,
    )
}

/// Of `rows` (label, GFLOP/s, verified), the label of the fastest verified one: the rule the
/// headline sides are chosen by, from the timed table, before the phase runs.
pub fn fastest_verified<'r>(
    rows: impl IntoIterator<Item = (&'r str, f64, bool)>,
) -> Option<&'r str> {
    rows.into_iter()
        .filter(|&(_, g, passed)| passed && g.is_finite())
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(label, _, _)| label)
}

/// How the sides of `scope` were chosen, in words, `kinds` naming the kinds of line whose
/// fastest was taken ("the mma.sync lines", "the wgmma lines").
pub fn chosen_words(scope: EnergyScope, kinds: &[&str]) -> String {
    match scope {
        EnergyScope::Every => {
            "every line timed that passed its checks (--energy), and cuBLAS".into()
        }
        _ => format!(
            "fixed before the phase: of {}, the verified line with the highest GFLOP/s in this \
             run's table (each kind apart), and cuBLAS",
            kinds.join(" and of ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_last_about_ten_ms_and_at_least_one_launch() {
        assert_eq!(launches_per_batch(0.2), 50);
        assert_eq!(launches_per_batch(1.5), 7);
        assert_eq!(launches_per_batch(30.0), 1);
        assert_eq!(launches_per_batch(f64::NAN), 1);
        assert_eq!(launches_per_batch(0.0), 1);
    }

    #[test]
    fn the_fastest_verified_line_is_chosen_and_a_failed_one_never() {
        let rows = [
            ("M1", 400.0, true),
            ("M9", 520.0, true),
            ("M7", 900.0, false),
        ];
        assert_eq!(fastest_verified(rows), Some("M9"));
        assert_eq!(fastest_verified([("M7", 900.0, false)]), None);
        assert_eq!(fastest_verified([]), None);
    }

    #[test]
    fn the_scope_follows_the_flag_and_host_all() {
        assert_eq!(EnergyScope::of(true, false), EnergyScope::Every);
        assert_eq!(EnergyScope::of(true, true), EnergyScope::Every);
        assert_eq!(EnergyScope::of(false, true), EnergyScope::Headline);
        assert_eq!(EnergyScope::of(false, false), EnergyScope::Off);
        assert!(chosen_words(
            EnergyScope::Headline,
            &["the mma.sync lines", "the wgmma lines"]
        )
        .contains("of the mma.sync lines and of the wgmma lines"));
    }
}
