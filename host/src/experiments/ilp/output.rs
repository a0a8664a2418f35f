//! The `ilp` experiment's output: its rows, the Volkov lines and the skipped points. Read back
//! from `results.json`, its rows get the scheduler model (`dip`) again; that lives here, above
//! both the rows and the model, so neither imports the other.

use serde::{Deserialize, Deserializer, Serialize};

use super::dip;
use super::row::{IlpRow, VolkovLine};
use crate::experiments::contract::Output;

/// Everything the `ilp` experiment measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ilp {
    pub a: f32,
    pub b: f32,
    /// Read back from `results.json`, the rows get the scheduler model again.
    #[serde(deserialize_with = "with_scheduler_model")]
    pub rows: Vec<IlpRow>,
    pub volkov: Vec<VolkovLine>,
    /// Points that could not be placed, with the reason.
    pub skipped: Vec<String>,
}

fn with_scheduler_model<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<IlpRow>, D::Error> {
    let mut rows = Vec::deserialize(d)?;
    dip::fill(&mut rows);
    Ok(rows)
}

impl Output for Ilp {
    type Row = IlpRow;
    fn rows(&self) -> &[IlpRow] {
        &self.rows
    }
}
