//! The parts of a device ELF (AMDGPU code object, CUDA cubin) the image decoders read: the file
//! header, the section headers with names and bytes, the symbols, and the notes. The `object`
//! crate reads the header and tables, checking every offset against the buffer; notes are walked
//! here so that each one keeps its byte offset for the views.
//!
//! | field | ELF32 offset | ELF64 offset | size |
//! |---|---|---|---|
//! | `e_ident[EI_CLASS]`, `[EI_DATA]` | 4, 5 | 4, 5 | 1, 1 |
//! | `e_ident[EI_OSABI]`, `[EI_ABIVERSION]` | 7, 8 | 7, 8 | 1, 1 |
//! | `e_type`, `e_machine` | 16, 18 | 16, 18 | 2, 2 |
//! | `e_flags` | 36 | 48 | 4 |
//!
//! A note (in an `SHT_NOTE` section, or a `PT_NOTE` segment when there are no sections) is
//! `namesz: u32, descsz: u32, type: u32`, the name padded to 4 bytes, the descriptor padded to 4
//! bytes (8 when the section is 8-aligned).

use crate::error::{Error, Result};
use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, Sym};
use object::Endianness;

const CONTEXT: &str = "ELF header";
/// `sh_flags` bit of a section holding instructions.
const SHF_EXECINSTR: u64 = 0x4;

/// One section: its header fields and, when the file holds them, its bytes.
#[derive(Clone, Debug)]
pub struct Section<'a> {
    pub index: usize,
    /// The name, borrowed from the string table (empty when it is not UTF-8): names are never
    /// copied here, since many headers may name one long string.
    pub name: &'a str,
    pub sh_type: u32,
    pub flags: u64,
    /// `sh_addr`: where the section is loaded (code addresses in a listing).
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    /// `None` for `SHT_NOBITS` and for ranges outside the file.
    pub data: Option<&'a [u8]>,
}

#[derive(Clone, Debug)]
pub struct Symbol<'a> {
    pub name: &'a str,
    pub value: u64,
    pub size: u64,
    pub st_type: u8,
    pub bind: u8,
    pub other: u8,
    pub section: usize,
}

/// A note and where its parts lie in the file.
#[derive(Clone, Debug)]
pub struct Note<'a> {
    /// Offset of the note header in the file.
    pub offset: u64,
    pub name: &'a [u8],
    pub note_type: u32,
    pub desc: &'a [u8],
    /// Offset of the descriptor in the file.
    pub desc_offset: u64,
}

impl Note<'_> {
    /// The owner name without its terminating NUL.
    pub fn owner(&self) -> &[u8] {
        self.name.strip_suffix(&[0]).unwrap_or(self.name)
    }
}

#[derive(Clone, Debug)]
pub struct Elf<'a> {
    pub data: &'a [u8],
    pub is_64: bool,
    pub little_endian: bool,
    pub os_abi: u8,
    pub abi_version: u8,
    pub e_type: u16,
    pub machine: u16,
    pub flags: u32,
    pub sections: Vec<Section<'a>>,
    pub symbols: Vec<Symbol<'a>>,
    /// (offset, size, alignment) of every note area: `SHT_NOTE` sections, or `PT_NOTE`
    /// segments when the file has no section headers.
    pub note_areas: Vec<(u64, u64, u64)>,
}

/// The error in an ELF identification (`e_ident`): a class, byte order or version that no ELF
/// reader accepts, at its byte offset. `None` when `head` is no ELF (no `\x7fELF`), is too short
/// to tell, or is identified well. llvm-readelf refuses such a file too ("Invalid ELF class"), so
/// the file is an error, not an "ELF object" without device code.
pub fn ident_error(head: &[u8]) -> Option<Error> {
    if !head.starts_with(b"\x7fELF") {
        return None;
    }
    let checks: [(u64, &[u8], &str); 3] = [
        (4, &[1, 2], "ELF class 1 (32-bit) or 2 (64-bit)"),
        (5, &[1, 2], "ELF byte order 1 (little-endian) or 2 (big-endian)"),
        (6, &[1], "ELF version 1 (EV_CURRENT)"),
    ];
    checks.into_iter().find_map(|(at, allowed, expected)| {
        let byte = *head.get(at as usize)?;
        (!allowed.contains(&byte)).then(|| Error::new(at, "ELF identification", expected, format!("{byte}")))
    })
}

