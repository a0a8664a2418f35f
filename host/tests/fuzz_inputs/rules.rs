//! The exit code each generated line must give, by rule: the one table the fuzz judges by. A
//! line's rule follows from what the generator put in it ([`super::lines`]), never from what the
//! binary did.

/// The exit code of a command whose stdout is a pipe whose reader has exited (`host calc |
/// head -0`): the output it could not print is dropped without a message or a backtrace, and the
/// run ends as if it had printed it (what it writes to `--out` is still written), as `host
/// --help`'s exit codes say.
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

/// One row of the table: the rule and the code.
pub struct Row {
    pub rule: Rule,
    pub code: u8,
}

/// Every rule's exit code. A line with several defects must give 2 by any of them; it is judged
/// by its first.
pub const RULES: &[Row] = &[
    row(Rule::Help, 0),
    row(Rule::Version, 0),
    row(Rule::BadFlag, 2),
    row(Rule::BadModule, 2),
    row(Rule::BadOut, 2),
    row(Rule::BadResults, 2),
    row(Rule::DuplicateItem, 2),
    row(Rule::DuplicateItemElsewhere, 2),
    row(Rule::NoEffectFlag, 2),
    row(Rule::ImpossibleResults, 2),
    row(Rule::FolderTwice, 2),
    row(Rule::CheckOnly, 0),
    row(Rule::NoDriver, 3),
    row(Rule::Calc, 0),
    row(Rule::Report, 0),
    row(Rule::Info, 0),
    row(Rule::ClosedStdout, CLOSED_STDOUT_EXIT),
    row(Rule::FullStdout, 4),
    row(Rule::HelpToFullStdout, 4),
];

const fn row(rule: Rule, code: u8) -> Row {
    Row { rule, code }
}

pub fn of(rule: Rule) -> &'static Row {
    RULES
        .iter()
        .find(|r| r.rule == rule)
        .unwrap_or_else(|| panic!("{rule:?} has no row in RULES"))
}

/// The rule that decides a line with these defects (none: `clean`): any defect makes it 2
/// whatever else is wrong, so the first is named.
pub fn decide(defects: &[Rule], clean: Rule) -> Rule {
    defects.first().copied().unwrap_or(clean)
}
