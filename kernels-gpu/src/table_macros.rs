//! The macros that expand the variant table (`variants.rs`, their one invocation site): the
//! host-visible constants and params structs, the compile-time checks that name the line at
//! fault, and (on nvptx64) one kernel entry per line or grid point. They name the kernels each
//! line instantiates (`kernels/`), so they sit above them; the line types and checks they expand
//! to are in `sections/`.

#[macro_use]
mod variant_table;
#[macro_use]
mod section_tables;
