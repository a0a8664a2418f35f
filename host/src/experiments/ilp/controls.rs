//! What the controls show: each kernel's plateau (its rate once warps no longer matter) beside
//! the k/(k+1) model, and the mechanism the plateaus point to. The model says a scheduler loses
//! one issue cycle each time it switches warps, so a warp with k independent instructions
//! issues k of every k + 1 cycles however many warps wait: ILP 1 at 1/2 of the peak, ILP 2 at
//! 2/3, ILP 3 at 3/4. The controls change only the instruction's operands (three registers,
//! two, one with an immediate or a constant), so a cap they share is the issue of dependent
//! instructions, and one they escape is the operands'.

use kernels_gpu::variants::FmaOp;

use super::row::IlpRow;
use crate::confidence::median;
use crate::table::percent;

/// Warps per SM from which a kernel's rows count towards its plateau: four per scheduler, past
/// where a dependent chain's latency is covered at every ILP the sweep measured.
pub const PLATEAU_FROM_WARPS: u32 = 16;
/// Fraction of its peak at which a kernel's plateau counts as reaching the peak (Volkov's).
pub const PEAK: f64 = super::row::VOLKOV_FRACTION;

/// The k/(k+1) model's fraction of the peak at ILP `k`.
pub fn issue_model(ilp: u32) -> f64 {
    f64::from(ilp) / f64::from(ilp + 1)
}

/// One kernel's plateau.
#[derive(Debug, Clone, PartialEq)]
pub struct Plateau {
    pub op: FmaOp,
    pub ilp: u32,
    pub entry: String,
    /// Median % of its peak over its checked rows at [`PLATEAU_FROM_WARPS`] or more.
    pub fraction: f64,
    /// Rows it is the median of.
    pub rows: usize,
}

/// Each kernel's plateau at ILP 1 and 2 (the FFMA's and every control's), in op then ILP order;
/// a kernel without checked rows at [`PLATEAU_FROM_WARPS`] or more has none.
pub fn plateaus(rows: &[IlpRow]) -> Vec<Plateau> {
    let mut keys: Vec<(FmaOp, u32, String)> = rows
        .iter()
        .filter(|r| r.point.ilp <= 2)
        .filter_map(|r| {
            r.fma_op()
                .map(|op| (op, r.point.ilp, r.point.entry.clone()))
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|(op, ilp, entry)| {
            let mut f: Vec<f64> = rows
                .iter()
                .filter(|r| r.point.entry == entry && r.measured.checked())
                .filter(|r| r.point.warps_per_sm >= PLATEAU_FROM_WARPS)
                .map(|r| r.fraction_of_peak)
                .collect();
            let n = f.len();
            (n > 0).then(|| Plateau {
                op,
                ilp,
                entry,
                fraction: median(&mut f),
                rows: n,
            })
        })
        .collect()
}

/// What the ILP-1 plateaus point to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// Every ILP-1 kernel, whatever its operands, levels off below the peak: the issue of
    /// dependent instructions caps it, and only ILP lifts it.
    Issue,
    /// The FFMA levels off below the peak but a form with fewer register sources (the fewest
    /// of those reaching it given) does not: the operand reads cap it.
    OperandReads { reaching_with: u32 },
    /// The three-register FFMA reaches the peak at ILP 1: nothing to explain.
    NoCap,
}

/// The mechanism the ILP-1 plateaus point to; None without the FFMA's and a control's.
pub fn mechanism(plateaus: &[Plateau]) -> Option<Mechanism> {
    let ilp1: Vec<&Plateau> = plateaus.iter().filter(|p| p.ilp == 1).collect();
    let ffma = ilp1.iter().find(|p| p.op == FmaOp::Ffma)?;
    let controls: Vec<&&Plateau> = ilp1.iter().filter(|p| p.op != FmaOp::Ffma).collect();
    if controls.is_empty() {
        return None;
    }
    if ffma.fraction >= PEAK {
        return Some(Mechanism::NoCap);
    }
    Some(
        match controls
            .iter()
            .filter(|p| p.fraction >= PEAK)
            .map(|p| p.op.register_sources())
            .max()
        {
            None => Mechanism::Issue,
            Some(sources) => Mechanism::OperandReads {
                reaching_with: sources,
            },
        },
    )
}

