//! Loading a library the driver API does not bring with it (cuBLAS, CUPTI): the first of its
//! candidate names or paths that loads, and its functions by name, with the failures in words.

use std::ffi::OsStr;

use libloading::Library;

/// A function the loaded library lacks.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[error("{what} ({library}) lacks `{symbol}`: {reason}")]
pub struct MissingSymbol {
    /// The library, in the lab's words ("cuBLAS", "CUPTI").
    pub what: &'static str,
    /// The file that was loaded.
    pub library: String,
    pub symbol: &'static str,
    pub reason: String,
}

/// The first of `candidates` that loads, with the candidate, or every failure as
/// `"<name>: <reason>"` joined by "; " (`name` says a candidate in words).
///
/// # Safety
/// Loading a library runs its initialisers: every candidate must be one whose initialisers may
/// run in this process.
pub(crate) unsafe fn load_first<C: AsRef<OsStr>>(
    candidates: impl IntoIterator<Item = C>,
    name: impl Fn(&C) -> String,
) -> Result<(Library, C), String> {
    let mut reasons = Vec::new();
    for candidate in candidates {
        // SAFETY: the caller vouches for every candidate's initialisers.
        match unsafe { Library::new(candidate.as_ref()) } {
            Ok(lib) => return Ok((lib, candidate)),
            Err(e) => reasons.push(format!("{}: {e}", name(&candidate))),
        }
    }
    Err(reasons.join("; "))
}

/// The functions of one loaded library, looked up by name, a missing one an error that names
/// the library (`what`, in the lab's words) and the file it was loaded from (`library`).
pub(crate) struct Symbols<'l> {
    lib: &'l Library,
    what: &'static str,
    library: &'l str,
}

impl<'l> Symbols<'l> {
    /// The functions of `lib`, the library `what` loaded from the file `library`.
    ///
    /// # Safety
    /// Every `T` later asked of [`Symbols::get`] must be the C prototype of the symbol named
    /// with it, and each value used only while `lib` lives.
    pub(crate) unsafe fn new(lib: &'l Library, what: &'static str, library: &'l str) -> Self {
        Self { lib, what, library }
    }

    /// The function `symbol`, as the prototype `T`.
    pub(crate) fn get<T: Copy>(&self, symbol: &'static str) -> Result<T, MissingSymbol> {
        // SAFETY: whoever made `self` vouched that `T` is `symbol`'s prototype and that the
        // value outlives `lib` only as they allow.
        unsafe { self.lib.get::<T>(symbol.as_bytes()) }
            .map(|s| *s)
            .map_err(|e| MissingSymbol {
                what: self.what,
                library: self.library.to_owned(),
                symbol,
                reason: e.to_string(),
            })
    }
}
