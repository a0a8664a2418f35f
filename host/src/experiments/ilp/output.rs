//! The `ilp` experiment's output: its rows, the Volkov lines and the skipped points. Read back
//! from `results.json`, its rows get the scheduler model (`dip`) again; that lives here, above
//! both the rows and the model, so neither imports the other.

use serde::{Deserialize, Serialize};

use super::dip;
use super::row::{IlpRow, VolkovLine};
use crate::experiments::contract::Output;

/// Everything the `ilp` experiment measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredIlp")]
pub struct Ilp {
    pub a: f32,
    pub b: f32,
    pub rows: Vec<IlpRow>,
    pub volkov: Vec<VolkovLine>,
    /// Points that could not be placed, with the reason.
    pub skipped: Vec<String>,
}

/// [`Ilp`] as `results.json` holds it: read, its rows get the scheduler model back.
#[derive(Deserialize)]
struct StoredIlp {
    a: f32,
    b: f32,
    rows: Vec<IlpRow>,
    volkov: Vec<VolkovLine>,
    skipped: Vec<String>,
}

impl From<StoredIlp> for Ilp {
    fn from(s: StoredIlp) -> Self {
        let mut rows = s.rows;
        dip::fill(&mut rows);
        Ilp {
            a: s.a,
            b: s.b,
            rows,
            volkov: s.volkov,
            skipped: s.skipped,
        }
    }
}

impl Output for Ilp {
    type Row = IlpRow;
    fn rows(&self) -> &[IlpRow] {
        &self.rows
    }
}
