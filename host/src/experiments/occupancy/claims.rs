//! The blog's claims about the `occupancy` experiment, each judged by the rule written beside it.

mod shared_memory;

use super::row::{GemmRow, GemmRun};
use crate::claim::{
    all_of, faster, interval_or, ratio, ratio_words, with_exclusions, Claim, Comparisons, Verdict,
    FAR_SLOWER, NOT_RUN, OCCUPANCY_EPS,
};
use crate::confidence::{Interval, NoInterval};
use crate::cuda::LibraryKernel;
use crate::experiments::gemm_cublas::{cublas_reason, CublasRow};
use crate::experiments::row_views::{passing, two_passing};
use crate::experiments::whole_waves::{judge_at_whole_waves, PairSide};
use crate::occupancy::waves::Waves;
use crate::results::Timing;
use crate::table::percent as pct;
use shared_memory::shared_memory_as_fast_as_registers;

/// The blog's three claims, judged on the seed family's rows (the blog's 64x64 tile), then the
/// lab's claims about the fastest GEMM of the run (ours or cuBLAS) and about shared memory's
/// words per FFMA (every row).
pub fn claims(run: Option<&GemmRun>) -> Vec<Verdict> {
    let seed: Option<Vec<GemmRow>> =
        run.map(|r| r.rows.iter().filter(|r| r.is_seed()).cloned().collect());
    let seed = seed.as_deref();
    vec![
        peak_below_max_occupancy(seed),
        accumulators_at_equal_occupancy(seed),
        falls_past_peak(seed),
        fastest_at_low_occupancy(run),
        shared_memory_as_fast_as_registers(run.map(|r| &r.rows[..])),
    ]
}

/// The occupancy the claim below holds the fastest GEMM to.
pub const LOW_OCCUPANCY: f64 = 0.125;

const CLAIM_4: &str = "The fastest GEMM of the run, ours or cuBLAS, runs at <= 12.5% theoretical \
occupancy.";
const RULE_4: &str = "Contenders: the variants with a passing check, and cuBLAS (when it ran and \
passed its check) at the theoretical occupancy of the kernel it ran, read through CUPTI and \
placed by the lab's calculator. Take the fastest by median GFLOP/s. HOLDS when it is at <= 12.5% \
theoretical occupancy and faster than the fastest contender above 12.5% (its interval over it \
wholly above 1), or no contender is above; DOES NOT HOLD when it is above 12.5% and faster than \
the fastest contender at or below 12.5%, or none is. Where the kernel cuBLAS ran was not read, \
cuBLAS is left out only when the fastest variant is faster than it (interval wholly above 1); \
otherwise NOT JUDGED, no occupancy being assumed for it. Not judged without cuBLAS in the run.";

fn low(occupancy: f64) -> bool {
    occupancy <= LOW_OCCUPANCY + OCCUPANCY_EPS / 100.0
}

/// A GEMM `fastest-gemm-at-low-occupancy` weighs: one of our variants, or cuBLAS.
struct Contender<'a> {
    name: String,
    gflops: f64,
    timing: &'a Timing,
    occupancy: f64,
    regs: u32,
    /// Its waves where the run recorded them (ours; cuBLAS's grid is its own).
    waves: Option<Waves>,
}

impl<'a> Contender<'a> {
    fn ours(r: &'a GemmRow) -> Self {
        Self {
            name: r.variant.clone(),
            gflops: r.figures.gflops,
            timing: &r.figures.timing,
            occupancy: r.figures.occupancy,
            regs: r.figures.regs,
            waves: r.figures.waves(),
        }
    }

    /// cuBLAS, at the occupancy of the kernel it ran where it was read.
    fn cublas(c: &'a CublasRow, k: Option<&LibraryKernel>) -> Self {
        Self {
            name: match k {
                Some(k) => format!("cuBLAS {} ({})", c.version, k.kernel.name),
                None => format!("cuBLAS {}", c.version),
            },
            gflops: c.gflops,
            timing: &c.timing,
            occupancy: k.map_or(f64::NAN, |k| k.occupancy),
            regs: k.map_or(0, |k| k.kernel.registers_per_thread),
            waves: None,
        }
    }

    fn over(&self, other: &Contender<'_>) -> Result<Interval, NoInterval> {
        ratio((self.gflops, self.timing), (other.gflops, other.timing))
    }

