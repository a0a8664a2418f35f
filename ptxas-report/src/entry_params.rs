//! The parameter lists of a PTX module's entries, as their `.entry` directives declare them: the
//! build (xtask) holds rustc's PTX to the variant table's `abi:` lines with them, and the host
//! holds a module file to the parameters it will launch an entry with.
//!
//! ```text
//! .visible .entry gemm_tm2_tn2(
//!     .param .u64 .ptr .global .align 1 gemm_tm2_tn2_param_0,
//!     .param .u32 gemm_tm2_tn2_param_3
//! )
//! ```
//!
//! rustc marks pointers `.ptr`; nvcc declares them as plain `.u64`. Both write one parameter a
//! line; a list on one line reads the same.

/// One `.param` of a PTX entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxParam {
    /// `.u64`, `.u32`, `.f32`, ...
    pub ty: String,
    /// Declared with the `.ptr` attribute (a pointer).
    pub ptr: bool,
}

/// `.u64 .ptr`, `.u32`: the type and the pointer attribute as PTX writes them.
impl std::fmt::Display for PtxParam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.ty, if self.ptr { " .ptr" } else { "" })
    }
}

/// One entry and its parameters, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryParams {
    pub name: String,
    pub params: Vec<PtxParam>,
}

/// A parameter list that does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PtxParamError {
    #[error("malformed PTX: entry `{0}` has no body")]
    NoBody(String),
    #[error("malformed PTX: entry `{entry}` has an unreadable parameter `{line}`")]
    BadParam { entry: String, line: String },
}

/// Every entry's parameter list, in module order.
pub fn entry_params(ptx: &str) -> Result<Vec<EntryParams>, PtxParamError> {
    entry_lists(ptx)
        .map(|(name, list)| {
            let params = read_list(name, list?)?;
            Ok(EntryParams {
                name: name.to_owned(),
                params,
            })
        })
        .collect()
}

/// The parameter list of `entry`; `None` when the module has no such entry.
pub fn params_of(ptx: &str, entry: &str) -> Result<Option<Vec<PtxParam>>, PtxParamError> {
    match entry_lists(ptx).find(|(name, _)| *name == entry) {
        Some((name, list)) => read_list(name, list?).map(Some),
        None => Ok(None),
    }
}

/// Each `.entry` directive's name and the text between its parentheses.
fn entry_lists(ptx: &str) -> impl Iterator<Item = (&str, Result<&str, PtxParamError>)> {
    ptx.match_indices(".entry ").map(move |(at, directive)| {
        let rest = &ptx[at + directive.len()..];
        let end = rest
            .find(|c: char| c == '(' || c.is_whitespace())
            .unwrap_or(rest.len());
        let name = &rest[..end];
        let no_body = || PtxParamError::NoBody(name.to_owned());
        let list = rest[end..]
            .trim_start()
            .strip_prefix('(')
            .and_then(|open| open.find(')').map(|close| &open[..close]))
            // A list that runs into the next entry was never closed.
            .filter(|list| !list.contains(".entry "))
            .ok_or_else(no_body);
        (name, list)
    })
}

/// The parameters of `entry`'s list: `.param`, optionally `.align N`, the type, then attributes
/// (`.ptr`, a state space) and the name.
fn read_list(entry: &str, list: &str) -> Result<Vec<PtxParam>, PtxParamError> {
    list.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let bad = || PtxParamError::BadParam {
                entry: entry.to_owned(),
                line: p.to_owned(),
            };
            let words: Vec<&str> = p.split_whitespace().collect();
            let (first, rest) = words.split_first().ok_or_else(bad)?;
            if *first != ".param" {
                return Err(bad());
            }
            let mut attributes = rest.iter().copied();
            let mut ty = attributes.next();
            if ty == Some(".align") {
                attributes.next();
                ty = attributes.next();
            }
            let ty = ty
                .filter(|t| t.starts_with('.') && *t != ".ptr")
                .ok_or_else(bad)?;
            Ok(PtxParam {
                ty: ty.to_owned(),
                ptr: rest.contains(&".ptr"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUSTC: &str = "\
.visible .entry gemm_tm2_tn2(
\t.param .u64 .ptr .global .align 1 gemm_tm2_tn2_param_0,
\t.param .u32 gemm_tm2_tn2_param_3,
\t.param .f32 gemm_tm2_tn2_param_6
)
.maxntid 1024, 1, 1
{
\tret;
}
.visible .entry chase_u32()
{
\tret;
}
";

    fn p(ty: &str, ptr: bool) -> PtxParam {
        PtxParam { ty: ty.into(), ptr }
    }

    #[test]
    fn rustc_and_nvcc_lists_read_the_same_way() {
        let all = entry_params(RUSTC).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].name, "gemm_tm2_tn2");
        assert_eq!(
            all[0].params,
            [p(".u64", true), p(".u32", false), p(".f32", false)]
        );
        assert_eq!(all[1].params, []);
        let shown: Vec<String> = all[0].params.iter().map(ToString::to_string).collect();
        assert_eq!(shown, [".u64 .ptr", ".u32", ".f32"]);
        // nvcc: pointers as plain `.u64`, and a list on one line.
        let nvcc = ".visible .entry _Z4copyPfS_m(.param .u64 a, .param .align 8 .u64 b)\n{\n}\n";
        assert_eq!(
            params_of(nvcc, "_Z4copyPfS_m").unwrap(),
            Some(vec![p(".u64", false), p(".u64", false)])
        );
        assert_eq!(params_of(nvcc, "gemm").unwrap(), None);
        assert_eq!(
            params_of(RUSTC, "chase_u32").unwrap(),
            Some(vec![]),
            "no parameters"
        );
    }

    #[test]
    fn an_unclosed_list_or_a_parameter_without_a_type_is_refused() {
        let unclosed = ".visible .entry a(\n.param .u32 x,\n.visible .entry b(\n.param .u32 y\n)\n";
        assert_eq!(
            entry_params(unclosed),
            Err(PtxParamError::NoBody("a".into()))
        );
        assert_eq!(
            entry_params(".entry c(\n.param .u64 .ptr\n)"),
            Ok(vec![EntryParams {
                name: "c".into(),
                params: vec![p(".u64", true)]
            }])
        );
        let untyped = ".entry d(\n.param x\n)";
        assert_eq!(
            entry_params(untyped),
            Err(PtxParamError::BadParam {
                entry: "d".into(),
                line: ".param x".into()
            })
        );
        assert!(params_of(".entry e(\n.reg .u32 x\n)", "e").is_err());
        assert_eq!(
            entry_params(".entry f"),
            Err(PtxParamError::NoBody("f".into()))
        );
    }
}
