//! The sweep's table: a row per shape and family (the chosen line's schedule, occupancy and
//! TFLOP/s beside cuBLAS's and the kernel cuBLAS ran), a row per miss, and the summary against
//! issue 32's targets (benchmarks, never tests).

use super::list::{name, Group, SHAPES};
use super::row::{Family, ShapeRow, ShapesRun};
use crate::experiments::cells;
use crate::experiments::gemm_check_notes::note_under;
use crate::experiments::gemm_cublas::VS_CUBLAS;
use crate::experiments::gemm_figure_columns::{schedule_notes, shown_columns, wave_columns};
use crate::experiments::measured::Measured;
use crate::results::GemmDims;
use crate::table::{columns_table, extra_row, Column, Kind, TableData, Value};

const FAMILY: &str = "Family";
const SHAPE: &str = "Shape MxNxK";
const LINE: &str = "Line";
const WHY: &str = "Why (the rule's words)";
const READING_C: &str = "Ours/cuBLAS, C read";
const TFLOPS: Kind = Kind::Rate {
    unit: "TFLOP/s",
    decimals: 1,
};

/// cuBLAS's median time per call from which a shape counts in the summary (shorter calls are
/// launch-bound: issue 32's bar).
pub const COUNTED_FROM_MS: f64 = 0.020;

pub fn columns() -> Vec<Column<ShapeRow>> {
    let mut c = vec![
        Column::new(FAMILY, Kind::Text, |r: &ShapeRow| {
            Value::Text(r.family.name().to_owned())
        }),
        Column::new(SHAPE, Kind::Text, |r| Value::Text(name(r.dims))),
        Column::new(LINE, Kind::Text, |r| Value::Text(r.line.clone())),
    ];
    c.extend(wave_columns());
    c.extend([
        Column::new("Blocks/SM", Kind::Count, |r: &ShapeRow| {
            Value::Int(r.figures.blocks_per_sm.into())
        }),
        Column::new("Theo. occ", Kind::Percent, |r| {
            Value::Float(r.figures.occupancy)
        }),
        Column::new("TFLOP/s", TFLOPS, |r| {
            cells::rate(r.figures.gflops / 1e3, &r.measured.flags)
        }),
        Column::new("cuBLAS TFLOP/s", TFLOPS, |r| {
            r.cublas_row().map_or(Value::NotAvailable, |c| {
                cells::rate(c.gflops / 1e3, &c.flags)
            })
        }),
        Column::new(VS_CUBLAS, Kind::Ratio, |r| {
            r.vs_cublas.map_or(Value::NotAvailable, Value::Float)
        }),
        Column::new("cuBLAS kernel", Kind::Text, |r| {
            r.cublas_row()
                .and_then(|c| c.library_kernel())
                .map_or(Value::NotAvailable, |k| Value::Text(k.kernel.name.clone()))
        }),
        Column::new(cells::SM_CLOCK_HEADER, cells::SM_CLOCK, |r| {
            cells::sm_clock(&r.figures.timing)
        }),
        Column::new("Verified", Kind::Check, |r| cells::check(&r.measured.check)),
        Column::new(READING_C, Kind::Ratio, |r| {
            (r.reading_c.as_ref())
                .and_then(|c| c.vs_cublas())
                .map_or(Value::NotAvailable, Value::Float)
        }),
        Column::new(WHY, Kind::Text, |r| Value::Text(r.choice.why.clone())),
    ]);
    c
}

/// The rows, a row per miss, and the notes: sampling, schedule, checks, cuBLAS's calls, the
/// summary.
pub fn table(output: &ShapesRun, title: &str) -> TableData {
    let read_c = output.rows.iter().any(|r| r.reading_c.is_some());
    let columns: Vec<_> = shown_columns(columns(), &output.rows)
        .into_iter()
        .filter(|c| read_c || c.header != READING_C)
        .collect();
    let mut t = columns_table(title, &columns, &output.rows);
    for m in &output.misses {
        let label = format!("{} {}", m.family.name(), name(m.dims));
        let values = [
            (FAMILY, Value::Text(m.family.name().to_owned())),
            (SHAPE, Value::Text(name(m.dims))),
            (LINE, Value::Text("miss".to_owned())),
            (WHY, Value::Text(m.why.clone())),
        ];
        extra_row(&mut t, &label, &[], &values);
    }
    if let Some(n) = output.samples {
        t.notes.push(format!(
            "Each chosen line and cuBLAS took {n} samples a figure (`host all`'s shorter sweep; \
             `host shapes` alone samples to the run's plan)."
        ));
    }
    let cublas_ran = output.rows.iter().any(|r| r.cublas_row().is_some());
    t.notes.extend(schedule_notes(&output.rows, cublas_ran));
    let checks = (output.rows.iter())
        .map(|r| &r.measured)
        .map(|m: &Measured| &m.check)
        .chain(
            output
                .rows
                .iter()
                .filter_map(|r| r.cublas_row())
                .map(|c| &c.check),
        );
    t.notes.extend(note_under(checks, || {
        "FP32 rows under the FP32 rule, BF16 rows under the tensor-core rule".to_owned()
    }));
    t.notes.push(
        "cuBLAS: cublasSgemm (FP32) or cublasGemmEx (BF16 A and B, FP32 C and compute), its \
         default algorithm, row-major through C^T = B^T A^T, on the same buffers, its samples \
         interleaved with the chosen line's."
            .to_owned(),
    );
    t.notes.extend(reading_c_notes(output));
    t.notes.extend(summary(output));
    t
}

