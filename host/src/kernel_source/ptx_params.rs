//! A PTX entry's parameter list as the module declares it, and whether a kernel family's
//! parameter list (its `abi:` line) may be pushed to it: what a user's module is checked against
//! before any GPU work, and what the tests hold the built-in modules to.

use kernels_gpu::abi::{Param, ParamKind};
use ptxas_report::entry_params::PtxParam;

/// What the host may pass for a kernel parameter, by the type its PTX `.param` declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamClass {
    /// `.u64 .ptr`: an address (rustc marks pointers so).
    Pointer,
    /// `.u64`/`.s64`/`.b64` without `.ptr`: an address or a 64-bit integer (nvcc declares
    /// pointers so).
    Bits64,
    /// `.u32`/`.s32`/`.b32`.
    Bits32,
    /// `.f32`.
    F32,
}

impl ParamClass {
    /// The class of a declared parameter; `None` for a type no kernel family uses.
    pub fn of(param: &PtxParam) -> Option<ParamClass> {
        match param.ty.as_str() {
            ".u64" | ".s64" | ".b64" if param.ptr => Some(ParamClass::Pointer),
            ".u64" | ".s64" | ".b64" => Some(ParamClass::Bits64),
            ".u32" | ".s32" | ".b32" => Some(ParamClass::Bits32),
            ".f32" => Some(ParamClass::F32),
            _ => None,
        }
    }

    /// Whether the host may pass a `kind` for this parameter.
    pub fn accepts(self, kind: ParamKind) -> bool {
        matches!(
            (self, kind),
            (ParamClass::Pointer, ParamKind::Ptr)
                | (ParamClass::Bits64, ParamKind::Ptr | ParamKind::U64)
                | (ParamClass::Bits32, ParamKind::I32 | ParamKind::U32)
                | (ParamClass::F32, ParamKind::F32)
        )
    }
}

/// The classes of `entry`'s parameters in a PTX module (read by [`ptxas_report::entry_params`], as
/// the build reads them); `None` when the module has no such entry, its list does not read, or a
/// parameter's type is not one a kernel family uses.
pub fn ptx_entry_params(ptx: &str, entry: &str) -> Option<Vec<ParamClass>> {
    let params = ptxas_report::entry_params::params_of(ptx, entry).ok()??;
    params.iter().map(ParamClass::of).collect()
}

/// Whether a PTX entry's parameter list takes the arguments of `signature` (a family's
/// `PARAMS`, from the variant table's `abi:` line).
pub fn ptx_accepts(ptx: &[ParamClass], signature: &[Param]) -> bool {
    ptx.len() == signature.len() && ptx.iter().zip(signature).all(|(p, d)| p.accepts(d.kind))
}
