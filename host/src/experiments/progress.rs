//! The progress bar of an experiment's run, drawn only on a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::contract::RunContext;

/// A progress bar over `len` steps, drawn only when asked for (on a terminal).
pub(crate) fn progress_bar(ctx: &RunContext, len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(len as u64),
        if ctx.progress {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    if let Ok(style) = ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {msg}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(what.to_owned());
    bar
}
