//! Experiment 5's tables: the sweep, Volkov's table and the claims, as [`TableData`], with the
//! columns declared once each (see [`crate::experiments::inflight::table`]).

use super::claims::{ilp_reaches_peak_at_low_occupancy, no_ilp_misses_peak_at_full_occupancy};
use super::row::{Ilp, IlpRow, VolkovLine, VOLKOV_FRACTION};
use crate::experiments::inflight::table::{build, format, verified, Column, Kind, Value};
use crate::report::Verdict;
use crate::tables::TableData;

fn opt(x: Option<f64>) -> Value {
    x.map_or(Value::Missing, Value::Real)
}

/// The sweep's columns; the compared module's two come last.
pub fn columns() -> Vec<Column<IlpRow>> {
    vec![
        Column {
            header: "ILP",
            kind: Kind::Count,
            get: |r| Value::Int(r.ilp.into()),
        },
        Column {
            header: "Warps/SM",
            kind: Kind::Count,
            get: |r| Value::Int(r.warps_per_sm.into()),
        },
        Column {
            header: "Blocks x threads",
            kind: Kind::Text,
            get: |r| Value::Text(format!("{} x {}", r.layout.blocks_per_sm, r.layout.threads)),
        },
        Column {
            header: "Theo. occ",
            kind: Kind::Percent,
            get: |r| Value::Real(r.occupancy),
        },
        Column {
            header: "Regs",
            kind: Kind::Count,
            get: |r| Value::Int(r.regs.into()),
        },
        Column {
            header: "Rounds",
            kind: Kind::Count,
            get: |r| Value::Int(r.iters.into()),
        },
        Column {
            header: "GFLOP/s",
            kind: Kind::Rate,
            get: |r| Value::Real(r.gflops),
        },
        Column {
            header: "SM clock (MHz)",
            kind: Kind::Count,
            get: |r| opt(r.sm_clock_mhz),
        },
        Column {
            header: "% of peak",
            kind: Kind::Percent,
            get: |r| Value::Real(r.fraction_of_peak),
        },
        Column {
            header: "Noise",
            kind: Kind::Noise,
            get: |r| opt(r.noise),
        },
        Column {
            header: "Verified",
            kind: Kind::Text,
            get: |r| verified(&r.check),
        },
        Column {
            header: "Flags",
            kind: Kind::Count,
            get: |r| Value::Int(r.flags.len() as u64),
        },
        Column {
            header: "Other GFLOP/s",
            kind: Kind::Rate,
            get: |r| opt(r.compare.as_ref().map(|c| c.gflops)),
        },
        Column {
            header: "Ours/other",
            kind: Kind::Ratio,
            get: |r| opt(r.compare.as_ref().map(|c| c.ratio)),
        },
    ]
}

/// Volkov's table's columns.
pub fn volkov_columns() -> Vec<Column<VolkovLine>> {
    vec![
        Column {
            header: "ILP",
            kind: Kind::Count,
            get: |l| Value::Int(l.ilp.into()),
        },
        Column {
            header: "Fewest warps/SM",
            kind: Kind::Count,
            get: |l| match l.fewest_warps_per_sm {
                Some(w) => Value::Int(w.into()),
                None => Value::Text(format!("none up to {}", l.most_warps_measured)),
            },
        },
        Column {
            header: "Threads/SM",
            kind: Kind::Count,
            get: |l| {
                l.fewest_warps_per_sm
                    .map_or(Value::Missing, |w| Value::Int(u64::from(w) * 32))
            },
        },
        Column {
            header: "Theo. occ",
            kind: Kind::Percent,
            get: |l| opt(l.occupancy),
        },
        Column {
            header: "% of peak",
            kind: Kind::Percent,
            get: |l| opt(l.fraction_of_peak),
        },
    ]
}

pub fn verdicts(result: &Ilp) -> Vec<Verdict> {
    vec![
        ilp_reaches_peak_at_low_occupancy(&result.rows),
        no_ilp_misses_peak_at_full_occupancy(&result.rows),
    ]
}

/// The sweep table, with the claims as notes, and Volkov's table.
pub fn tables(result: &Ilp) -> Vec<TableData> {
    let mut cols = columns();
    if result.rows.iter().all(|r| r.compare.is_none()) {
        cols.truncate(cols.len() - 2);
    }
    let mut sweep = build(
        "5. FP32 throughput vs warps per SM and ILP",
        &cols,
        &result.rows,
    );
    sweep.notes.push(format!(
        "Each thread runs ILP chains x = fma(x, {:e}, {}) for the listed rounds: 2 x ILP x rounds \
         FLOPs; one full wave (SMs x blocks/SM blocks), blocks/SM held by dynamic shared memory; \
         % of peak at the SM clock read around the samples",
        result.a, result.b
    ));
    for v in verdicts(result) {
        sweep.notes.push(format!(
            "Claim: {} — {} ({}; rule: {})",
            v.claim,
            v.outcome(),
            v.evidence,
            v.rule
        ));
    }
    if !result.skipped.is_empty() {
        sweep
            .notes
            .push(format!("Not run: {}", result.skipped.join("; ")));
    }
    sweep
        .notes
        .extend(result.rows.iter().filter(|r| !r.flags.is_empty()).map(|r| {
            format!(
                "ILP {} at {} warps/SM: {}",
                r.ilp,
                r.warps_per_sm,
                r.flags.join("; ")
            )
        }));
    let mut volkov = build(
        &format!(
            "Volkov's table: fewest warps per SM reaching {} of FP32 peak",
            format(Kind::Percent, &Value::Real(VOLKOV_FRACTION))
        ),
        &volkov_columns(),
        &result.volkov,
    );
    volkov
        .notes
        .push("Threads/SM assume 32-thread warps".to_owned());
    vec![sweep, volkov]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp::row::tests::row;
    use crate::experiments::ilp::row::volkov_table;

    #[test]
    fn the_tables_carry_the_rows_the_claims_and_volkovs_lines() {
        let rows = vec![row(1, 64, 0.95), row(4, 8, 0.93), row(2, 4, 0.3)];
        let result = Ilp {
            a: 1.0,
            b: 1.0,
            volkov: volkov_table(&rows, VOLKOV_FRACTION),
            rows,
            skipped: vec![],
        };
        let t = tables(&result);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].rows.len(), 3);
        assert!(
            t[0].header.iter().all(|h| h != "Other GFLOP/s"),
            "no compare columns"
        );
        assert_eq!(
            t[0].notes
                .iter()
                .filter(|n| n.starts_with("Claim:"))
                .count(),
            2
        );
        let volkov = &t[1];
        assert_eq!(volkov.rows[0], ["1", "64", "2048", "100.0%", "95.0%"]);
        assert_eq!(volkov.rows[1][1], "none up to 4");
        assert_eq!(volkov.rows[2][1], "8");
    }
}