impl<'a> Elf<'a> {
    pub fn parse(data: &'a [u8]) -> Result<Elf<'a>> {
        if let Some(e) = ident_error(data) {
            return Err(e);
        }
        match data.get(4) {
            Some(1) => parse_as::<elf::FileHeader32<Endianness>>(data, false),
            Some(2) => parse_as::<elf::FileHeader64<Endianness>>(data, true),
            other => Err(Error::new(4, CONTEXT, "ELF class 1 (32-bit) or 2 (64-bit)", format!("{other:?}"))),
        }
    }

    /// Offset and width of `e_flags` in the header.
    pub fn flags_field(&self) -> (u64, u64) {
        (if self.is_64 { 48 } else { 36 }, 4)
    }

    pub fn class_name(&self) -> &'static str {
        if self.is_64 {
            "ELF64"
        } else {
            "ELF32"
        }
    }

    pub fn section(&self, name: &str) -> Option<&Section<'a>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The instruction bytes of the image, for telling images whose code is identical apart:
    /// the size and the XXH3-64 hash of every executable (`SHF_EXECINSTR`) section, name and
    /// bytes, in section order (an AMDGPU code object's `.text`; a cubin's `.text.<kernel>`).
    /// Headers, notes and metadata, which name the processor, are left out. `None` when the
    /// file has no executable section with bytes.
    pub fn code_digest(&self) -> Option<(u64, u64)> {
        let mut hasher = xxhash_rust::xxh3::Xxh3Default::new();
        let mut size = 0u64;
        for s in self.sections.iter().filter(|s| s.flags & SHF_EXECINSTR != 0) {
            let Some(data) = s.data else { continue };
            // The name's length first, so that a name and bytes never read as another pair.
            hasher.update(&(s.name.len() as u64).to_le_bytes());
            hasher.update(s.name.as_bytes());
            hasher.update(data);
            size = size.saturating_add(data.len() as u64);
        }
        (size > 0).then(|| (size, hasher.digest()))
    }

    /// Every note, and the first error met in each note area (the notes before it are kept).
    pub fn notes(&self) -> (Vec<Note<'a>>, Vec<Error>) {
        let mut notes = Vec::new();
        let mut errors = Vec::new();
        for &(offset, size, align) in &self.note_areas {
            if let Err(e) = walk_notes(self.data, offset, size, align, self.little_endian, &mut notes) {
                errors.push(e);
            }
        }
        (notes, errors)
    }
}

fn object_error(e: object::read::Error, what: &str) -> Error {
    Error::new(0, CONTEXT, format!("a readable {what}"), e.to_string())
}

