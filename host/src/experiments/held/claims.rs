//! What `held`'s curves show, judged on intervals: with the code fixed, does a binary need
//! its highest occupancy for its best throughput?

use super::row::HeldRow;
use crate::claim::{
    no_help, ratio_words, with_exclusions, Claim, Comparisons, Verdict, EQUIVALENCE, NOT_RUN,
};
use crate::experiments::row_views::passing;

const CLAIM: &str =
    "With the code fixed, the highest occupancy is not needed: each binary runs as \
fast at a lower occupancy as at its highest.";
/// Each binary's highest occupancy against its best lower one, within the "no help" band.
fn rule() -> String {
    format!(
        "For each binary, its GFLOP/s at its most resident blocks over its best at fewer: the \
         ratio lying wholly at or below {:.2} holds for it, wholly above does not; the claim holds \
         when it holds for every binary.",
        1.0 + EQUIVALENCE
    )
}

/// The verdict on `rows` (NOT JUDGED without a binary measured at two residencies).
pub fn verdicts(rows: Option<&Vec<HeldRow>>) -> Vec<Verdict> {
    let claim = Claim::interval("occupancy-apart-from-code", CLAIM, &rule());
    vec![claim.judge(|| judge(rows.ok_or(NOT_RUN)?))]
}

fn judge(rows: &[HeldRow]) -> Result<(Option<bool>, String), String> {
    let (ok, failed) = passing(rows);
    let mut labels: Vec<&str> = ok.iter().map(|r| r.binary.as_str()).collect();
    labels.dedup();
    let mut found = Comparisons::default();
    for label in labels {
        let curve: Vec<&HeldRow> = ok.iter().copied().filter(|r| r.binary == label).collect();
        let by_occ =
            |a: &&&HeldRow, b: &&&HeldRow| a.figures.occupancy.total_cmp(&b.figures.occupancy);
        let Some(&highest) = curve.iter().max_by(by_occ) else {
            continue;
        };
        let lower = curve
            .iter()
            .filter(|r| r.figures.occupancy < highest.figures.occupancy)
            .max_by(|a, b| a.figures.gflops.total_cmp(&b.figures.gflops));
        let Some(&best_lower) = lower else {
            continue;
        };
        let (h, l) = (&highest.figures, &best_lower.figures);
        let r = h.over(l);
        found.push(
            no_help(&r),
            format!(
                "{label}: {} blocks/SM over {} {}",
                h.blocks_per_sm,
                l.blocks_per_sm,
                ratio_words(&r)
            ),
        );
    }
    if found.words("").is_empty() {
        return Err(with_exclusions(
            "no binary was measured at two residencies".to_owned(),
            &failed,
        ));
    }
    Ok((found.outcome(), with_exclusions(found.words("; "), &failed)))
}
