//! The Rust-built kernel modules, embedded at build time by `build.rs` (the same build as
//! `cargo xtask build`): `MAIN`, `CAPPED`, `UNBOUNDED`, `CHECKS`, `TENSOR`, `MMA_ILP` (the
//! mma microbenchmark's entries of `TENSOR` alone), `HOPPER`, `PTX_ARCH`, `RUSTC`.

include!(concat!(env!("OUT_DIR"), "/modules.rs"));

/// The capped module for `cap`, if the regs experiment has that cap.
pub fn capped(cap: u32) -> Option<&'static str> {
    CAPPED.iter().find(|(c, _)| *c == cap).map(|(_, ptx)| *ptx)
}
