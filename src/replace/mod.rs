//! Writing a new payload into an offload section of a host file: `.hip_fatbin`,
//! `.llvm.offloading`, `__CLANG_OFFLOAD_BUNDLE__<id>` (ELF), their COFF equivalents (including
//! cut `.hip_fat`-style names) and Mach-O's `__HIP,__hip_fatbin` and `__LLVM,__offloading`.
//! No file I/O: bytes in, bytes out, for the CLI and the web app alike.
//!
//! | input | how the payload goes in | size |
//! |---|---|---|
//! | ELF relocatable object (`ET_REL`) | the object is re-laid out as `llvm-objcopy --update-section` lays it out ([`crate::format::host::elf_rel`]): symbols, relocations, groups kept | grows or shrinks |
//! | COFF object | the section's raw data replaced and every later file pointer (raw data, relocations, line numbers, symbol table, and with it the string table) moved by the difference; the section symbol's length and checksum updated ([`coff`]) | grows or shrinks |
//! | Mach-O object (`MH_OBJECT`) | the section's bytes replaced and every later file offset in the load commands moved (by a multiple of 8, or 4 in 32-bit files, so alignment is kept); addresses never move, so a section can only grow into free address space after it ([`macho`]) | grows (when nothing follows it in the address space) or shrinks |
//! | linked ELF (`ET_EXEC`, `ET_DYN`), PE, linked Mach-O | written in place, the rest of the old size filled with zeros; section sizes unchanged | at most the old size |
//!
//! Shrinking refuses to cut off a symbol or relocation that points into the removed tail.
//! Every result is read back before it is returned: the section must hold the new payload, and
//! exploring the file must find no error that the input did not have.
//!
//! Why linked files keep their section size: after linking, the section's address range is
//! part of a loaded segment whose sizes (`p_filesz`/`p_memsz`, the PE `SizeOfImage` and virtual
//! sizes, a Mach-O segment's `vmsize`) and whose neighbours are fixed; the runtime finds the
//! fat binary by its address and walks it by its own headers (bundle header, each compressed
//! bundle's total size), never by the section size. Keeping the size keeps the headers
//! consistent with the segments; the zero tail reads as the padding such sections already have
//! between compressed bundles.

mod coff;
mod macho;

use crate::error::{Error, Result};
use crate::explore::{explore, Options};
use crate::format::host::elf_rel::RelocatableElf;
use crate::format::host::{self, HostFile, OffloadSection, SectionRole};
use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The rewritten file and what was done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    pub bytes: Vec<u8>,
    /// The section's name as [`host`] shows it.
    pub section: String,
    pub old_size: u64,
    /// The section's size in the new file (the old size when written in place).
    pub new_size: u64,
    /// True when written in place in a linked file (zero-filled to the old size).
    pub in_place: bool,
}

/// Replaces the contents of the offload section `name` of `input` with `payload`.
pub fn replace_section(input: &[u8], name: &str, payload: &[u8]) -> Result<Replacement> {
    let host = host::read_host(input)?;
    let target = find_section(&host, name)?;
    let kind = object::FileKind::parse(input)
        .map_err(|e| Error::new(0, "host file headers", "a readable ELF, COFF or Mach-O file", e.to_string()))?;
    let (bytes, in_place) = match kind {
        object::FileKind::Elf32 | object::FileKind::Elf64 if elf_is_relocatable(input) => {
            (replace_in_elf_object(input, target, payload)?, false)
        }
        object::FileKind::Coff => (coff::replace(input, target, payload)?, false),
        object::FileKind::CoffBig => {
            return Err(Error::new(
                0,
                "host file headers",
                "a regular COFF object (large-object COFF files are not rewritten)",
                "a /bigobj COFF object",
            ))
        }
        object::FileKind::MachO32 | object::FileKind::MachO64 if macho::is_object(input) => {
            (macho::replace(input, target, payload)?, false)
        }
        _ => (in_place(input, target, payload, &host.description)?, true),
    };
    let new_size = if in_place { target.data.len() as u64 } else { payload.len() as u64 };
    verify(input, &bytes, &target.name, payload, new_size)?;
    Ok(Replacement { bytes, section: target.name.clone(), old_size: target.data.len() as u64, new_size, in_place })
}

/// The offload section called `name` (for Mach-O, `segment,section` or just `section` when that
/// is unambiguous), or an error listing the offload sections the file has.
fn find_section<'h, 'a>(host: &'h HostFile<'a>, name: &str) -> Result<&'h OffloadSection<'a>> {
    // HIP's wrapper records (`.hipFatBinSegment`) are pointers the linker fills in, read only to
    // recognise kpack'd binaries: not an offload section to replace.
    let replaceable = || host.sections.iter().filter(|s| s.role != SectionRole::HipFatbinWrapper);
    if let Some(s) = replaceable().find(|s| s.name == name) {
        return Ok(s);
    }
    let by_section_name: Vec<&OffloadSection> =
        replaceable().filter(|s| s.name.split_once(',').is_some_and(|(_, n)| n == name)).collect();
    if let [only] = by_section_name[..] {
        return Ok(only);
    }
    let known: Vec<&str> = replaceable().map(|s| s.name.as_str()).collect();
    let expected = if known.is_empty() {
        String::from("an offload section, but this file has none")
    } else {
        format!("one of this file's offload sections: {}", known.join(", "))
    };
    Err(Error::new(0, "section to replace", expected, format!("`{name}`")))
}

