//! The one table renderer: a [`TableData`] (title, header, rows of cells, notes) printed for a
//! terminal, as Markdown or as CSV, all through `tabled` and the `csv` crate. Experiments declare
//! their tables as lists of [`Column`]s: a header, a typed accessor and a [`Kind`] from which
//! every renderer formats the cell, so a column is written once.
//!
//! This module knows nothing about experiments, devices or results: everything above it (the
//! experiments, the report, the calculator's printouts) renders through it.

use tabled::builder::Builder;
use tabled::settings::Style;

/// Output format (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table for the terminal.
    Table,
    /// GitHub-flavoured Markdown.
    Markdown,
    /// Comma-separated values, one header line per table.
    Csv,
    /// The full results as JSON (the `results.json` schema).
    Json,
}

/// How a column's values are written: each kind has one formatting, used by every renderer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number of things (threads, registers, blocks).
    Count,
    /// A fraction shown as a percentage with one decimal.
    Percent,
    /// A throughput in `unit` (e.g. "GFLOP/s") with `decimals` decimals; a flagged value is
    /// marked `(!)` and its flags become the table's notes.
    Rate { unit: &'static str, decimals: usize },
    /// Milliseconds per call: median [min-max], and the samples' relative noise where measured.
    Duration,
    /// A relative noise (standard deviation over mean) as a percentage with two decimals.
    Noise,
    /// A ratio of two figures, two decimals.
    Ratio,
    /// A size in bytes.
    Bytes,
    /// Two whole numbers joined by `sep` (a tile "8x4", spills "12/8").
    Pair { sep: &'static str },
    /// A correctness check: "ok, exact", "ok, err 2.2e-7", "FAILED, 3 differ".
    Check,
    /// Free text.
    Text,
}

/// A fraction as a percentage with one decimal ("12.5%"): the one percentage format.
pub fn percent(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

/// One cell's value, before formatting.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An empty cell (e.g. the compared module's columns of a row it lacks).
    Empty,
    /// A figure that cannot be known for this row ("n/a").
    NotAvailable,
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
    Pair(u64, u64),
    /// Passed, the error found and the bound it was held to.
    Check {
        passed: bool,
        error: f64,
        bound: f64,
    },
    Text(String),
}

impl Value {
    /// The cell's text under `kind`.
    pub fn format(&self, kind: Kind) -> String {
        match (self, kind) {
            (Value::Empty, _) => String::new(),
            (Value::NotAvailable, _) => "n/a".to_owned(),
            (Value::Text(s), _) => s.clone(),
            (Value::Int(n), Kind::Percent) => percent(*n as f64),
            (Value::Int(n), _) => n.to_string(),
            (Value::Float(x), Kind::Percent) => percent(*x),
            (Value::Float(x) | Value::Flagged(x), Kind::Noise) => format!("{:.2}%", x * 100.0),
            (Value::Float(x), Kind::Rate { decimals, .. }) => format!("{x:.decimals$}"),
            (Value::Flagged(x), Kind::Rate { decimals, .. }) => format!("{x:.decimals$} (!)"),
            (Value::Float(x) | Value::Flagged(x), Kind::Ratio) => format!("{x:.2}"),
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
                Some(n) => format!("{median:.3} [{min:.3}-{max:.3}] ±{:.2}%", n * 100.0),
                None => format!("{median:.3} [{min:.3}-{max:.3}]"),
            },
            (Value::Pair(a, b), Kind::Pair { sep }) => format!("{a}{sep}{b}"),
            (Value::Pair(a, b), _) => format!("{a}x{b}"),
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
}

/// Which module's figures a column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The module under test: always shown.
    Ours,
    /// The compared module (`--compare`): shown only when some row was compared.
    Compared,
}

/// One column of an experiment's table: declared once, formatted by every renderer from its
/// [`Kind`].
pub struct Column<R> {
    pub header: &'static str,
    pub kind: Kind,
    pub side: Side,
    pub value: fn(&R) -> Value,
}

impl<R> Column<R> {
    /// A column of our module's figures.
    pub const fn new(header: &'static str, kind: Kind, value: fn(&R) -> Value) -> Self {
        Self {
            header,
            kind,
            side: Side::Ours,
            value,
        }
    }

    /// A column of the compared module's figures.
    pub const fn compared(header: &'static str, kind: Kind, value: fn(&R) -> Value) -> Self {
        Self {
            header,
            kind,
            side: Side::Compared,
            value,
        }
    }
}

/// What a table needs of a row besides its columns: a name for its notes, its flags, and
/// whether it carries a compared module's figures.
pub trait TableRow {
    /// Names the row in the notes made of its flags.
    fn label(&self) -> String;
    /// Warnings about the row's figures, printed as notes under the table.
    fn flags(&self) -> &[String];
    /// The row has a compared module's figures.
    fn compared(&self) -> bool;
}

/// The table of `rows` under `columns`: the compared module's columns only when some row was
/// compared; each row's flags become notes `(!) label: flag`.
pub fn columns_table<R: TableRow>(title: &str, columns: &[Column<R>], rows: &[R]) -> TableData {
    let compared = rows.iter().any(TableRow::compared);
    let shown: Vec<&Column<R>> = columns
        .iter()
        .filter(|c| compared || c.side == Side::Ours)
        .collect();
    let mut notes = Vec::new();
    let body = rows
        .iter()
        .map(|r| {
            for f in r.flags() {
                notes.push(format!("(!) {}: {f}", r.label()));
            }
            shown.iter().map(|c| (c.value)(r).format(c.kind)).collect()
        })
        .collect();
    TableData {
        title: title.to_owned(),
        header: shown.iter().map(|c| c.header.to_owned()).collect(),
        rows: body,
        notes,
    }
}

/// A row outside the column accessors (e.g. a reference measurement): values by header, each
/// formatted by that column's kind; columns not named stay empty.
pub fn extra_row<R>(t: &mut TableData, columns: &[Column<R>], values: &[(&str, Value)]) {
    let cells = t
        .header
        .iter()
        .map(|h| {
            let kind = columns
                .iter()
                .find(|c| c.header == h)
                .map_or(Kind::Text, |c| c.kind);
            values
                .iter()
                .find(|(name, _)| name == h)
                .map_or_else(String::new, |(_, v)| v.format(kind))
        })
        .collect();
    t.rows.push(cells);
}

/// One table: a title, a header, rows of cells and notes printed under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableData {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub notes: Vec<String>,
}

