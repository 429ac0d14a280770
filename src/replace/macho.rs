//! A Mach-O object (`MH_OBJECT`, 32/64-bit, either byte order) with one section's bytes
//! replaced. The new bytes take the old bytes' place in the file and every file offset stored
//! after them moves by the size difference rounded up to a multiple of 8 (4 in 32-bit files), so
//! what follows keeps its alignment. Addresses never move: symbols (`n_value`) and
//! section-relative relocations hold addresses, so a section can grow only into address space
//! no other section or segment uses, which in practice means the last section by address.
//!
//! `object`'s Mach-O builder would re-lay out the whole file, but it reads neither
//! `LC_VERSION_MIN_*` commands (which clang writes for older deployment targets) nor an object
//! with more than one segment (which `llvm-objcopy --add-section`, the only way to put an
//! offload section in a Mach-O object with LLVM 22, produces), and it reassigns section
//! addresses; so the file is edited in place here instead.
//!
//! | load command | file offsets moved |
//! |---|---|
//! | `LC_SEGMENT`, `LC_SEGMENT_64` | `fileoff` (the end `fileoff + filesize` too, so a segment holding the section grows or shrinks); each section's `offset`, `reloff`; the replaced section's `size` and, when it grows past it, its segment's `vmsize` |
//! | `LC_SYMTAB` | `symoff`, `stroff` |
//! | `LC_DYSYMTAB` | `tocoff`, `modtaboff`, `extrefsymoff`, `indirectsymoff`, `extreloff`, `locreloff` |
//! | `LC_DATA_IN_CODE`, `LC_LINKER_OPTIMIZATION_HINT`, `LC_FUNCTION_STARTS` and the other `linkedit_data_command`s | `dataoff` |
//! | `LC_NOTE` | `offset` |
//! | `LC_VERSION_MIN_*`, `LC_BUILD_VERSION`, `LC_LINKER_OPTION`, `LC_UUID`, `LC_SOURCE_VERSION` | none |
//! | anything else | refused: it might hold an offset this code does not know about |

use super::{check_shrink, Endian, Splice};
use crate::error::{Error, Result};
use crate::format::host::OffloadSection;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

const MH_OBJECT: u32 = 1;
const LC_SEGMENT: u32 = 0x1;
const LC_SYMTAB: u32 = 0x2;
const LC_DYSYMTAB: u32 = 0xb;
const LC_SEGMENT_64: u32 = 0x19;
const LC_NOTE: u32 = 0x31;
/// `linkedit_data_command`s: code signature, split info, function starts, data in code, code
/// signing DRs, linker optimization hints, atom info, exports trie, chained fixups.
const LINKEDIT_DATA: [u32; 9] = [0x1d, 0x1e, 0x26, 0x29, 0x2b, 0x2e, 0x36, 0x8000_0033, 0x8000_0034];
/// Commands without file offsets: version minimums, build version, linker option, UUID,
/// source version.
const NO_OFFSETS: [u32; 8] = [0x24, 0x25, 0x2f, 0x30, 0x32, 0x2d, 0x1b, 0x2a];
/// Section types without bytes in the file (zerofill, GB zerofill, thread-local zerofill).
const ZEROFILL: [u32; 3] = [0x1, 0xc, 0x12];

/// Whether `input` is a Mach-O relocatable object.
pub(super) fn is_object(input: &[u8]) -> bool {
    form(input).and_then(|(e, _)| e.u32(input, 12, "Mach-O file type")).is_ok_and(|t| t == MH_OBJECT)
}

/// Byte order and whether the file is 64-bit, from the magic.
fn form(input: &[u8]) -> Result<(Endian, bool)> {
    match input.get(..4) {
        Some([0xfe, 0xed, 0xfa, 0xce]) => Ok((Endian { big: true }, false)),
        Some([0xfe, 0xed, 0xfa, 0xcf]) => Ok((Endian { big: true }, true)),
        Some([0xce, 0xfa, 0xed, 0xfe]) => Ok((Endian { big: false }, false)),
        Some([0xcf, 0xfa, 0xed, 0xfe]) => Ok((Endian { big: false }, true)),
        other => {
            Err(Error::new(0, "Mach-O magic", "feedface or feedfacf in either byte order", format!("{other:02x?}")))
        }
    }
}

