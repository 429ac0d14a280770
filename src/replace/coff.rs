//! A COFF object with one section's raw data replaced. The `object` crate has no COFF builder,
//! so the re-layout is done here: the new data takes the old data's place and every structure
//! stored after it moves by the size difference.
//!
//! | part | offset | size | what changes |
//! |---|---|---|---|
//! | file header | 0 | 20 | `PointerToSymbolTable` (u32 at 8) moves |
//! | optional header | 20 | `SizeOfOptionalHeader` (u16 at 16), 0 in objects | nothing |
//! | section table | after it | 40 per section (`NumberOfSections`, u16 at 2) | `PointerToRawData` (20), `PointerToRelocations` (24), `PointerToLinenumbers` (28) move; the replaced section's `SizeOfRawData` (16) is the new size |
//! | raw data, relocations (10 bytes each), line numbers (6 bytes each) | anywhere after the section table | | moved when after the replaced data |
//! | symbol table | `PointerToSymbolTable` | 18 per record (`NumberOfSymbols`, u32 at 12) | the section definition of the replaced section (static symbol, value 0, with an auxiliary record) gets the new `Length` (aux u32 at 0) and, when it had one, the new `CheckSum` (aux u32 at 8, LLVM's JamCRC of the data) |
//! | string table | right after the symbol table | u32 size (counting itself), then names | moves with the symbol table |
//!
//! Relocations of other sections that refer to the replaced section do so through symbols, so
//! they stay valid; relocations *in* the replaced section, and symbols defined in it, must stay
//! within the new size.

use super::{check_shrink, Endian, Splice};
use crate::error::{Error, Result};
use crate::format::host::OffloadSection;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

const LE: Endian = Endian { big: false };
const SECTION_HEADER: u64 = 40;
const SYMBOL: u64 = 18;
const RELOCATION: u64 = 10;
const LINE_NUMBER: u64 = 6;
/// `IMAGE_SCN_CNT_UNINITIALIZED_DATA`: a section with no raw data.
const UNINITIALIZED: u32 = 0x80;
/// `IMAGE_SCN_LNK_NRELOC_OVFL`: the relocation count is in the first relocation.
const NRELOC_OVFL: u32 = 0x0100_0000;
const IMAGE_SYM_CLASS_STATIC: u8 = 3;

struct SectionHeader {
    /// Where the header is in the file.
    at: u64,
    raw_size: u32,
    raw_pointer: u32,
    relocations: u32,
    line_numbers: u32,
    relocation_count: u64,
    line_number_count: u16,
    characteristics: u32,
}

struct File {
    symbol_table: u32,
    symbol_count: u32,
    sections: Vec<SectionHeader>,
}

fn read_file(input: &[u8]) -> Result<File> {
    let count = LE.u16(input, 2, "COFF section count")?;
    let symbol_table = LE.u32(input, 8, "COFF symbol table pointer")?;
    let symbol_count = LE.u32(input, 12, "COFF symbol count")?;
    let optional = LE.u16(input, 16, "COFF optional header size")?;
    let table = 20 + u64::from(optional);
    let mut sections = Vec::with_capacity(count as usize);
    for i in 0..u64::from(count) {
        sections.push(read_section_header(input, table + i * SECTION_HEADER)?);
    }
    let file = File { symbol_table, symbol_count, sections };
    check_ranges(input, &file)?;
    Ok(file)
}

fn read_section_header(input: &[u8], at: u64) -> Result<SectionHeader> {
    let characteristics = LE.u32(input, at + 36, "COFF section characteristics")?;
    let relocations = LE.u32(input, at + 24, "COFF relocation pointer")?;
    let mut relocation_count = u64::from(LE.u16(input, at + 32, "COFF relocation count")?);
    if characteristics & NRELOC_OVFL != 0 && relocation_count == 0xffff {
        // The real count is the first relocation's VirtualAddress, and includes that entry.
        relocation_count = u64::from(LE.u32(input, u64::from(relocations), "COFF extended relocation count")?);
    }
    Ok(SectionHeader {
        at,
        raw_size: LE.u32(input, at + 16, "COFF section raw size")?,
        raw_pointer: LE.u32(input, at + 20, "COFF section raw data pointer")?,
        relocations,
        line_numbers: LE.u32(input, at + 28, "COFF line number pointer")?,
        relocation_count,
        line_number_count: LE.u16(input, at + 34, "COFF line number count")?,
        characteristics,
    })
}