impl TableData {
    /// The compared module's columns named after it (`--compare-label`, or the compared file's
    /// stem): a header `Other X` becomes `NAME X`, and `Ours/other` becomes `Ours/NAME`.
    pub fn name_compared(mut self, name: Option<&str>) -> Self {
        let Some(name) = name else { return self };
        for h in &mut self.header {
            if let Some(rest) = h.strip_prefix("Other ") {
                *h = format!("{name} {rest}");
            } else if h == "Ours/other" {
                *h = format!("Ours/{name}");
            }
        }
        self
    }
}

impl TableData {
    /// A table of plain text cells.
    pub fn new(title: &str, header: &[&str], rows: Vec<Vec<String>>) -> Self {
        Self {
            title: title.to_owned(),
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            rows,
            notes: Vec::new(),
        }
    }
}

/// The look of a bare grid (no title or notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// Rounded box drawing, for the terminal.
    Rounded,
    /// `psql`-style, the calculator's printouts.
    Psql,
    /// GitHub-flavoured Markdown.
    Markdown,
}

/// The header and rows as a grid, without title or notes.
pub fn grid(header: &[String], rows: &[Vec<String>], look: Grid) -> String {
    let mut b = Builder::default();
    b.push_record(header.iter().cloned());
    for r in rows {
        let mut padded = r.clone();
        padded.resize(header.len().max(r.len()), String::new());
        b.push_record(padded);
    }
    let mut t = b.build();
    match look {
        Grid::Rounded => t.with(Style::rounded()),
        Grid::Psql => t.with(Style::psql()),
        Grid::Markdown => t.with(Style::markdown()),
    };
    t.to_string()
}

/// The table as CSV: a header line, then one line per row (RFC 4180 quoting).
pub fn to_csv(t: &TableData) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    // Writing to memory cannot fail; a record of the wrong length is a bug caught by the tests.
    let _ = w.write_record(&t.header);
    for r in &t.rows {
        let _ = w.write_record(r);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The table as Markdown, with its title as a heading and the notes under it.
pub fn to_markdown(t: &TableData) -> String {
    let mut out = format!(
        "### {}\n\n{}\n",
        t.title,
        grid(&t.header, &t.rows, Grid::Markdown)
    );
    if !t.notes.is_empty() {
        out.push('\n');
        for n in &t.notes {
            out.push_str(&format!("- {n}\n"));
        }
    }
    out
}

/// A Markdown table without title or notes, cells escaped for the pipe syntax.
pub fn markdown_grid(header: &[String], rows: &[Vec<String>]) -> String {
    let esc = |s: &String| s.replace('|', "\\|").replace('\n', " ");
    let rows: Vec<Vec<String>> = rows.iter().map(|r| r.iter().map(esc).collect()).collect();
    let header: Vec<String> = header.iter().map(esc).collect();
    grid(&header, &rows, Grid::Markdown) + "\n"
}

/// The table for a terminal, with its title and notes.
pub fn to_terminal(t: &TableData) -> String {
    let mut out = format!("{}\n{}\n", t.title, grid(&t.header, &t.rows, Grid::Rounded));
    for n in &t.notes {
        out.push_str(&format!("  {n}\n"));
    }
    out
}

/// One table in a text format (JSON is rendered from the results by the caller).
pub fn render(t: &TableData, format: Format) -> String {
    match format {
        Format::Table => to_terminal(t),
        Format::Markdown => to_markdown(t),
        Format::Csv | Format::Json => to_csv(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let t = TableData::new(
            "t",
            &["a", "b"],
            vec![vec!["x, y".into(), "say \"hi\"".into()]],
        );
        assert_eq!(to_csv(&t), "a,b\n\"x, y\",\"say \"\"hi\"\"\"\n");
    }

    #[test]
    fn kinds_format_their_values() {
        assert_eq!(Value::Float(0.125).format(Kind::Percent), "12.5%");
        let rate = Kind::Rate {
            unit: "GB/s",
            decimals: 1,
        };
        assert_eq!(Value::Flagged(3.25).format(rate), "3.2 (!)");
        assert_eq!(Value::Pair(8, 4).format(Kind::Pair { sep: "x" }), "8x4");
        let exact = Value::Check {
            passed: true,
            error: 0.0,
            bound: 0.0,
        };
        assert_eq!(exact.format(Kind::Check), "ok, exact");
        let spread = Value::Spread {
            median: 1.0,
            min: 0.5,
            max: 2.0,
            noise: None,
        };
        assert_eq!(spread.format(Kind::Duration), "1.000 [0.500-2.000]");
        let noisy = Value::Spread {
            median: 1.0,
            min: 0.5,
            max: 2.0,
            noise: Some(0.0031),
        };
        assert_eq!(noisy.format(Kind::Duration), "1.000 [0.500-2.000] ±0.31%");
        assert_eq!(Value::Float(0.0031).format(Kind::Noise), "0.31%");
    }
}
