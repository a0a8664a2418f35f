//! The one table renderer: a [`TableData`] (title, columns, rows of typed values, notes) printed
//! for a terminal, as Markdown or as CSV, all through `tabled` and the `csv` crate. Experiments
//! declare their tables as lists of [`Column`]s: a header, a typed accessor and a [`Kind`]; the
//! values stay typed until a renderer formats each from its (value, kind) pair (see
//! [`crate::cell`]), so a column is written once and a CSV holds numbers, not the table's text.
//!
//! This module knows nothing about experiments, devices or results: everything above it (the
//! experiments, the report, the calculator's printouts) renders through it.

use tabled::builder::Builder;
use tabled::settings::Style;

pub use crate::cell::{percent, percent_with, CsvHeader, Kind, Value};

/// Output format (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table for the terminal.
    Table,
    /// GitHub-flavoured Markdown.
    Markdown,
    /// Comma-separated values, one header line per table: one number per column, its unit in
    /// the header (`ms/call median`, `Theo. occ (%)`), and each row's flags in a `flags` column.
    Csv,
    /// The full results as JSON (the `results.json` schema; `info` and `calc` print their own
    /// documents).
    Json,
}

/// Which module's figures a column shows; the compared module's columns are named after it when
/// the table is printed ([`TableData::name_compared`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The module under test: always shown.
    Ours,
    /// The compared module (`--compare`): shown only when some row was compared; printed as its
    /// name and the header ("peer GFLOP/s").
    Compared,
    /// Ours over the compared module's figure: shown as [`Side::Compared`] is; printed as the
    /// header, a slash and the module's name ("Ours/peer").
    OursOverCompared,
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
        Self::on(Side::Ours, header, kind, value)
    }

    /// A column of the compared module's figures; `header` follows the module's name.
    pub const fn compared(header: &'static str, kind: Kind, value: fn(&R) -> Value) -> Self {
        Self::on(Side::Compared, header, kind, value)
    }

    /// A column of our figure over the compared module's; `header` ("Ours") comes before a slash
    /// and the module's name.
    pub const fn over_compared(header: &'static str, kind: Kind, value: fn(&R) -> Value) -> Self {
        Self::on(Side::OursOverCompared, header, kind, value)
    }

    const fn on(side: Side, header: &'static str, kind: Kind, value: fn(&R) -> Value) -> Self {
        Self {
            header,
            kind,
            side,
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
/// compared; each row's flags become notes `(!) label: flag` (and, in a CSV, its `flags`).
pub fn columns_table<R: TableRow>(title: &str, columns: &[Column<R>], rows: &[R]) -> TableData {
    let compared = rows.iter().any(TableRow::compared);
    let shown: Vec<&Column<R>> = columns
        .iter()
        .filter(|c| compared || c.side == Side::Ours)
        .collect();
    let mut t = TableData {
        title: title.to_owned(),
        columns: shown
            .iter()
            .map(|c| Head::new(c.header, c.kind, c.side))
            .collect(),
        rows: Vec::new(),
        notes: Vec::new(),
        compare_label: None,
        flags_column: true,
    };
    for r in rows {
        let cells = shown.iter().map(|c| (c.value)(r)).collect();
        t.push_row(&r.label(), r.flags(), cells);
    }
    t
}

/// A row outside the column accessors (e.g. a reference measurement): values by the header
/// their column of our side was declared with; other columns stay empty. Its `flags` become
/// notes `(!) label: flag`, as a row's do.
pub fn extra_row(t: &mut TableData, label: &str, flags: &[String], values: &[(&str, Value)]) {
    let cells = t
        .columns
        .iter()
        .map(|c| {
            values
                .iter()
                .find(|(name, _)| c.side == Side::Ours && *name == c.header)
                .map_or(Value::Empty, |(_, v)| v.clone())
        })
        .collect();
    t.push_row(label, flags, cells);
}

/// A column of a built table: its header as declared, its kind and whose figures it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub header: String,
    pub kind: Kind,
    pub side: Side,
}

impl Head {
    fn new(header: &str, kind: Kind, side: Side) -> Self {
        let header = header.to_owned();
        Self { header, kind, side }
    }
}

/// A row of a built table: a value per column, and the warnings about its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub cells: Vec<Value>,
    pub flags: Vec<String>,
}

/// One table: a title, its columns, rows of values and notes printed under it. The values stay
/// typed here; each renderer formats them ([`to_terminal`], [`to_markdown`], [`to_csv`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TableData {
    pub title: String,
    pub columns: Vec<Head>,
    pub rows: Vec<Row>,
    pub notes: Vec<String>,
    /// The compared module's name, printed in its columns' headers (None: "Other").
    pub compare_label: Option<String>,
    /// A CSV of it ends with a `flags` column (the tables of measured rows).
    pub flags_column: bool,
}

