//! Relocatable ELF objects (32/64-bit, either byte order, no program headers), read into a model
//! that can add, remove or replace sections, and written back exactly as llvm-objcopy 22 writes
//! them. clang-offload-bundler makes and takes apart bundled objects by running llvm-objcopy, so
//! writing its layout is what makes our bundled objects, and the host object we unbundle, the
//! same bytes as LLVM's.
//!
//! What llvm-objcopy does to a relocatable object, and so what [`RelocatableElf::write`] does:
//!
//! | part | written as |
//! |---|---|
//! | ELF header | identification, type, machine, version, entry and flags as read; no program headers (`e_phoff`, `e_phentsize`, `e_phnum` zero); `e_shoff`, `e_shnum`, `e_shstrndx` for the new table |
//! | section order | as read, removed sections dropped, added sections last; index = position + 1 |
//! | file layout | sections sorted by their offset in the input (stable; added sections count as offset 2^64 - 1), each placed at the next multiple of its alignment (0 counts as 1) after the ELF header and the previous section; `SHT_NOBITS` takes no bytes |
//! | section header table | after the last section, at the next multiple of the word size (8 or 4), one null header then one per section |
//! | string tables (non-allocated `SHT_STRTAB`) | rebuilt by LLVM's `StringTableBuilder` (see [`crate::util::strtab`]) from the section names (for the `e_shstrndx` table) and the symbol names (for the symbol table's), nothing else |
//! | symbol table | local symbols moved first (stable), names re-pointed, `st_shndx` renumbered; alignment and entry size set to the word size and the symbol size; `sh_info` = last local index + 1 |
//! | relocation sections (`SHT_REL`, `SHT_RELA`) | the same entries with renumbered symbols; `sh_link` = symbol table, `sh_info` = the section they apply to; alignment word size |
//! | groups (`SHT_GRP`) | flag word (COMDAT dropped when the signature symbol is local) and renumbered members; `sh_link` = symbol table, `sh_info` = signature symbol |
//! | other sections | bytes as read; `sh_link` renumbered when it names a section (set to 0 when it names the symbol table and symbols were renumbered); `sh_info` as read |
//! | added sections | `SHT_PROGBITS`, alignment 1, address 0, link and info 0, the flags asked for |
//! | replaced sections | header as read, new bytes and size, `sh_link` as read (llvm-objcopy `--update-section`) |
//! | gaps | zero bytes |
//!
//! Inputs llvm-objcopy would treat in ways not reproduced here are refused with a clear error:
//! program headers, `SHT_SYMTAB_SHNDX` and more than 65279 sections, allocated relocation
//! sections, `SHT_CREL`, dynamic symbol tables.

use crate::error::{Error, Result};
use crate::util::bytes::{align_up, checked_end, slice_at};
use crate::util::sort;
use crate::util::strtab::StringTable;
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_RELA: u32 = 4;
const SHT_DYNAMIC: u32 = 6;
const SHT_NOBITS: u32 = 8;
const SHT_REL: u32 = 9;
const SHT_DYNSYM: u32 = 11;
const SHT_GROUP: u32 = 17;
const SHT_SYMTAB_SHNDX: u32 = 18;
const SHT_CREL: u32 = 0x4000_0014;
/// Section flag: occupies memory at run time.
const SHF_ALLOC: u64 = 0x2;
/// Section flag: the contents are compressed (an `Elf_Chdr` and compressed bytes).
const SHF_COMPRESSED: u64 = 0x800;
/// Section flag: not to be included in a linked image (what llvm-objcopy's `exclude` sets).
pub const SHF_EXCLUDE: u64 = 0x8000_0000;
const GRP_COMDAT: u32 = 1;
const SHN_LORESERVE: u32 = 0xff00;
const SHN_ABS: u16 = 0xfff1;
const SHN_COMMON: u16 = 0xfff2;
const SHN_XINDEX: u16 = 0xffff;
const EM_MIPS: u16 = 8;
const EM_HEXAGON: u16 = 164;
const EM_AMDGPU: u16 = 224;
const STB_LOCAL: u8 = 0;

/// Class and byte order of the file: field sizes and how to read and write integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Form {
    is64: bool,
    big: bool,
}

impl Form {
    fn ehdr_size(self) -> u64 {
        if self.is64 {
            64
        } else {
            52
        }
    }
    fn shdr_size(self) -> u64 {
        if self.is64 {
            64
        } else {
            40
        }
    }
    fn sym_size(self) -> u64 {
        if self.is64 {
            24
        } else {
            16
        }
    }
    fn rel_size(self, rela: bool) -> u64 {
        match (self.is64, rela) {
            (true, true) => 24,
            (true, false) => 16,
            (false, true) => 12,
            (false, false) => 8,
        }
    }
    /// The size of an address, which is also what symbol and relocation tables are aligned to.
    fn word(self) -> u64 {
        if self.is64 {
            8
        } else {
            4
        }
    }

    fn read<const N: usize>(self, data: &[u8], at: u64, what: &'static str) -> Result<[u8; N]> {
        let bytes = slice_at(data, at, N as u64, at, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        if self.big {
            out.reverse();
        }
        Ok(out)
    }
    fn u8(self, data: &[u8], at: u64, what: &'static str) -> Result<u8> {
        Ok(self.read::<1>(data, at, what)?[0])
    }
    fn u16(self, data: &[u8], at: u64, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.read(data, at, what)?))
    }
    fn u32(self, data: &[u8], at: u64, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.read(data, at, what)?))
    }
    fn u64(self, data: &[u8], at: u64, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.read(data, at, what)?))
    }
    /// A field that is 8 bytes in ELF64 and 4 bytes in ELF32.
    fn word_at(self, data: &[u8], at: u64, what: &'static str) -> Result<u64> {
        if self.is64 {
            self.u64(data, at, what)
        } else {
            self.u32(data, at, what).map(u64::from)
        }
    }

    fn put(self, out: &mut [u8], at: u64, le_bytes: &[u8]) {
        let at = at as usize;
        let dst = &mut out[at..at + le_bytes.len()];
        dst.copy_from_slice(le_bytes);
        if self.big {
            dst.reverse();
        }
    }
    fn put_u16(self, out: &mut [u8], at: u64, v: u16) {
        self.put(out, at, &v.to_le_bytes())
    }
    fn put_u32(self, out: &mut [u8], at: u64, v: u32) {
        self.put(out, at, &v.to_le_bytes())
    }
    fn put_u64(self, out: &mut [u8], at: u64, v: u64) {
        self.put(out, at, &v.to_le_bytes())
    }
    /// Writes a word-sized field; in ELF32 only the low 32 bits (the value was read from 32 bits).
    fn put_word(self, out: &mut [u8], at: u64, v: u64) {
        if self.is64 {
            self.put_u64(out, at, v)
        } else {
            self.put_u32(out, at, v as u32)
        }
    }
}

