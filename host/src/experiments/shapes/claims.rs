//! What the sweep shows about occupancy and waves, as a claim with its rule fixed before the
//! runs: under one wave, the faster side (ours or cuBLAS) runs more, smaller tiles at a lower
//! per-SM occupancy.

use super::list::name;
use super::row::{ShapeRow, ShapesRun};
use crate::claim::{Claim, Verdict};
use crate::table::percent;

const KEY: &str = "under-one-wave-more-smaller-tiles";

const CLAIM: &str = "For shapes with fewer tiles than one wave, the faster kernel trades per-SM \
occupancy for more, smaller tiles.";

const RULE: &str = "Cases: every row of the sweep whose chosen line has fewer tiles than one \
wave's slots (SMs x blocks/SM; for a persistent grid, fewer tiles than SMs), whose line and \
cuBLAS both passed their checks, and whose cuBLAS kernel was read through CUPTI. The faster \
side is the one ahead by more than 3% in medians (Ours/cuBLAS above 1.03 or below 1/1.03); a \
case within that band is not judged. A case holds when the faster side launched more blocks \
than the slower (our grid; cuBLAS's as CUPTI recorded it) at a theoretical occupancy no \
higher; it fails otherwise. HOLDS when at least 3 cases are judged and at least three quarters \
of them hold; DOES NOT HOLD when at least 3 are judged and at most a quarter hold; NOT JUDGED \
otherwise.";

/// Ahead by more than this factor in medians makes a side the faster.
const AHEAD: f64 = 1.03;
/// Judged cases the verdict needs.
const LEAST_CASES: usize = 3;

/// One judged case: its words and whether it holds; none when not judged (with why).
pub fn case(r: &ShapeRow) -> Result<(bool, String), String> {
    let waves = r.figures.waves().ok_or("no schedule recorded")?;
    if waves.tiles >= waves.slots {
        return Err("at least one wave".into());
    }
    let c = r.cublas_row().ok_or("cuBLAS did not run")?;
    let k = c.library_kernel().ok_or("cuBLAS's kernel was not read")?;
    if !(r.measured.check.passed && c.check.passed) {
        return Err("a check failed".into());
    }
    let x = r.vs_cublas.ok_or("no ratio")?;
    let ours = (
        r.figures.schedule.map_or(0, |s| s.blocks),
        r.figures.occupancy,
    );
    let grid = (k.kernel.grid.iter()).fold(1u64, |p, &g| p.saturating_mul(u64::from(g)));
    let theirs = (grid, k.occupancy);
    let (fast, slow, who) = if x > AHEAD {
        (ours, theirs, "ours")
    } else if x < 1.0 / AHEAD {
        (theirs, ours, "cuBLAS")
    } else {
        return Err(format!("within 3% ({x:.2})"));
    };
    let holds = fast.0 > slow.0 && fast.1 <= slow.1 + 1e-9;
    let words = format!(
        "{} {}: {who} faster ({x:.2}), {} blocks at {} against {} at {}: {}",
        r.family.name(),
        name(r.dims),
        fast.0,
        percent(fast.1),
        slow.0,
        percent(slow.1),
        if holds { "holds" } else { "fails" }
    );
    Ok((holds, words))
}

pub fn claims(output: &ShapesRun) -> Vec<Verdict> {
    let claim = Claim::new(KEY, CLAIM, RULE.to_owned());
    vec![claim.judge(|| {
        let judged: Vec<(bool, String)> = output.rows.iter().filter_map(|r| case(r).ok()).collect();
        let holding = judged.iter().filter(|(h, _)| *h).count();
        let words: Vec<&str> = judged.iter().map(|(_, w)| w.as_str()).collect();
        if judged.len() < LEAST_CASES {
            return Err(format!(
                "{} case(s) judged, {LEAST_CASES} needed{}",
                judged.len(),
                if words.is_empty() {
                    String::new()
                } else {
                    format!(": {}", words.join("; "))
                }
            ));
        }
        let share = holding as f64 / judged.len() as f64;
        let outcome = if share >= 0.75 {
            Some(true)
        } else if share <= 0.25 {
            Some(false)
        } else {
            None
        };
        let evidence = format!(
            "{holding} of {} cases hold: {}",
            judged.len(),
            words.join("; ")
        );
        Ok((outcome, evidence))
    })]
}