/// Every range the headers describe lies within the file.
fn check_ranges(input: &[u8], f: &File) -> Result<()> {
    let within = |start: u32, size: u64, at: u64, what: &'static str| {
        crate::util::bytes::slice_at(input, u64::from(start), size, at, what).map(|_| ())
    };
    for s in &f.sections {
        if s.characteristics & UNINITIALIZED == 0 && s.raw_pointer != 0 {
            within(s.raw_pointer, u64::from(s.raw_size), s.at + 20, "COFF section raw data")?;
        }
        if s.relocation_count != 0 {
            within(s.relocations, s.relocation_count * RELOCATION, s.at + 24, "COFF relocations")?;
        }
        within(s.line_numbers, u64::from(s.line_number_count) * LINE_NUMBER, s.at + 28, "COFF line numbers")?;
    }
    let symbols = u64::from(f.symbol_count) * SYMBOL;
    within(f.symbol_table, symbols, 8, "COFF symbol table")?;
    if f.symbol_table != 0 {
        let strings_at = u64::from(f.symbol_table) + symbols;
        let size = LE.u32(input, strings_at, "COFF string table size")?;
        within(strings_at as u32, u64::from(size.max(4)), strings_at, "COFF string table")?;
    }
    Ok(())
}

/// Replaces the raw data of `target` (its index is the 1-based section number) with `payload`.
pub(super) fn replace(input: &[u8], target: &OffloadSection, payload: &[u8]) -> Result<Vec<u8>> {
    let number = target.index;
    let f = read_file(input)?;
    let t = number.checked_sub(1).and_then(|i| f.sections.get(i)).ok_or_else(|| {
        Error::new(
            2,
            "COFF section count",
            format!("a section numbered {number}"),
            format!("{} sections", f.sections.len()),
        )
    })?;
    if t.characteristics & UNINITIALIZED != 0 || t.raw_pointer == 0 || t.raw_size == 0 {
        return Err(Error::new(
            t.at + 20,
            "COFF section raw data",
            "a section with bytes in the file to replace",
            "an empty or uninitialized section",
        ));
    }
    let new_len = u32::try_from(payload.len()).map_err(|_| {
        Error::new(t.at + 16, "COFF section raw size", "a payload below 4 GiB", format!("{} bytes", payload.len()))
    })?;
    check_shrink(reference_beyond(input, &f, t, number, new_len)?, target, payload)?;
    // COFF objects pack their parts without alignment: move what follows by the exact difference.
    let splice = Splice::new(u64::from(t.raw_pointer), u64::from(t.raw_size), u64::from(new_len), 1)?;
    let mut out = splice.apply(input, payload);
    patch_header(&mut out, &f, &splice)?;
    patch_section_table(&mut out, &f, &splice, number, new_len)?;
    patch_section_definition(&mut out, &f, &splice, number, payload)?;
    Ok(out)
}

/// A relocation applied in the section, or a symbol defined in it, beyond `len`.
fn reference_beyond(input: &[u8], f: &File, t: &SectionHeader, number: usize, len: u32) -> Result<Option<String>> {
    for i in 0..t.relocation_count {
        let at = u64::from(t.relocations) + i * RELOCATION;
        let address = LE.u32(input, at, "COFF relocation address")?;
        let is_count = i == 0 && t.characteristics & NRELOC_OVFL != 0 && t.relocation_count > 0xfffe;
        if !is_count && address >= len {
            return Ok(Some(format!("a relocation at offset {address:#x}")));
        }
    }
    for_each_symbol(input, f, |at, section, value, class, aux| {
        let definition = class == IMAGE_SYM_CLASS_STATIC && aux > 0 && value == 0;
        Ok((section == number as i16 && !definition && value > len)
            .then(|| format!("the symbol at byte {at} (value {value:#x})")))
    })
}