impl TableData {
    /// A table of plain text cells.
    pub fn new(title: &str, header: &[&str], rows: Vec<Vec<String>>) -> Self {
        Self {
            title: title.to_owned(),
            columns: (header.iter())
                .map(|h| Head::new(h, Kind::Text, Side::Ours))
                .collect(),
            rows: rows
                .into_iter()
                .map(|r| Row {
                    cells: r.into_iter().map(Value::Text).collect(),
                    flags: Vec::new(),
                })
                .collect(),
            notes: Vec::new(),
            compare_label: None,
            flags_column: false,
        }
    }

    /// Adds a row of `cells`; its `flags` become notes `(!) label: flag`.
    fn push_row(&mut self, label: &str, flags: &[String], cells: Vec<Value>) {
        (self.notes).extend(flags.iter().map(|f| format!("(!) {label}: {f}")));
        let flags = flags.to_vec();
        self.rows.push(Row { cells, flags });
    }

    /// The compared module's columns named after it (`--compare-label`, or the compared file's
    /// stem) when printed.
    pub fn name_compared(mut self, name: Option<&str>) -> Self {
        self.compare_label = name.map(str::to_owned);
        self
    }

    /// A column's header with the compared module's name where it shows that module.
    fn named(&self, c: &Head) -> String {
        match c.side {
            Side::Ours => c.header.clone(),
            Side::Compared => format!(
                "{} {}",
                self.compare_label.as_deref().unwrap_or("Other"),
                c.header
            ),
            Side::OursOverCompared => format!(
                "{}/{}",
                c.header,
                self.compare_label.as_deref().unwrap_or("other")
            ),
        }
    }

    /// The headers a table prints.
    pub fn header(&self) -> Vec<String> {
        self.columns
            .iter()
            .map(|c| c.kind.table_header(&self.named(c)))
            .collect()
    }

    /// The cells as a table prints them, row by row.
    pub fn cells(&self) -> Vec<Vec<String>> {
        self.rows
            .iter()
            .map(|r| {
                r.cells
                    .iter()
                    .zip(&self.columns)
                    .map(|(v, c)| v.format(c.kind))
                    .collect()
            })
            .collect()
    }

    /// The text of row `row`'s cell under the printed header `header`, if there is one.
    pub fn cell(&self, row: usize, header: &str) -> Option<String> {
        let column = self.header().iter().position(|h| h == header)?;
        let kind = self.columns[column].kind;
        Some(self.rows.get(row)?.cells.get(column)?.format(kind))
    }

    /// The CSV's columns: one per number (the unit in its header), the text ones marked, and
    /// `flags` last for the tables of measured rows.
    pub fn csv_header(&self) -> Vec<CsvHeader> {
        let mut out: Vec<CsvHeader> = self
            .columns
            .iter()
            .flat_map(|c| {
                let label = (c.side == Side::Compared)
                    .then(|| self.compare_label.as_deref().unwrap_or("Other"));
                c.kind.csv_headers(&self.named(c), label)
            })
            .collect();
        if self.flags_column {
            out.push(CsvHeader::text(FLAGS.to_owned()));
        }
        out
    }

    /// The CSV's records, one per row, matching [`TableData::csv_header`].
    pub fn csv_records(&self) -> Vec<Vec<String>> {
        self.rows
            .iter()
            .map(|r| {
                let mut fields: Vec<String> = r
                    .cells
                    .iter()
                    .zip(&self.columns)
                    .flat_map(|(v, c)| v.csv_fields(c.kind))
                    .collect();
                if self.flags_column {
                    fields.push(r.flags.join("; "));
                }
                fields
            })
            .collect()
    }
}