/// The ELF header fields that are copied to the output.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FileHeader {
    os_abi: u8,
    abi_version: u8,
    e_type: u16,
    machine: u16,
    version: u32,
    entry: u64,
    flags: u32,
}

/// Where a section's `sh_link` points, for the sections whose link llvm-objcopy follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Link {
    None,
    /// Another section, by position.
    Section(usize),
    /// The symbol table: kept only while symbol indices are unchanged.
    SymbolTable,
}

/// What a section is, which decides how it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind<'a> {
    /// Bytes as read (none for `SHT_NOBITS`); the link follows the section it names.
    Data {
        bytes: Cow<'a, [u8]>,
        link: Link,
    },
    /// Bytes with link and info written exactly as read: compressed sections, and sections
    /// added or replaced (llvm-objcopy's owned data sections).
    Raw(Cow<'a, [u8]>),
    /// A string table rebuilt from the names that use it.
    StringTable,
    /// The symbol table; its names are in `strtab`.
    SymbolTable {
        strtab: usize,
    },
    Relocations {
        rela: bool,
        symtab: Option<usize>,
        target: Option<usize>,
        entries: Vec<Relocation>,
    },
    Group {
        symtab: Option<usize>,
        signature: Option<usize>,
        flag_word: u32,
        members: Vec<usize>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Section<'a> {
    name: Cow<'a, [u8]>,
    sh_type: u32,
    flags: u64,
    addr: u64,
    /// The size as read; for data it is the length of the bytes, except for `SHT_NOBITS`.
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
    /// Offset in the input file; decides the order of the output layout.
    original_offset: u64,
    /// Where this section's header was read, for error messages.
    header_at: u64,
    kind: Kind<'a>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum SectionIndex {
    Undefined,
    /// Defined in a section, by position.
    Section(usize),
    /// `SHN_ABS`, `SHN_COMMON` or a processor-specific reserved index, written as read.
    Reserved(u16),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Symbol<'a> {
    name: &'a [u8],
    info: u8,
    other: u8,
    shndx: SectionIndex,
    value: u64,
    size: u64,
    /// Index in the input symbol table: relocations and groups refer to symbols by it.
    original_index: usize,
}

impl Symbol<'_> {
    fn is_local(&self) -> bool {
        self.info >> 4 == STB_LOCAL
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Relocation {
    offset: u64,
    /// `r_info` as read; only its symbol part is rewritten.
    info: u64,
    addend: u64,
    /// Original index of the symbol, or `None` for symbol 0.
    symbol: Option<usize>,
}

/// A relocatable ELF object as llvm-objcopy models it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelocatableElf<'a> {
    form: Form,
    header: FileHeader,
    sections: Vec<Section<'a>>,
    /// The symbol table's symbols in their current order (empty without a symbol table).
    symbols: Vec<Symbol<'a>>,
    symtab: Option<usize>,
    /// The section-name string table (`e_shstrndx`), by position.
    shstrtab: usize,
    /// Set when symbols were removed: sections that merely link to the symbol table lose the link.
    symbols_removed: bool,
}

/// A section as seen from outside: its position and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionInfo<'s> {
    /// Position in the section table (the ELF section index is this + 1).
    pub position: usize,
    pub name: &'s [u8],
    pub sh_type: u32,
    pub flags: u64,
    /// The section's bytes (empty for `SHT_NOBITS` and rebuilt tables).
    pub data: &'s [u8],
}

fn err(at: u64, context: &'static str, expected: impl Into<String>, found: impl Into<String>) -> Error {
    Error::new(at, context, expected, found)
}

impl<'a> RelocatableElf<'a> {
    /// Reads an ELF file without program headers into the model.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let form = read_form(data)?;
        let (header, sh) = read_file_header(data, form)?;
        let raw = read_section_headers(data, form, &sh)?;
        let shstrtab = section_name_table(&raw, sh.shstrndx, sh.shstrndx_at)?;
        let mut sections = Vec::with_capacity(raw.len());
        for r in &raw {
            sections.push(make_section(data, r, &raw[shstrtab])?);
        }
        let mut elf = RelocatableElf {
            form,
            header,
            sections,
            symbols: Vec::new(),
            symtab: None,
            shstrtab,
            symbols_removed: false,
        };
        elf.read_symbol_table(data, &raw)?;
        elf.resolve_links(data, &raw)?;
        Ok(elf)
    }

    /// Every section, in order.
    pub fn sections(&self) -> Vec<SectionInfo<'_>> {
        self.sections
            .iter()
            .enumerate()
            .map(|(position, s)| SectionInfo {
                position,
                name: &s.name,
                sh_type: s.sh_type,
                flags: s.flags,
                data: match &s.kind {
                    Kind::Data { bytes, .. } | Kind::Raw(bytes) => bytes,
                    _ => &[],
                },
            })
            .collect()
    }

    /// Whether the file is a relocatable object (`ET_REL`).
    pub fn is_relocatable(&self) -> bool {
        self.header.e_type == 1
    }

    /// Appends a section holding `data`, as `llvm-objcopy --add-section NAME=FILE
    /// --set-section-flags NAME=...` does.
    pub fn add_section(&mut self, name: Vec<u8>, data: Cow<'a, [u8]>, flags: u64) {
        let size = data.len() as u64;
        self.sections.push(Section {
            name: Cow::Owned(name),
            sh_type: 1, // SHT_PROGBITS
            flags,
            addr: 0,
            size,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
            original_offset: u64::MAX,
            header_at: 0,
            kind: Kind::Raw(data),
        });
    }

    /// Replaces the bytes of the section at `position`, keeping its header, as
    /// `llvm-objcopy --update-section` does.
    pub fn replace_data(&mut self, position: usize, data: Cow<'a, [u8]>) -> Result<()> {
        let s = self
            .sections
            .get_mut(position)
            .ok_or_else(|| err(0, "section to replace", "an existing section", format!("position {position}")))?;
        let replaceable = matches!(s.kind, Kind::Data { .. } | Kind::Raw(_)) && s.sh_type != SHT_NOBITS;
        if !replaceable {
            return Err(err(
                s.header_at,
                "section to replace",
                "a section that holds plain bytes",
                format!("section `{}` of type {:#x}", String::from_utf8_lossy(&s.name), s.sh_type),
            ));
        }
        s.size = data.len() as u64;
        s.kind = Kind::Raw(data);
        Ok(())
    }

    /// What would point past the end of the section at `position` if it held only `len` bytes:
    /// a symbol defined in it beyond that end, or a relocation applied there.
    pub fn reference_beyond(&self, position: usize, len: u64) -> Option<String> {
        let symbol = self.symbols.iter().find(|y| y.shndx == SectionIndex::Section(position) && y.value > len);
        if let Some(y) = symbol {
            return Some(format!("symbol `{}` at offset {:#x}", String::from_utf8_lossy(y.name), y.value));
        }
        self.sections.iter().find_map(|s| match &s.kind {
            Kind::Relocations { target: Some(t), entries, .. } if *t == position => entries
                .iter()
                .find(|e| e.offset >= len)
                .map(|e| format!("a relocation at offset {:#x} (in `{}`)", e.offset, String::from_utf8_lossy(&s.name))),
            _ => None,
        })
    }

    /// Removes every section whose name satisfies `remove`, with what llvm-objcopy
    /// `--remove-section` removes along with them (their relocation sections, groups left
    /// empty, symbols defined in them). Returns how many sections were removed.
    pub fn remove_sections(&mut self, remove: impl Fn(&[u8]) -> bool) -> Result<usize> {
        let mut doomed: Vec<bool> = self.sections.iter().map(|s| remove(&s.name)).collect();
        for (i, s) in self.sections.iter().enumerate() {
            if doomed[i] && !matches!(s.kind, Kind::Data { .. } | Kind::Raw(_)) {
                return Err(err(
                    s.header_at,
                    "section removal",
                    "only plain data sections to be removed",
                    format!("`{}`, a table other sections depend on", String::from_utf8_lossy(&s.name)),
                ));
            }
        }
        let dependents: Vec<bool> = self.sections.iter().map(|s| is_dependent_of(s, &doomed)).collect();
        for (d, dep) in doomed.iter_mut().zip(dependents) {
            *d |= dep;
        }
        self.check_removable(&doomed)?;
        self.remove_symbols_defined_in(&doomed)?;
        let removed = doomed.iter().filter(|&&d| d).count();
        self.drop_sections(&doomed);
        Ok(removed)
    }

    /// Writes the object in llvm-objcopy's layout.
    pub fn write(&self) -> Result<Vec<u8>> {
        if self.sections.len() + 1 >= SHN_LORESERVE as usize {
            return Err(err(
                0,
                "section count",
                format!("fewer than {} sections", SHN_LORESERVE - 1),
                format!("{}", self.sections.len()),
            ));
        }
        let order = self.symbol_order();
        let tables = self.string_tables();
        let sizes = self.section_sizes(&tables)?;
        let (offsets, shoff) = self.layout(&sizes)?;
        let count = self.sections.len() as u64 + 1;
        let total = checked_end(
            shoff,
            count.checked_mul(self.form.shdr_size()).ok_or_else(|| overflow("section header table"))?,
            0,
            "output size",
        )?;
        self.check_padding(total, &sizes)?;
        let total = usize::try_from(total).map_err(|_| overflow("output size"))?;
        let mut out = vec![0u8; total];
        self.write_file_header(&mut out, shoff);
        for (i, &at) in offsets.iter().enumerate() {
            self.write_contents(&mut out, i, at, &tables, &order)?;
        }
        self.write_section_headers(&mut out, shoff, &offsets, &sizes, &tables, &order);
        Ok(out)
    }
}