    /// Its figures in words; with its waves and tail where the run recorded them, so that a
    /// comparison of occupancies shows how much of it is the last partial wave.
    fn words(&self) -> String {
        let waves = self.waves.map_or(String::new(), |w| {
            format!(
                ", {:.2} waves, tail {}",
                w.waves(),
                pct(w.tail_efficiency())
            )
        });
        format!(
            "{} {:.0} GFLOP/s at {} ({} regs{waves})",
            self.name,
            self.gflops,
            pct(self.occupancy),
            self.regs
        )
    }
}

fn fastest_of<'c, 'a: 'c>(
    all: impl IntoIterator<Item = &'c Contender<'a>>,
) -> Option<&'c Contender<'a>> {
    all.into_iter().max_by(|a, b| a.gflops.total_cmp(&b.gflops))
}

/// The measured cuBLAS row of a run, or why there is none.
fn measured_cublas<'r>(run: &'r GemmRun, failed: &[String]) -> Result<&'r CublasRow, String> {
    match &run.cublas {
        None => Err(
            "cuBLAS was not timed in this run (skipped, or a run recorded before cuBLAS \
             was timed)"
                .into(),
        ),
        Some(c) => c.measured().ok_or_else(|| {
            with_exclusions(format!("cuBLAS did not run: {}", cublas_reason(c)), failed)
        }),
    }
}

pub fn fastest_at_low_occupancy(run: Option<&GemmRun>) -> Verdict {
    let claim = Claim::interval("fastest-gemm-at-low-occupancy", CLAIM_4, RULE_4);
    claim.judge(|| {
        let run = run.ok_or(NOT_RUN)?;
        let (ok, failed) = passing(&run.rows);
        let cublas = measured_cublas(run, &failed)?;
        if ok.is_empty() {
            return Err(with_exclusions(
                "no variant passed its check".into(),
                &failed,
            ));
        }
        let mut all: Vec<Contender<'_>> = ok.iter().map(|r| Contender::ours(r)).collect();
        let mut aside = String::new();
        match cublas.library_kernel() {
            _ if !cublas.check.passed => {
                aside = format!(
                    "; cuBLAS {} failed its check and is left out",
                    cublas.version
                );
            }
            Some(k) => all.push(Contender::cublas(cublas, Some(k))),
            None => {
                let best = fastest_of(&all).expect("a variant passed");
                let iv = best.over(&Contender::cublas(cublas, None));
                let words = format!(
                    "fastest of ours: {}, {} x cuBLAS {} at {:.0} GFLOP/s",
                    best.words(),
                    ratio_words(&iv),
                    cublas.version,
                    cublas.gflops
                );
                if faster(&iv) != Some(true) {
                    return Err(with_exclusions(
                        format!(
                            "{words}: cuBLAS is as fast or faster and its occupancy is unknown \
                             ({})",
                            cublas.kernel_words()
                        ),
                        &failed,
                    ));
                }
                aside = format!("; {words}, cuBLAS left out ({})", cublas.kernel_words());
            }
        }
        let best = fastest_of(&all).expect("a variant passed");
        let side = |o: f64| if low(o) { "at or below" } else { "above" };
        let rival = fastest_of(
            all.iter()
                .filter(|c| low(c.occupancy) != low(best.occupancy)),
        );
        let (holds, rival) = match rival {
            None => (
                Some(low(best.occupancy)),
                format!("every contender is {} 12.5%", side(best.occupancy)),
            ),
            Some(rival) => {
                let iv = best.over(rival);
                let holds = (faster(&iv) == Some(true)).then_some(low(best.occupancy));
                (
                    holds,
                    format!(
                        "fastest {} 12.5%: {}, {} over it{}",
                        side(rival.occupancy),
                        rival.words(),
                        ratio_words(&iv),
                        if holds.is_none() { " (not judged)" } else { "" }
                    ),
                )
            }
        };
        let evidence = format!("fastest: {}; {rival}{aside}", best.words());
        Ok((holds, with_exclusions(evidence, &failed)))
    })
}

fn gemm_rows(rows: Option<&[GemmRow]>) -> Result<(Vec<&GemmRow>, Vec<String>), String> {
    two_passing(rows.ok_or(NOT_RUN)?, "GEMM variants")
}

fn fastest<'a>(rows: &[&'a GemmRow]) -> &'a GemmRow {
    rows.iter()
        .copied()
        .max_by(|a, b| a.figures.gflops.total_cmp(&b.figures.gflops))
        .expect("at least one row")
}

/// A variant's figures in words, as a contender's are written.
fn gf(r: &GemmRow) -> String {
    Contender::ours(r).words()
}

