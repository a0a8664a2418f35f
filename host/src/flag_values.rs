//! How every flag's value is read and echoed back: whole numbers within the flag's real range
//! (whatever their length, so a 309-digit number is "not in 1..=1024", not "too large to fit in
//! the target type"), list items that must not be empty, and values shortened when a message
//! repeats them.

use std::ffi::OsStr;
use std::fmt::Display;
use std::ops::RangeInclusive;

use clap::builder::TypedValueParser;
use clap::error::ErrorKind;

/// The longest value a message repeats in full.
const SHOWN_CHARS: usize = 40;

/// `value` as a message repeats it: in full when short, else its start and its length.
pub fn shown(value: &str) -> String {
    let n = value.chars().count();
    if n <= SHOWN_CHARS {
        return value.to_owned();
    }
    let start: String = value.chars().take(16).collect();
    format!("{start}... ({n} characters)")
}

/// `text` with every long word [`shown`] short: for messages that quote what they were given
/// (a parser's error repeats the string it could not read).
pub fn shorten_words(text: &str) -> String {
    text.split(' ').map(shown).collect::<Vec<_>>().join(" ")
}

/// Reads a whole number in `lo..=hi`; the error names the range and never repeats a long value.
pub fn parse_whole(text: &str, lo: u128, hi: u128) -> Result<u128, String> {
    let t = text.trim();
    let range = format!("{lo}..={hi}");
    let is_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if t.strip_prefix('-').is_some_and(is_digits) {
        return Err(format!("{} is not in {range}", shown(t)));
    }
    let digits = t.strip_prefix('+').unwrap_or(t);
    if !is_digits(digits) {
        return Err(format!("`{}` is not a whole number in {range}", shown(t)));
    }
    match digits.parse::<u128>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!("{} is not in {range}", shown(digits))),
    }
}

/// Reads `--target-cycles` (the SM cycles one launch of the `ilp` and `mma` sweeps is sized
/// for): a number in 1e3..=1e12. The two sweeps once kept their own copies, `ilp` up to 1e12 and
/// `mma` up to 1e10; the wider range is kept, so that every command either accepted still reads
/// (no committed run passes the flag), and `mma` caps the rounds a launch runs anyway.
pub fn parse_cycles(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (1e3..=1e12).contains(&v) => Ok(v),
        Ok(v) => Err(format!("{v} is not a cycle count in 1e3..=1e12")),
        Err(e) => Err(format!("{:?}: {e}", shown(s))),
    }
}

/// A clap value parser of whole numbers in a range ([`whole`]).
#[derive(Debug, Clone, Copy)]
pub struct Whole<T> {
    lo: T,
    hi: T,
}

/// The value parser of a whole-number flag taking values in `range`.
pub fn whole<T: Copy>(range: RangeInclusive<T>) -> Whole<T> {
    Whole {
        lo: *range.start(),
        hi: *range.end(),
    }
}

/// The flag as messages name it (`--threads`), or its value name for a positional argument.
fn flag_name(arg: Option<&clap::Arg>) -> String {
    arg.map_or_else(
        || "value".to_owned(),
        |a| match a.get_long() {
            Some(l) => format!("--{l}"),
            None => a.get_id().to_string(),
        },
    )
}

/// A usage error of `arg` whose message is `reason`, printed as clap prints its own.
fn invalid(cmd: &clap::Command, arg: Option<&clap::Arg>, reason: &str) -> clap::Error {
    let mut cmd = cmd.clone();
    clap::Error::raw(
        ErrorKind::ValueValidation,
        format!("{}: {reason}", flag_name(arg)),
    )
    .format(&mut cmd)
}

impl<T> TypedValueParser for Whole<T>
where
    T: Copy + Display + Into<u128> + TryFrom<u128> + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let n = parse_whole(&value.to_string_lossy(), self.lo.into(), self.hi.into())
            .map_err(|reason| invalid(cmd, arg, &reason))?;
        T::try_from(n).map_err(|_| invalid(cmd, arg, "out of range"))
    }
}

/// One item of a comma-separated list: an empty one (`--variants ""`, `S,,A`) is refused rather
/// than read as "all".
pub fn parse_list_item(s: &str) -> Result<String, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(
            "an empty item in the list: give labels (e.g. A,C), or leave the flag out for all"
                .to_owned(),
        );
    }
    Ok(t.to_owned())
}

/// The rule every list flag (one taking comma-separated values) shares, applied to each
/// argument of the command line's definition (`cli::definition`): an item may start with a
/// hyphen, so that `--threads -1,2` is refused by `--threads` itself, naming it, rather than read
/// as an unknown flag `-1,2`; and its default is printed as it would be typed, comma-separated
/// (clap prints `[default: 1 2 4]`). Duplicates and empty items are refused after parsing
/// ([`check_lists`]). Other arguments pass unchanged.
pub fn list_rule(a: clap::Arg) -> clap::Arg {
    if a.get_value_delimiter() != Some(',') {
        return a;
    }
    let a = a.allow_hyphen_values(true);
    let defaults: Vec<String> = a
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if defaults.is_empty() {
        return a;
    }
    let typed = format!("[default: {}]", defaults.join(","));
    let help = a.get_help().map(ToString::to_string).unwrap_or_default();
    let long = a
        .get_long_help()
        .map_or_else(|| help.clone(), ToString::to_string);
    a.hide_default_value(true)
        .help(format!("{help} {typed}"))
        .long_help(format!("{long}\n\n{typed}"))
}

