//! Part II's picture: every GEMM of a run (the FP32 seed and tuned lines, the BF16 `mma.sync`
//! and wgmma lines, and the kernels cuBLAS ran for SGEMM and for BF16) as a share of its own pipe's peak
//! (the FP32 FMA peak for SGEMM, the dense BF16 tensor-core peak for BF16) against its
//! theoretical occupancy. On one axis the two pipes, some fifteen times apart in FLOP/s, ask the
//! same question: how much occupancy does a GEMM need to come near its peak? Drawn when
//! the `occupancy` or the `gemm_bf16` experiment ran; the `mma.sync` ceiling that `mma` measures
//! is drawn where the run has it.

use std::fmt::Write as _;

use super::unit::Across;
use crate::experiments::contract::{Registered, Row};
use crate::experiments::gemm_bf16::{self, Bf16Row, Bf16Run};
use crate::experiments::gemm_cublas::CublasRow;
use crate::experiments::mma::Spec as Mma;
use crate::experiments::occupancy::{self, GemmRow, GemmRun};
use crate::experiments::RunResults;
use crate::figure::{
    point_label, tick, LabelledPoint, Labels, ReferenceLine, ScatterPlot, Series, XScale,
};
use crate::table::{markdown_grid, percent};

/// The picture's file stem in a results folder.
pub const STEM: &str = "part2";

/// Part II's picture as a unit: the GEMM experiments' rows and `mma`'s ceiling.
pub struct PartTwo;

impl Across for PartTwo {
    const WHAT: &'static str = "part II's picture: every GEMM against its pipe's peak";
    const READS: &'static [&'static str] =
        &[occupancy::Spec::NAME, gemm_bf16::Spec::NAME, Mma::NAME];
    type Gives = Option<ScatterPlot>;

    fn read(results: &RunResults) -> Option<ScatterPlot> {
        figure(results, mma_ceiling(results))
    }
}

/// The `mma.sync` ceiling of this GPU as the `mma` experiment measured it, GFLOP/s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MmaCeiling {
    pub gflops: f64,
}

/// `mma`'s measured ceiling (its best verified point) in `results`; none when it did not
/// run or verified no point, and the picture then says so.
pub fn mma_ceiling(results: &RunResults) -> Option<MmaCeiling> {
    let tflops = results.mma.as_ref()?.ceiling_tflops()?;
    Some(MmaCeiling {
        gflops: tflops * 1e3,
    })
}

/// Which pipe a GEMM runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pipe {
    Fp32,
    Bf16,
}

impl Pipe {
    fn name(self) -> &'static str {
        match self {
            Pipe::Fp32 => "FP32 FMA",
            Pipe::Bf16 => "dense BF16 tensor core",
        }
    }
}

/// One GEMM on the picture.
#[derive(Debug, Clone, PartialEq)]
struct Point {
    /// The series it is drawn in.
    series: &'static str,
    label: String,
    pipe: Pipe,
    occupancy: f64,
    gflops: f64,
    passed: bool,
}

impl Point {
    /// Its label, marked when its check failed.
    fn shown(&self) -> String {
        point_label(&self.label, self.passed)
    }
}

const SEED: &str = "FP32 seed (SGEMM)";
const TUNED: &str = "FP32 tuned (SGEMM)";
const MMA: &str = "BF16 mma.sync";
const WGMMA: &str = "BF16 wgmma (sm_90a)";
const CUBLAS: &str = "cuBLAS kernels (CUPTI)";

/// The peaks of a run's device, GFLOP/s: FP32 always, BF16 where the lab knows the rate.
struct Peaks {
    fp32: f64,
    bf16: Option<f64>,
}

impl Peaks {
    fn of(results: &RunResults) -> Self {
        Self {
            fp32: results.device.peak_fp32_gflops,
            bf16: crate::experiments::gemm_bf16::bf16_peak(&results.device),
        }
    }

    fn get(&self, pipe: Pipe) -> Option<f64> {
        match pipe {
            Pipe::Fp32 => (self.fp32 > 0.0).then_some(self.fp32),
            Pipe::Bf16 => self.bf16,
        }
    }
}

fn cublas_point(c: &CublasRow, what: &str, pipe: Pipe) -> Option<Point> {
    Some(Point {
        series: CUBLAS,
        label: format!("cuBLAS {what}"),
        pipe,
        occupancy: c.occupancy()?,
        gflops: c.gflops,
        passed: c.check.passed,
    })
}

