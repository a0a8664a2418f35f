//! What `--help` and the table notes say of the GEMM checks (`gemm_check`) and of the hashes
//! that account for every launch (`gemm_hashes`): the words quote both, so they sit above both and
//! neither imports the other.

use super::gemm_check::{is_every_element, rule};
use super::gemm_hashes::{RACE_CHECK_BUDGET, RACE_LAUNCHES, RACE_LAUNCHES_LEAST};
use crate::results::Check;

/// What `--help` says of the GEMM check.
pub fn help() -> String {
    help_under(&rule())
}

/// [`help`] under another family's `rule` (e.g. the tensor-core rule).
pub fn help_under(rule: &str) -> String {
    help_of("ours, --compare's module, cuBLAS", rule)
}

/// [`help`] for an experiment whose timed sides are `sides`, under `rule`.
pub fn help_of(sides: &str, rule: &str) -> String {
    format!(
        "Checked: the output of every timed side ({sides}) after its last timed launch \
         (alpha=1, beta=0, into its own C), and after one more launch at alpha=1.5, beta=0.5 on \
         a fresh C: {rule}. {}",
        hashes_help()
    )
}

/// The table note on the GEMM checks, when any of `checks` is one of [`record`]'s (a table of an
/// older run keeps its notes as they were).
pub fn note<'a>(checks: impl IntoIterator<Item = &'a Check>) -> Option<String> {
    note_under(checks, rule)
}

/// [`note`] under another family's `rule` (e.g. the tensor-core rule), in words.
pub fn note_under<'a>(
    checks: impl IntoIterator<Item = &'a Check>,
    rule: impl FnOnce() -> String,
) -> Option<String> {
    let checks: Vec<&Check> = checks.into_iter().collect();
    let hashed = checks.iter().any(|c| c.hashes.is_some());
    let counts = race_counts(&checks);
    checks.into_iter().any(is_every_element).then(|| {
        let verified = format!(
            "Verified: the output of each side's last timed launch (alpha=1, beta=0, its own C) \
             and of one more launch at alpha=1.5, beta=0.5 on a fresh C, both checked: {}",
            rule()
        );
        // A run recorded before the hashes keeps its note as it was.
        if hashed {
            format!("{verified}. {}", hashes_note(&counts))
        } else {
            verified
        }
    })
}

/// The race check's launches in words: its most, or (where it stops early) how it stops.
fn race_rule() -> String {
    format!(
        "up to {RACE_LAUNCHES} untimed launches (at least {RACE_LAUNCHES_LEAST}, fewer than \
         {RACE_LAUNCHES} only once {} ms have passed)",
        RACE_CHECK_BUDGET.as_millis()
    )
}

/// The race launches each hashed check made.
fn race_counts(checks: &[&Check]) -> Vec<u32> {
    checks
        .iter()
        .filter_map(|c| c.hashes.as_ref().map(|h| h.race_launches))
        .collect()
}

/// What the lab's help says of the hashes.
fn hashes_help() -> String {
    format!(
        "Hashed: each side's C after every timed sample (its last launch; outside the timed \
         interval) and after each of {} (a race check, each on a C filled first), every hash \
         compared with the verified launch's. A race launch whose hash differs is checked \
         element by element; ours must match every time, the compared module and cuBLAS too \
         unless their race launches show their bits vary.",
        race_rule()
    )
}

/// The table note on the hashes (runs recorded with them), whose race checks made `counts`
/// launches each (a run whose every race check made the most keeps its note as it was).
fn hashes_note(counts: &[u32]) -> String {
    let launches = if counts.iter().all(|&n| n == RACE_LAUNCHES) {
        format!("{RACE_LAUNCHES} untimed launches")
    } else {
        format!("{}; each row's check says how many", race_rule())
    };
    format!(
        "Hashed: each side's C after every timed sample and after each of {launches} (the race \
         check, each on a C filled first), every hash against the verified launch's; our \
         kernels must give its bits every time; the compared module and cuBLAS too, unless \
         the race check shows their bits vary, and then each race launch that differs is \
         checked element by element"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hashes_note_names_the_race_rule_only_when_a_check_stopped_early() {
        let full = hashes_note(&[RACE_LAUNCHES, RACE_LAUNCHES]);
        assert!(full.contains(&format!("after each of {RACE_LAUNCHES} untimed launches (")));
        let early = hashes_note(&[RACE_LAUNCHES, RACE_LAUNCHES_LEAST]);
        assert!(early.contains(&format!("at least {RACE_LAUNCHES_LEAST}")));
        assert!(early.contains("each row's check says how many"));
        assert_ne!(full, early);
    }
}