/// Whether `input` is a linked file, whose offload sections keep their size and address when
/// rewritten (the last row of the table above).
pub fn keeps_section_size(input: &[u8]) -> bool {
    match object::FileKind::parse(input) {
        Ok(object::FileKind::Elf32 | object::FileKind::Elf64) => !elf_is_relocatable(input),
        Ok(object::FileKind::Coff | object::FileKind::CoffBig) => false,
        Ok(object::FileKind::MachO32 | object::FileKind::MachO64) => !macho::is_object(input),
        _ => true,
    }
}

fn elf_is_relocatable(input: &[u8]) -> bool {
    // e_type is at byte 16 in both classes, in the file's byte order.
    match (input.get(5), input.get(16..18)) {
        (Some(2), Some(t)) => t == [0, 1],
        (Some(_), Some(t)) => t == [1, 0],
        _ => false,
    }
}

fn replace_in_elf_object(input: &[u8], target: &OffloadSection, payload: &[u8]) -> Result<Vec<u8>> {
    let mut elf = RelocatableElf::parse(input)?;
    let position = target
        .index
        .checked_sub(1)
        .ok_or_else(|| Error::new(0, "section to replace", "a section index of at least 1", "0"))?;
    check_shrink(elf.reference_beyond(position, payload.len() as u64), target, payload)?;
    elf.replace_data(position, Cow::Borrowed(payload))?;
    elf.write()
}

/// Refuses to cut off what points into a section's tail.
fn check_shrink(problem: Option<String>, target: &OffloadSection, payload: &[u8]) -> Result<()> {
    match problem {
        Some(what) => Err(Error::new(
            target.file_offset,
            "replacement payload",
            format!(
                "at least as many bytes as `{}` has symbols and relocations in (the new payload has {})",
                target.name,
                payload.len()
            ),
            format!("{what}, beyond the end of the new payload"),
        )),
        None => Ok(()),
    }
}

/// A linked file: the payload is written over the section's bytes, the rest zero-filled.
fn in_place(input: &[u8], target: &OffloadSection, payload: &[u8], description: &str) -> Result<Vec<u8>> {
    let capacity = target.data.len();
    if payload.len() > capacity {
        return Err(Error::new(
            target.file_offset,
            "replacement payload",
            format!(
                "at most {capacity} bytes, the size of `{}` in this {description}: after linking, what follows the section sits at fixed addresses that code and data refer to, so the section can only be rewritten in place",
                target.name
            ),
            format!("{} bytes, {} over", payload.len(), bytes(payload.len() - capacity)),
        ));
    }
    let start = target.file_offset as usize;
    let mut out = input.to_vec();
    let region = out.get_mut(start..start + capacity).ok_or_else(|| {
        Error::new(
            target.file_offset,
            "section contents",
            format!("{capacity} bytes within the file"),
            "a range past its end",
        )
    })?;
    region[..payload.len()].copy_from_slice(payload);
    region[payload.len()..].fill(0);
    Ok(out)
}

fn bytes(n: usize) -> String {
    if n == 1 {
        String::from("1 byte")
    } else {
        format!("{n} bytes")
    }
}

/// Reads the rewritten file back: the section holds the payload (zero-filled to `size`), and
/// exploring finds no error the input did not have.
fn verify(input: &[u8], out: &[u8], name: &str, payload: &[u8], size: u64) -> Result<()> {
    let fail = |at: u64, expected: &str, found: String| Error::new(at, "rewritten file", expected.to_string(), found);
    let host = host::read_host(out).map_err(|e| fail(e.offset, "a file that reads back", e.to_string()))?;
    let section = host
        .sections
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| fail(0, "the replaced section", format!("no section `{name}`")))?;
    let holds_payload = section.data.len() as u64 == size
        && section.data.starts_with(payload)
        && section.data[payload.len()..].iter().all(|&b| b == 0);
    if !holds_payload {
        return Err(fail(
            section.file_offset,
            "the section to hold the new payload",
            format!("{} other bytes", section.data.len()),
        ));
    }
    let before = error_messages(input);
    let after = error_messages(out);
    if after.len() > before.len() {
        let new = after.iter().find(|m| !before.contains(m)).unwrap_or(&after[0]);
        return Err(fail(
            section.file_offset,
            "a file that explores without new errors",
            format!("`{name}` now reads as: {new}"),
        ));
    }
    Ok(())
}

fn error_messages(data: &[u8]) -> Vec<String> {
    let tree = explore(data, "", &Options::default());
    tree.errors().into_iter().map(|(_, d)| d.message.clone()).collect()
}