fn overflow(what: &'static str) -> Error {
    err(0, what, "sizes that fit in 64 bits", "an overflow")
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

fn read_form(data: &[u8]) -> Result<Form> {
    if !data.starts_with(b"\x7fELF") {
        let found = data.get(..4).map(|m| format!("{m:02x?}")).unwrap_or_else(|| format!("{} bytes", data.len()));
        return Err(err(0, "ELF magic", "7f 45 4c 46", found));
    }
    let is64 = match data.get(4) {
        Some(1) => false,
        Some(2) => true,
        other => return Err(err(4, "ELF class", "1 (32-bit) or 2 (64-bit)", format!("{other:?}"))),
    };
    let big = match data.get(5) {
        Some(1) => false,
        Some(2) => true,
        other => return Err(err(5, "ELF data encoding", "1 (little-endian) or 2 (big-endian)", format!("{other:?}"))),
    };
    Ok(Form { is64, big })
}

/// Where the section header table is and how to read it.
struct SectionTable {
    offset: u64,
    count: u64,
    shstrndx: u32,
    shstrndx_at: u64,
}

fn read_file_header(data: &[u8], form: Form) -> Result<(FileHeader, SectionTable)> {
    let f = form;
    let w = if f.is64 { 8 } else { 4 };
    // Offsets of e_phoff and what follows depend on the word size.
    let phoff_at = 24 + w;
    let shoff_at = phoff_at + w;
    let flags_at = shoff_at + w;
    let header = FileHeader {
        os_abi: f.u8(data, 7, "ELF OS/ABI")?,
        abi_version: f.u8(data, 8, "ELF ABI version")?,
        e_type: f.u16(data, 16, "ELF type")?,
        machine: f.u16(data, 18, "ELF machine")?,
        version: f.u32(data, 20, "ELF version")?,
        entry: f.word_at(data, 24, "ELF entry")?,
        flags: f.u32(data, flags_at, "ELF flags")?,
    };
    let phnum = f.u16(data, flags_at + 8, "program header count")?;
    if phnum != 0 {
        return Err(err(
            flags_at + 8,
            "program header count",
            "an object without program headers (a relocatable object)",
            format!("{phnum} program headers"),
        ));
    }
    let shentsize = f.u16(data, flags_at + 10, "section header size")?;
    if u64::from(shentsize) != f.shdr_size() {
        return Err(err(flags_at + 10, "section header size", format!("{}", f.shdr_size()), format!("{shentsize}")));
    }
    let offset = f.word_at(data, shoff_at, "section header table offset")?;
    if offset == 0 {
        return Err(err(shoff_at, "section header table offset", "a section header table", "none (offset 0)"));
    }
    let mut count = u64::from(f.u16(data, flags_at + 12, "section count")?);
    let mut shstrndx = u32::from(f.u16(data, flags_at + 14, "section name table index")?);
    // Large files keep the real count in section 0's sh_size and the index in its sh_link.
    let zero = offset;
    if count == 0 {
        count = f.word_at(data, zero + if f.is64 { 32 } else { 20 }, "extended section count")?;
    }
    if shstrndx == u32::from(SHN_XINDEX) {
        shstrndx = f.u32(data, zero + if f.is64 { 40 } else { 24 }, "extended section name table index")?;
    }
    let room = (data.len() as u64).saturating_sub(offset) / f.shdr_size();
    if count > room || count == 0 {
        return Err(err(
            offset,
            "section header table",
            format!("between 1 and {room} section headers (what fits in the file)"),
            format!("{count}"),
        ));
    }
    Ok((header, SectionTable { offset, count, shstrndx, shstrndx_at: flags_at + 14 }))
}

/// One section header as read, with its name offset not yet resolved.
struct RawSection {
    at: u64,
    name: u32,
    sh_type: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

impl RawSection {
    fn contents<'a>(&self, data: &'a [u8]) -> Result<&'a [u8]> {
        if self.sh_type == SHT_NOBITS {
            return Ok(&[]);
        }
        slice_at(data, self.offset, self.size, self.at, "section contents")
    }
}