/// One GEMM experiment's rows on `pipe` in the series `series` names, and the kernel cuBLAS
/// ran (`what` it was called for) where it was read.
fn of_run<'r, R: Row>(
    rows: &'r [R],
    series: impl Fn(&R) -> &'static str + 'r,
    (pipe, cublas, what): (Pipe, Option<&CublasRow>, &str),
) -> impl Iterator<Item = Point> + 'r {
    let cublas = cublas.and_then(|c| cublas_point(c, what, pipe));
    let own = rows.iter().map(move |r| {
        let (gflops, occupancy) = r.figures();
        Point {
            series: series(r),
            label: r.label(),
            pipe,
            occupancy,
            gflops,
            passed: r.measured().check.passed,
        }
    });
    own.chain(cublas)
}

/// The series of an SGEMM row: the seed lines or the tuned ones.
fn fp32_series(r: &GemmRow) -> &'static str {
    if r.is_seed() {
        SEED
    } else {
        TUNED
    }
}

/// The series of a BF16 row: the instructions it is built on.
fn bf16_series(r: &Bf16Row) -> &'static str {
    if r.is_wgmma() {
        WGMMA
    } else {
        MMA
    }
}

fn points(results: &RunResults) -> Vec<Point> {
    let sgemm = (results.occupancy.iter())
        .flat_map(|r| of_run(&r.rows, fp32_series, (Pipe::Fp32, r.cublas_row(), "SGEMM")));
    let bf16 = (results.gemm_bf16.iter())
        .flat_map(|r| of_run(&r.rows, bf16_series, (Pipe::Bf16, r.cublas_row(), "BF16")));
    sgemm.chain(bf16).collect()
}

/// The picture of `results`, with `mma`'s `ceiling` where given; none when the run has
/// no GEMM to place (neither GEMM experiment ran, or the device's peaks are unknown).
pub fn figure(results: &RunResults, ceiling: Option<MmaCeiling>) -> Option<ScatterPlot> {
    let peaks = Peaks::of(results);
    let mut series: Vec<Series> = Vec::new();
    for p in points(results) {
        let Some(peak) = peaks.get(p.pipe) else {
            continue;
        };
        let point = LabelledPoint {
            x: p.occupancy * 100.0,
            y: p.gflops / peak * 100.0,
            label: Some(p.shown()),
        };
        match series.iter_mut().find(|s| s.name == p.series) {
            Some(s) => s.points.push(point),
            None => series.push(Series::markers(p.series, vec![point])),
        }
    }
    if series.is_empty() {
        return None;
    }
    let mut peak_words = format!("FP32 peak {} GFLOP/s", tick(peaks.fp32));
    if let Some(b) = peaks.bf16 {
        let _ = write!(peak_words, " = dense BF16 peak {} GFLOP/s", tick(b));
    }
    let mut references = vec![ReferenceLine {
        label: format!("{peak_words} = 100%"),
        y: 100.0,
        series: None,
    }];
    if let (Some(c), Some(b)) = (ceiling, peaks.bf16) {
        references.push(ReferenceLine {
            label: format!(
                "mma.sync ceiling (experiment {}): {} GFLOP/s",
                Mma::NUMBER,
                tick(c.gflops)
            ),
            y: c.gflops / b * 100.0,
            series: None,
        });
    }
    Some(ScatterPlot {
        labels: Labels::new(
            format!(
                "Part II: every GEMM against its pipe's peak ({})",
                results.device.name
            ),
            "Theoretical occupancy (%)",
            "% of the pipe's peak",
        ),
        x_scale: XScale::Linear,
        x_unit_suffix: "%".into(),
        series,
        references,
    })
}

