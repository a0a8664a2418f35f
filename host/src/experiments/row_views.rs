//! What every [`Row`] gives the rest of the lab through its [`Measured`](super::measured::Measured)
//! part: the rows whose check passed (for the claims), the rows of a scatter, and the table row
//! and compared columns. It sits above both the `Row` trait and `Measured`, which the trait
//! names, so neither imports the other.

use super::cells::HasComparison;
use super::contract::Row;
use crate::claim::with_exclusions;
use crate::figure::PlotRow;
use crate::results::Comparison;
use crate::table::TableRow;

/// The rows whose check passed, and the labels of those whose check failed (the claims leave
/// the latter out, and say so).
pub fn passing<R: Row>(rows: &[R]) -> (Vec<&R>, Vec<String>) {
    let (ok, failed): (Vec<&R>, Vec<&R>) = rows.iter().partition(|r| r.measured().check.passed);
    (ok, failed.iter().map(|r| r.label()).collect())
}

/// [`passing`], where fewer than two passing rows (`what`, e.g. "GEMM variants") leave nothing
/// to compare, and the reason says so.
pub fn two_passing<'r, R: Row>(
    rows: &'r [R],
    what: &str,
) -> Result<(Vec<&'r R>, Vec<String>), String> {
    let (ok, failed) = passing(rows);
    if ok.len() < 2 {
        let why = format!(
            "fewer than two {what} with a passing check ({} of {})",
            ok.len(),
            rows.len()
        );
        return Err(with_exclusions(why, &failed));
    }
    Ok((ok, failed))
}

/// The rows of a scatter over occupancy, each named by `name`.
pub fn plot_rows<'r, R: Row>(rows: &'r [R], name: impl Fn(&'r R) -> &'r str) -> Vec<PlotRow<'r>> {
    rows.iter()
        .map(|r| {
            let (throughput, occupancy) = r.figures();
            let m = r.measured();
            PlotRow {
                occupancy,
                throughput,
                variant: name(r),
                check: &m.check,
                compare: m.compare.as_ref(),
            }
        })
        .collect()
}

impl<R: Row> TableRow for R {
    fn label(&self) -> String {
        Row::label(self)
    }
    fn flags(&self) -> &[String] {
        &self.measured().flags
    }
    fn compared(&self) -> bool {
        self.measured().compare.is_some()
    }
}

impl<R: Row> HasComparison for R {
    fn comparison(&self) -> Option<&Comparison> {
        self.measured().compare.as_ref()
    }
}