/// The section headers after the null one (position `i` is section index `i + 1`).
fn read_section_headers(data: &[u8], f: Form, t: &SectionTable) -> Result<Vec<RawSection>> {
    let mut out = Vec::with_capacity(t.count as usize);
    for i in 1..t.count {
        let at = t.offset + i * f.shdr_size();
        let (w, base) = if f.is64 { (8, 24) } else { (4, 16) };
        out.push(RawSection {
            at,
            name: f.u32(data, at, "section name offset")?,
            sh_type: f.u32(data, at + 4, "section type")?,
            flags: f.word_at(data, at + 8, "section flags")?,
            addr: f.word_at(data, at + 8 + w, "section address")?,
            offset: f.word_at(data, at + base, "section offset")?,
            size: f.word_at(data, at + base + w, "section size")?,
            link: f.u32(data, at + base + 2 * w, "section link")?,
            info: f.u32(data, at + base + 2 * w + 4, "section info")?,
            align: f.word_at(data, at + base + 2 * w + 8, "section alignment")?,
            entsize: f.word_at(data, at + base + 3 * w + 8, "section entry size")?,
        });
    }
    Ok(out)
}

fn is_string_table(r: &RawSection) -> bool {
    r.sh_type == SHT_STRTAB && r.flags & SHF_ALLOC == 0
}

/// Position of the section-name string table, which must be a non-allocated string table.
fn section_name_table(raw: &[RawSection], index: u32, at: u64) -> Result<usize> {
    let position = (index as usize).checked_sub(1).filter(|&p| p < raw.len());
    match position {
        Some(p) if is_string_table(&raw[p]) => Ok(p),
        _ => Err(err(
            at,
            "section name table index",
            format!("the index of a non-allocated string table among {} sections", raw.len() + 1),
            format!("{index}"),
        )),
    }
}

/// The NUL-terminated string at `offset` of a string table.
fn string_at<'a>(table: &'a [u8], offset: u32, at: u64, what: &'static str) -> Result<&'a [u8]> {
    let rest = table.get(offset as usize..).ok_or_else(|| {
        err(at, what, format!("an offset within the {}-byte string table", table.len()), format!("{offset}"))
    })?;
    let end = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| err(at, what, "a NUL-terminated string", "a string running to the end of its table"))?;
    Ok(&rest[..end])
}

fn make_section<'a>(data: &'a [u8], r: &RawSection, names: &RawSection) -> Result<Section<'a>> {
    let name = string_at(names.contents(data)?, r.name, r.at, "section name")?;
    let alloc = r.flags & SHF_ALLOC != 0;
    let refuse = |what: &str| {
        Err(err(
            r.at,
            "section type",
            format!("a section llvm-objcopy's layout is reproduced for, not {what}"),
            format!("`{}` of type {:#x}", String::from_utf8_lossy(name), r.sh_type),
        ))
    };
    let kind = match r.sh_type {
        SHT_REL | SHT_RELA if alloc => return refuse("an allocated relocation section"),
        SHT_REL | SHT_RELA => {
            Kind::Relocations { rela: r.sh_type == SHT_RELA, symtab: None, target: None, entries: Vec::new() }
        }
        SHT_CREL => return refuse("a compact relocation section (SHT_CREL)"),
        SHT_STRTAB if !alloc => Kind::StringTable,
        SHT_SYMTAB => Kind::SymbolTable { strtab: 0 },
        SHT_SYMTAB_SHNDX => return refuse("an extended section index table (SHT_SYMTAB_SHNDX)"),
        SHT_DYNSYM | SHT_DYNAMIC => return refuse("a dynamic section"),
        SHT_GROUP => Kind::Group { symtab: None, signature: None, flag_word: 0, members: Vec::new() },
        // Compressed sections keep their link and info exactly as read.
        _ if r.flags & SHF_COMPRESSED != 0 => Kind::Raw(Cow::Borrowed(r.contents(data)?)),
        _ => Kind::Data { bytes: Cow::Borrowed(r.contents(data)?), link: Link::None },
    };
    Ok(Section {
        name: Cow::Borrowed(name),
        sh_type: r.sh_type,
        flags: r.flags,
        addr: r.addr,
        size: r.size,
        link: r.link,
        info: r.info,
        align: r.align,
        entsize: r.entsize,
        original_offset: r.offset,
        header_at: r.at,
        kind,
    })
}

/// The position a section index names, or an error naming the field that held it.
fn position_of(index: u32, count: usize, at: u64, what: &'static str) -> Result<usize> {
    (index as usize)
        .checked_sub(1)
        .filter(|&p| p < count)
        .ok_or_else(|| err(at, what, format!("a section index between 1 and {count}"), format!("{index}")))
}

/// Whether `index` is a reserved section index llvm-objcopy accepts for this machine.
fn valid_reserved_index(index: u16, machine: u16) -> bool {
    match index {
        SHN_ABS | SHN_COMMON => true,
        0xff00 if machine == EM_AMDGPU => true, // SHN_AMDGPU_LDS
        0xff00 | 0xff03 | 0xff04 if machine == EM_MIPS => true,
        0xff00..=0xff04 if machine == EM_HEXAGON => true,
        _ => false,
    }
}

impl<'a> RelocatableElf<'a> {
    fn read_symbol_table(&mut self, data: &'a [u8], raw: &[RawSection]) -> Result<()> {
        let mut tables = raw.iter().enumerate().filter(|(_, r)| r.sh_type == SHT_SYMTAB);
        let Some((position, r)) = tables.next() else { return Ok(()) };
        if let Some((_, second)) = tables.next() {
            return Err(err(second.at, "symbol table", "one SHT_SYMTAB section", "several"));
        }
        let f = self.form;
        let strtab = position_of(r.link, raw.len(), r.at, "symbol table link")?;
        if !is_string_table(&raw[strtab]) {
            return Err(err(
                r.at,
                "symbol table link",
                "a non-allocated string table",
                format!("section {} of type {:#x}", r.link, raw[strtab].sh_type),
            ));
        }
        let entries = table_entries(data, r, f.sym_size())?;
        let names = raw[strtab].contents(data)?;
        let mut symbols = Vec::with_capacity(entries.len() / f.sym_size() as usize);
        for (i, at) in (0..r.size / f.sym_size()).map(|i| (i as usize, r.offset + i * f.sym_size())) {
            symbols.push(self.read_symbol(data, at, i, names, raw.len())?);
        }
        self.sections[position].kind = Kind::SymbolTable { strtab };
        self.symbols = symbols;
        self.symtab = Some(position);
        Ok(())
    }