const CLAIM_1: &str = "Peak GFLOP/s is not reached at the highest occupancy.";
const RULE_1: &str = "Let B be the fastest variant (median GFLOP/s) below the highest theoretical \
occupancy measured. HOLDS when B's GFLOP/s over that of every variant at the highest occupancy \
lies wholly above 1; DOES NOT HOLD when one of those variants is faster than B (its interval \
wholly below 1).";

const RULE_1_WHOLE: &str = "B is named before the data: of the valid seed lines (whole warps, \
at most 128 accumulators a thread) below the highest theoretical occupancy measured, the one with \
the most accumulators per thread (the fewest threads on a tie), the tile the claim argues for. \
The run times B and every variant at the highest occupancy again at the size nearest the default \
(same K, M and N multiples of the 64x64 tile) at which all of them run whole waves (tiles a \
multiple of SMs x blocks/SM for each), and the claim is judged there: HOLDS when B's GFLOP/s over \
that of every variant at the highest occupancy lies wholly above 1; DOES NOT HOLD when one of \
them is faster than B (its interval wholly below 1). The default size's ratios, which also measure \
the last partial wave, are shown beside. NOT JUDGED without that size.";

/// The lines `peak-below-max-occupancy` compares in a run that recorded its waves, named from
/// the table and the calculator alone (no timing): B, then the lines at the highest occupancy.
/// None with fewer than two occupancies or no valid line below the highest.
pub fn peak_pair<'r>(rows: &[&'r GemmRow]) -> Option<(&'r GemmRow, Vec<&'r GemmRow>)> {
    let max_occ = (rows.iter().map(|r| r.figures.occupancy)).fold(f64::MIN, f64::max);
    let (top, below): (Vec<&GemmRow>, Vec<&GemmRow>) =
        (rows.iter().copied()).partition(|r| max_occ - r.figures.occupancy < OCCUPANCY_EPS);
    let b = (below.iter().copied())
        .filter(|r| invalid_for_pairs(r).is_none())
        .max_by_key(|r| (r.tm * r.tn, std::cmp::Reverse(r.threads)))?;
    Some((b, top))
}

/// The seed lines [`peak_pair`] names among `rows`' passing ones: what the run times again at
/// whole waves.
pub fn peak_pair_lines(rows: &[GemmRow]) -> Vec<&GemmRow> {
    let seed: Vec<&GemmRow> = (rows.iter())
        .filter(|r| r.is_seed() && r.measured.check.passed)
        .collect();
    match peak_pair(&seed) {
        Some((b, top)) => std::iter::once(b).chain(top).collect(),
        None => Vec::new(),
    }
}

/// The passing rows, the failed rows' notes and the highest occupancy, or why the claims that
/// compare occupancies cannot be judged (too few rows, or every one at the same occupancy).
fn spread_rows(rows: Option<&[GemmRow]>) -> Result<(Vec<&GemmRow>, Vec<String>, f64), String> {
    let (ok, failed) = gemm_rows(rows)?;
    let (min_occ, max_occ) = (ok.iter().map(|r| r.figures.occupancy))
        .fold((f64::MAX, f64::MIN), |(lo, hi), o| (lo.min(o), hi.max(o)));
    if max_occ - min_occ < OCCUPANCY_EPS {
        let why = format!(
            "every variant runs at the same occupancy ({})",
            pct(max_occ)
        );
        return Err(with_exclusions(why, &failed));
    }
    Ok((ok, failed, max_occ))
}

/// A line as one side of a compared pair.
fn pair_side(r: &GemmRow) -> PairSide<'_> {
    PairSide {
        name: &r.variant,
        figures: &r.figures,
        whole_waves: &r.whole_waves,
    }
}

/// In a run that recorded its waves: the pre-named B against each line at the highest
/// occupancy, at whole waves.
fn peak_below_max_at_whole_waves(rows: Option<&[GemmRow]>) -> Verdict {
    let claim = Claim::interval("peak-below-max-occupancy", CLAIM_1, RULE_1_WHOLE);
    claim.judge(|| {
        let (ok, failed, max_occ) = spread_rows(rows)?;
        let Some((b, top)) = peak_pair(&ok) else {
            let why = "no valid variant below the highest occupancy".to_owned();
            return Err(with_exclusions(why, &failed));
        };
        let mut against_b = Comparisons::default();
        for t in &top {
            let pair = judge_at_whole_waves(pair_side(b), pair_side(t));
            match pair {
                Ok((iv, words)) => against_b.push(faster(&iv), format!("{}: {words}", t.variant)),
                Err(why) => against_b.push(None, format!("{}: not judged: {why}", t.variant)),
            }
        }
        let evidence = format!(
            "B, named before the data: {} ({} accumulators); against each variant at the highest \
             occupancy ({}): {}",
            gf(b),
            b.tm * b.tn,
            pct(max_occ),
            against_b.words("; ")
        );
        Ok((against_b.outcome(), with_exclusions(evidence, &failed)))
    })
}

