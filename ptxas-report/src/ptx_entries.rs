//! A PTX module's entries, kept or dropped and given directives, as text: the build (xtask)
//! writes its modules with these, and the host caps one entry of a built-in module on demand
//! (`host regs --variant`).
//!
//! An entry runs from its `.entry` line to the `}` that closes its body at the start of a line,
//! as rustc writes PTX; its performance directives (`.maxntid`, `.minnctapersm`, `.maxnreg`) stand
//! on lines of their own between its parameter list and the `{` that opens its body.

/// Why an entry could not be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("entry `{0}` has no body")]
    NoBody(String),
    #[error("the module has no entry `{0}`")]
    Missing(String),
}

/// The performance directives an entry may carry; [`capped_entry`] replaces them.
const DIRECTIVES: [&str; 3] = [".maxntid", ".minnctapersm", ".maxnreg"];

/// The entry a line declares, if it is an `.entry` line.
pub fn entry_name(line: &str) -> Option<&str> {
    let rest = line.trim_start().split(".entry ").nth(1)?;
    let end = rest
        .find(|c: char| c == '(' || c.is_whitespace())
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The module with only the entries `keep` accepts (and their `// .globl` markers); the rest of
/// the module (its header, globals, device functions) stays.
pub fn keep_entries(ptx: &str, keep: impl Fn(&str) -> bool) -> Result<String, EntryError> {
    let mut out = String::with_capacity(ptx.len());
    let mut dropping: Option<String> = None;
    let mut in_body = false;
    for line in ptx.lines() {
        if let Some(name) = dropping.as_deref() {
            if line == "}" && in_body {
                dropping = None;
                in_body = false;
            } else if line.trim() == "{" {
                in_body = true;
            } else if entry_name(line).is_some() {
                return Err(EntryError::NoBody(name.to_string()));
            }
            continue;
        }
        if let Some(name) = entry_name(line) {
            if !keep(name) {
                dropping = Some(name.to_string());
                continue;
            }
        }
        let globl = line.trim_start().strip_prefix("// .globl").map(str::trim);
        if globl.is_some_and(|name| !keep(name)) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    match dropping {
        Some(name) => Err(EntryError::NoBody(name)),
        None => Ok(out),
    }
}

/// The module with `directive(entry)`'s lines, where it gives some, put before each entry's body.
pub fn patch_entries<E: From<EntryError>>(
    ptx: &str,
    mut directive: impl FnMut(&str) -> Result<Option<String>, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(ptx.len() + 1024);
    let mut pending: Option<String> = None;
    for line in ptx.lines() {
        if let Some(name) = entry_name(line) {
            if let Some(open) = pending.take() {
                return Err(EntryError::NoBody(open).into());
            }
            pending = Some(name.to_string());
        } else if line.trim() == "{" {
            if let Some(name) = pending.take() {
                if let Some(d) = directive(&name)? {
                    out.push_str(&d);
                    out.push('\n');
                }
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    match pending {
        Some(name) => Err(EntryError::NoBody(name).into()),
        None => Ok(out),
    }
}

/// The module of `entry` alone, capped at `cap` registers (`.maxnreg`) and with no other
/// performance directive, as the build writes its capped modules.
pub fn capped_entry(ptx: &str, entry: &str, cap: u32) -> Result<String, EntryError> {
    let kept = keep_entries(ptx, |e| e == entry)?;
    if !kept.lines().any(|l| entry_name(l) == Some(entry)) {
        return Err(EntryError::Missing(entry.to_owned()));
    }
    let bare: String = kept
        .lines()
        .filter(|l| !DIRECTIVES.iter().any(|d| l.trim_start().starts_with(d)))
        .flat_map(|l| [l, "\n"])
        .collect();
    patch_entries(&bare, |_| {
        Ok::<_, EntryError>(Some(format!(".maxnreg {cap}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.version 8.5
.target sm_80
// .globl a
.visible .entry a(
.param .u64 a_param_0
)
.maxntid 256, 1, 1
.minnctapersm 2
{
ret;
}
// .globl b
.visible .entry b(
.param .u64 b_param_0
)
{
ret;
}
";

    #[test]
    fn an_entry_is_kept_alone_and_capped() {
        let a = capped_entry(PTX, "a", 64).unwrap();
        assert!(a.starts_with(".version 8.5\n.target sm_80\n"));
        assert!(a.contains(")\n.maxnreg 64\n{\n"), "{a}");
        assert!(!a.contains(".maxntid") && !a.contains(".minnctapersm"));
        assert!(!a.contains("entry b") && !a.contains(".globl b"));
        let b = capped_entry(PTX, "b", 32).unwrap();
        assert_eq!(b.matches(".maxnreg").count(), 1);
        assert!(!b.contains("entry a("));
    }

    #[test]
    fn a_missing_entry_or_body_is_named() {
        assert_eq!(
            capped_entry(PTX, "c", 64),
            Err(EntryError::Missing("c".into()))
        );
        let cut = &PTX[..PTX.find("{\nret;\n}\n// .globl b").unwrap()];
        assert_eq!(
            keep_entries(cut, |e| e != "a"),
            Err(EntryError::NoBody("a".into()))
        );
    }
}