    fn read_symbol(&self, data: &'a [u8], at: u64, index: usize, names: &'a [u8], count: usize) -> Result<Symbol<'a>> {
        let f = self.form;
        let (name, info, other, shndx, value, size) = if f.is64 {
            (
                f.u32(data, at, "symbol name")?,
                f.u8(data, at + 4, "symbol info")?,
                f.u8(data, at + 5, "symbol other")?,
                f.u16(data, at + 6, "symbol section")?,
                f.u64(data, at + 8, "symbol value")?,
                f.u64(data, at + 16, "symbol size")?,
            )
        } else {
            (
                f.u32(data, at, "symbol name")?,
                f.u8(data, at + 12, "symbol info")?,
                f.u8(data, at + 13, "symbol other")?,
                f.u16(data, at + 14, "symbol section")?,
                u64::from(f.u32(data, at + 4, "symbol value")?),
                u64::from(f.u32(data, at + 8, "symbol size")?),
            )
        };
        let name = string_at(names, name, at, "symbol name")?;
        let shndx = match shndx {
            0 => SectionIndex::Undefined,
            SHN_XINDEX => {
                return Err(err(
                    at + 6,
                    "symbol section",
                    "a section index below 0xff00 (extended indices are not supported)",
                    "SHN_XINDEX",
                ))
            }
            v if u32::from(v) >= SHN_LORESERVE => {
                if !valid_reserved_index(v, self.header.machine) {
                    return Err(err(
                        at,
                        "symbol section",
                        "a section index or SHN_ABS/SHN_COMMON",
                        format!("{v:#x} for symbol `{}`", String::from_utf8_lossy(name)),
                    ));
                }
                SectionIndex::Reserved(v)
            }
            v => SectionIndex::Section(position_of(u32::from(v), count, at, "symbol section")?),
        };
        Ok(Symbol { name, info, other, shndx, value, size, original_index: index })
    }

    /// Follows the links of relocation sections, groups and data sections.
    fn resolve_links(&mut self, data: &'a [u8], raw: &[RawSection]) -> Result<()> {
        for (i, r) in raw.iter().enumerate() {
            let kind = match &self.sections[i].kind {
                Kind::Relocations { rela, .. } => self.read_relocations(data, r, *rela, raw.len())?,
                Kind::Group { .. } => self.read_group(data, r, raw.len())?,
                Kind::Data { bytes, .. } => {
                    let link = match r.link {
                        0 => Link::None,
                        l => {
                            let p = position_of(l, raw.len(), r.at, "section link")?;
                            if raw[p].sh_type == SHT_SYMTAB {
                                Link::SymbolTable
                            } else {
                                Link::Section(p)
                            }
                        }
                    };
                    Kind::Data { bytes: bytes.clone(), link }
                }
                _ => continue,
            };
            self.sections[i].kind = kind;
        }
        Ok(())
    }

    /// The symbol table a relocation section or group links to (`None` for link 0).
    fn linked_symbol_table(&self, r: &RawSection, count: usize) -> Result<Option<usize>> {
        if r.link == 0 {
            return Ok(None);
        }
        let p = position_of(r.link, count, r.at, "section link")?;
        if Some(p) != self.symtab {
            return Err(err(r.at, "section link", "the symbol table", format!("section {}", r.link)));
        }
        Ok(Some(p))
    }

    fn read_relocations(&self, data: &'a [u8], r: &RawSection, rela: bool, count: usize) -> Result<Kind<'a>> {
        let f = self.form;
        let symtab = self.linked_symbol_table(r, count)?;
        let target = match r.info {
            0 => None,
            i => Some(position_of(i, count, r.at, "relocation section info")?),
        };
        let size = f.rel_size(rela);
        table_entries(data, r, size)?;
        let mut entries = Vec::with_capacity((r.size / size) as usize);
        for at in (0..r.size / size).map(|i| r.offset + i * size) {
            let offset = f.word_at(data, at, "relocation offset")?;
            let info = f.word_at(data, at + f.word(), "relocation info")?;
            let addend = if rela { f.word_at(data, at + 2 * f.word(), "relocation addend")? } else { 0 };
            let symbol = match self.relocation_symbol(info) {
                0 => None,
                s if (s as usize) < self.symbols.len() => Some(s as usize),
                s => {
                    return Err(err(
                        at,
                        "relocation symbol",
                        format!("a symbol index below {}", self.symbols.len()),
                        format!("{s}"),
                    ))
                }
            };
            entries.push(Relocation { offset, info, addend, symbol });
        }
        Ok(Kind::Relocations { rela, symtab, target, entries })
    }

    fn read_group(&self, data: &'a [u8], r: &RawSection, count: usize) -> Result<Kind<'a>> {
        if r.align % 4 != 0 {
            return Err(err(r.at, "group section alignment", "a multiple of 4", format!("{}", r.align)));
        }
        let symtab = self.linked_symbol_table(r, count)?;
        let signature = match symtab {
            Some(_) if (r.info as usize) < self.symbols.len() => Some(r.info as usize),
            Some(_) => {
                return Err(err(
                    r.at,
                    "group signature",
                    format!("a symbol index below {}", self.symbols.len()),
                    format!("{}", r.info),
                ))
            }
            None => None,
        };
        let words = r.contents(data)?;
        if words.is_empty() || words.len() % 4 != 0 {
            return Err(err(
                r.offset,
                "group section contents",
                "a flag word and 4-byte member indices",
                format!("{} bytes", words.len()),
            ));
        }
        let f = self.form;
        let flag_word = f.u32(data, r.offset, "group flags")?;
        let mut members = Vec::with_capacity(words.len() / 4 - 1);
        for at in (1..words.len() as u64 / 4).map(|i| r.offset + 4 * i) {
            members.push(position_of(f.u32(data, at, "group member")?, count, at, "group member")?);
        }
        Ok(Kind::Group { symtab, signature, flag_word, members })
    }

    fn is_mips64el(&self) -> bool {
        self.form.is64 && !self.form.big && self.header.machine == EM_MIPS
    }

    /// The symbol index held in `r_info`.
    fn relocation_symbol(&self, info: u64) -> u64 {
        if !self.form.is64 {
            info >> 8
        } else if self.is_mips64el() {
            // MIPS64 little-endian keeps the symbol in the low 32 bits.
            info & 0xffff_ffff
        } else {
            info >> 32
        }
    }

    /// `r_info` with its symbol index replaced.
    fn with_symbol(&self, info: u64, symbol: u64) -> u64 {
        if !self.form.is64 {
            (info & 0xff) | (symbol << 8)
        } else if self.is_mips64el() {
            (info & !0xffff_ffff) | symbol
        } else {
            (info & 0xffff_ffff) | (symbol << 32)
        }
    }
}

/// Checks a table section's entry size and that its size is a whole number of entries.
fn table_entries<'a>(data: &'a [u8], r: &RawSection, entry: u64) -> Result<&'a [u8]> {
    if r.entsize != entry {
        return Err(err(r.at, "section entry size", format!("{entry}"), format!("{}", r.entsize)));
    }
    if r.size % entry != 0 {
        return Err(err(
            r.at,
            "section size",
            format!("a multiple of the {entry}-byte entry size"),
            format!("{}", r.size),
        ));
    }
    r.contents(data)
}

