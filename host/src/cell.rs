//! One table cell before it is printed: a [`Value`] (the raw figure) and the [`Kind`] of its
//! column (how that figure is written). Every printer formats from the pair: the terminal and
//! Markdown tables through [`Value::format`], a CSV through [`Value::csv_fields`] under the
//! headers of [`Kind::csv_headers`], so a figure stays a number until one of them prints it.

/// How a column's values are written: each kind has one text formatting, used by the terminal
/// and Markdown tables, and one CSV layout (one column per number, the unit in its header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number of things (threads, registers, blocks).
    Count,
    /// A fraction shown as a percentage with one decimal; a CSV writes it in 0..100 under a
    /// `(%)` header.
    Percent,
    /// A throughput in `unit` (e.g. "GFLOP/s") with `decimals` decimals; a flagged value is
    /// marked `(!)` in a table (a CSV keeps the number and lists the flags in their own column).
    Rate { unit: &'static str, decimals: usize },
    /// Milliseconds per call: median [min-max] and the samples' relative noise where measured;
    /// a CSV gives each its own column.
    Duration,
    /// A relative noise (standard deviation over mean) as a percentage with two decimals.
    Noise,
    /// A ratio of two figures, three decimals: enough to tell 0.598 from a target of 0.60.
    Ratio,
    /// A size in bytes.
    Bytes,
    /// Whole numbers joined by `sep` (a tile "8x4", spills "12/8"); a CSV gives each its own
    /// column, named by `names`.
    Dims {
        sep: &'static str,
        names: &'static [&'static str],
    },
    /// Fractions of which a table shows the first as a percentage; a CSV gives each its own
    /// `(%)` column, named by `names` (a figure with a companion too long for the table).
    Percents { names: &'static [&'static str] },
    /// A correctness check: "ok, exact", "ok, err 2.2e-7", "FAILED, 3 differ"; a CSV writes
    /// whether it passed (`true`/`false`), the error and the bound.
    Check,
    /// Free text.
    Text,
}

/// One CSV column a [`Kind`] writes: its header, and whether its cells are numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvHeader {
    pub name: String,
    pub numeric: bool,
}

impl CsvHeader {
    fn number(name: String) -> Self {
        Self {
            name,
            numeric: true,
        }
    }

    pub(crate) fn text(name: String) -> Self {
        Self {
            name,
            numeric: false,
        }
    }
}

impl Kind {
    /// The header a table prints for a column named `header` of this kind.
    pub fn table_header(self, header: &str) -> String {
        match self {
            Kind::Duration => format!("{header} [min-max]"),
            _ => header.to_owned(),
        }
    }

    /// The CSV columns of a column named `header` of this kind (`label` names the module a
    /// compared column's parts belong to, as it prefixes the column's own header).
    pub fn csv_headers(self, header: &str, label: Option<&str>) -> Vec<CsvHeader> {
        let part = |name: &str| match label {
            Some(l) => format!("{l} {name}"),
            None => name.to_owned(),
        };
        match self {
            Kind::Text => vec![CsvHeader::text(header.to_owned())],
            Kind::Percent | Kind::Noise => vec![CsvHeader::number(format!("{header} (%)"))],
            Kind::Percents { names } => names
                .iter()
                .map(|n| CsvHeader::number(format!("{} (%)", part(n))))
                .collect(),
            Kind::Duration => vec![
                CsvHeader::number(format!("{header} median")),
                CsvHeader::number(format!("{header} min")),
                CsvHeader::number(format!("{header} max")),
                CsvHeader::number("noise (%)".to_owned()),
            ],
            Kind::Check => vec![
                CsvHeader::text(header.to_owned()),
                CsvHeader::number(format!("{header} error")),
                CsvHeader::number(format!("{header} bound")),
            ],
            Kind::Dims { names, .. } => names.iter().map(|n| CsvHeader::number(part(n))).collect(),
            Kind::Count | Kind::Rate { .. } | Kind::Ratio | Kind::Bytes => {
                vec![CsvHeader::number(header.to_owned())]
            }
        }
    }
}

/// A fraction as a percentage with one decimal ("12.5%"): the lab's one percentage format.
pub fn percent(fraction: f64) -> String {
    percent_with(fraction, 1)
}

/// A fraction as a percentage with `decimals` decimals ("0.31%").
pub fn percent_with(fraction: f64, decimals: usize) -> String {
    format!("{:.decimals$}%", fraction * 100.0)
}

/// A number for a CSV: rounded to ten significant digits (more than any figure here is measured
/// to, and free of binary noise such as 56.99999999999999) and written in the shortest decimal
/// that reads back as that, never with an exponent.
pub fn csv_number(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return x.to_string();
    }
    let rounded: f64 = format!("{x:.9e}").parse().unwrap_or(x);
    rounded.to_string()
}

