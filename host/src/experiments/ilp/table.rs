//! The `ilp` experiment's columns and table notes: how the figures were made and Volkov's table
//! (the fewest warps per SM reaching 90% of the FP32 peak, per ILP). Each column is declared once
//! with its kind; the one renderer ([`crate::table`]) formats it everywhere.

use super::output::Ilp;
use super::row::{IlpRow, VolkovLine, VOLKOV_FRACTION};
use super::{controls, dip};
use crate::experiments::ilp_sweep::sweep_columns;
use crate::table::{percent, Column, Kind, Value};

/// The sweep's columns (the compared module's are added by the experiment).
pub fn columns() -> Vec<Column<IlpRow>> {
    sweep_columns(
        vec![Column::new("Op", Kind::Text, |r| Value::Text(r.op.clone()))],
        vec![
            Column::new("% of peak", Kind::Percent, |r| {
                Value::Float(r.fraction_of_peak)
            }),
            Column::new("Scheduler model", Kind::Percent, |r| {
                r.scheduler_model.map_or(Value::NotAvailable, Value::Float)
            }),
        ],
    )
}

/// One line of Volkov's table, in words.
pub fn volkov_line(l: &VolkovLine) -> String {
    match (l.fewest_warps_per_sm, l.occupancy, l.fraction_of_peak) {
        (Some(w), Some(occ), Some(f)) => format!(
            "ILP {}: {w} warps/SM ({} threads/SM, {} occupancy) reach {}",
            l.ilp,
            u64::from(w) * 32,
            percent(occ),
            percent(f)
        ),
        _ => format!(
            "ILP {}: no verified point up to {} warps/SM reaches {}",
            l.ilp,
            l.most_warps_measured,
            percent(VOLKOV_FRACTION)
        ),
    }
}

/// The sweep table's notes: how it was measured, Volkov's table and what was not run.
pub fn notes(result: &Ilp) -> Vec<String> {
    let mut notes = vec![format!(
        "Each thread runs ILP chains x = fma(x, {:e}, {}) for the listed rounds: 2 x ILP x rounds \
         FLOPs; one full wave (SMs x blocks/SM blocks), blocks/SM held by dynamic shared memory; \
         % of peak at the SM clock read around the samples; threads/SM assume 32-thread warps",
        result.a, result.b
    )];
    let volkov: Vec<String> = result.volkov.iter().map(volkov_line).collect();
    notes.push(format!(
        "Volkov's table, the fewest warps per SM reaching {} of the FP32 peak: {}",
        percent(VOLKOV_FRACTION),
        volkov.join("; ")
    ));
    notes.extend(scheduler_notes(&result.rows));
    notes.extend(control_notes(&result.rows));
    if !result.skipped.is_empty() {
        notes.push(format!("Not run: {}", result.skipped.join("; ")));
    }
    notes
}

/// The scheduler model beside the measurement.
fn scheduler_notes(rows: &[IlpRow]) -> Vec<String> {
    let Some((mean, worst, n)) = dip::fit(rows) else {
        return vec![];
    };
    vec![format!(
        "Scheduler model (the dip below 8 warps/SM): warps go to the {} schedulers of an SM in \
         turn and the busiest one, holding ceil(w/4) warps, sets the time, so w warps/SM run at \
         w/(4 ceil(w/4)) of the rate at 4 ceil(w/4) warps (5/8, 6/8, 7/8 of the 8-warp rate at \
         5, 6, 7); column Scheduler model. Measured/model over {n} points: mean {mean:.3}, \
         furthest from 1 {worst:.3}",
        dip::SCHEDULERS_PER_SM
    )]
}

/// The controls' plateaus beside the k/(k+1) model, and what they point to.
fn control_notes(rows: &[IlpRow]) -> Vec<String> {
    if rows.iter().all(IlpRow::is_ffma) {
        return vec![];
    }
    let p = controls::plateaus(rows);
    let described: Vec<String> = p.iter().map(controls::describe).collect();
    let mut notes = vec![format!(
        "Controls (% of each op's own peak: FADD and FMUL count 1 FLOP, so half the FP32 \
         peak's FLOP/s): {}",
        described.join("; ")
    )];
    if let Some(m) = controls::mechanism(&p) {
        notes.push(format!(
            "What caps ILP 1, by the controls: {}",
            controls::finding(m)
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp::row::tests::{output, row};
    use crate::experiments::ilp_sweep::tests::has;
    use crate::table::columns_table;

    #[test]
    fn the_table_carries_the_rows_and_volkovs_lines() {
        let result = output(vec![row(1, 64, 0.95), row(4, 8, 0.93), row(2, 4, 0.3)]);
        let t = columns_table("t", &columns(), &result.rows);
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.cells()[1][..4], ["ffma", "4", "8", "1 x 256"]);
        let notes = notes(&result);
        let volkov = notes.iter().find(|n| n.starts_with("Volkov")).unwrap();
        has(
            volkov,
            "ILP 1: 64 warps/SM (2048 threads/SM, 100.0% occupancy) reach 95.0%",
        );
        has(volkov, "ILP 2: no verified point up to 4 warps/SM");
        has(volkov, "ILP 4: 8 warps/SM");
        // No control and no point the scheduler model predicts: no such notes.
        assert!(!notes.iter().any(|n| n.starts_with("Controls")));
        assert!(!notes.iter().any(|n| n.starts_with("Scheduler model")));
    }

    #[test]
    fn the_dip_model_and_the_controls_show_in_the_table() {
        use crate::experiments::ilp::row::tests::control;
        use kernels_gpu::variants::FmaOp;
        let mut rows = vec![row(2, 5, 0.41), row(2, 8, 0.66)];
        for w in [8, 16, 64] {
            rows.push(row(1, w, 0.5));
            rows.push(control(FmaOp::FfmaImm, 1, w, 0.5));
        }
        super::super::dip::fill(&mut rows);
        let result = output(rows);
        let cols = columns();
        let model = cols
            .iter()
            .position(|c| c.header == "Scheduler model")
            .unwrap();
        let t = columns_table("t", &cols, &result.rows);
        assert_eq!(t.cells()[0][model], "41.2%", "5/8 of 66%");
        assert_eq!(t.cells()[1][model], "n/a");
        assert_eq!(t.cells()[3][0], "ffma_imm");
        let notes = notes(&result);
        let dip = notes
            .iter()
            .find(|n| n.starts_with("Scheduler model"))
            .unwrap();
        has(dip, "over 1 points: mean 0.994");
        let c = notes.iter().find(|n| n.starts_with("Controls")).unwrap();
        has(
            c,
            "ffma_imm_ilp1 (FFMA Rx, Rx, imm, Rx, 1 register source(s)): 50.0%",
        );
        let m = notes
            .iter()
            .find(|n| n.starts_with("What caps ILP 1"))
            .unwrap();
        has(m, "the issue of dependent instructions");
    }
}
