//! Names a results file carries (the device's, each variant's, the compared module's label) as
//! Markdown text: a results.json is the user's file, and a name holding a newline, a pipe or
//! emphasis would otherwise start a heading, split a table row or restyle a report. Every
//! Markdown printer (report.md, tables.md, the merged report) takes its names through
//! [`escape`], by way of [`with_escaped_names`].

use std::borrow::Cow;

use serde_json::Value;

use crate::experiments::RunResults;

/// `s` as literal Markdown text on one line: a line break or other control character becomes a
/// space, a pipe `&#124;` (a table does not split on it, and it reads as `|`), and each character
/// that can open inline syntax or a heading mid-line (`\` `` ` `` `*` `_` `[` `]` `<` `>` `#`
/// `~` `&`) is escaped with a backslash. Text with none of them is returned as it is.
pub fn escape(s: &str) -> Cow<'_, str> {
    let special = |c: char| c.is_control() || "|\\`*_[]<>#~&".contains(c);
    if !s.chars().any(special) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            c if c.is_control() => out.push(' '),
            '|' => out.push_str("&#124;"),
            c if special(c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The fields that hold a name a results file brings: a variant's label (in every experiment's
/// rows) and the compared module's label. The device's name is `device.name`.
const NAMES: &[&str] = &["variant", "compare_label"];

/// `results` with the device's name, every variant's label and the compared module's label
/// [`escape`]d, for a Markdown printer (the figures are the same; plots and CSVs take the names as
/// they are). Borrowed when no name needs escaping, as with every run the lab records.
pub fn with_escaped_names(results: &RunResults) -> Cow<'_, RunResults> {
    let mut changed = escape(&results.device.name) != results.device.name;
    let mut value = match serde_json::to_value(results) {
        Ok(v) => v,
        Err(_) => return Cow::Borrowed(results),
    };
    if let Some(Value::String(name)) = value.pointer_mut("/device/name") {
        *name = escape(name).into_owned();
    }
    escape_names(&mut value, &mut changed);
    if !changed {
        return Cow::Borrowed(results);
    }
    serde_json::from_value(value).map_or(Cow::Borrowed(results), Cow::Owned)
}

fn escape_names(v: &mut Value, changed: &mut bool) {
    match v {
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                match field {
                    Value::String(s) if NAMES.contains(&name.as_str()) => {
                        if let Cow::Owned(e) = escape(s) {
                            *s = e;
                            *changed = true;
                        }
                    }
                    other => escape_names(other, changed),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| escape_names(i, changed)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_syntax_in_a_name_is_escaped_and_real_names_are_left_alone() {
        for plain in [
            "NVIDIA H200",
            "D+",
            "T14f4",
            "Fixture GPU (hand-made, not a measurement)",
        ] {
            assert!(matches!(escape(plain), Cow::Borrowed(_)), "{plain}");
        }
        assert_eq!(
            escape("GPU|x *b* _i_ `c` <b> # [l](u) ~s~ &amp; \\"),
            "GPU&#124;x \\*b\\* \\_i\\_ \\`c\\` \\<b\\> \\# \\[l\\](u) \\~s\\~ \\&amp; \\\\"
        );
        assert_eq!(escape("two\nlines\r\tend"), "two lines  end");
    }
}