/// The finding in words.
pub fn finding(m: Mechanism) -> String {
    match m {
        Mechanism::Issue => format!(
            "every ILP-1 kernel, with three, two or one register sources, levels off below {} \
             of its peak however many warps it has: the cap is the issue of dependent \
             instructions (the k/(k+1) model: one issue cycle lost per warp switch), not their \
             operands, so on this GPU more warps do not replace ILP",
            percent(PEAK)
        ),
        Mechanism::OperandReads { reaching_with } => format!(
            "the three-register FFMA levels off below {} at ILP 1 but a form with {reaching_with} \
             register source(s) reaches it: the cap is the FFMA's register operand reads, not \
             the lack of ILP",
            percent(PEAK)
        ),
        Mechanism::NoCap => format!(
            "the three-register FFMA reaches {} of the peak at ILP 1: more warps do replace ILP",
            percent(PEAK)
        ),
    }
}

/// One plateau beside the model, in words.
pub fn describe(p: &Plateau) -> String {
    format!(
        "{} ({}, {} register source(s)): {} of its peak at >= {PLATEAU_FROM_WARPS} warps/SM \
         (median of {}), k/(k+1) model {}",
        p.entry,
        p.op.sass(),
        p.op.register_sources(),
        percent(p.fraction),
        p.rows,
        percent(issue_model(p.ilp))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::ilp::row::tests::{control, row};

    fn sweep(ffma1: f64, fadd1: f64, imm1: f64) -> Vec<IlpRow> {
        let mut rows = Vec::new();
        for w in [4, 16, 32, 64] {
            rows.push(row(1, w, ffma1));
            rows.push(row(2, w, 0.66));
            rows.push(control(FmaOp::Fadd, 1, w, fadd1));
            rows.push(control(FmaOp::FfmaImm, 1, w, imm1));
        }
        // Below the plateau's warps: not counted.
        rows.push(control(FmaOp::Fadd, 1, 8, 0.01));
        rows
    }

    #[test]
    fn plateaus_are_medians_past_sixteen_warps() {
        let p = plateaus(&sweep(0.5, 0.49, 0.51));
        let names: Vec<&str> = p.iter().map(|p| p.entry.as_str()).collect();
        assert_eq!(
            names,
            ["fma_ilp1", "fma_ilp2", "fadd_ilp1", "ffma_imm_ilp1"]
        );
        assert!(p.iter().all(|p| p.rows == 3), "{p:?}");
        assert_eq!(p[2].fraction, 0.49);
        assert_eq!(issue_model(1), 0.5);
        assert!((issue_model(2) - 2.0 / 3.0).abs() < 1e-12);
        assert!(
            describe(&p[1]).contains("k/(k+1) model 66.7%"),
            "{}",
            describe(&p[1])
        );
    }

    #[test]
    fn the_mechanism_follows_the_controls() {
        let m = |ffma, fadd, imm| mechanism(&plateaus(&sweep(ffma, fadd, imm)));
        assert_eq!(m(0.5, 0.5, 0.5), Some(Mechanism::Issue));
        assert_eq!(
            m(0.5, 0.5, 0.97),
            Some(Mechanism::OperandReads { reaching_with: 1 })
        );
        assert_eq!(
            m(0.5, 0.97, 0.97),
            Some(Mechanism::OperandReads { reaching_with: 2 })
        );
        assert_eq!(m(0.95, 0.5, 0.5), Some(Mechanism::NoCap));
        // Without a control, or without the FFMA, nothing is inferred.
        let ffma_only: Vec<IlpRow> = [16, 64].iter().map(|&w| row(1, w, 0.5)).collect();
        assert_eq!(mechanism(&plateaus(&ffma_only)), None);
        let control_only = vec![control(FmaOp::Fmul, 1, 64, 0.5)];
        assert_eq!(mechanism(&plateaus(&control_only)), None);
        assert!(finding(Mechanism::Issue).contains("more warps do not replace ILP"));
    }
}