/// Part II's section of `report.md`: the picture (`file`), each GEMM's share of its pipe's peak
/// and what the picture leaves out; none when the run has no GEMM to place.
pub fn section(results: &RunResults, file: &str, ceiling: Option<MmaCeiling>) -> Option<String> {
    figure(results, ceiling)?;
    let peaks = Peaks::of(results);
    let mut out = String::from("\n## Part II: every GEMM against its pipe's peak\n\n");
    let _ = writeln!(
        out,
        "![Part II: every GEMM against its pipe's peak]({file})\n"
    );
    let header = [
        "GEMM",
        "Pipe",
        "Theo. occ",
        "GFLOP/s",
        "% of the pipe's peak",
    ];
    let mut rows = Vec::new();
    let mut unplaced = Vec::new();
    for p in points(results) {
        let Some(peak) = peaks.get(p.pipe) else {
            unplaced.push(format!("{} (no peak known for its pipe)", p.label));
            continue;
        };
        rows.push(vec![
            p.shown(),
            p.pipe.name().to_owned(),
            percent(p.occupancy),
            format!("{:.0}", p.gflops),
            percent(p.gflops / peak),
        ]);
    }
    out.push_str(&markdown_grid(&header, &rows));
    let _ = write!(
        out,
        "\nEach GEMM's median GFLOP/s over its own pipe's spec peak (FP32 {} GFLOP/s",
        tick(peaks.fp32)
    );
    let _ = match peaks.bf16 {
        Some(b) => write!(out, "; dense BF16 {} GFLOP/s", tick(b)),
        None => out.write_str("; the dense BF16 peak of this GPU is not known to the lab"),
    };
    out.push_str(
        "), at its theoretical occupancy; cuBLAS's kernels at the occupancy of the kernel each \
         call ran, read through CUPTI.",
    );
    let sgemm = results.occupancy.iter().filter_map(GemmRun::cublas_row);
    let bf16 = results.gemm_bf16.iter().filter_map(Bf16Run::cublas_row);
    for (what, c) in sgemm.map(|c| ("SGEMM", c)).chain(bf16.map(|c| ("BF16", c))) {
        if c.occupancy().is_none() {
            unplaced.push(format!("cuBLAS {what} ({})", c.kernel_words()));
        }
    }
    if !unplaced.is_empty() {
        let _ = write!(out, " Not placed: {}.", unplaced.join("; "));
    }
    if let Some(words) = results.gemm_bf16.as_ref().and_then(best_wgmma) {
        out.push(' ');
        out.push_str(&words);
    }
    let _ = match ceiling {
        Some(c) => write!(
            out,
            " The mma.sync ceiling measured by experiment {} ({} GFLOP/s) is drawn.",
            Mma::NUMBER,
            tick(c.gflops)
        ),
        None => write!(
            out,
            " The mma.sync ceiling is not drawn: experiment {} did not run in this run.",
            Mma::NUMBER
        ),
    };
    out.push('\n');
    Some(out)
}