struct Segment {
    /// Where the command is.
    at: u64,
    vmaddr: u64,
    vmsize: u64,
    fileoff: u64,
    filesize: u64,
}

struct Section {
    at: u64,
    segment: usize,
    name: String,
    addr: u64,
    size: u64,
    offset: u32,
    reloff: u32,
    nreloc: u32,
    flags: u32,
}

/// A file offset held in a load command (4 or 8 bytes wide).
struct OffsetField {
    at: u64,
    width: u8,
    value: u64,
    what: &'static str,
}

struct File {
    e: Endian,
    is64: bool,
    segments: Vec<Segment>,
    sections: Vec<Section>,
    offsets: Vec<OffsetField>,
    /// (symoff, nsyms) of `LC_SYMTAB`.
    symbols: Option<(u32, u32)>,
}

impl File {
    fn word(&self, input: &[u8], at: u64, what: &'static str) -> Result<u64> {
        if self.is64 {
            self.e.u64(input, at, what)
        } else {
            self.e.u32(input, at, what).map(u64::from)
        }
    }
    fn word_width(&self) -> u8 {
        if self.is64 {
            8
        } else {
            4
        }
    }
}

fn read_file(input: &[u8]) -> Result<File> {
    let (e, is64) = form(input)?;
    let mut f = File { e, is64, segments: Vec::new(), sections: Vec::new(), offsets: Vec::new(), symbols: None };
    let ncmds = e.u32(input, 16, "Mach-O load command count")?;
    let sizeofcmds = u64::from(e.u32(input, 20, "Mach-O load commands size")?);
    let start = if is64 { 32 } else { 28 };
    let end = crate::util::bytes::checked_end(start, sizeofcmds, 20, "Mach-O load commands size")?;
    crate::util::bytes::slice_at(input, start, sizeofcmds, 20, "Mach-O load commands")?;
    let mut at = start;
    for _ in 0..ncmds {
        let cmd = e.u32(input, at, "Mach-O load command")?;
        let size = u64::from(e.u32(input, at + 4, "Mach-O load command size")?);
        if size < 8 || at + size > end {
            return Err(Error::new(
                at + 4,
                "Mach-O load command size",
                format!("at least 8 bytes, within the {sizeofcmds} bytes of load commands"),
                format!("{size}"),
            ));
        }
        read_command(input, &mut f, cmd, at, size)?;
        at += size;
    }
    Ok(f)
}

fn read_command(input: &[u8], f: &mut File, cmd: u32, at: u64, size: u64) -> Result<()> {
    let e = f.e;
    let mut field = |offset: u64, width: u8, what: &'static str| -> Result<()> {
        let value =
            if width == 8 { e.u64(input, at + offset, what)? } else { u64::from(e.u32(input, at + offset, what)?) };
        f.offsets.push(OffsetField { at: at + offset, width, value, what });
        Ok(())
    };
    match cmd {
        LC_SEGMENT | LC_SEGMENT_64 => return read_segment(input, f, at, size),
        LC_SYMTAB => {
            field(8, 4, "Mach-O symbol table offset")?;
            field(16, 4, "Mach-O string table offset")?;
            f.symbols = Some((
                e.u32(input, at + 8, "Mach-O symbol table offset")?,
                e.u32(input, at + 12, "Mach-O symbol count")?,
            ));
        }
        LC_DYSYMTAB => {
            for offset in [32, 40, 48, 56, 64, 72] {
                field(offset, 4, "Mach-O dynamic symbol table offset")?;
            }
        }
        LC_NOTE => field(24, 8, "Mach-O note offset")?,
        c if LINKEDIT_DATA.contains(&c) => field(8, 4, "Mach-O link-edit data offset")?,
        c if NO_OFFSETS.contains(&c) => {}
        c => {
            return Err(Error::new(at, "Mach-O load command", "a load command whose file offsets are known (segments, symbol tables, link-edit data, notes, versions, linker options)", format!("command {c:#x}")));
        }
    }
    Ok(())
}

