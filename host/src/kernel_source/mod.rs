//! Where kernels come from, below the driver that loads them: the name a run records for its
//! kernels ([`name`]), the built-in Rust modules embedded at build time ([`builtin`]), the kind of
//! a module image ([`kind`]), what its bytes are and which entries it exports ([`image`]), an
//! entry's parameter list ([`ptx_params`]), the checks of a user's module files and cap folders
//! ([`module_file`]) and which kernels a plan runs ([`sources`]). Nothing here needs a GPU or a
//! flag: the flags' error carries [`module_file`]'s, never the other way round.
//!
//! Two parts stand above this room, because they need what stands above it: loading a module and
//! keeping the built-in ones compiled need the driver's context ([`crate::cuda`]'s `module.rs`
//! and `module_cache.rs`, which read [`image`] and [`kind`] from here), and an experiment's
//! modules planned from its flags and loaded on its GPU (`experiments/module_source.rs`) need
//! the flags, the driver and the experiments' errors.

pub mod builtin;
pub mod image;
pub mod kind;
pub mod module_file;
pub mod name;
pub mod ptx_params;
pub mod sources;