pub fn peak_below_max_occupancy(rows: Option<&[GemmRow]>) -> Verdict {
    if rows.is_some_and(|r| r.iter().any(|r| r.figures.schedule.is_some())) {
        return peak_below_max_at_whole_waves(rows);
    }
    let claim = Claim::interval("peak-below-max-occupancy", CLAIM_1, RULE_1);
    claim.judge(|| {
        let (ok, failed, max_occ) = spread_rows(rows)?;
        let (top, below): (Vec<&GemmRow>, Vec<&GemmRow>) = ok
            .iter()
            .copied()
            .partition(|r| max_occ - r.figures.occupancy < OCCUPANCY_EPS);
        let best = fastest(&below);
        let mut against_b = Comparisons::default();
        for t in &top {
            let iv = best.figures.over(&t.figures);
            let o = faster(&iv);
            let mark = match o {
                Some(true) => "",
                Some(false) => ": faster than B",
                None => ": within noise",
            };
            against_b.push(o, format!("{}, {} over it{mark}", gf(t), ratio_words(&iv)));
        }
        let evidence = format!(
            "fastest below the highest occupancy (B): {}; at the highest occupancy: {}",
            gf(best),
            against_b.words("; ")
        );
        Ok((against_b.outcome(), with_exclusions(evidence, &failed)))
    })
}

const CLAIM_2: &str =
    "At equal occupancy, the variant with more accumulators per thread is faster \
(the blog's S vs A).";
const RULE_2: &str = "For every pair of valid GEMM variants at the same theoretical occupancy \
(within 0.1 percentage point) with different accumulators per thread (TM x TN), the one with \
more accumulators is faster: its GFLOP/s over the other's lies wholly above 1. DOES NOT HOLD \
when one such ratio lies wholly below 1. A variant is valid for the comparison when its blocks \
are whole warps (a 16-thread block idles half of every warp) and its accumulators fit the \
register file (at most 128 a thread; more spill, which `cargo test -p xtask --test build` \
records): the claim is about accumulators, not about idle lanes or local memory.";

/// Most accumulators a thread of a valid pair holds: past it the 255 registers cannot hold the
/// tile and its operands, and the build spills (xtask's bars hold every line up to it
/// spill-free).
pub const SPILL_FREE_ACCUMULATORS: u32 = 128;

/// Why a variant is left out of the equal-occupancy pairs, None when it is valid.
fn invalid_for_pairs(r: &GemmRow) -> Option<&'static str> {
    if !r.threads.is_multiple_of(WARP) {
        Some("blocks of part of a warp")
    } else if r.tm * r.tn > SPILL_FREE_ACCUMULATORS {
        Some("more accumulators than the registers hold (spills)")
    } else {
        None
    }
}

/// Threads of a warp on every GPU the lab runs on.
const WARP: u32 = 32;

pub fn accumulators_at_equal_occupancy(rows: Option<&[GemmRow]>) -> Verdict {
    let claim = Claim::interval("more-accumulators-at-equal-occupancy", CLAIM_2, RULE_2);
    claim.judge(|| {
        let (all, failed) = gemm_rows(rows)?;
        let (ok, invalid): (Vec<&GemmRow>, Vec<&GemmRow>) = all
            .iter()
            .copied()
            .partition(|r| invalid_for_pairs(r).is_none());
        let left_out = invalid
            .iter()
            .map(|r| {
                format!(
                    "{} ({} threads, {}x{}) left out: {}",
                    r.variant,
                    r.threads,
                    r.tm,
                    r.tn,
                    invalid_for_pairs(r).unwrap_or_default()
                )
            })
            .collect::<Vec<_>>();
        let mut parts = Vec::new();
        let mut outcomes = Vec::new();
        for (i, a) in ok.iter().enumerate() {
            for b in &ok[i + 1..] {
                let (acc_a, acc_b) = (a.tm * a.tn, b.tm * b.tn);
                if (a.figures.occupancy - b.figures.occupancy).abs() >= OCCUPANCY_EPS
                    || acc_a == acc_b
                {
                    continue;
                }
                let (more, fewer) = if acc_a > acc_b { (a, b) } else { (b, a) };
                let iv = more.figures.over(&fewer.figures);
                let o = faster(&iv);
                outcomes.push(o);
                parts.push(format!(
                "at {}: {} ({} accumulators) {:.0} vs {} ({} accumulators) {:.0} GFLOP/s = {}{}",
                pct(more.figures.occupancy),
                more.variant,
                more.tm * more.tn,
                more.figures.gflops,
                fewer.variant,
                fewer.tm * fewer.tn,
                fewer.figures.gflops,
                ratio_words(&iv),
                if o.is_none() { " (not judged)" } else { "" }
            ));
            }
        }
        parts.extend(left_out);
        if outcomes.is_empty() {
            let why = format!(
                "no two valid variants share an occupancy with different accumulator counts{}",
                if parts.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", parts.join("; "))
                }
            );
            return Err(with_exclusions(why, &failed));
        }
        Ok((all_of(outcomes), with_exclusions(parts.join("; "), &failed)))
    })
}

