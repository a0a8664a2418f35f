//! Cell values the experiments' columns share: a timing, the SM clock over it, a check, a
//! flagged throughput, a GEMM's tiles, the copy's and the spills' pairs, and the compared
//! module's four columns.

use crate::results::{Check, Comparison, Timing};
use crate::table::{Column, Kind, Value};

/// Milliseconds per call: median [min-max], with the noise where it was measured.
pub fn timing(t: &Timing) -> Value {
    Value::Spread {
        median: t.median_ms,
        min: t.min_ms,
        max: t.max_ms,
        noise: t.noise,
    }
}

/// A figure's relative noise (n/a for runs recorded without it).
pub fn noise(t: &Timing) -> Value {
    t.noise.map_or(Value::NotAvailable, Value::Float)
}

/// The SM clock over a figure's samples, lowest to highest reading, printed "1755-1980".
pub const SM_CLOCK: Kind = Kind::Dims {
    sep: "-",
    names: &["SM clock min (MHz)", "SM clock max (MHz)"],
};

/// The header of the [`SM_CLOCK`] column.
pub const SM_CLOCK_HEADER: &str = "SM MHz during";

/// The [`SM_CLOCK`] cell of a figure (n/a for runs recorded before the readings were kept).
pub fn sm_clock(t: &Timing) -> Value {
    t.sm_clock_mhz_during.map_or(Value::NotAvailable, |s| {
        Value::pair(s.min_mhz.into(), s.max_mhz.into())
    })
}

/// A correctness check.
pub fn check(c: &Check) -> Value {
    Value::Check {
        passed: c.passed,
        error: c.error,
        bound: c.bound,
    }
}

/// A GEMM's block and warp tiles (the occupancy and BF16 experiments'), printed joined
/// ("MxNxK"), one CSV column per side.
pub const BLOCK_TILE_KIND: Kind = Kind::Dims {
    sep: "x",
    names: &["Block tile M", "Block tile N", "Block tile K"],
};
pub const WARP_TILE_KIND: Kind = Kind::Dims {
    sep: "x",
    names: &["Warp tile M", "Warp tile N"],
};

/// A copy's loads per thread and floats per load, printed "4x2".
pub const LOADS_X_WIDTH: Kind = Kind::Dims {
    sep: "x",
    names: &["Loads", "Floats/load"],
};

/// A module's spill stores and loads, bytes, printed "12/8".
pub const SPILLS_STORES_LOADS: Kind = Kind::Dims {
    sep: "/",
    names: &["spill stores (B)", "spill loads (B)"],
};

/// A throughput, marked when the row has flags (see the notes).
pub fn rate(x: f64, flags: &[String]) -> Value {
    if flags.is_empty() {
        Value::Float(x)
    } else {
        Value::Flagged(x)
    }
}

/// A row that may carry the compared module's figures.
pub trait HasComparison {
    fn comparison(&self) -> Option<&Comparison>;
}

fn other_throughput<R: HasComparison>(r: &R) -> Value {
    r.comparison()
        .map_or(Value::Empty, |c| Value::Float(c.throughput))
}

fn other_regs<R: HasComparison>(r: &R) -> Value {
    r.comparison()
        .map_or(Value::Empty, |c| Value::Int(c.regs.into()))
}

fn ratio<R: HasComparison>(r: &R) -> Value {
    r.comparison()
        .map_or(Value::Empty, |c| Value::Float(c.ratio))
}

fn other_check<R: HasComparison>(r: &R) -> Value {
    r.comparison().map_or(Value::Empty, |c| check(&c.check))
}

/// The compared module's columns: its throughput (header `throughput`, in `unit`), registers,
/// our/its ratio and its check; each printed after the module's name.
pub fn compared_columns<R: HasComparison>(
    throughput: &'static str,
    unit: &'static str,
    decimals: usize,
) -> Vec<Column<R>> {
    vec![
        Column::compared(
            throughput,
            Kind::Rate { unit, decimals },
            other_throughput::<R>,
        ),
        Column::compared("regs", Kind::Count, other_regs::<R>),
        Column::over_compared("Ours", Kind::Ratio, ratio::<R>),
        Column::compared("verified", Kind::Check, other_check::<R>),
    ]
}
