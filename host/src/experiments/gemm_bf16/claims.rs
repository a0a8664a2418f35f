//! The lab's own claims about `mma.sync` against cuBLAS's BF16 GEMM, judged on what the energy
//! phase measures: per clock (GFLOP/s over NVML's mean SM clock of each window) and per joule
//! (GFLOP/J from NVML's energy counter, with the counter's step as its error). docs/design.md
//! had read the table's ratio of medians as "the two kernels' energy per flop under a shared
//! 700 W" and 0.75x of cuBLAS as out of `mma.sync`'s reach with nothing measuring either.
//!
//! Judged only in runs that kept the clock basis (`clock_energy`, from the energy phase's session
//! on), so that the committed runs, which predate it, render as they did.

use super::bf16_energy::{picked, CUBLAS};
use super::row::{Bf16Row, Bf16Run, TensorPath};
use crate::claim::Verdict;
use crate::experiments::gemm_energy::EnergyScope;
use crate::sampling::energy_windows::{EnergyPhase, EnergyRun, Ratios};

/// The share of cuBLAS that docs/design.md put out of `mma.sync`'s reach on the H200.
pub const OUT_OF_REACH: f64 = 0.75;

/// The verdicts, in runs that kept the clock basis; none in older runs.
pub fn claims(run: Option<&Bf16Run>) -> Vec<Verdict> {
    let Some(run) = run.filter(|r| r.clock_energy.is_some()) else {
        return Vec::new();
    };
    let side = headline(run);
    vec![
        below_three_quarters(&side),
        capped_ratio_is_per_joule(&side),
    ]
}

/// The best `mma.sync` side in the phase against cuBLAS: its row, the phase, its ratios; or why
/// there is none.
struct Headline<'a> {
    row: &'a Bf16Row,
    phase: &'a EnergyRun,
    ratios: Ratios,
}

fn headline(run: &Bf16Run) -> Result<Headline<'_>, String> {
    let energy = run.clock_energy.as_ref().and_then(|c| c.energy.as_ref());
    let phase = match energy {
        None => return Err("no energy phase in this run (`--energy`, or `host all`)".into()),
        Some(EnergyPhase::Unavailable { reason }) => return Err(format!("no energy: {reason}")),
        Some(EnergyPhase::Measured(p)) => p,
    };
    // The phase's own rule: the verified mma.sync line with the highest GFLOP/s in the table.
    let best = picked(EnergyScope::Headline, &run.rows)
        .into_iter()
        .filter_map(|l| run.rows.iter().find(|r| r.variant == l))
        .find(|r| r.path != TensorPath::Wgmma)
        .ok_or("no verified mma.sync line")?;
    let side = (phase.sides.iter())
        .find(|s| s.label == best.variant)
        .ok_or_else(|| format!("{} was not among the energy phase's sides", best.variant))?;
    if phase.reference_side().is_none() {
        return Err(format!("{CUBLAS} was not among the energy phase's sides"));
    }
    if side.check.as_ref().is_some_and(|c| !c.passed) {
        return Err(format!(
            "{}'s output failed its check after its windows",
            best.variant
        ));
    }
    let ratios = phase.ratios_of(side).ok_or("no ratio against cuBLAS")?;
    Ok(Headline {
        row: best,
        phase,
        ratios,
    })
}

/// The headline side's ratios in words.
fn evidence(h: &Headline<'_>) -> String {
    let r = &h.ratios;
    let show = |x: Option<f64>| x.map_or("n/a".to_owned(), |x| format!("{x:.3}"));
    let range = r
        .per_joule_range
        .map_or("no step range".to_owned(), |(lo, hi)| {
            format!("{lo:.3}-{hi:.3} with each window's energy off by the counter's step")
        });
    format!(
        "{} (the fastest verified mma.sync line of the table) against {CUBLAS}, medians over {} \
         rounds of {:.0} s windows: per s {}, per clock {}, per J {} ({range}); the table's \
         ratio of medians {}",
        h.row.variant,
        r.rounds,
        h.phase.window_s,
        show(r.per_second),
        show(r.per_clock),
        show(r.per_joule),
        show(h.row.vs_cublas),
    )
}