fn parse_as<'a, H: FileHeader<Endian = Endianness>>(data: &'a [u8], is_64: bool) -> Result<Elf<'a>> {
    let header = H::parse(data).map_err(|e| object_error(e, "ELF file header"))?;
    let endian = header.endian().map_err(|e| object_error(e, "ELF byte order"))?;
    let ident = header.e_ident();
    let mut out = Elf {
        data,
        is_64,
        little_endian: endian == Endianness::Little,
        os_abi: ident.os_abi.0,
        abi_version: ident.abi_version,
        e_type: header.e_type(endian).0,
        machine: header.e_machine(endian).0,
        flags: header.e_flags(endian).0,
        sections: Vec::new(),
        symbols: Vec::new(),
        note_areas: Vec::new(),
    };
    let table = header.sections(endian, data).map_err(|e| object_error(e, "section header table"))?;
    for (i, s) in table.iter().enumerate() {
        let name = table.section_name(endian, s).ok().and_then(|n| core::str::from_utf8(n).ok()).unwrap_or("");
        let sh_type = s.sh_type(endian).0;
        let bytes = if sh_type == elf::SHT_NOBITS.0 { None } else { s.data(endian, data).ok() };
        let (offset, size): (u64, u64) = (s.sh_offset(endian).into(), s.sh_size(endian).into());
        let align: u64 = s.sh_addralign(endian).into();
        if sh_type == elf::SHT_NOTE.0 {
            out.note_areas.push((offset, size, align));
        }
        out.sections.push(Section {
            index: i,
            name,
            sh_type,
            flags: s.sh_flags(endian).0,
            addr: s.sh_addr(endian).into(),
            offset,
            size,
            link: s.sh_link(endian),
            info: s.sh_info(endian),
            align,
            data: bytes,
        });
    }
    if table.is_empty() {
        if let Ok(segments) = header.program_headers(endian, data) {
            for p in segments.iter().filter(|p| p.p_type(endian) == elf::PT_NOTE) {
                out.note_areas.push((p.p_offset(endian).into(), p.p_filesz(endian).into(), p.p_align(endian).into()));
            }
        }
    }
    if let Ok(symbols) = table.symbols(endian, data, elf::SHT_SYMTAB) {
        for sym in symbols.iter() {
            let name = symbols.symbol_name(endian, sym).ok().and_then(|n| core::str::from_utf8(n).ok()).unwrap_or("");
            out.symbols.push(Symbol {
                name,
                value: sym.st_value(endian).into(),
                size: sym.st_size(endian).into(),
                st_type: sym.st_type().0,
                bind: sym.st_bind().0,
                other: sym.st_other().0,
                section: sym.st_shndx(endian).0 as usize,
            });
        }
    }
    Ok(out)
}

const NOTE_CONTEXT: &str = "ELF note";

/// Reads the notes in `data[offset..offset + size]`, checked against the file and the area.
fn walk_notes<'a>(
    data: &'a [u8],
    offset: u64,
    size: u64,
    align: u64,
    little: bool,
    out: &mut Vec<Note<'a>>,
) -> Result<()> {
    let end = offset.checked_add(size).filter(|&e| e <= data.len() as u64).ok_or_else(|| {
        Error::new(
            offset,
            NOTE_CONTEXT,
            format!("a note area within the {} bytes of the file", data.len()),
            format!("{size} bytes at {offset}"),
        )
    })?;
    let align = if align == 8 { 8 } else { 4 };
    let u32_at = |at: u64| {
        let b = [data[at as usize], data[at as usize + 1], data[at as usize + 2], data[at as usize + 3]];
        if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    };
    let mut pos = offset;
    while pos < end {
        if end - pos < 12 {
            return Err(Error::new(
                pos,
                NOTE_CONTEXT,
                "a 12-byte note header",
                format!("{} bytes left in the note area", end - pos),
            ));
        }
        let (namesz, descsz, note_type) = (u32_at(pos) as u64, u32_at(pos + 4) as u64, u32_at(pos + 8));
        let name_at = pos + 12;
        let desc_at = name_at + pad(namesz, 4);
        let next = desc_at.saturating_add(pad(descsz, align));
        if desc_at > end || desc_at + descsz > end {
            let at = if desc_at > end { pos } else { pos + 4 };
            return Err(Error::new(
                at,
                NOTE_CONTEXT,
                format!("a name and descriptor within the {} bytes left in the note area", end - name_at),
                format!("name size {namesz}, descriptor size {descsz}"),
            ));
        }
        out.push(Note {
            offset: pos,
            name: &data[name_at as usize..(name_at + namesz) as usize],
            note_type,
            desc: &data[desc_at as usize..(desc_at + descsz) as usize],
            desc_offset: desc_at,
        });
        pos = next.min(end);
    }
    Ok(())
}

/// `n` rounded up to a multiple of `to` (4 or 8), without overflow for u32-sized `n`.
fn pad(n: u64, to: u64) -> u64 {
    n.div_ceil(to) * to
}