/// One cell's value, before formatting.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An empty cell (e.g. the compared module's columns of a row it lacks).
    Empty,
    /// A figure that cannot be known for this row ("n/a"; empty in a CSV).
    NotAvailable,
    /// A figure left out for a reason a table prints in its place (empty in a CSV; the reason
    /// belongs in the table's notes too).
    Withheld(&'static str),
    Int(u64),
    Float(f64),
    /// A rate marked as doubtful (see the row's flags).
    Flagged(f64),
    /// Median, min and max, milliseconds, and the samples' relative noise where recorded.
    Spread {
        median: f64,
        min: f64,
        max: f64,
        noise: Option<f64>,
    },
    /// Fractions, the first shown (see [`Kind::Percents`]).
    Fractions(Vec<f64>),
    /// Whole numbers printed joined (see [`Kind::Dims`]).
    Dims(Vec<u64>),
    /// Passed, the error found and the bound it was held to.
    Check {
        passed: bool,
        error: f64,
        bound: f64,
    },
    Text(String),
}

impl Value {
    /// Two whole numbers, e.g. a tile's rows and columns.
    pub fn pair(a: u64, b: u64) -> Self {
        Value::Dims(vec![a, b])
    }

    /// The cell's text in a table under `kind`.
    pub fn format(&self, kind: Kind) -> String {
        match (self, kind) {
            (Value::Empty, _) => String::new(),
            (Value::NotAvailable, _) => "n/a".to_owned(),
            (Value::Withheld(why), _) => (*why).to_owned(),
            (Value::Text(s), _) => s.clone(),
            (Value::Int(n), Kind::Percent) => percent(*n as f64),
            (Value::Int(n), _) => n.to_string(),
            (Value::Float(x), Kind::Percent) => percent(*x),
            (Value::Fractions(xs), _) => xs.first().map_or_else(String::new, |x| percent(*x)),
            (Value::Float(x) | Value::Flagged(x), Kind::Noise) => percent_with(*x, 2),
            (Value::Float(x), Kind::Rate { decimals, .. }) => format!("{x:.decimals$}"),
            (Value::Flagged(x), Kind::Rate { decimals, .. }) => format!("{x:.decimals$} (!)"),
            (Value::Float(x) | Value::Flagged(x), Kind::Ratio) => format!("{x:.3}"),
            (Value::Float(x) | Value::Flagged(x), Kind::Count | Kind::Bytes) => format!("{x:.0}"),
            (Value::Float(x) | Value::Flagged(x), _) => x.to_string(),
            (
                Value::Spread {
                    median,
                    min,
                    max,
                    noise,
                },
                _,
            ) => match noise {
                Some(n) => format!("{median:.3} [{min:.3}-{max:.3}] ±{}", percent_with(*n, 2)),
                None => format!("{median:.3} [{min:.3}-{max:.3}]"),
            },
            (Value::Dims(parts), kind) => {
                let sep = match kind {
                    Kind::Dims { sep, .. } => sep,
                    _ => "x",
                };
                parts
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(sep)
            }
            (
                Value::Check {
                    passed,
                    error,
                    bound,
                },
                _,
            ) => {
                let status = if *passed { "ok" } else { "FAILED" };
                if *bound == 0.0 {
                    if *error == 0.0 {
                        format!("{status}, exact")
                    } else {
                        format!("{status}, {error} differ")
                    }
                } else {
                    format!("{status}, err {error:.1e}")
                }
            }
        }
    }