/// "mma.sync cannot reach 0.75 of cuBLAS on this GPU": below it per clock and per joule.
fn below_three_quarters(side: &Result<Headline<'_>, String>) -> Verdict {
    let (holds, evidence) = match side {
        Err(why) => (None, why.clone()),
        Ok(h) => {
            let clock = h.ratios.per_clock;
            let range = h.ratios.per_joule_range;
            let below = clock.is_some_and(|c| c < OUT_OF_REACH)
                && range.is_some_and(|(_, hi)| hi < OUT_OF_REACH);
            let reached = clock.is_some_and(|c| c >= OUT_OF_REACH)
                || range.is_some_and(|(lo, _)| lo >= OUT_OF_REACH);
            let holds = if reached {
                Some(false)
            } else if below {
                Some(true)
            } else {
                None
            };
            (holds, evidence(h))
        }
    };
    Verdict {
        key: "mma-sync-below-three-quarters-of-cublas",
        experiment: 0,
        claim: format!(
            "mma.sync GEMMs stay below {OUT_OF_REACH} of cuBLAS's BF16 GEMM on this GPU, per \
             clock and per joule"
        ),
        rule: format!(
            "The fastest verified mma.sync line of the table (M and MT lines; chosen by median \
             GFLOP/s before the energy phase: choosing the best of several can only make the \
             claim harder to hold, so no correction is applied) against cuBLAS in the energy \
             phase at the run's size, ratios as medians over rounds of the two sides' windows \
             of one round. HOLDS when the per-clock ratio is below {OUT_OF_REACH} and so is the \
             per-joule ratio with each window's energy off by the counter's step in the \
             direction that raises it; DOES NOT HOLD when the per-clock ratio, or the per-joule \
             ratio with the step against it, is at or above {OUT_OF_REACH}; NOT JUDGED otherwise, \
             without the energy phase, or when the side's output failed its check after its \
             windows."
        ),
        holds,
        evidence,
    }
}