/// What the figures reading C timed and how they were checked, one note per row that has one;
/// none for runs without them.
fn reading_c_notes(output: &ShapesRun) -> Vec<String> {
    let mut out = Vec::new();
    for r in &output.rows {
        let Some(c) = &r.reading_c else { continue };
        let cublas = match &c.cublas {
            Some((t, check)) => format!(
                "cuBLAS {:.3} ms ({}: {})",
                t.median_ms,
                if check.passed { "verified" } else { "FAILED" },
                check.what
            ),
            None => "cuBLAS not timed".to_owned(),
        };
        out.push(format!(
            "{} with the epilogue reading C (alpha={}, beta={}; `{}` column): {} {:.3} ms ({}:              {}); {cublas}. Each sample starts from the initial C, copied in outside the timed              interval.",
            r.label_words(),
            c.alpha,
            c.beta,
            READING_C,
            r.line,
            c.timing.median_ms,
            if c.check.passed { "verified" } else { "FAILED" },
            c.check.what,
        ));
    }
    out
}

/// Ours over cuBLAS of `family` at `dims`, where it ran.
fn ratio_at(output: &ShapesRun, family: Family, dims: GemmDims) -> Option<f64> {
    (output.rows.iter())
        .find(|r| r.family == family && r.dims == dims)
        .and_then(|r| r.vs_cublas)
}

fn ratio_words(r: Option<f64>, target: f64) -> String {
    match r {
        Some(x) => {
            let met = if x >= target { "met" } else { "missed" };
            format!("{x:.2} (target >= {target:.2}, {met})")
        }
        None => format!("not measured (target >= {target:.2})"),
    }
}

/// The geometric mean of `xs`; none when empty.
pub fn geomean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

/// The family's figures over the shapes that count: those whose cuBLAS call took at least
/// [`COUNTED_FROM_MS`] (and `also`), the ratios, the shapes below `bar` and the misses.
pub struct Counted {
    pub ratios: Vec<f64>,
    pub below: Vec<String>,
    pub misses: usize,
}

pub fn counted(
    output: &ShapesRun,
    family: Family,
    bar: f64,
    also: impl Fn(GemmDims) -> bool,
) -> Counted {
    let mut c = Counted {
        ratios: Vec::new(),
        below: Vec::new(),
        misses: 0,
    };
    for r in output
        .rows
        .iter()
        .filter(|r| r.family == family && also(r.dims))
    {
        let (Some(ms), Some(x)) = (r.cublas_ms(), r.vs_cublas) else {
            continue;
        };
        if ms >= COUNTED_FROM_MS {
            c.ratios.push(x);
            if x < bar {
                c.below.push(format!("{} {x:.2}", name(r.dims)));
            }
        }
    }
    c.misses = (output.misses.iter())
        .filter(|m| m.family == family && also(m.dims))
        .count();
    c
}

fn counted_words(c: &Counted, bar: f64, mean_target: Option<f64>) -> String {
    let mean = match (geomean(&c.ratios), mean_target) {
        (Some(g), Some(t)) => format!("geometric mean {g:.2} (target >= {t:.2}); "),
        (Some(g), None) => format!("geometric mean {g:.2}; "),
        (None, _) => String::new(),
    };
    let below = if c.below.is_empty() {
        String::new()
    } else {
        format!(" (below: {})", c.below.join(", "))
    };
    format!(
        "{mean}{} of {} at >= {bar:.2}{below}; {} miss(es), each a miss of the bar",
        c.ratios.len() - c.below.len(),
        c.ratios.len(),
        c.misses
    )
}

/// The summary against issue 32's targets (benchmarks on the H200, never timed tests).
pub fn summary(output: &ShapesRun) -> Vec<String> {
    let mut out = Vec::new();
    let at = |f, s| ratio_at(output, f, GemmDims::square(s));
    let has = |f: Family| {
        output.rows.iter().any(|r| r.family == f) || output.misses.iter().any(|m| m.family == f)
    };
    if has(Family::Bf16) {
        let c = counted(output, Family::Bf16, 0.90, |_| true);
        // Only in runs that timed it: earlier runs keep their words.
        let reading_c = (output.rows.iter())
            .find(|r| r.family == Family::Bf16 && r.dims == GemmDims::square(8192))
            .and_then(|r| r.reading_c.as_ref())
            .map_or(String::new(), |c| {
                format!(
                    "; beta = {} at 8192³ {}",
                    c.beta,
                    ratio_words(c.vs_cublas(), 0.95)
                )
            });
        out.push(format!(
            "BF16 against issue 32's targets (benchmarks, not tests): 4096³ {}; 8192³ {}; over \
             the shapes whose cuBLAS call takes >= 20 µs: {}{reading_c}.",
            ratio_words(at(Family::Bf16, 4096), 1.03),
            ratio_words(at(Family::Bf16, 8192), 1.03),
            counted_words(&c, 0.90, Some(1.00))
        ));
    }
    if has(Family::Fp32) {
        let group_of = |d: GemmDims| SHAPES.iter().find(|s| s.dims == d).map(|s| s.group);
        let barred = |d: GemmDims| match group_of(d) {
            Some(Group::Square) => d.m >= 1024,
            Some(Group::Transformer) => true,
            _ => false,
        };
        let c = counted(output, Family::Fp32, 0.95, barred);
        out.push(format!(
            "FP32 against issue 32's targets (benchmarks, not tests): 4096³ {}; 8192³ {}; the \
             squares from 1024 and the transformer shapes whose cuBLAS call takes >= 20 µs: {}.",
            ratio_words(at(Family::Fp32, 4096), 1.00),
            ratio_words(at(Family::Fp32, 8192), 1.00),
            counted_words(&c, 0.95, None)
        ));
    }
    out
}

#[cfg(test)]
#[path = "table_test.rs"]
mod tests;
