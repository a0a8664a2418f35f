//! The tensor-core sweep's columns and table notes: how the figures were made, the `mma.sync`
//! ceiling and, per ILP, the least occupancy reaching 90% and 95% of it (Volkov's table for
//! tensor cores). Each column is declared once with its kind; the one renderer
//! ([`crate::table`]) formats it everywhere.

use super::row::{ceiling, reach_table, Mma, MmaRow, Reach};
use crate::experiments::ilp_sweep::sweep_columns;
use crate::table::{percent, Column, Kind, Value};

/// The sweep's columns (the compared module's are added by the experiment).
pub fn columns() -> Vec<Column<MmaRow>> {
    sweep_columns(
        Vec::new(),
        vec![
            Column::new("% of BF16 spec", Kind::Percent, |r| {
                r.fraction_of_spec.map_or(Value::NotAvailable, Value::Float)
            }),
            Column::new("% of ceiling", Kind::Percent, |r| {
                Value::Float(r.fraction_of_ceiling)
            }),
        ],
    )
}

/// One ILP's (or every ILP's) line of the reach table, in words.
fn reach_line((ilp, most_warps, reaches): &(Option<u32>, u32, Vec<Reach<'_>>)) -> String {
    let who = ilp.map_or_else(|| "any ILP".to_owned(), |i| format!("ILP {i}"));
    let parts: Vec<String> = reaches
        .iter()
        .map(|r| match r.row {
            Some(row) => format!(
                "{} at {} occupancy ({}{} warps/SM: {} of it)",
                percent(r.fraction),
                percent(row.point.occupancy),
                ilp.map_or_else(|| format!("ILP {} x ", row.point.ilp), |_| String::new()),
                row.point.warps_per_sm,
                percent(row.fraction_of_ceiling)
            ),
            None => format!(
                "{} not reached up to {most_warps} warps/SM",
                percent(r.fraction)
            ),
        })
        .collect();
    format!("{who}: {}", parts.join(", "))
}

/// The sweep table's notes: why nothing ran, or how it was measured, the ceiling, the reach
/// table and what was not run.
pub fn notes(result: &Mma) -> Vec<String> {
    if let Some(why) = &result.not_run {
        return vec![format!("Not run: {why}")];
    }
    let mut notes = vec![format!(
        "Each warp runs ILP independent m16n8k16 BF16 accumulators (mma.sync, FP32 \
         accumulation) for the listed rounds: 4096 x ILP x rounds FLOPs a warp; inputs are \
         integers in -{r}..={r} (every sum exact), the same fragments in every warp and round, \
         and every thread's result is checked bit for bit against the CPU model of the fragment \
         layout; one full wave (SMs x blocks/SM blocks), blocks/SM held by dynamic shared \
         memory; % of the dense BF16 spec at the SM clock read around the samples; the ceiling \
         is the best verified point of this run",
        r = result.input_range
    )];
    if let Some(top) = ceiling(&result.rows) {
        notes.push(format!(
            "mma.sync ceiling on this GPU: {:.1} TFLOP/s (ILP {} at {} warps/SM, {} occupancy){}",
            top.tflops,
            top.point.ilp,
            top.point.warps_per_sm,
            percent(top.point.occupancy),
            top.fraction_of_spec.map_or_else(
                || ", the dense BF16 spec of this architecture is not known to the lab".to_owned(),
                |f| format!(", {} of the dense BF16 spec at its clock", percent(f))
            )
        ));
        let reach: Vec<String> = reach_table(&result.rows).iter().map(reach_line).collect();
        notes.push(format!(
            "Least occupancy reaching 90% and 95% of the ceiling: {}",
            reach.join("; ")
        ));
    }
    if !result.skipped.is_empty() {
        notes.push(format!("Not run: {}", result.skipped.join("; ")));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp_sweep::tests::has;
    use crate::experiments::mma::row::tests::{not_run, sweep};
    use crate::table::columns_table;

    fn output(needed: u32) -> Mma {
        Mma {
            rows: sweep(needed),
            skipped: vec!["mma_bf16_ilp8 at 37 warps/SM: no split".into()],
            not_run: None,
            ..not_run("")
        }
    }

    #[test]
    fn the_table_carries_the_rows_ceiling_and_reach() {
        let result = output(32);
        let t = columns_table("t", &columns(), &result.rows);
        assert_eq!(t.rows.len(), 28);
        // ILP 4 at 8 warps/SM: 1 block of 256, 12.5%, 650 TFLOP/s, 65% of spec, the ceiling.
        let cells = &t.cells()[7 * 2 + 3];
        assert_eq!(cells[..4], ["4", "8", "1 x 256", "12.5%"]);
        assert_eq!(cells[6], "650.0");
        assert_eq!(cells[8..10], ["65.0%", "100.0%"]);
        let notes = notes(&result);
        assert!(
            notes[1].starts_with("mma.sync ceiling on this GPU: 650.0 TFLOP/s (ILP 8 at 64")
                && notes[1].ends_with("65.0% of the dense BF16 spec at its clock"),
            "{}",
            notes[1]
        );
        let reach = &notes[2];
        has(
            reach,
            "ILP 1: 90.0% at 50.0% occupancy (32 warps/SM: 100.0% of it), 95.0% at",
        );
        has(
            reach,
            "any ILP: 90.0% at 6.2% occupancy (ILP 8 x 4 warps/SM",
        );
        has(&notes[3], "37 warps/SM");
    }

    #[test]
    fn an_ilp_short_of_the_ceiling_says_how_far_it_was_measured() {
        let mut result = output(32);
        result
            .rows
            .retain(|r| r.point.ilp == 8 || r.point.warps_per_sm <= 4);
        let result = Mma {
            rows: crate::experiments::mma::row::with_ceiling(result.rows),
            ..result
        };
        let reach = &notes(&result)[2];
        has(
            reach,
            "ILP 1: 90.0% not reached up to 4 warps/SM, 95.0% not reached",
        );
    }

    #[test]
    fn a_gpu_without_tensor_cores_says_why() {
        let result = not_run("needs sm_80");
        assert_eq!(notes(&result), ["Not run: needs sm_80"]);
    }
}
