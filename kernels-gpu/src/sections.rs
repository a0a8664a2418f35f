//! The variant table's sections as types: what a line of each section describes, what the host
//! derives from it (threads, grid, shared memory, entry name), and the compile-time checks a line
//! must pass, with the hardware limits (`limits`) and the rules across lines (`table_rules`,
//! `text_rules`) they are held to. The kernels and the host's checks share the formulas here
//! (where a byte goes, a block's shared-memory layout); `variants.rs` holds the lines themselves
//! and re-exports these types.

// First: its `no_two_alike!` is used by the line files below.
#[macro_use]
pub(crate) mod text_rules;

pub mod block_trace;
pub mod c_staging;
pub mod check_launches;
pub mod copy_samples;
pub(crate) mod gemm;
#[macro_use]
pub mod gemm_wgmma;
pub(crate) mod limits;
pub(crate) mod memcpy;
pub mod persistent_copy;
pub(crate) mod probes;
pub(crate) mod read;
pub mod smem_copy;
pub(crate) mod table_rules;
pub(crate) mod tensor_core;
pub mod wgemm_tail;
pub mod wgemm_walk;
pub mod wgmma;
