//! The names of the host's experiments (their subcommands), in the order of its registry
//! (`host/src/experiments/mod.rs`), for the tools that cannot depend on the host: xtask's
//! `cargo xtask sweep --help` lists them. The host checks at compile time that its registry
//! names these, in this order, so the list cannot fall behind it.

/// Every experiment's subcommand, in the registry's order.
pub const EXPERIMENT_NAMES: &[&str] = &[
    "occupancy",
    "bandwidth",
    "regs",
    "inflight",
    "ilp",
    "mma",
    "gemm_bf16",
    "held",
    "shapes",
];
