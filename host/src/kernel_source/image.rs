//! What a kernel module's bytes are: PTX text, a cubin (an ELF file for NVIDIA's CUDA machine) or
//! a fatbinary (cubins and PTX in one container), told from the first bytes and then checked
//! through, and the entries each exports. Needs no GPU: the checks before a run use it to refuse a
//! file that only looks like a module (`/bin/ls` is an ELF file, but not an NVIDIA one).

use object::elf::{FileHeader64, EM_CUDA, SHT_SYMTAB, STT_FUNC};
use object::read::elf::{FileHeader, Sym};
use object::Endianness;

use super::kind::ModuleKind;

/// Bytes enough to tell the three kinds apart (and text from binary data).
pub const HEADER_BYTES: usize = 64;

/// `st_other` bit that marks a cubin's function symbol as a kernel entry (a device function has
/// a `.text` section too, but cannot be launched).
const STO_CUDA_ENTRY: u8 = 0x10;
const FATBIN_MAGIC: u32 = 0xBA55_ED50;
const FATBIN_HEADER: usize = 16;
/// What a fatbinary entry holds, of the kinds that list entries (its first two bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
enum FatbinPayload {
    Ptx = 1,
    Elf = 2,
}
/// An entry header up to and including its flags.
const FATBIN_ENTRY_MIN: usize = 48;
/// The flags that mark an entry's payload as compressed (LZ4, zstd).
const FATBIN_COMPRESSED: u64 = 0x2000 | 0x8000;

/// Why some bytes are not a kernel module.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum NotAModule {
    #[error("it is empty")]
    Empty,
    #[error(
        "it is an ELF file for machine {0}, not a cubin (an NVIDIA CUDA ELF has machine {EM_CUDA})"
    )]
    ForeignElf(u16),
    #[error("it starts as an ELF file but is damaged: {0}")]
    BadElf(String),
    #[error("it starts as a fatbinary but is damaged: {0}")]
    BadFatbin(String),
    #[error("it is binary data: neither PTX text, a cubin (ELF) nor a fatbinary")]
    Binary,
    #[error("it is text without the .version and .target directives of PTX")]
    NotPtx,
}

/// The kind a module's first bytes announce: the ELF or fatbinary magic, else PTX when they are
/// text. Binary data that is neither is refused from these bytes alone.
pub fn announced(head: &[u8]) -> Result<ModuleKind, NotAModule> {
    if head.is_empty() {
        return Err(NotAModule::Empty);
    }
    match ModuleKind::sniff(head) {
        ModuleKind::Ptx if !looks_like_text(head) => Err(NotAModule::Binary),
        kind => Ok(kind),
    }
}

/// UTF-8 (a character cut at the end allowed) without control characters other than layout, and
/// a NUL only as the last byte (a PTX image handed to the driver ends in one).
fn looks_like_text(head: &[u8]) -> bool {
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    let text = text.strip_suffix('\0').unwrap_or(text);
    text.chars()
        .all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t' | '\x0c'))
}

/// The image's kind once checked through: PTX with its `.version` and `.target` directives, a
/// cubin whose ELF header names the CUDA machine and whose sections can be read, or a fatbinary
/// whose entries lie inside it (each uncompressed cubin in it checked as one).
pub fn recognise(image: &[u8]) -> Result<ModuleKind, NotAModule> {
    let kind = announced(&image[..image.len().min(HEADER_BYTES)])?;
    match kind {
        ModuleKind::Ptx => {
            let text = std::str::from_utf8(image.strip_suffix(b"\0").unwrap_or(image))
                .map_err(|_| NotAModule::Binary)?;
            let has = |d: &str| text.lines().any(|l| l.trim_start().starts_with(d));
            if !(has(".version") && has(".target")) {
                return Err(NotAModule::NotPtx);
            }
        }
        ModuleKind::Cubin => {
            cubin_entries(image)?;
        }
        ModuleKind::Fatbin => {
            fatbin_entries(image)?;
        }
    }
    Ok(kind)
}

/// The entry points an image exports, when they can be listed: `None` for a fatbinary holding
/// compressed images (the driver names a missing entry when it is looked up) or for bytes that
/// are not a module.
pub fn listed_entries(image: &[u8]) -> Option<Vec<String>> {
    let mut names = match announced(&image[..image.len().min(HEADER_BYTES)]).ok()? {
        ModuleKind::Ptx => ptx_entries(&String::from_utf8_lossy(image)),
        ModuleKind::Cubin => cubin_entries(image).ok()?,
        ModuleKind::Fatbin => fatbin_entries(image).ok()??,
    };
    names.sort();
    names.dedup();
    Some(names)
}

/// The entry points of a module, for messages: [`listed_entries`], or none when they cannot be
/// listed.
pub fn module_entries(image: &[u8]) -> Vec<String> {
    listed_entries(image).unwrap_or_default()
}

/// `.entry NAME` in PTX text, in order.
pub fn ptx_entries(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        while let Some(w) = words.next() {
            if w == ".entry" {
                if let Some(name) = words.next() {
                    let name = name.split('(').next().unwrap_or(name);
                    if !name.is_empty() {
                        names.push(name.to_owned());
                    }
                }
                break;
            }
        }
    }
    names
}