fn read_segment(input: &[u8], f: &mut File, at: u64, size: u64) -> Result<()> {
    let w = u64::from(f.word_width());
    let segment = Segment {
        at,
        vmaddr: f.word(input, at + 24, "Mach-O segment address")?,
        vmsize: f.word(input, at + 24 + w, "Mach-O segment size")?,
        fileoff: f.word(input, at + 24 + 2 * w, "Mach-O segment file offset")?,
        filesize: f.word(input, at + 24 + 3 * w, "Mach-O segment file size")?,
    };
    let nsects = u64::from(f.e.u32(input, at + 32 + 4 * w, "Mach-O section count")?);
    let (header, each) = if f.is64 { (72, 80) } else { (56, 68) };
    if header + nsects * each > size {
        return Err(Error::new(
            at + 4,
            "Mach-O load command size",
            format!("room for {nsects} sections"),
            format!("{size} bytes"),
        ));
    }
    let index = f.segments.len();
    f.segments.push(segment);
    for i in 0..nsects {
        let s = at + header + i * each;
        let name_bytes = crate::util::bytes::slice_at(input, s, 32, s, "Mach-O section name")?;
        let text =
            |b: &[u8]| String::from_utf8_lossy(&b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]).into_owned();
        let after_size = s + 32 + 2 * w;
        f.sections.push(Section {
            at: s,
            segment: index,
            name: format!("{},{}", text(&name_bytes[16..]), text(&name_bytes[..16])),
            addr: f.word(input, s + 32, "Mach-O section address")?,
            size: f.word(input, s + 32 + w, "Mach-O section size")?,
            offset: f.e.u32(input, after_size, "Mach-O section offset")?,
            reloff: f.e.u32(input, after_size + 8, "Mach-O relocation offset")?,
            nreloc: f.e.u32(input, after_size + 12, "Mach-O relocation count")?,
            flags: f.e.u32(input, after_size + 16, "Mach-O section flags")?,
        });
    }
    Ok(())
}

/// Replaces the bytes of `target` (its index is the 1-based section ordinal) with `payload`.
pub(super) fn replace(input: &[u8], target: &OffloadSection, payload: &[u8]) -> Result<Vec<u8>> {
    let f = read_file(input)?;
    let ordinal = target.index;
    let t = ordinal.checked_sub(1).and_then(|i| f.sections.get(i)).ok_or_else(|| {
        Error::new(
            16,
            "Mach-O section",
            format!("a section numbered {ordinal}"),
            format!("{} sections", f.sections.len()),
        )
    })?;
    let after_size = t.at + 32 + 2 * u64::from(f.word_width());
    if ZEROFILL.contains(&(t.flags & 0xff)) || t.size == 0 {
        return Err(Error::new(
            after_size,
            "Mach-O section offset",
            "a section with bytes in the file to replace",
            format!("`{}`, empty or zero-filled", t.name),
        ));
    }
    let new_len = payload.len() as u64;
    check_growth(&f, t, new_len)?;
    check_shrink(reference_beyond(input, &f, t, ordinal, new_len)?, target, payload)?;
    let step = u64::from(f.word_width());
    let splice = Splice::new(u64::from(t.offset), t.size, new_len, step)?;
    let mut out = splice.apply(input, payload);
    patch_offsets(&mut out, &f, &splice)?;
    patch_segments(&mut out, &f, &splice, t, new_len)?;
    f.e.put(&mut out, t.at + 32 + step, f.word_width(), new_len);
    Ok(out)
}

