//! The hardware limits the variant table's lines are checked against (a leaf: the table's parts
//! import it, and it imports nothing).

/// Largest block CUDA allows.
pub const MAX_THREADS: u32 = 1024;

/// Largest register count a thread may use.
pub const MAX_REGS_PER_THREAD: u32 = 255;

/// 32-bit registers of the register file (64K), which a block's warpgroups share.
pub const REGISTER_FILE: u32 = 65536;

/// Most registers a thread can have (and `setmaxnreg` can ask for).
pub const MAX_THREAD_REGS: u32 = 256;

/// Most loads per thread a memcpy grid line may ask for (each staged in registers).
pub const MAX_LOADS: u32 = 64;

/// Most independent chains an FMA line may ask for.
pub const MAX_ILP: u32 = 32;

/// Smallest register cap ptxas accepts for `.maxnreg` / `-maxrregcount`.
pub const MIN_REG_CAP: u32 = 16;

/// Shared memory one block may opt into on sm_80 and sm_90 (227 KB), bytes.
pub const MAX_SHARED_OPT_IN: u32 = 227 * 1024;

/// Shared memory a block gets without opting in (48 KB), bytes.
pub const SHARED_WITHOUT_OPT_IN: u32 = 48 * 1024;
