//! What the sampled persistent copies record with (`sections/copy_samples.rs`): the SM a block
//! runs on, and the module global their stamps go to. The clocks themselves are
//! [`super::clock64`] and [`super::globaltimer`].

use core::arch::asm;

use crate::sections::copy_samples::SAMPLE_WORDS;

/// The id of the SM this thread runs on (`%smid`): fixed for a block's life, so the read is
/// pure and LLVM may place it anywhere.
#[inline(always)]
pub fn smid() -> u32 {
    let sm: u32;
    // SAFETY: reads a special register.
    unsafe {
        asm!("mov.u32 {s}, %smid;", s = out(reg32) sm, options(pure, nomem, nostack, preserves_flags));
    }
    sm
}

/// The sampled entries' module global, [`crate::sections::copy_samples::SAMPLES_SYMBOL`] (the
/// name is checked against it by the host, which finds the global by that name). Zero-initialised,
/// so PTX declares it without an initialiser and the image carries no bytes for it.
#[export_name = "lab_copy_samples"]
static mut LAB_COPY_SAMPLES: [u64; SAMPLE_WORDS] = [0; SAMPLE_WORDS];

/// The first word of the copy samples (a generic address of the global): written only through
/// [`super::store_word`] by lane 0 of the sampled warps, each in its own block's words.
#[inline(always)]
pub fn copy_samples() -> *mut u64 {
    // Taking the address reads nothing and creates no reference.
    (&raw mut LAB_COPY_SAMPLES).cast()
}