    /// The cell's CSV fields under `kind`, one per column of [`Kind::csv_headers`]: numbers
    /// without units or marks, a percentage in 0..100, and empty fields where there is no figure.
    /// Text stands only in a text column (elsewhere its fields are empty).
    pub fn csv_fields(&self, kind: Kind) -> Vec<String> {
        let width = kind.csv_headers("", None).len();
        let scaled = |x: f64| match kind {
            Kind::Percent | Kind::Noise | Kind::Percents { .. } => csv_number(x * 100.0),
            _ => csv_number(x),
        };
        let fields = match (self, kind) {
            (Value::Text(s), Kind::Text) => vec![s.clone()],
            (Value::Int(n), Kind::Percent | Kind::Noise) => vec![scaled(*n as f64)],
            (Value::Int(n), _) => vec![n.to_string()],
            (Value::Float(x) | Value::Flagged(x), _) => vec![scaled(*x)],
            (
                Value::Spread {
                    median,
                    min,
                    max,
                    noise,
                },
                _,
            ) => vec![
                csv_number(*median),
                csv_number(*min),
                csv_number(*max),
                noise.map_or_else(String::new, |n| csv_number(n * 100.0)),
            ],
            (Value::Dims(parts), _) => parts.iter().map(u64::to_string).collect(),
            (Value::Fractions(xs), _) => xs.iter().map(|x| scaled(*x)).collect(),
            (
                Value::Check {
                    passed,
                    error,
                    bound,
                },
                _,
            ) => vec![passed.to_string(), csv_number(*error), csv_number(*bound)],
            (Value::Empty | Value::NotAvailable | Value::Withheld(_) | Value::Text(_), _) => {
                Vec::new()
            }
        };
        let mut fields = fields;
        fields.resize(width, String::new());
        fields
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn rate(unit: &'static str, decimals: usize) -> Kind {
        Kind::Rate { unit, decimals }
    }

    const fn check(passed: bool, error: f64, bound: f64) -> Value {
        Value::Check {
            passed,
            error,
            bound,
        }
    }

    const fn spread(median: f64, min: f64, max: f64, noise: Option<f64>) -> Value {
        Value::Spread {
            median,
            min,
            max,
            noise,
        }
    }

    const fn dims(sep: &'static str, names: &'static [&'static str]) -> Kind {
        Kind::Dims { sep, names }
    }

    #[test]
    fn kinds_format_their_values() {
        for (value, kind, text) in [
            (Value::Float(0.125), Kind::Percent, "12.5%"),
            (Value::Flagged(3.25), rate("GB/s", 1), "3.2 (!)"),
            (Value::pair(8, 4), dims("x", &["TM", "TN"]), "8x4"),
            (check(true, 0.0, 0.0), Kind::Check, "ok, exact"),
            (
                spread(1.0, 0.5, 2.0, None),
                Kind::Duration,
                "1.000 [0.500-2.000]",
            ),
            (
                spread(1.0, 0.5, 2.0, Some(0.0031)),
                Kind::Duration,
                "1.000 [0.500-2.000] ±0.31%",
            ),
            (Value::Float(0.0031), Kind::Noise, "0.31%"),
            (Value::Withheld("why"), Kind::Bytes, "why"),
        ] {
            assert_eq!(value.format(kind), text);
        }
    }

    #[test]
    fn csv_fields_are_bare_numbers_under_headers_with_units() {
        let spills = dims("/", &["spill stores (B)", "spill loads (B)"]);
        let noisy = spread(11.818, 11.81, 11.843, Some(0.0011));
        let occ = Kind::Percents {
            names: &["Achieved occ", "whole kernel"],
        };
        for (value, kind, fields) in [
            (
                Value::Flagged(15404.25),
                rate("GFLOP/s", 0),
                &["15404.25"][..],
            ),
            (Value::Float(0.547), Kind::Percent, &["54.7"]),
            (
                noisy,
                Kind::Duration,
                &["11.818", "11.81", "11.843", "0.11"],
            ),
            (check(false, 3.0, 0.0), Kind::Check, &["false", "3", "0"]),
            (Value::pair(12, 8), spills, &["12", "8"]),
            (Value::Fractions(vec![0.5, 0.25]), occ, &["50", "25"]),
            (Value::Withheld("why"), occ, &["", ""]),
            // No figure: every field of the cell is empty.
            (Value::NotAvailable, Kind::Duration, &["", "", "", ""]),
            (Value::Withheld("why"), Kind::Bytes, &[""]),
            (Value::Text("x".into()), Kind::Count, &[""]),
        ] {
            assert_eq!(value.csv_fields(kind), fields);
        }
        let names = |kind: Kind, header: &str, label| -> Vec<String> {
            let headers = kind.csv_headers(header, label).into_iter();
            headers.map(|h| h.name).collect()
        };
        assert_eq!(names(Kind::Percent, "Theo. occ", None), ["Theo. occ (%)"]);
        assert_eq!(
            names(occ, "Achieved occ", None),
            ["Achieved occ (%)", "whole kernel (%)"]
        );
        // A table shows the first figure alone.
        assert_eq!(Value::Fractions(vec![0.5, 0.25]).format(occ), "50.0%");
        assert_eq!(
            names(Kind::Duration, "ms/call", None),
            ["ms/call median", "ms/call min", "ms/call max", "noise (%)"]
        );
        assert_eq!(
            names(spills, "spill st/ld", Some("peer"))[1],
            "peer spill loads (B)"
        );
    }

    #[test]
    fn csv_numbers_drop_binary_noise_but_keep_the_figure() {
        assert_eq!(csv_number(0.57 * 100.0), "57");
        assert_eq!(csv_number(15404.123456789012), "15404.12346");
        assert_eq!(csv_number(2.2e-7), "0.00000022");
        assert_eq!(csv_number(0.0), "0");
        assert_eq!(csv_number(1024.0), "1024");
    }
}