// ---------------------------------------------------------------------------------------------
// Removing sections
// ---------------------------------------------------------------------------------------------

/// Whether a section goes with the removed ones: a relocation section for a removed section,
/// or a group whose members are all removed.
fn is_dependent_of(s: &Section, doomed: &[bool]) -> bool {
    match &s.kind {
        Kind::Relocations { target: Some(t), .. } => doomed[*t],
        Kind::Group { members, .. } => members.iter().all(|&m| doomed[m]),
        _ => false,
    }
}

impl RelocatableElf<'_> {
    /// Refuses removals that would leave a kept section pointing at a removed one.
    fn check_removable(&self, doomed: &[bool]) -> Result<()> {
        for (i, s) in self.sections.iter().enumerate() {
            if doomed[i] {
                continue;
            }
            if let Kind::Data { link: Link::Section(l), .. } = s.kind {
                if doomed[l] {
                    return Err(err(
                        s.header_at,
                        "section removal",
                        format!("no kept section linking to `{}`", String::from_utf8_lossy(&self.sections[l].name)),
                        format!("`{}` links to it", String::from_utf8_lossy(&s.name)),
                    ));
                }
            }
            if let Kind::Relocations { entries, .. } = &s.kind {
                for e in entries {
                    let defined_in_doomed = e
                        .symbol
                        .and_then(|o| self.symbols.iter().find(|y| y.original_index == o))
                        .is_some_and(|y| matches!(y.shndx, SectionIndex::Section(p) if doomed[p]));
                    if defined_in_doomed {
                        return Err(err(
                            s.header_at,
                            "section removal",
                            "no relocation against a symbol in a removed section",
                            format!("a relocation at {:#x} in `{}`", e.offset, String::from_utf8_lossy(&s.name)),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn remove_symbols_defined_in(&mut self, doomed: &[bool]) -> Result<()> {
        let before = self.symbols.len();
        let signatures: Vec<usize> = self
            .sections
            .iter()
            .enumerate()
            .filter(|(i, _)| !doomed[*i])
            .filter_map(|(_, s)| match s.kind {
                Kind::Group { signature: Some(g), .. } => Some(g),
                _ => None,
            })
            .collect();
        let mut kept = Vec::with_capacity(before);
        for (i, y) in core::mem::take(&mut self.symbols).into_iter().enumerate() {
            let gone = i > 0 && matches!(y.shndx, SectionIndex::Section(p) if doomed[p]);
            if gone && signatures.contains(&y.original_index) {
                return Err(err(
                    0,
                    "section removal",
                    "no removed symbol that names a group",
                    format!("symbol `{}`", String::from_utf8_lossy(y.name)),
                ));
            }
            if !gone {
                kept.push(y);
            }
        }
        self.symbols_removed |= kept.len() < before;
        self.symbols = kept;
        Ok(())
    }

    /// Drops the doomed sections and renumbers every reference to the others.
    fn drop_sections(&mut self, doomed: &[bool]) {
        let mut new_position = Vec::with_capacity(doomed.len());
        let mut next = 0usize;
        for &d in doomed {
            new_position.push(if d { None } else { Some(next) });
            next += usize::from(!d);
        }
        let map = |p: usize| new_position[p];
        let sections = core::mem::take(&mut self.sections);
        for (i, mut s) in sections.into_iter().enumerate() {
            if doomed[i] {
                continue;
            }
            s.kind = match s.kind {
                Kind::Data { bytes, link } => Kind::Data {
                    bytes,
                    link: match link {
                        Link::Section(l) => map(l).map_or(Link::None, Link::Section),
                        other => other,
                    },
                },
                Kind::SymbolTable { strtab } => Kind::SymbolTable { strtab: map(strtab).unwrap_or(0) },
                Kind::Relocations { rela, symtab, target, entries } => {
                    Kind::Relocations { rela, symtab: symtab.and_then(map), target: target.and_then(map), entries }
                }
                Kind::Group { symtab, signature, flag_word, members } => Kind::Group {
                    symtab: symtab.and_then(map),
                    signature,
                    flag_word,
                    members: members.into_iter().filter_map(map).collect(),
                },
                other => other,
            };
            self.sections.push(s);
        }
        for y in &mut self.symbols {
            if let SectionIndex::Section(p) = y.shndx {
                y.shndx = map(p).map_or(SectionIndex::Undefined, SectionIndex::Section);
            }
        }
        self.symtab = self.symtab.and_then(map);
        self.shstrtab = map(self.shstrtab).unwrap_or(0);
    }
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// The rebuilt string tables, by section position.
struct Tables {
    by_position: Vec<Option<StringTable>>,
}

impl Tables {
    fn offset(&self, position: usize, s: &[u8]) -> u32 {
        // Every name was added to its table when the tables were built.
        self.by_position[position].as_ref().and_then(|t| t.offset(s)).unwrap_or(0) as u32
    }
}

/// The output order of symbols: locals first, each group in input order (llvm-objcopy always
/// partitions), and the output index of every original symbol.
struct SymbolOrder {
    order: Vec<usize>,
    new_index: Vec<Option<u32>>,
    changed: bool,
}

impl RelocatableElf<'_> {
    fn symbol_order(&self) -> SymbolOrder {
        let mut order: Vec<usize> = (0..self.symbols.len()).filter(|&i| self.symbols[i].is_local()).collect();
        order.extend((0..self.symbols.len()).filter(|&i| !self.symbols[i].is_local()));
        let original_count = self.symbols.iter().map(|y| y.original_index + 1).max().unwrap_or(0);
        let mut new_index = vec![None; original_count];
        let mut changed = self.symbols_removed;
        for (new, &i) in order.iter().enumerate() {
            let original = self.symbols[i].original_index;
            new_index[original] = Some(new as u32);
            changed |= original != new;
        }
        SymbolOrder { order, new_index, changed }
    }

    fn string_tables(&self) -> Tables {
        let mut names: Vec<Vec<&[u8]>> = vec![Vec::new(); self.sections.len()];
        names[self.shstrtab].extend(self.sections.iter().map(|s| &*s.name));
        if let Some(Kind::SymbolTable { strtab }) = self.symtab.map(|p| &self.sections[p].kind) {
            names[*strtab].extend(self.symbols.iter().map(|y| y.name));
        }
        let by_position = self
            .sections
            .iter()
            .zip(names)
            .map(|(s, n)| matches!(s.kind, Kind::StringTable).then(|| StringTable::build(n)))
            .collect();
        Tables { by_position }
    }

    /// (size, alignment, entry size) of every section as written.
    fn section_sizes(&self, tables: &Tables) -> Result<Vec<(u64, u64, u64)>> {
        let f = self.form;
        self.sections
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let count = |n: usize, each: u64| (n as u64).checked_mul(each).ok_or_else(|| overflow("section size"));
                Ok(match &s.kind {
                    Kind::Data { bytes, .. } if s.sh_type != SHT_NOBITS => (bytes.len() as u64, s.align, s.entsize),
                    Kind::Data { .. } => (s.size, s.align, s.entsize),
                    Kind::Raw(bytes) if s.sh_type != SHT_NOBITS => (bytes.len() as u64, s.align, s.entsize),
                    Kind::Raw(_) => (s.size, s.align, s.entsize),
                    Kind::StringTable => (tables.by_position[i].as_ref().map_or(1, |t| t.len()), s.align, s.entsize),
                    Kind::SymbolTable { .. } => (count(self.symbols.len(), f.sym_size())?, f.word(), f.sym_size()),
                    Kind::Relocations { rela, entries, .. } => {
                        (count(entries.len(), f.rel_size(*rela))?, f.word(), f.rel_size(*rela))
                    }
                    Kind::Group { members, .. } => (count(members.len() + 1, 4)?, s.align, s.entsize),
                })
            })
            .collect()
    }

    /// Bounds the output: alignment padding may at most double what the sections and headers
    /// take (plus 1 MiB), so a hostile alignment cannot make us allocate without limit.
    fn check_padding(&self, total: u64, sizes: &[(u64, u64, u64)]) -> Result<()> {
        let content = self
            .sections
            .iter()
            .zip(sizes)
            .filter(|(s, _)| s.sh_type != SHT_NOBITS)
            .fold(self.form.ehdr_size() + (self.sections.len() as u64 + 1) * self.form.shdr_size(), |n, (_, z)| {
                n.saturating_add(z.0)
            });
        let budget = content.saturating_mul(2).saturating_add(1 << 20);
        if total > budget {
            let widest = sizes.iter().map(|z| z.1).max().unwrap_or(0);
            return Err(err(
                0,
                "section layout",
                format!("at most {budget} bytes once sections are aligned"),
                format!("{total} bytes (largest section alignment {widest:#x})"),
            ));
        }
        Ok(())
    }

    /// File offsets of every section and of the section header table.
    fn layout(&self, sizes: &[(u64, u64, u64)]) -> Result<(Vec<u64>, u64)> {
        let mut by_offset: Vec<usize> = (0..self.sections.len()).collect();
        sort::sort_by_key(&mut by_offset, |&i| self.sections[i].original_offset);
        let mut offsets = vec![0u64; self.sections.len()];
        let mut pos = self.form.ehdr_size();
        for i in by_offset {
            let (size, align, _) = sizes[i];
            pos = align_up(pos, align.max(1)).ok_or_else(|| overflow("section layout"))?;
            offsets[i] = pos;
            if self.sections[i].sh_type != SHT_NOBITS {
                pos = checked_end(pos, size, 0, "section layout")?;
            }
        }
        let shoff = align_up(pos, self.form.word()).ok_or_else(|| overflow("section header table"))?;
        Ok((offsets, shoff))
    }

    fn write_file_header(&self, out: &mut [u8], shoff: u64) {
        let f = self.form;
        let h = &self.header;
        out[..4].copy_from_slice(b"\x7fELF");
        out[4] = if f.is64 { 2 } else { 1 };
        out[5] = if f.big { 2 } else { 1 };
        out[6] = 1;
        out[7] = h.os_abi;
        out[8] = h.abi_version;
        f.put_u16(out, 16, h.e_type);
        f.put_u16(out, 18, h.machine);
        f.put_u32(out, 20, h.version);
        f.put_word(out, 24, h.entry);
        let w = f.word();
        let shoff_at = 24 + 2 * w;
        f.put_word(out, shoff_at, shoff);
        let flags_at = shoff_at + w;
        f.put_u32(out, flags_at, h.flags);
        f.put_u16(out, flags_at + 4, f.ehdr_size() as u16);
        f.put_u16(out, flags_at + 10, f.shdr_size() as u16);
        f.put_u16(out, flags_at + 12, self.sections.len() as u16 + 1);
        f.put_u16(out, flags_at + 14, self.shstrtab as u16 + 1);
    }

    fn write_contents(
        &self,
        out: &mut [u8],
        position: usize,
        at: u64,
        tables: &Tables,
        order: &SymbolOrder,
    ) -> Result<()> {
        let f = self.form;
        let s = &self.sections[position];
        match &s.kind {
            Kind::Data { bytes, .. } | Kind::Raw(bytes) if s.sh_type != SHT_NOBITS => {
                out[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
            }
            Kind::StringTable => {
                if let Some(t) = &tables.by_position[position] {
                    out[at as usize..at as usize + t.bytes().len()].copy_from_slice(t.bytes());
                }
            }
            Kind::SymbolTable { strtab } => {
                for (n, &i) in order.order.iter().enumerate() {
                    self.write_symbol(
                        out,
                        at + n as u64 * f.sym_size(),
                        &self.symbols[i],
                        tables.offset(*strtab, self.symbols[i].name),
                    );
                }
            }
            Kind::Relocations { rela, entries, .. } => {
                let size = f.rel_size(*rela);
                for (n, e) in entries.iter().enumerate() {
                    let base = at + n as u64 * size;
                    let info = match e.symbol {
                        Some(o) => {
                            let new = order.new_index.get(o).copied().flatten().ok_or_else(|| {
                                err(s.header_at, "relocation symbol", "a symbol that is kept", format!("symbol {o}"))
                            })?;
                            self.with_symbol(e.info, u64::from(new))
                        }
                        None => e.info,
                    };
                    f.put_word(out, base, e.offset);
                    f.put_word(out, base + f.word(), info);
                    if *rela {
                        f.put_word(out, base + 2 * f.word(), e.addend);
                    }
                }
            }
            Kind::Group { members, .. } => {
                f.put_u32(out, at, self.group_flag_word(s, order));
                for (n, &m) in members.iter().enumerate() {
                    f.put_u32(out, at + 4 + 4 * n as u64, m as u32 + 1);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The group flag word, without COMDAT when the signature symbol is local (what
    /// llvm-objcopy does, so that a localized group is not deduplicated).
    fn group_flag_word(&self, s: &Section, order: &SymbolOrder) -> u32 {
        let Kind::Group { signature, flag_word, .. } = &s.kind else { return 0 };
        let local = signature
            .and_then(|o| order.new_index.get(o).copied().flatten())
            .and_then(|n| order.order.get(n as usize))
            .is_some_and(|&i| self.symbols[i].is_local());
        if local {
            flag_word & !GRP_COMDAT
        } else {
            *flag_word
        }
    }

    fn write_symbol(&self, out: &mut [u8], at: u64, y: &Symbol, name: u32) {
        let f = self.form;
        let shndx = match y.shndx {
            SectionIndex::Undefined => 0,
            SectionIndex::Section(p) => p as u16 + 1,
            SectionIndex::Reserved(v) => v,
        };
        f.put_u32(out, at, name);
        if f.is64 {
            out[at as usize + 4] = y.info;
            out[at as usize + 5] = y.other;
            f.put_u16(out, at + 6, shndx);
            f.put_u64(out, at + 8, y.value);
            f.put_u64(out, at + 16, y.size);
        } else {
            f.put_u32(out, at + 4, y.value as u32);
            f.put_u32(out, at + 8, y.size as u32);
            out[at as usize + 12] = y.info;
            out[at as usize + 13] = y.other;
            f.put_u16(out, at + 14, shndx);
        }
    }

    /// `sh_link` and `sh_info` of a section as written.
    fn link_and_info(&self, s: &Section, order: &SymbolOrder) -> (u32, u32) {
        let index = |p: usize| p as u32 + 1;
        let symtab_index = self.symtab.map_or(0, index);
        match &s.kind {
            Kind::Data { link, .. } => {
                let l = match link {
                    Link::None => 0,
                    Link::Section(p) => index(*p),
                    Link::SymbolTable if order.changed => 0,
                    Link::SymbolTable => symtab_index,
                };
                (l, s.info)
            }
            Kind::Raw(_) | Kind::StringTable => (s.link, s.info),
            Kind::SymbolTable { strtab } => {
                let last_local = order
                    .order
                    .iter()
                    .enumerate()
                    .filter(|(_, &i)| self.symbols[i].is_local())
                    .map(|(n, _)| n as u32)
                    .max()
                    .unwrap_or(0);
                (index(*strtab), last_local + 1)
            }
            Kind::Relocations { symtab, target, .. } => (symtab.map_or(0, index), target.map_or(s.info, index)),
            Kind::Group { symtab, signature, .. } => (
                symtab.map_or(0, index),
                signature.and_then(|o| order.new_index.get(o).copied().flatten()).unwrap_or(0),
            ),
        }
    }

    fn write_section_headers(
        &self,
        out: &mut [u8],
        shoff: u64,
        offsets: &[u64],
        sizes: &[(u64, u64, u64)],
        tables: &Tables,
        order: &SymbolOrder,
    ) {
        let f = self.form;
        let (w, base) = if f.is64 { (8, 24) } else { (4, 16) };
        for (i, s) in self.sections.iter().enumerate() {
            let at = shoff + (i as u64 + 1) * f.shdr_size();
            let (size, align, entsize) = sizes[i];
            let (link, info) = self.link_and_info(s, order);
            f.put_u32(out, at, tables.offset(self.shstrtab, &s.name));
            f.put_u32(out, at + 4, s.sh_type);
            f.put_word(out, at + 8, s.flags);
            f.put_word(out, at + 8 + w, s.addr);
            f.put_word(out, at + base, offsets[i]);
            f.put_word(out, at + base + w, size);
            f.put_u32(out, at + base + 2 * w, link);
            f.put_u32(out, at + base + 2 * w + 4, info);
            f.put_word(out, at + base + 2 * w + 8, align);
            f.put_word(out, at + base + 3 * w + 8, entsize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 relocatable object: null, .text (4 bytes), .strtab (names), .symtab (null
    /// + one global), laid out the way llvm-objcopy would lay it out.
    fn tiny() -> Vec<u8> {
        let text = [0xc3u8, 0x90, 0x90, 0x90];
        let mut elf = RelocatableElf {
            form: Form { is64: true, big: false },
            header: FileHeader { os_abi: 0, abi_version: 0, e_type: 1, machine: 62, version: 1, entry: 0, flags: 0 },
            sections: Vec::new(),
            symbols: Vec::new(),
            symtab: None,
            shstrtab: 1,
            symbols_removed: false,
        };
        elf.add_section(b".text".to_vec(), Cow::Borrowed(&text[..]), 6);
        elf.sections.push(Section {
            name: Cow::Borrowed(b".strtab"),
            sh_type: SHT_STRTAB,
            flags: 0,
            addr: 0,
            size: 0,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
            original_offset: 0,
            header_at: 0,
            kind: Kind::StringTable,
        });
        elf.sections.push(Section {
            name: Cow::Borrowed(b".symtab"),
            sh_type: SHT_SYMTAB,
            flags: 0,
            addr: 0,
            size: 0,
            link: 0,
            info: 0,
            align: 8,
            entsize: 24,
            original_offset: 0,
            header_at: 0,
            kind: Kind::SymbolTable { strtab: 1 },
        });
        elf.symtab = Some(2);
        elf.symbols.push(Symbol {
            name: b"",
            info: 0,
            other: 0,
            shndx: SectionIndex::Undefined,
            value: 0,
            size: 0,
            original_index: 0,
        });
        elf.symbols.push(Symbol {
            name: b"f",
            info: 0x12,
            other: 0,
            shndx: SectionIndex::Section(0),
            value: 0,
            size: 1,
            original_index: 1,
        });
        elf.write().unwrap()
    }

    #[test]
    fn written_object_reads_back_and_rewrites_identically() {
        let bytes = tiny();
        let elf = RelocatableElf::parse(&bytes).unwrap();
        assert_eq!(elf.symbols.len(), 2);
        assert_eq!(elf.write().unwrap(), bytes, "an unchanged object is written back byte for byte");
    }

    #[test]
    fn added_section_goes_last_and_removal_restores_the_object() {
        let bytes = tiny();
        let mut elf = RelocatableElf::parse(&bytes).unwrap();
        elf.add_section(b"__CLANG_OFFLOAD_BUNDLE__x".to_vec(), Cow::Borrowed(&[1, 2, 3][..]), SHF_EXCLUDE);
        let with = elf.write().unwrap();
        let mut back = RelocatableElf::parse(&with).unwrap();
        let names: Vec<&[u8]> = back.sections.iter().map(|s| &*s.name).collect();
        assert_eq!(names.last().unwrap(), b"__CLANG_OFFLOAD_BUNDLE__x");
        assert_eq!(back.remove_sections(|n| n.starts_with(b"__CLANG")).unwrap(), 1);
        assert_eq!(back.write().unwrap(), bytes);
    }

    #[test]
    fn truncation_never_panics() {
        let bytes = tiny();
        for n in 0..bytes.len() {
            let _ = RelocatableElf::parse(&bytes[..n]);
        }
        let mut corrupt = bytes.clone();
        for i in 0..corrupt.len() {
            let keep = corrupt[i];
            corrupt[i] = 0xff;
            if let Ok(e) = RelocatableElf::parse(&corrupt) {
                let _ = e.write();
            }
            corrupt[i] = keep;
        }
    }

    #[test]
    fn program_headers_are_refused() {
        let mut bytes = tiny();
        bytes[56] = 1; // e_phnum
        let e = RelocatableElf::parse(&bytes).unwrap_err();
        assert_eq!(e.context, "program header count");
        assert_eq!(e.offset, 56);
    }
}
