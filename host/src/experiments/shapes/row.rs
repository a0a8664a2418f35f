//! What the shape sweep stores: per shape and family, the chosen line's row (timed beside
//! cuBLAS, with the kernel cuBLAS ran) or a miss with why no line ran.

use serde::{Deserialize, Serialize};

use crate::experiments::contract::{row, Output, GFLOPS};
use crate::experiments::gemm_cublas::{CublasOutcome, CublasRow};
use crate::experiments::gemm_figure_columns::GemmFiguresRow;
use crate::experiments::gemm_figures::GemmFigures;
use crate::experiments::gemm_sides_reading_c::ReadingC;
use crate::experiments::line_choice::Choice;
use crate::experiments::measured::{push_failed, Measured};
use crate::results::GemmDims;

/// A family of the sweep: its element type and its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// FP32 (the tuned SGEMM lines beside cuBLAS's SGEMM).
    Fp32,
    /// BF16 with FP32 accumulate (the mma.sync and TMA-ring lines beside cublasGemmEx).
    Bf16,
}

impl std::fmt::Display for Family {
    /// Its name as `--families` takes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Family::Fp32 => "fp32",
            Family::Bf16 => "bf16",
        })
    }
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::Fp32 => "FP32",
            Family::Bf16 => "BF16",
        }
    }
}

/// One shape and family: the chosen line timed beside cuBLAS.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ShapeRow {
    pub family: Family,
    pub dims: GemmDims,
    /// The chosen line's label and the rule's words.
    pub choice: Choice,
    pub line: String,
    #[serde(flatten)]
    pub figures: GemmFigures,
    /// cuBLAS beside it (its samples interleaved with the line's), or why it did not run.
    pub cublas: Option<CublasOutcome>,
    /// Ours over cuBLAS from the samples taken together.
    pub vs_cublas: Option<f64>,
    #[serde(flatten)]
    pub measured: Measured,
    /// The line and cuBLAS timed again with the epilogue reading C, on the shapes that ask for
    /// it (absent elsewhere, and from runs made before the figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading_c: Option<ReadingC>,
}

row!(ShapeRow, GFLOPS, figures.gflops, |r| r.label_words());

impl GemmFiguresRow for ShapeRow {
    fn gemm_figures(&self) -> &GemmFigures {
        &self.figures
    }
}

impl ShapeRow {
    /// cuBLAS's row, where it was measured.
    pub fn cublas_row(&self) -> Option<&CublasRow> {
        self.cublas.as_ref().and_then(CublasOutcome::measured)
    }

    /// cuBLAS's median time per call, ms.
    pub fn cublas_ms(&self) -> Option<f64> {
        self.cublas_row().map(|c| c.timing.median_ms)
    }
}

/// A shape and family no line ran: the rule's words say why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Miss {
    pub family: Family,
    pub dims: GemmDims,
    pub why: String,
}

/// The sweep's output.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ShapesRun {
    pub rows: Vec<ShapeRow>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misses: Vec<Miss>,
    /// Samples each chosen line and cuBLAS took (`host all`'s shorter sweep); none: the run's
    /// sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
}

impl Output for ShapesRun {
    type Row = ShapeRow;
    fn rows(&self) -> &[ShapeRow] {
        &self.rows
    }
    /// cuBLAS's failed checks, shape by shape, and those of the figures reading C.
    fn other_failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for r in &self.rows {
            if let Some(c) = r.cublas_row() {
                let what = format!("cuBLAS {} {}", c.version, r.label_words());
                push_failed(&what, &c.check, &mut out);
            }
            if let Some(rc) = &r.reading_c {
                let what = format!("{} {} reading C", r.line, r.label_words());
                push_failed(&what, &rc.check, &mut out);
                if let Some((_, c)) = &rc.cublas {
                    push_failed(
                        &format!("cuBLAS {} reading C", r.label_words()),
                        c,
                        &mut out,
                    );
                }
            }
        }
        out
    }
}

impl ShapeRow {
    /// "BF16 4096x4096x4096".
    pub fn label_words(&self) -> String {
        format!("{} {}", self.family.name(), super::list::name(self.dims))
    }
}
