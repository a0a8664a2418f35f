//! The exit code each generated line must give, by rule: the one table the fuzz judges by. A
//! line's rule follows from what the generator put in it ([`super::lines`]), never from what the
//! binary did.
//!
//! Rules marked `pending` state behaviour that issue 29 asks for and that other branches build
//! (they fail until those are merged); each says which fix it waits for, so that whoever merges
//! them can check the rule against the fix (and the fix's chosen exit code against
//! [`CLOSED_STDOUT_EXIT`]). Run against those branches' own binaries before the merge, every
//! pending rule held: items 1 and 5 on i29-a at 802a33b, item 4 on i29-b at 19f3984.

/// The exit code of a command whose stdout is a pipe whose reader has exited (`host calc |
/// head -0`): the output it could not print is dropped without a message or a backtrace, and the
/// run ends as if it had printed it (what it writes to `--out` is still written). The one place
/// the fuzz assumes it: align with the code the output-errors fix documents.
pub const CLOSED_STDOUT_EXIT: u8 = 0;

/// Why a line must end as it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// `--help`/`-h` (first after the subcommand, or none), `help [SUBCOMMAND]`.
    Help,
    /// `host --version`/`-V`.
    Version,
    /// A flag, value or subcommand clap or a flag's own check refuses.
    BadFlag,
    /// A module file or folder that is not one the run can use.
    BadModule,
    /// An `--out` that is refused (a file, a device, another run or other files without
    /// `--force`, a folder that cannot be made).
    BadOut,
    /// A results folder whose results.json cannot be read as a run.
    BadResults,
    /// A list flag with an item twice: `--variants` and `--caps` refuse it today.
    DuplicateItem,
    /// Every other list flag with an item twice (`--threads 32,32`, `--ilp 1,1`, ...).
    DuplicateItemElsewhere,
    /// `calc --ptx` without `--verify` or `--record-golden`: a flag with no effect.
    NoEffectFlag,
    /// A results.json that parses but describes an impossible run (0 threads, 0 registers, 0
    /// blocks/SM, compute capability 99.9).
    ImpossibleResults,
    /// `report A A --out B`: a folder given twice.
    FolderTwice,
    /// A valid experiment line with `--check-only`: checked, nothing run.
    CheckOnly,
    /// A valid line that needs the GPU, on a machine without a driver.
    NoDriver,
    /// `calc` without a GPU mode: the calculator's answer.
    Calc,
    /// `report` of good results folders.
    Report,
    /// `info` with a driver.
    Info,
    /// A line that prints to stdout and exits 0, with stdout a pipe whose reader has exited.
    ClosedStdout,
    /// A line of the program's own that prints to stdout and exits 0, with stdout `/dev/full`.
    FullStdout,
    /// Help or version (clap prints them) with stdout `/dev/full`.
    HelpToFullStdout,
}

/// One row of the table: the rule, the code, and what it waits for (if anything).
pub struct Row {
    pub rule: Rule,
    pub code: u8,
    pub pending: Option<&'static str>,
}

/// Every rule's exit code. A line with several defects must give 2 by any of them; it is judged
/// by its first settled rule, or its first pending one if all are pending.
pub const RULES: &[Row] = &[
    row(Rule::Help, 0, None),
    row(Rule::Version, 0, None),
    row(Rule::BadFlag, 2, None),
    row(Rule::BadModule, 2, None),
    row(Rule::BadOut, 2, None),
    row(Rule::BadResults, 2, None),
    row(Rule::DuplicateItem, 2, None),
    row(
        Rule::DuplicateItemElsewhere,
        2,
        Some("issue 29 item 5 (one rule for every list flag): accepted today"),
    ),
    row(
        Rule::NoEffectFlag,
        2,
        Some("issue 29 item 5 (calc --ptx without --verify refused): accepted today"),
    ),
    row(
        Rule::ImpossibleResults,
        2,
        Some("issue 29 item 4 (semantic validation of results.json): rendered today"),
    ),
    row(
        Rule::FolderTwice,
        2,
        Some("issue 29 item 5 (a report folder given twice is refused): merged today"),
    ),
    row(Rule::CheckOnly, 0, None),
    row(Rule::NoDriver, 3, None),
    row(Rule::Calc, 0, None),
    row(Rule::Report, 0, None),
    row(Rule::Info, 0, None),
    row(
        Rule::ClosedStdout,
        CLOSED_STDOUT_EXIT,
        Some("issue 29 item 1 (a closed stdout ends quietly): panics, exit 101, today"),
    ),
    row(
        Rule::FullStdout,
        4,
        Some("issue 29 item 1 (a full disk is exit 4, the path named): panics, exit 101, today"),
    ),
    row(
        Rule::HelpToFullStdout,
        4,
        Some(
            "issue 29 item 1 (a full disk is exit 4): clap's help ignores the error, exit 0, today",
        ),
    ),
];

const fn row(rule: Rule, code: u8, pending: Option<&'static str>) -> Row {
    Row {
        rule,
        code,
        pending,
    }
}

pub fn of(rule: Rule) -> &'static Row {
    RULES
        .iter()
        .find(|r| r.rule == rule)
        .unwrap_or_else(|| panic!("{rule:?} has no row in RULES"))
}

/// The rule that decides a line with these defects (none: `clean`): any settled defect makes it
/// 2 whatever else is wrong, so a settled one is named first.
pub fn decide(defects: &[Rule], clean: Rule) -> Rule {
    defects
        .iter()
        .copied()
        .find(|&d| of(d).pending.is_none())
        .or_else(|| defects.first().copied())
        .unwrap_or(clean)
}