const CLAIM_3: &str = "Past the peak, throughput falls as the tile grows towards the 255-register \
limit, and the largest tile (which spills) is far slower.";
const RULE_3: &str = "Ordering GEMM variants by accumulators per thread, each variant with more \
accumulators than the fastest one (median GFLOP/s) is slower than the one before it (its GFLOP/s \
over that one's lies wholly below 1), and the variant with the most accumulators runs below 50% \
of the fastest variant's GFLOP/s (the interval of that ratio wholly below 0.5). A trend needs at \
least two variants past the peak: with fewer the claim is NOT JUDGED. DOES NOT HOLD when a step's \
interval lies wholly above 1, or the largest tile's wholly at or above 0.5.";

/// Variants past the peak a falling trend needs.
pub const TREND_POINTS: usize = 2;

pub fn falls_past_peak(rows: Option<&[GemmRow]>) -> Verdict {
    let claim = Claim::interval("falls-past-peak", CLAIM_3, RULE_3);
    claim.judge(|| {
        let (mut ok, failed) = gemm_rows(rows)?;
        ok.sort_by_key(|r| r.tm * r.tn);
        let best = fastest(&ok);
        let largest = *ok.last().expect("two rows");
        let past: Vec<&GemmRow> = ok
            .iter()
            .copied()
            .filter(|r| r.tm * r.tn > best.tm * best.tn)
            .collect();
        if past.is_empty() {
            let ev = format!(
            "the fastest variant has the most accumulators per thread: {}; nothing falls past it",
            gf(best)
        );
            return Ok((Some(false), with_exclusions(ev, &failed)));
        }
        if past.len() < TREND_POINTS {
            let ev = format!(
                "peak: {}; past it only {}: one point is not a trend (at least {TREND_POINTS} \
                 needed)",
                gf(best),
                past.iter()
                    .map(|r| format!(
                        "{} ({} x it)",
                        gf(r),
                        ratio_words(&r.figures.over(&best.figures))
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            return Err(with_exclusions(ev, &failed));
        }
        let mut prev = best;
        let mut outcomes = Vec::new();
        let mut steps = Vec::new();
        for r in &past {
            let iv = r.figures.over(&prev.figures);
            let falls = faster(&iv).map(|rises| !rises);
            outcomes.push(falls);
            steps.push(format!(
                "{} {:.0} ({} regs, {} x {}{})",
                r.variant,
                r.figures.gflops,
                r.figures.regs,
                ratio_words(&iv),
                prev.variant,
                match falls {
                    Some(true) => "",
                    Some(false) => ", not lower",
                    None => ", not judged",
                }
            ));
            prev = r;
        }
        let share = largest.figures.over(&best.figures);
        let far = share
            .as_ref()
            .ok()
            .and_then(|iv| iv.exceeds(FAR_SLOWER))
            .map(|kept_up| !kept_up);
        outcomes.push(far);
        let ev = format!(
            "peak: {}; past it: {}; largest tile {} ({}x{}, {} of {} registers) at {} of the peak \
         (bound {})",
            gf(best),
            steps.join(", "),
            largest.variant,
            largest.tm,
            largest.tn,
            largest.figures.regs,
            kernels_gpu::variants::MAX_REGS_PER_THREAD,
            interval_or(&share, largest.figures.gflops / best.figures.gflops, pct),
            pct(FAR_SLOWER)
        );
        Ok((all_of(outcomes), with_exclusions(ev, &failed)))
    })
}
