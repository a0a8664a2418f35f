//! Where a run's wall time goes: with `LAB_PHASE_TIMES` set, each mark writes the seconds since
//! the run began and what just finished to stderr (`[phase   12.345 s] what`). Marks sit around
//! the slow parts of the GEMM experiments (module loads, problem set-up, timing, checks, race
//! checks, the shape sweep's steps), for keeping `host all` inside its time; without the variable
//! they cost one environment lookup. Diagnostics only: nothing reads them back.

use std::sync::OnceLock;
use std::time::Instant;

static START: OnceLock<Instant> = OnceLock::new();

/// Whether marks are written: `LAB_PHASE_TIMES` is set (to anything).
fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("LAB_PHASE_TIMES").is_some())
}

/// Marks that `what` has just finished (the first mark starts the clock).
pub fn mark(what: &str) {
    let start = *START.get_or_init(Instant::now);
    if enabled() {
        eprintln!("[phase {:9.3} s] {what}", start.elapsed().as_secs_f64());
    }
}