/// A cubin's kernel entries: its function symbols marked as entries. Fails unless the image is
/// a 64-bit ELF file for the CUDA machine whose symbol table can be read.
fn cubin_entries(image: &[u8]) -> Result<Vec<String>, NotAModule> {
    // e_machine sits at the same offset in 32- and 64-bit headers: name the machine of any ELF.
    if let Some(m) = image.get(18..20) {
        let machine = u16::from_le_bytes([m[0], m[1]]);
        if machine != EM_CUDA && image.get(5) == Some(&1) {
            return Err(NotAModule::ForeignElf(machine));
        }
    }
    let bad = |e: object::read::Error| NotAModule::BadElf(e.to_string());
    let header = FileHeader64::<Endianness>::parse(image).map_err(bad)?;
    let endian = header.endian().map_err(bad)?;
    let machine = header.e_machine(endian);
    if machine != EM_CUDA {
        return Err(NotAModule::ForeignElf(machine));
    }
    let sections = header.sections(endian, image).map_err(bad)?;
    let symbols = sections.symbols(endian, image, SHT_SYMTAB).map_err(bad)?;
    let mut names = Vec::new();
    for sym in symbols.iter() {
        if sym.st_type() == STT_FUNC && sym.st_other() & STO_CUDA_ENTRY != 0 {
            let name = symbols.symbol_name(endian, sym).map_err(bad)?;
            names.push(String::from_utf8_lossy(name).into_owned());
        }
    }
    Ok(names)
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// A fatbinary's entries: the header (magic, version, header size, size of what follows) and
/// each entry (kind, header size, payload size, flags) must lie inside the image; the entries of
/// its uncompressed cubins and PTX, or `None` when some image in it is compressed.
fn fatbin_entries(image: &[u8]) -> Result<Option<Vec<String>>, NotAModule> {
    let bad = |what: String| NotAModule::BadFatbin(what);
    if u32_at(image, 0) != Some(FATBIN_MAGIC) {
        return Err(bad("no fatbinary magic".into()));
    }
    let header = u16_at(image, 6).map_or(0, usize::from);
    let size = u64_at(image, 8).ok_or_else(|| bad("its header is cut short".into()))?;
    if header < FATBIN_HEADER {
        return Err(bad(format!("a header of {header} bytes")));
    }
    let end = usize::try_from(size)
        .ok()
        .and_then(|s| s.checked_add(header))
        .filter(|&e| e <= image.len())
        .ok_or_else(|| {
            bad(format!(
                "it announces {size} bytes after its header, but has {}",
                image.len().saturating_sub(header)
            ))
        })?;
    let mut names = Vec::new();
    let mut listed = true;
    let mut at = header;
    let mut count = 0;
    while at < end {
        let kind = u16_at(image, at).ok_or_else(|| bad("an entry is cut short".into()))?;
        let entry_header = u32_at(image, at + 4).map_or(0, |h| h as usize);
        let payload_size = u64_at(image, at + 8).unwrap_or(u64::MAX);
        let flags = u64_at(image, at + 40).unwrap_or(0);
        let decompressed = if entry_header >= 64 {
            u64_at(image, at + 56).unwrap_or(0)
        } else {
            0
        };
        if entry_header < FATBIN_ENTRY_MIN {
            return Err(bad(format!(
                "entry {count} has a header of {entry_header} bytes"
            )));
        }
        let start = at + entry_header;
        let stop = usize::try_from(payload_size)
            .ok()
            .and_then(|s| start.checked_add(s))
            .filter(|&s| s <= end)
            .ok_or_else(|| bad(format!("entry {count} runs past the end")))?;
        let payload = &image[start..stop];
        if flags & FATBIN_COMPRESSED != 0 || decompressed != 0 {
            listed = false;
        } else if kind == FatbinPayload::Elf as u16 {
            names.extend(cubin_entries(payload).map_err(|e| bad(format!("entry {count}: {e}")))?);
        } else if kind == FatbinPayload::Ptx as u16 {
            names.extend(ptx_entries(&String::from_utf8_lossy(payload)));
        }
        at = stop;
        count += 1;
    }
    if count == 0 {
        return Err(bad("it holds no entries".into()));
    }
    Ok(listed.then_some(names))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal 64-bit little-endian ELF file: the header alone, for `machine`, with no
    /// sections.
    pub(crate) fn elf_header(machine: u16) -> Vec<u8> {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2; // ELFCLASS64
        h[5] = 1; // little-endian
        h[6] = 1; // EV_CURRENT
        h[16..18].copy_from_slice(&1u16.to_le_bytes()); // ET_REL
        h[18..20].copy_from_slice(&machine.to_le_bytes());
        h[20..24].copy_from_slice(&1u32.to_le_bytes());
        h[52..54].copy_from_slice(&64u16.to_le_bytes()); // e_ehsize
        h
    }

    /// A fatbinary holding `entries` as (kind, payload, compressed).
    pub(crate) fn fatbin(entries: &[(u16, &[u8], bool)]) -> Vec<u8> {
        let mut body = Vec::new();
        for (kind, payload, compressed) in entries {
            let mut e = vec![0u8; 64];
            e[..2].copy_from_slice(&kind.to_le_bytes());
            e[4..8].copy_from_slice(&64u32.to_le_bytes());
            e[8..16].copy_from_slice(&(payload.len() as u64).to_le_bytes());
            let flags: u64 = 0x11 | if *compressed { 0x8000 } else { 0 };
            e[40..48].copy_from_slice(&flags.to_le_bytes());
            body.extend(e);
            body.extend_from_slice(payload);
        }
        let mut f = Vec::new();
        f.extend(FATBIN_MAGIC.to_le_bytes());
        f.extend(1u16.to_le_bytes());
        f.extend(16u16.to_le_bytes());
        f.extend((body.len() as u64).to_le_bytes());
        f.extend(body);
        f
    }

    const PTX: &str = ".version 8.5\n.target sm_90\n.visible .entry gemm_tm8_tn8(\n\t.param .u64 a\n)\n\
                       .maxntid 64, 1, 1\n{\n}\n.visible .entry memcpy_t32_l14_w4(.param .u64 s)\n{}\n\
                       .func helper()\n";

    #[test]
    fn ptx_is_text_with_its_directives_and_lists_its_entries() {
        assert_eq!(recognise(PTX.as_bytes()), Ok(ModuleKind::Ptx));
        assert_eq!(
            module_entries(PTX.as_bytes()),
            ["gemm_tm8_tn8", "memcpy_t32_l14_w4"]
        );
        let nul = format!("{PTX}\0");
        assert_eq!(recognise(nul.as_bytes()), Ok(ModuleKind::Ptx));
        assert_eq!(recognise(b"notes, not PTX\n"), Err(NotAModule::NotPtx));
        assert_eq!(recognise(b""), Err(NotAModule::Empty));
        assert_eq!(recognise(&[0u8; 4096]), Err(NotAModule::Binary));
        assert_eq!(announced(b"\x00\x01\x02binary"), Err(NotAModule::Binary));
        // A multi-byte character cut by the header's end is still text.
        let cut = "// é".as_bytes();
        assert_eq!(announced(&cut[..cut.len() - 1]), Ok(ModuleKind::Ptx));
    }

    #[test]
    fn an_elf_file_is_a_cubin_only_for_nvidias_machine() {
        // x86-64 (62), as /bin/ls.
        let e = recognise(&elf_header(62)).unwrap_err();
        assert_eq!(e, NotAModule::ForeignElf(62));
        assert!(e.to_string().contains("machine 62") && e.to_string().contains("190"));
        assert_eq!(listed_entries(&elf_header(62)), None);
        // The right machine, but cut short: damaged.
        assert!(matches!(
            recognise(&elf_header(EM_CUDA)[..40]),
            Err(NotAModule::BadElf(_))
        ));
        assert!(matches!(
            recognise(b"\x7fELF\x02\x01\x01\0.text.gemm_tm8_tn8\0"),
            Err(NotAModule::BadElf(_) | NotAModule::ForeignElf(_))
        ));
        // A cubin without a symbol table exports nothing.
        let cubin = elf_header(EM_CUDA);
        assert_eq!(recognise(&cubin), Ok(ModuleKind::Cubin));
        assert_eq!(listed_entries(&cubin), Some(vec![]));
    }

    #[test]
    fn a_fatbin_lists_its_uncompressed_images_and_must_hold_together() {
        let f = fatbin(&[(FatbinPayload::Ptx as u16, PTX.as_bytes(), false)]);
        assert_eq!(recognise(&f), Ok(ModuleKind::Fatbin));
        assert_eq!(
            listed_entries(&f),
            Some(vec!["gemm_tm8_tn8".into(), "memcpy_t32_l14_w4".into()])
        );
        // A compressed image cannot be listed: left to the driver.
        let c = fatbin(&[
            (FatbinPayload::Ptx as u16, PTX.as_bytes(), false),
            (FatbinPayload::Elf as u16, b"(zstd)", true),
        ]);
        assert_eq!(recognise(&c), Ok(ModuleKind::Fatbin));
        assert_eq!(listed_entries(&c), None);
        // A foreign ELF inside is refused.
        let x = fatbin(&[(FatbinPayload::Elf as u16, &elf_header(62), false)]);
        let e = recognise(&x).unwrap_err().to_string();
        assert!(e.contains("entry 0") && e.contains("machine 62"), "{e}");
        // Cut short, or announcing more than it holds.
        let mut huge = f.clone();
        huge[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        let (empty, cut, header) = (fatbin(&[]), &f[..f.len() - 1], &f[..20]);
        for (i, bad) in [cut, header, &empty, &huge].into_iter().enumerate() {
            let e = recognise(bad);
            assert!(
                matches!(e, Err(NotAModule::BadFatbin(_))),
                "case {i}: {e:?}"
            );
        }
    }
}