/// "Under the power cap the table's ratio of medians is the kernels' work-per-joule ratio."
fn capped_ratio_is_per_joule(side: &Result<Headline<'_>, String>) -> Verdict {
    let judged = side.as_ref().map_err(Clone::clone).and_then(|h| {
        let capped = |label: &str| {
            (h.phase.sides.iter())
                .find(|s| s.label == label)
                .is_some_and(|s| {
                    s.windows
                        .iter()
                        .all(|w| w.throttled_by.contains("sw power cap"))
                })
        };
        if !(capped(&h.row.variant) && capped(CUBLAS)) {
            return Err(format!(
                "{}; NVML did not name the sw power cap in every window of both sides: the \
                 sentence's premise does not hold in this run",
                evidence(h)
            ));
        }
        let (Some(table), Some((lo, hi))) = (h.row.vs_cublas, h.ratios.per_joule_range) else {
            return Err(format!("{}: a figure is missing", evidence(h)));
        };
        Ok((Some(lo <= table && table <= hi), evidence(h)))
    });
    let (holds, evidence) = judged.unwrap_or_else(|why| (None, why));
    Verdict {
        key: "capped-ratio-is-work-per-joule",
        experiment: 0,
        claim: "under the power cap, the table's ratio of medians of the best mma.sync line to \
                cuBLAS is the two kernels' work-per-joule ratio"
            .into(),
        rule: "The same side as mma-sync-below-three-quarters-of-cublas. Judged only when NVML \
               named the sw power cap in every energy window of both sides (the claim's \
               premise). HOLDS when the table's Ours/cuBLAS (ratio of medians of the interleaved \
               samples) lies within the per-joule ratio's range with each window's energy off by \
               the counter's step; DOES NOT HOLD when it lies outside; NOT JUDGED otherwise or \
               without the energy phase."
            .into(),
        holds,
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::super::row::tests::run;
    use super::*;
    use crate::experiments::gemm_clock_energy::ClockAndEnergy;
    use crate::sampling::energy_windows::{EnergySide, EnergyWindow};

    /// A window of `launches` GEMMs of 1 GFLOP for 1000 J (known to a tenth), at `mhz`.
    fn window(round: u32, launches: u64, mhz: f64, capped: bool) -> EnergyWindow {
        EnergyWindow {
            round,
            order: 0,
            seconds: 1.0,
            launches,
            millijoules: 1_000_000,
            step_mj: Some(100_000),
            counter_changes: 10,
            clock_mean_mhz: Some(mhz),
            clock_min_mhz: None,
            clock_max_mhz: None,
            clock_readings: 10,
            throttled_by: if capped { "sw power cap" } else { "" }.into(),
            kernel_clock_mhz: None,
        }
    }

    /// The synthetic run (M1 the fastest mma.sync line) with M1 doing `m1` GEMMs a window against
    /// cuBLAS's 1000, both at 1600 MHz, its step `step_mj`, the table's ratio `vs`.
    fn with_phase(m1: u64, step_mj: u64, capped: bool, vs: f64) -> Bf16Run {
        let side = |label: &str, launches: u64| EnergySide {
            label: label.into(),
            windows: (0..3)
                .map(|r| EnergyWindow {
                    step_mj: Some(step_mj),
                    ..window(r, launches, 1600.0, capped)
                })
                .collect(),
            check: None,
        };
        let mut r = run();
        r.rows[0].vs_cublas = Some(vs);
        let phase = EnergyPhase::Measured(EnergyRun {
            flops_per_gemm: 1e9,
            window_s: 1.0,
            chosen: "fixed".into(),
            reference: Some(CUBLAS.into()),
            sides: vec![side("M1", m1), side(CUBLAS, 1000)],
        });
        r.clock_energy = Some(ClockAndEnergy {
            sm_count: 132,
            pipe: "dense BF16 tensor core".into(),
            peak_flops_per_sm_clock: Some(4096.0),
            energy: Some(phase),
        });
        r
    }

    fn verdicts(r: &Bf16Run) -> (Verdict, Verdict) {
        let mut v = claims(Some(r)).into_iter();
        (v.next().unwrap(), v.next().unwrap())
    }

    #[test]
    fn below_three_quarters_holds_fails_or_is_not_judged_on_clock_and_step() {
        // 0.6 of cuBLAS, energy known to a tenth: per J at most 0.6 x 1.1/0.9 = 0.733.
        let (v, _) = verdicts(&with_phase(600, 100_000, true, 0.6));
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        assert!(v.evidence.contains("M1") && v.evidence.contains("per clock 0.600"));
        // 0.8 per clock: reached.
        let (v, _) = verdicts(&with_phase(800, 10_000, true, 0.8));
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        // 0.7 with a tenth's step: per J 0.573-0.856 straddles 0.75.
        let (v, _) = verdicts(&with_phase(700, 100_000, true, 0.7));
        assert_eq!(v.holds, None, "{}", v.evidence);
    }

    #[test]
    fn the_capped_ratio_is_judged_against_the_per_joule_range_under_the_cap_only() {
        let (_, v) = verdicts(&with_phase(600, 100_000, true, 0.62));
        assert_eq!(v.holds, Some(true), "{}", v.evidence);
        // A tight counter step: per J 0.594-0.606, the table's 0.65 outside.
        let (_, v) = verdicts(&with_phase(600, 5_000, true, 0.65));
        assert_eq!(v.holds, Some(false), "{}", v.evidence);
        // Not under the cap: the premise does not hold.
        let (_, v) = verdicts(&with_phase(600, 5_000, false, 0.65));
        assert_eq!(v.holds, None);
        assert!(v.evidence.contains("premise"), "{}", v.evidence);
    }

    #[test]
    fn without_the_phase_not_judged_and_older_runs_not_shown() {
        assert!(
            claims(Some(&run())).is_empty(),
            "a run before the clock basis"
        );
        assert!(claims(None).is_empty());
        let mut r = with_phase(600, 100_000, true, 0.6);
        r.clock_energy.as_mut().unwrap().energy = None;
        let (a, b) = verdicts(&r);
        assert_eq!((a.holds, b.holds), (None, None));
        assert!(a.evidence.contains("no energy phase"), "{}", a.evidence);
        r.clock_energy.as_mut().unwrap().energy = Some(EnergyPhase::Unavailable {
            reason: "no NVML".into(),
        });
        assert!(verdicts(&r).0.evidence.contains("no NVML"));
    }
}