/// A list item as compared with the others: trimmed, and a whole number without its sign or
/// leading zeros (`+032` is `32`), as the flags' parsers read it.
fn item_key(item: &str) -> String {
    let t = item.trim();
    let digits = t.strip_prefix('+').unwrap_or(t);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        let n = digits.trim_start_matches('0');
        return if n.is_empty() { "0" } else { n }.to_owned();
    }
    t.to_owned()
}

/// Refuses, in the list flags given on the command line (those [`list_rule`] applies to), an
/// item listed twice or an empty one, naming the flag: a usage error as clap prints its own.
/// `cmd` is the definition `matches` came from; its subcommands are checked too.
pub fn check_lists(cmd: &clap::Command, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
    for arg in cmd
        .get_arguments()
        .filter(|a| a.get_value_delimiter() == Some(','))
    {
        let id = arg.get_id().as_str();
        if matches.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        let Ok(Some(raw)) = matches.try_get_raw(id) else {
            continue;
        };
        let items: Vec<String> = raw.map(|v| v.to_string_lossy().into_owned()).collect();
        for (i, item) in items.iter().enumerate() {
            if item.trim().is_empty() {
                let reason = parse_list_item(item).unwrap_err();
                return Err(invalid(cmd, Some(arg), &reason));
            }
            let key = item_key(item);
            if items[..i].iter().any(|e| item_key(e) == key) {
                let reason = format!(
                    "`{}` is listed twice; give each item once",
                    shown(item.trim())
                );
                return Err(invalid(cmd, Some(arg), &reason));
            }
        }
    }
    let sub = (matches.subcommand()).and_then(|(name, m)| Some((cmd.find_subcommand(name)?, m)));
    sub.map_or(Ok(()), |(cmd, m)| check_lists(cmd, m))
}

/// Parses `args` (without a program name) as the one group of flags `A`, as a subcommand
/// would: for the tests of each group's defaults and refusals.
#[cfg(test)]
pub(crate) fn parse_flags<A: clap::Args + clap::FromArgMatches>(
    args: &[&str],
) -> Result<A, clap::Error> {
    let cmd = A::augment_args(clap::Command::new("flags"));
    let matches = cmd.try_get_matches_from(std::iter::once("flags").chain(args.iter().copied()))?;
    A::from_arg_matches(&matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycle_counts_are_numbers_in_one_range() {
        for (text, want) in [
            ("1000", Ok(1e3)),
            ("1e12", Ok(1e12)),
            ("999", Err("999 is not a cycle count in 1e3..=1e12")),
            ("x", Err("\"x\": invalid float literal")),
        ] {
            assert_eq!(parse_cycles(text), want.map_err(str::to_owned), "{text}");
        }
        assert!(parse_cycles("1.1e12").is_err());
        assert!(parse_cycles("NaN").is_err());
    }

    #[test]
    fn whole_numbers_name_their_range_whatever_their_length() {
        let refused = |text: &str, lo, hi| parse_whole(text, lo, hi).unwrap_err();
        assert_eq!(parse_whole("256", 1, 1024), Ok(256));
        assert_eq!(parse_whole(" +7 ", 1, 1024), Ok(7));
        assert_eq!(
            refused("99999999999", 1, 1024),
            "99999999999 is not in 1..=1024"
        );
        assert_eq!(refused("-1", 0, 5), "-1 is not in 0..=5");
        assert_eq!(refused("0", 1, 1024), "0 is not in 1..=1024");
        assert_eq!(
            refused("1e3", 1, 1024),
            "`1e3` is not a whole number in 1..=1024"
        );
        assert!(parse_whole("", 1, 2).is_err() && parse_whole("-", 1, 2).is_err());
        let huge = format!("1{}", "0".repeat(308));
        let e = refused(&huge, 1, 1024);
        assert_eq!(e, "1000000000000000... (309 characters) is not in 1..=1024");
        assert_eq!(
            parse_whole(&u64::MAX.to_string(), 0, u128::from(u64::MAX)),
            Ok(u128::from(u64::MAX))
        );
    }

    #[test]
    fn the_value_parser_names_the_flag() {
        let cmd = clap::Command::new("t").arg(
            clap::Arg::new("threads")
                .long("threads")
                .value_parser(whole(1u32..=1024)),
        );
        let m = cmd
            .clone()
            .try_get_matches_from(["t", "--threads", "32"])
            .unwrap();
        assert_eq!(m.get_one::<u32>("threads"), Some(&32));
        let e = cmd
            .try_get_matches_from(["t", "--threads", "4294967296"])
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueValidation);
        assert!(
            e.to_string()
                .contains("--threads: 4294967296 is not in 1..=1024"),
            "{e}"
        );
    }

    #[test]
    fn long_values_are_shortened_and_empty_items_refused() {
        assert_eq!(shown("short"), "short");
        assert_eq!(
            shown(&"x".repeat(41)),
            "xxxxxxxxxxxxxxxx... (41 characters)"
        );
        assert_eq!(
            shorten_words(&format!(
                "invalid type: string \"{}\", expected f64",
                "x".repeat(99)
            )),
            "invalid type: string \"xxxxxxxxxxxxxxx... (102 characters) expected f64"
        );
        assert!(parse_list_item("").is_err() && parse_list_item("  ").is_err());
        assert_eq!(parse_list_item(" A "), Ok("A".to_owned()));
    }
}
