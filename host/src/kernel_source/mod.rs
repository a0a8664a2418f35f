//! Where kernels come from, below the driver that loads them: the name a run records for its
//! kernels ([`name`]), the built-in Rust modules embedded at build time ([`builtin`]), the kind of
//! a module image ([`kind`]) and what its bytes are and which entries it exports ([`image`]).
//! Nothing here needs a GPU or a flag. The checks of a user's module files
//! ([`crate::module_file`]) sit above the flags whose errors they return, the driver's loading and
//! its cache in [`crate::cuda`], and each experiment's choice of modules in
//! `experiments/module_source.rs`.

pub mod builtin;
pub mod image;
pub mod kind;
pub mod name;
