//! Where `--verify` and `--record-golden` get their kernels when no `--ptx` is given.

/// The embedded PTX with every kernel entry, no launch bounds and no register cap.
pub fn embedded_ptx() -> &'static str {
    crate::modules::UNBOUNDED
}