/// Calls `visit(at, section number, value, storage class, aux count)` for every symbol record
/// (auxiliary records skipped) until it returns something.
fn for_each_symbol<T>(
    input: &[u8],
    f: &File,
    mut visit: impl FnMut(u64, i16, u32, u8, u8) -> Result<Option<T>>,
) -> Result<Option<T>> {
    let mut i = 0u64;
    while i < u64::from(f.symbol_count) {
        let at = u64::from(f.symbol_table) + i * SYMBOL;
        let value = LE.u32(input, at + 8, "COFF symbol value")?;
        let section = LE.u16(input, at + 12, "COFF symbol section")? as i16;
        let class = LE.u8(input, at + 16, "COFF symbol storage class")?;
        let aux = LE.u8(input, at + 17, "COFF symbol auxiliary count")?;
        if let Some(found) = visit(at, section, value, class, aux)? {
            return Ok(Some(found));
        }
        i += 1 + u64::from(aux);
    }
    Ok(None)
}

fn patch_header(out: &mut [u8], f: &File, splice: &Splice) -> Result<()> {
    if f.symbol_table != 0 {
        let moved = splice.map(u64::from(f.symbol_table), 8, "COFF symbol table pointer")?;
        LE.put(out, 8, 4, moved);
    }
    Ok(())
}

fn patch_section_table(out: &mut [u8], f: &File, splice: &Splice, number: usize, new_len: u32) -> Result<()> {
    for (i, s) in f.sections.iter().enumerate() {
        // A pointer of 0 means "none" in COFF; it is before everything, so it never moves.
        for (field, value, what) in [
            (20, s.raw_pointer, "COFF section raw data pointer"),
            (24, s.relocations, "COFF relocation pointer"),
            (28, s.line_numbers, "COFF line number pointer"),
        ] {
            let moved = splice.map(u64::from(value), s.at + field, what)?;
            LE.put(out, s.at + field, 4, moved);
        }
        if i + 1 == number {
            LE.put(out, s.at + 16, 4, u64::from(new_len));
        }
    }
    Ok(())
}

/// Updates the replaced section's section definition (the static symbol naming the section),
/// read in the new file at its new place.
fn patch_section_definition(out: &mut [u8], f: &File, splice: &Splice, number: usize, payload: &[u8]) -> Result<()> {
    let moved = File {
        symbol_table: splice.map(u64::from(f.symbol_table), 8, "COFF symbol table pointer")? as u32,
        symbol_count: f.symbol_count,
        sections: Vec::new(),
    };
    let aux = for_each_symbol(out, &moved, |at, section, value, class, aux| {
        Ok((section == number as i16 && class == IMAGE_SYM_CLASS_STATIC && aux > 0 && value == 0)
            .then_some(at + SYMBOL))
    })?;
    if let Some(aux) = aux {
        LE.put(out, aux, 4, payload.len() as u64);
        if LE.u32(out, aux + 8, "COFF section checksum")? != 0 {
            LE.put(out, aux + 8, 4, u64::from(jamcrc(payload)));
        }
    }
    Ok(())
}

/// The checksum LLVM writes in a COFF section definition: its JamCRC (CRC-32 without the final
/// inversion) started from 0 rather than the usual all-ones.
pub(crate) fn jamcrc(data: &[u8]) -> u32 {
    let mut crc = 0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_is_jamcrc_from_zero() {
        // Python: ~zlib.crc32(data, 0xffffffff) & 0xffffffff
        assert_eq!(jamcrc(b"123456789"), 0x2dfd_2d88);
        assert_eq!(jamcrc(b""), 0);
    }
}