// ---------------------------------------------------------------------------------------------
// Shared by the COFF and Mach-O rewriters
// ---------------------------------------------------------------------------------------------

/// Checked integer access in one byte order.
#[derive(Clone, Copy, Debug)]
struct Endian {
    big: bool,
}

impl Endian {
    fn bytes<const N: usize>(self, data: &[u8], at: u64, what: &'static str) -> Result<[u8; N]> {
        let b = crate::util::bytes::slice_at(data, at, N as u64, at, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        if self.big {
            out.reverse();
        }
        Ok(out)
    }
    fn u8(self, data: &[u8], at: u64, what: &'static str) -> Result<u8> {
        Ok(self.bytes::<1>(data, at, what)?[0])
    }
    fn u16(self, data: &[u8], at: u64, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.bytes(data, at, what)?))
    }
    fn u32(self, data: &[u8], at: u64, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.bytes(data, at, what)?))
    }
    fn u64(self, data: &[u8], at: u64, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.bytes(data, at, what)?))
    }
    /// Writes `width` (4 or 8) bytes of `value` at `at`; the caller checked the range when reading.
    fn put(self, out: &mut [u8], at: u64, width: u8, value: u64) {
        let at = at as usize;
        let le = value.to_le_bytes();
        let dst = &mut out[at..at + width as usize];
        dst.copy_from_slice(&le[..width as usize]);
        if self.big {
            dst.reverse();
        }
    }
}

/// The new file: the bytes before the replaced range, the payload, zero padding, the bytes after
/// it; and how positions in the old file map to the new one.
#[derive(Clone, Copy, Debug)]
struct Splice {
    start: u64,
    old_end: u64,
    new_len: u64,
    padding: u64,
}

impl Splice {
    /// Replaces `[start, start + old_len)` by `new_len` bytes, padded so that everything after
    /// moves by a multiple of `step`.
    fn new(start: u64, old_len: u64, new_len: u64, step: u64) -> Result<Splice> {
        let old_end = crate::util::bytes::checked_end(start, old_len, start, "section contents")?;
        let padding = (step - (new_len.wrapping_sub(old_len)) % step) % step;
        Ok(Splice { start, old_end, new_len, padding })
    }

    /// Where a file position of the old file is in the new one. Positions inside the replaced
    /// range belong to no other structure; finding one is an error.
    fn map(&self, p: u64, at: u64, what: &'static str) -> Result<u64> {
        if p <= self.start {
            Ok(p)
        } else if p >= self.old_end {
            let moved = p - self.old_end;
            Ok(self.start + self.new_len + self.padding + moved)
        } else {
            Err(Error::new(
                at,
                what,
                format!("a file position outside the replaced section's bytes {}..{}", self.start, self.old_end),
                format!("{p}"),
            ))
        }
    }

    fn apply(&self, input: &[u8], payload: &[u8]) -> Vec<u8> {
        let (start, end) = (self.start as usize, self.old_end as usize);
        let mut out = Vec::with_capacity(input.len() - (end - start) + payload.len() + self.padding as usize);
        out.extend_from_slice(&input[..start]);
        out.extend_from_slice(payload);
        out.resize(out.len() + self.padding as usize, 0);
        out.extend_from_slice(&input[end..]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_moves_what_follows_by_a_multiple_of_the_step() {
        let s = Splice::new(10, 5, 9, 8).unwrap();
        assert_eq!(s.padding, 4);
        assert_eq!(s.map(10, 0, "x").unwrap(), 10);
        assert_eq!(s.map(3, 0, "x").unwrap(), 3);
        assert_eq!(s.map(15, 0, "x").unwrap(), 15 + 8);
        assert!(s.map(12, 0, "x").is_err());
        let shrink = Splice::new(10, 20, 3, 8).unwrap();
        assert_eq!(shrink.map(30, 0, "x").unwrap(), 30 - 16);
        assert_eq!(Splice::new(0, 4, 6, 1).unwrap().padding, 0);
        let input: Vec<u8> = (0..40).collect();
        let out = Splice::new(10, 5, 2, 4).unwrap().apply(&input, &[0xaa, 0xbb]);
        assert_eq!(&out[..12], &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xaa, 0xbb]);
        // 2 bytes replace 5: 3 bytes of padding make the shift -0, a multiple of 4.
        assert_eq!(&out[12..15], &[0, 0, 0]);
        assert_eq!(out[15], 15);
    }

    #[test]
    fn elf_type_is_read_in_the_files_byte_order() {
        let mut le = [0u8; 18];
        le[5] = 1;
        le[16] = 1;
        assert!(elf_is_relocatable(&le));
        let mut be = [0u8; 18];
        be[5] = 2;
        be[17] = 1;
        assert!(elf_is_relocatable(&be));
        be[17] = 3;
        assert!(!elf_is_relocatable(&be));
        assert!(!elf_is_relocatable(&[]));
    }
}
