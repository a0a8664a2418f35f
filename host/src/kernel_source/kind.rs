//! The three kinds of module image (PTX, cubin, fatbin), told from the first bytes: below both the
//! checks that read a file's bytes and the driver that loads them.

/// What a module image is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleKind {
    /// PTX text: the driver JIT-compiles it for the device (and writes an info log).
    Ptx,
    /// A cubin (ELF): loaded as is, no JIT and no log.
    Cubin,
    /// A fatbinary container.
    Fatbin,
}

impl ModuleKind {
    /// Tells an image's kind from its first bytes.
    pub fn sniff(image: &[u8]) -> Self {
        if image.starts_with(b"\x7fELF") {
            ModuleKind::Cubin
        } else if image.starts_with(&0xBA55_ED50u32.to_le_bytes()) {
            ModuleKind::Fatbin
        } else {
            ModuleKind::Ptx
        }
    }
}