/// The fastest verified wgmma line of `run` against cuBLAS BF16, in words; none when no wgmma
/// line passed its check.
fn best_wgmma(run: &Bf16Run) -> Option<String> {
    let best = run
        .rows
        .iter()
        .filter(|r| r.is_wgmma() && r.measured.check.passed)
        .max_by(|a, b| a.figures.gflops.total_cmp(&b.figures.gflops))?;
    let against = match best.vs_cublas {
        Some(x) => format!("{x:.2}x cuBLAS BF16 (samples interleaved)"),
        None => "not timed beside cuBLAS BF16".to_owned(),
    };
    Some(format!(
        "The best wgmma line, {}, runs {} GFLOP/s at {} theoretical occupancy: {against}.",
        best.variant,
        tick(best.figures.gflops),
        percent(best.figures.occupancy)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::gemm_bf16::row::tests::run as bf16_run;

    /// The committed H200 run (`occupancy` with cuBLAS, no kernel recorded) with a synthetic
    /// BF16 run added, written to results.json and read back.
    fn results() -> RunResults {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../results/h200");
        let mut r = crate::results_io::read_run(std::path::Path::new(dir)).unwrap();
        r.gemm_bf16 = Some(bf16_run());
        r
    }

    #[test]
    fn every_gemm_stands_at_its_share_of_its_pipes_peak() {
        let r = results();
        let plot = figure(&r, None).unwrap();
        let names: Vec<&str> = plot.series.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&SEED) && names.contains(&MMA) && names.contains(&CUBLAS));
        let bf16_peak = crate::experiments::gemm_bf16::bf16_peak(&r.device).unwrap();
        let mma = plot.series.iter().find(|s| s.name == MMA).unwrap();
        let m1 = &mma.points[0];
        assert_eq!(m1.x, 12.5);
        assert!((m1.y - 520_000.0 / bf16_peak * 100.0).abs() < 1e-9);
        // The kernel cuBLAS ran for BF16 is read in the synthetic run; SGEMM's, recorded before
        // the lab read it, is not placed.
        let cublas = plot.series.iter().find(|s| s.name == CUBLAS).unwrap();
        assert_eq!(cublas.points.len(), 1);
        assert_eq!(cublas.points[0].label.as_deref(), Some("cuBLAS BF16"));
        assert_eq!(plot.references.len(), 1);
        assert_eq!(plot.references[0].y, 100.0);
        assert!(plot.references[0].label.contains("dense BF16 peak"));
        let ceiling = MmaCeiling {
            gflops: bf16_peak * 0.65,
        };
        let with = figure(&r, Some(ceiling)).unwrap();
        assert_eq!(with.references.len(), 2);
        assert!((with.references[1].y - 65.0).abs() < 1e-9);
    }

    /// The section names the picture and gives each GEMM's share of its pipe's peak; the
    /// picture itself is written with every report (`tests/report.rs` reads it back).
    #[test]
    fn the_section_lists_every_gemm_and_what_is_not_drawn() {
        let md = section(&results(), "part2.svg", None).unwrap();
        assert!(md.contains("## Part II: every GEMM against its pipe's peak"));
        assert!(md.contains("](part2.svg)"), "{md}");
        let m1 = md
            .lines()
            .find(|l| l.starts_with("| M1 "))
            .expect("M1's line");
        assert!(m1.contains("| dense BF16 tensor core | 12.5%"), "{m1}");
        assert!(md.contains("experiment 6 did not run"), "{md}");
        let ceiling = Some(MmaCeiling { gflops: 650_000.0 });
        let with = section(&results(), "part2.svg", ceiling).unwrap();
        assert!(
            with.contains("measured by experiment 6 (650,000 GFLOP/s) is drawn"),
            "{with}"
        );
    }

    /// The wgmma rows are their own series, and the section names the fastest verified one
    /// against cuBLAS; a run without them says nothing of wgmma.
    #[test]
    fn wgmma_rows_are_their_own_series_and_the_best_is_named() {
        let mut r = results();
        assert!(!section(&r, "p.svg", None).unwrap().contains("wgmma"));
        let run = r.gemm_bf16.as_mut().unwrap();
        let wgmma = |label: &str, gflops: f64, vs: f64, passed: bool| {
            let mut w = run.rows[0].clone();
            w.variant = label.into();
            w.path = crate::experiments::gemm_bf16::TensorPath::Wgmma;
            w.figures.occupancy = 0.1875;
            w.figures.gflops = gflops;
            w.vs_cublas = Some(vs);
            w.measured.check.passed = passed;
            w
        };
        let rows = [
            wgmma("W1", 600_000.0, 0.92, true),
            wgmma("W2", 640_000.0, 0.98, true),
            wgmma("W3", 900_000.0, 1.4, false),
        ];
        run.rows.extend(rows);
        let plot = figure(&r, None).unwrap();
        let w = plot.series.iter().find(|s| s.name == WGMMA).unwrap();
        assert_eq!(w.points.len(), 3);
        assert!(w.points.iter().all(|p| p.x == 18.75));
        let mma = plot.series.iter().find(|s| s.name == MMA).unwrap();
        assert_eq!(
            mma.points.len(),
            2,
            "the mma.sync series keeps its own rows"
        );
        let md = section(&r, "p.svg", None).unwrap();
        assert!(
            md.contains(
                "The best wgmma line, W2, runs 640,000 GFLOP/s at 18.8% theoretical \
                 occupancy: 0.98x cuBLAS BF16"
            ),
            "{md}"
        );
        // An mma.sync line fed by TMA is an mma.sync point, whatever section it is built in, and
        // never the best wgmma line however fast.
        let mut mt = r.gemm_bf16.as_ref().unwrap().rows[0].clone();
        mt.variant = "MT1".into();
        mt.path = crate::experiments::gemm_bf16::TensorPath::MmaSyncTma;
        mt.figures.gflops = 990_000.0;
        mt.vs_cublas = Some(1.5);
        r.gemm_bf16.as_mut().unwrap().rows.push(mt);
        let plot = figure(&r, None).unwrap();
        let mma = plot.series.iter().find(|s| s.name == MMA).unwrap();
        assert_eq!(mma.points.len(), 3);
        let w = plot.series.iter().find(|s| s.name == WGMMA).unwrap();
        assert_eq!(w.points.len(), 3);
        let md = section(&r, "p.svg", None).unwrap();
        assert!(md.contains("The best wgmma line, W2,"), "{md}");
    }

    #[test]
    fn a_run_without_a_gemm_has_no_picture() {
        let mut r = results();
        r.occupancy = None;
        r.gemm_bf16 = None;
        assert_eq!(figure(&r, None), None);
        assert_eq!(section(&r, "x.svg", None), None);
    }
}
