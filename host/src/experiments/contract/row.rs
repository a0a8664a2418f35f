//! A row of an experiment's table and the output that holds the rows: what the run gives and
//! `results.json` stores, and the unit its throughput is counted in.

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::experiments::cells::{compared_columns, HasComparison};
use crate::experiments::measured::Measured;
use crate::table::{Column, Kind};

/// A row's throughput: its unit and the decimals it is shown with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub unit: &'static str,
    pub decimals: usize,
}

impl Rate {
    /// The column kind of a figure in this unit.
    pub const fn kind(self) -> Kind {
        Kind::Rate {
            unit: self.unit,
            decimals: self.decimals,
        }
    }

    /// The compared module's columns of a row in this unit (the renderer puts the compared
    /// module's name before the unit in the header).
    pub fn compared_columns<R: HasComparison>(self) -> Vec<Column<R>> {
        compared_columns(self.unit, self.unit, self.decimals)
    }
}

/// FP32 arithmetic, whole GFLOP/s.
pub const GFLOPS: Rate = Rate {
    unit: "GFLOP/s",
    decimals: 0,
};

/// Tensor-core arithmetic, TFLOP/s to a tenth.
pub const TFLOPS: Rate = Rate {
    unit: "TFLOP/s",
    decimals: 1,
};

/// Copies, GB/s (read + written) to a tenth.
pub const GBPS: Rate = Rate {
    unit: "GB/s",
    decimals: 1,
};

/// One row of an experiment's table, as `results.json` stores it: its own columns and, embedded,
/// the part every experiment measures alike ([`Measured`]: the check, the flags, the compared
/// module's side), from which the table's notes, the failed checks and the comparison come.
/// `row!` implements it for a row struct.
pub trait Row: Serialize + DeserializeOwned + Clone + Debug + PartialEq {
    /// The unit of [`Row::figures`]' throughput.
    const RATE: Rate;
    /// Names the row in the table's notes, the failed checks and the merged table.
    fn label(&self) -> String;
    fn measured(&self) -> &Measured;
    /// Throughput (in [`Row::RATE`]) and theoretical occupancy, for the merged table.
    fn figures(&self) -> (f64, f64);
    /// The row's key in the merged table of several runs.
    fn merge_key(&self) -> String {
        self.label()
    }
}

/// Implements [`Row`] for a row struct with a `measured: Measured` field and an `occupancy`
/// field, from its rate, the field holding its throughput (`figures.gflops` where both sit in an
/// embedded struct, as [`GemmFigures`](crate::experiments::gemm_figures::GemmFigures)) and how it
/// is labelled (and, where the merged table keys it otherwise, how it is keyed there):
///
/// ```ignore
/// row!(RegsRow, GFLOPS, figures.gflops, |r| format!("cap {}", r.cap));
/// row!(IlpRow, GFLOPS, gflops, occupancy: point.occupancy, |r| ..., merge_key: |r| ...);
/// ```
macro_rules! row {
    (@occupancy $s:ident, [$($throughput:ident).+], [$($occupancy:ident).+]) => {
        $s.$($occupancy).+
    };
    (@occupancy $s:ident, [$throughput:ident]) => {
        $s.occupancy
    };
    (@occupancy $s:ident, [$outer:ident . $throughput:ident]) => {
        $s.$outer.occupancy
    };
    ($row:ty, $rate:expr, $($throughput:ident).+ $(, occupancy: $($occupancy:ident).+)?,
        |$r:ident| $label:expr $(, merge_key: |$k:ident| $key:expr)?) => {
        impl $crate::experiments::contract::Row for $row {
            const RATE: $crate::experiments::contract::Rate = $rate;
            fn label(&self) -> String {
                let $r = self;
                $label
            }
            fn measured(&self) -> &$crate::experiments::measured::Measured {
                &self.measured
            }
            fn figures(&self) -> (f64, f64) {
                (
                    self.$($throughput).+,
                    $crate::experiments::contract::row!(
                        @occupancy self, [$($throughput).+] $(, [$($occupancy).+])?
                    ),
                )
            }
            $(fn merge_key(&self) -> String {
                let $k = self;
                $key
            })?
        }
    };
}
pub(crate) use row;

/// What an experiment stores in `results.json`: its rows, and what it measured besides them.
pub trait Output: Serialize + DeserializeOwned + Clone + Debug + PartialEq {
    type Row: Row;
    fn rows(&self) -> &[Self::Row];
    /// A measured reference above the merged table's rows (name, value), e.g. cuBLAS.
    fn reference(&self) -> Option<(&'static str, f64)> {
        None
    }
    /// The failed checks outside the rows, in words, e.g. cuBLAS's or the latency chase's.
    fn other_failures(&self) -> Vec<String> {
        Vec::new()
    }
}

/// An experiment whose output is its rows alone.
impl<R: Row> Output for Vec<R> {
    type Row = R;
    fn rows(&self) -> &[R] {
        self
    }
}