/// The header of a CSV's last column: each row's flags, joined by "; ".
pub const FLAGS: &str = "flags";

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
pub fn grid(header: &[impl AsRef<str>], rows: &[Vec<String>], look: Grid) -> String {
    let mut b = Builder::default();
    b.push_record(header.iter().map(|h| h.as_ref().to_owned()));
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

/// The table as CSV: a header line, then one line per row (RFC 4180 quoting): one column per
/// number with its unit in the header, empty fields where there is no figure.
pub fn to_csv(t: &TableData) -> String {
    let header: Vec<String> = t.csv_header().into_iter().map(|h| h.name).collect();
    csv_text(&header, &t.csv_records())
}

/// Text records as CSV.
pub fn csv_text(header: &[impl AsRef<str>], records: &[Vec<String>]) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    // Writing to memory cannot fail; a record of the wrong length is a bug caught by the tests.
    let _ = w.write_record(header.iter().map(AsRef::as_ref));
    for r in records {
        let _ = w.write_record(r);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The table as Markdown, with its title as a heading and the notes under it.
pub fn to_markdown(t: &TableData) -> String {
    let mut out = format!(
        "### {}\n\n{}\n",
        t.title,
        grid(&t.header(), &t.cells(), Grid::Markdown)
    );
    if !t.notes.is_empty() {
        out.push('\n');
        out.extend(t.notes.iter().map(|n| format!("- {n}\n")));
    }
    out
}

/// A Markdown table without title or notes, cells escaped for the pipe syntax.
pub fn markdown_grid(header: &[impl AsRef<str>], rows: &[Vec<String>]) -> String {
    let esc = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| esc(c)).collect())
        .collect();
    let header: Vec<String> = header.iter().map(|h| esc(h.as_ref())).collect();
    grid(&header, &rows, Grid::Markdown) + "\n"
}

/// The table for a terminal, with its title and notes.
pub fn to_terminal(t: &TableData) -> String {
    let mut out = format!(
        "{}\n{}\n",
        t.title,
        grid(&t.header(), &t.cells(), Grid::Rounded)
    );
    out.extend(t.notes.iter().map(|n| format!("  {n}\n")));
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

    struct R {
        gflops: f64,
        theirs: Option<f64>,
        flags: Vec<String>,
    }

    impl TableRow for R {
        fn label(&self) -> String {
            "r".into()
        }
        fn flags(&self) -> &[String] {
            &self.flags
        }
        fn compared(&self) -> bool {
            self.theirs.is_some()
        }
    }

    fn r(gflops: f64, theirs: Option<f64>, flags: &[&str]) -> R {
        let flags = flags.iter().map(|f| (*f).to_owned()).collect();
        R {
            gflops,
            theirs,
            flags,
        }
    }

    const RATE: Kind = Kind::Rate {
        unit: "GFLOP/s",
        decimals: 0,
    };

    fn columns() -> Vec<Column<R>> {
        vec![
            Column::new("GFLOP/s", RATE, |r| {
                if r.flags.is_empty() {
                    Value::Float(r.gflops)
                } else {
                    Value::Flagged(r.gflops)
                }
            }),
            Column::compared("GFLOP/s", RATE, |r| {
                r.theirs.map_or(Value::Empty, Value::Float)
            }),
            Column::over_compared("Ours", Kind::Ratio, |r| {
                r.theirs
                    .map_or(Value::Empty, |t| Value::Float(r.gflops / t))
            }),
        ]
    }

    /// The compared columns are named after the module when printed, by their side, whatever
    /// their header says; a flagged figure is marked in the table and a bare number in the CSV,
    /// its flag in the CSV's own column.
    #[test]
    fn compared_columns_take_the_label_and_flags_get_their_own_column() {
        let rows = [
            r(100.4, Some(50.0), &[]),
            r(99999.0, None, &["above the peak"]),
        ];
        let t = columns_table("t", &columns(), &rows).name_compared(Some("Other"));
        assert_eq!(t.header(), ["GFLOP/s", "Other GFLOP/s", "Ours/Other"]);
        let t = t.name_compared(Some("peer"));
        assert_eq!(t.header(), ["GFLOP/s", "peer GFLOP/s", "Ours/peer"]);
        assert_eq!(t.cells()[1], ["99999 (!)", "", ""]);
        assert_eq!(t.notes, ["(!) r: above the peak"]);
        assert_eq!(
            to_csv(&t),
            "GFLOP/s,peer GFLOP/s,Ours/peer,flags\n100.4,50,2.008,\n99999,,,above the peak\n"
        );
        // Without a compared row, no compared column.
        let t = columns_table("t", &columns(), &rows[1..]);
        assert_eq!(t.header(), ["GFLOP/s"]);
    }

    #[test]
    fn an_extra_row_fills_the_columns_it_names_and_notes_its_flags() {
        let rows = [r(1.0, Some(2.0), &[])];
        let mut t = columns_table("t", &columns(), &rows);
        extra_row(
            &mut t,
            "cuBLAS",
            &["clock dropped".to_owned()],
            &[("GFLOP/s", Value::Float(2.0)), ("Other", Value::Int(1))],
        );
        // Only our side's column of that name is filled.
        assert_eq!(
            t.rows[1].cells,
            [Value::Float(2.0), Value::Empty, Value::Empty]
        );
        assert_eq!(t.notes, ["(!) cuBLAS: clock dropped"]);
        assert!(to_csv(&t).ends_with("\n2,,,clock dropped\n"));
    }
}