/// A grown section must not run into another section or segment: addresses are fixed.
fn check_growth(f: &File, t: &Section, new_len: u64) -> Result<()> {
    if new_len <= t.size {
        return Ok(());
    }
    let end = t.addr.saturating_add(new_len);
    let overlaps = |addr: u64, size: u64| size > 0 && addr < end && addr.saturating_add(size) > t.addr;
    let section = f
        .sections
        .iter()
        .find(|s| !core::ptr::eq(*s, t) && overlaps(s.addr, s.size))
        .map(|s| (format!("section `{}`", s.name), s.addr));
    let segment = f
        .segments
        .iter()
        .enumerate()
        .find(|(i, g)| *i != t.segment && overlaps(g.vmaddr, g.vmsize))
        .map(|(_, g)| (String::from("another segment"), g.vmaddr));
    if let Some((what, addr)) = section.or(segment) {
        return Err(Error::new(
            t.at + 32,
            "Mach-O section address range",
            format!("free addresses {:#x}..{end:#x} for `{}` to grow from {} to {new_len} bytes (addresses in a Mach-O object are fixed by its symbols and relocations, so only a section with nothing after it in the address space can grow)", t.addr, t.name, t.size),
            format!("{what} at address {addr:#x}"),
        ));
    }
    Ok(())
}

/// A relocation in the section, or a symbol defined in it, beyond `len`.
fn reference_beyond(input: &[u8], f: &File, t: &Section, ordinal: usize, len: u64) -> Result<Option<String>> {
    for i in 0..u64::from(t.nreloc) {
        let at = u64::from(t.reloff) + 8 * i;
        let word = f.e.u32(input, at, "Mach-O relocation")?;
        // Scattered relocations keep a 24-bit address under their top bit.
        let address = if word & 0x8000_0000 != 0 { u64::from(word & 0x00ff_ffff) } else { u64::from(word) };
        if address >= len {
            return Ok(Some(format!("a relocation at offset {address:#x}")));
        }
    }
    let Some((symoff, nsyms)) = f.symbols else { return Ok(None) };
    let each = if f.is64 { 16 } else { 12 };
    for i in 0..u64::from(nsyms) {
        let at = u64::from(symoff) + i * each;
        let n_type = f.e.u8(input, at + 4, "Mach-O symbol type")?;
        let n_sect = f.e.u8(input, at + 5, "Mach-O symbol section")?;
        let value = f.word(input, at + 8, "Mach-O symbol value")?;
        let in_section = n_type & 0xe0 == 0 && n_type & 0x0e == 0x0e && usize::from(n_sect) == ordinal;
        if in_section && value > t.addr.saturating_add(len) {
            return Ok(Some(format!("the symbol at byte {at} (address {value:#x})")));
        }
    }
    Ok(None)
}

fn patch_offsets(out: &mut [u8], f: &File, splice: &Splice) -> Result<()> {
    for o in &f.offsets {
        // 0 means "none"; it is before everything and never moves.
        let moved = splice.map(o.value, o.at, o.what)?;
        f.e.put(out, o.at, o.width, moved);
    }
    for s in &f.sections {
        let after_size = s.at + 32 + 2 * u64::from(f.word_width());
        if !ZEROFILL.contains(&(s.flags & 0xff)) {
            f.e.put(out, after_size, 4, splice.map(u64::from(s.offset), after_size, "Mach-O section offset")?);
        }
        if s.nreloc != 0 {
            f.e.put(
                out,
                after_size + 8,
                4,
                splice.map(u64::from(s.reloff), after_size + 8, "Mach-O relocation offset")?,
            );
        }
    }
    Ok(())
}

/// Moves each segment's file range, and lets the replaced section's segment cover its new size.
fn patch_segments(out: &mut [u8], f: &File, splice: &Splice, t: &Section, new_len: u64) -> Result<()> {
    let w = u64::from(f.word_width());
    for (i, g) in f.segments.iter().enumerate() {
        if g.filesize != 0 {
            let start = splice.map(g.fileoff, g.at + 24 + 2 * w, "Mach-O segment file offset")?;
            let end =
                splice.map(g.fileoff.saturating_add(g.filesize), g.at + 24 + 3 * w, "Mach-O segment file size")?;
            f.e.put(out, g.at + 24 + 2 * w, f.word_width(), start);
            f.e.put(out, g.at + 24 + 3 * w, f.word_width(), end.saturating_sub(start));
        }
        let needed = t.addr.saturating_add(new_len).saturating_sub(g.vmaddr);
        if i == t.segment && needed > g.vmsize {
            f.e.put(out, g.at + 24 + w, f.word_width(), needed);
        }
    }
    Ok(())
}
